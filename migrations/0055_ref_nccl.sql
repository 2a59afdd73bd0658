-- NCCL against the CUDA it was built for. NVIDIA ships each NCCL release as one build per CUDA
-- toolkit (nccl_2.12.12-1+cuda11.6, ...); a build links that major's CUDA runtime, so an image
-- whose CUDA major has no build of its NCCL release does not run collectives. The rows come
-- from NVIDIA's NCCL release notes ("This NCCL release supports CUDA ...") and NVIDIA's redist
-- index of the release's archives, and are generated into 0056 from tools/reference/nccl.csv
-- (tools/gen_knowledge.py --table nccl). Only releases whose complete list of builds was read
-- are rows: a release that is not a row is not checked (server/domain/compat.c).

CREATE TABLE ref_nccl (
  nccl_version     text PRIMARY KEY CHECK (nccl_version ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  nccl_version_key int[] GENERATED ALWAYS AS (imx_version_key(nccl_version)) STORED,
  cuda_majors      int[] NOT NULL
    CHECK (cardinality(cuda_majors) BETWEEN 1 AND 4 AND 0 < ALL (cuda_majors)
           AND 100 > ALL (cuda_majors)),
  cuda_builds      text NOT NULL
    CHECK (cuda_builds ~ '^[0-9]{1,3}[.][0-9]{1,3}(, [0-9]{1,3}[.][0-9]{1,3}){0,15}$'),
  status           text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source           text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes            text CHECK (length(notes) <= 1000)
);
COMMENT ON TABLE ref_nccl IS
  'NCCL release -> the CUDA majors it has builds for (cuda_majors) and the toolkits those builds were made with (cuda_builds, as NVIDIA names the archives), from NVIDIA''s NCCL release notes and redist index. The validator finds a row by major.minor.patch: nccl_cuda_major_mismatch when the stack''s CUDA major has no build.';

CREATE TRIGGER ref_nccl_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_nccl FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

-- imaxe:load functions/reference.sql
