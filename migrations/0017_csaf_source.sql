-- Advisories imported from CSAF 2.0 documents (NVIDIA's security bulletins; server/domain/csaf.c)
-- say so in their source, as OSV imports do.
ALTER TABLE advisories DROP CONSTRAINT advisories_source_check,
  ADD CONSTRAINT advisories_source_check CHECK (source IN ('imaxe', 'osv', 'csaf'));
