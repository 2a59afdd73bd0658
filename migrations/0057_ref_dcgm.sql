-- DCGM against the NVIDIA driver. Each DCGM release's notes name the oldest driver it runs on
-- ("This version of DCGM (v3.1) requires a minimum R450 Linux datacenter driver (>= 450.80.02)").
-- The rows are generated into 0058 from tools/reference/dcgm.csv (tools/gen_knowledge.py --table
-- dcgm). A row is a DCGM major.minor; a DCGM release whose major.minor is not a row is not
-- checked (server/domain/compat.c).

CREATE TABLE ref_dcgm (
  dcgm_version      text PRIMARY KEY CHECK (dcgm_version ~ '^[0-9]{1,3}[.][0-9]{1,3}$'),
  dcgm_version_key  int[] GENERATED ALWAYS AS (imx_version_key(dcgm_version)) STORED,
  driver_branch_min int NOT NULL CHECK (driver_branch_min BETWEEN 1 AND 9999),
  driver_min        text CHECK (driver_min ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  status            text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source            text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes             text CHECK (length(notes) <= 1000),
  CHECK (driver_min IS NULL OR split_part(driver_min, '.', 1)::int = driver_branch_min)
);
COMMENT ON TABLE ref_dcgm IS
  'DCGM major.minor -> the oldest NVIDIA driver branch (and exact version, when the notes give one) it runs on, from NVIDIA''s DCGM release notes and user guides. The validator: dcgm_driver_too_old.';

CREATE TRIGGER ref_dcgm_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_dcgm FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

