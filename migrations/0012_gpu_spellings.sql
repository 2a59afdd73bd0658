-- A gpu filter also matches the spellings stored for a name no reference row knows (such names
-- are kept as given at publish) in any case: gpu=mysterygpu finds images published with
-- MysteryGPU (server/db/images.c, stmt_gpu_spellings). Case is folded for ASCII letters only,
-- byte by byte, exactly as the in-memory index folds it (server/domain/image_index.c).
CREATE FUNCTION imx_ascii_lower(s text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT translate(s, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
$$;

CREATE INDEX image_gpus_ascii_lower ON image_gpus (imx_ascii_lower(gpu));
