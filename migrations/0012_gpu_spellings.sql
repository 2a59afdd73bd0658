-- A gpu filter also matches the spellings stored for names no reference row knows (they are
-- kept as given at publish), in any case: gpu=mysterygpu finds images published with
-- MysteryGPU (server/db/images.c, stmt_gpu_models). This index answers that lookup.
CREATE INDEX image_gpus_lower ON image_gpus (lower(gpu));
