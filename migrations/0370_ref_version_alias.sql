-- A component numbered two ways (issue #30): Triton Inference Server has its own version (2.40.0)
-- and ships as an NGC container release (23.11), the number the catalog records for
-- triton-server. NVIDIA's bulletins use either (5509: "All versions prior to 2.40"; 5535 on:
-- "24.04"), so the CSAF import reads a version in the component's own numbering through these
-- pairs (server/domain/csaf.c, the "aliases" of a ref_nvidia_product row, server/db/product_map.c).
-- The rows are generated into 0371 from tools/reference/version_alias_0371.csv
-- (tools/triton_releases.py reads them from the release branches; tools/gen_knowledge.py --table
-- version_alias_0371) and updated by `imaxe-server reference import`. An UNCONFIRMED row is kept
-- but never read by the import.

CREATE TABLE ref_version_alias (
  component   text NOT NULL CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
  version     text NOT NULL CHECK (version ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  version_key int[] GENERATED ALWAYS AS (imx_version_key(version)) STORED,
  release     text NOT NULL CHECK (release ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  release_key int[] GENERATED ALWAYS AS (imx_version_key(release)) STORED,
  status      text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source      text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes       text CHECK (length(notes) <= 1000),
  PRIMARY KEY (component, version),
  UNIQUE (component, release)
);
COMMENT ON TABLE ref_version_alias IS
  'A component''s own version -> the release number the catalog records for it (Triton server 2.40.0 = NGC container 23.11). Read by the CSAF import through the product mapping (server/db/product_map.c).';

CREATE TRIGGER ref_version_alias_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_version_alias FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

-- The reference import's table list (imx_ref_table_ok, imx_ref_import_order) names it; their
-- current bodies live in functions/reference.sql.
