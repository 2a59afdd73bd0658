-- Reference data updated without a release: `imaxe-server reference import DIR` loads one CSV per
-- ref_ table (server/cli/reference.c), shows what changes, and applies it in one transaction:
-- imx_ref_import() below, then the stored compatibility report of every image whose findings
-- change is recomputed with an image.compatibility_changed event each.

-- Which reference data is loaded, and when: the shipped rows, then one row per import.
CREATE TABLE ref_data_versions (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  data_version text NOT NULL CHECK (length(data_version) BETWEEN 1 AND 200),
  loaded_at    timestamptz NOT NULL DEFAULT now(),
  changes      jsonb NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE ref_data_versions IS
  'Reference data loads: the migrations'' rows, then each `imaxe-server reference import` with what it added, changed and removed per table. The newest row is the data version in use.';
INSERT INTO ref_data_versions (data_version) VALUES ('shipped (migrations 0003, 0016)');

-- imaxe:load functions/reference.sql

-- imaxe:load functions/events.sql
