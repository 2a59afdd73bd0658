-- A bulletin imported from its publisher's machine-readable document (CSAF 2.0:
-- document.tracking.version) keeps that document's version, so that importing a newer
-- revision of the same bulletin revises the advisory (procedures/advisory_publish.sql) and an
-- older or the same one is refused; and its CVSS v4.0 base score beside the v3.1 one.
ALTER TABLE advisories
  ADD COLUMN source_version text CHECK (source_version IS NULL OR imx_version_key(source_version) IS NOT NULL),
  ADD COLUMN cvss_v4 numeric(3,1) CHECK (cvss_v4 BETWEEN 0 AND 10);

