-- The CSAF bulletin an advisory was imported from, as it was posted (issue 30): a product the
-- import left out (advisories.unmapped) can be mapped by a later reference update, and
-- POST /v1/advisories:reapply (server/api/advisory_reapply.c) then reads the bulletin again
-- through the current ref_nvidia_product. Written by imx_advisory_publish() for a CSAF import;
-- advisories imported before this migration have none (re-importing a newer revision adds it).
CREATE TABLE advisory_csaf_docs (
    advisory_id text PRIMARY KEY REFERENCES advisories (id) ON DELETE CASCADE,
    doc         jsonb NOT NULL CHECK (jsonb_typeof(doc) = 'object'),
    stored_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE advisory_csaf_docs IS
  'The CSAF document each CSAF-imported advisory was read from, kept for re-application after a reference update.';
