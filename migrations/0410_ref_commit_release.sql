-- A fix named by a code commit (issue #30): NVIDIA's bulletins for WebDataset, NVTabular,
-- Transformers4Rec and BioNeMo Framework name no version ("All versions that do not include code
-- commit 9e95f50", "Any code branch that includes commit 5dd11f4"), while an image publishes the
-- release it carries. This table gives, per component and commit, the first release that contains
-- the commit, or none (release NULL: no release contained it in the repository as of as_of), so
-- the CSAF import reads "not include commit X" as every release before that one
-- (server/domain/csaf.c, the "commits" of a ref_nvidia_product row, server/db/product_map.c), and
-- leaves the product out, saying so, while no release has it. The rows are generated into 0411
-- from tools/reference/commit_release_0411.csv (tools/commit_releases.py reads them from the
-- component's repository; tools/gen_knowledge.py --table commit_release_0411) and updated by
-- `imaxe-server reference import`; a row that gains a release is picked up by
-- POST /v1/advisories:reapply. An UNCONFIRMED row is kept but never read by the import.

CREATE TABLE ref_commit_release (
  component   text NOT NULL CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
  commit      text NOT NULL CHECK (commit ~ '^[0-9a-f]{40}$'),
  release     text CHECK (release ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  release_key int[] GENERATED ALWAYS AS (imx_version_key(release)) STORED,
  as_of       date NOT NULL,
  status      text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source      text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes       text CHECK (length(notes) <= 1000),
  PRIMARY KEY (component, commit)
);
COMMENT ON TABLE ref_commit_release IS
  'A component''s code commit -> the first release containing it (NULL: none as of as_of). Read by the CSAF import through the product mapping (server/db/product_map.c) for fixes named by commit.';

CREATE TRIGGER ref_commit_release_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_commit_release FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

-- The reference import's table list (imx_ref_table_ok, imx_ref_import_order) names it; their
-- current bodies live in functions/reference.sql.
