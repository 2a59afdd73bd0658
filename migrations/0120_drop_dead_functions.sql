-- SQL functions that nothing calls any more: no C statement, no other function, trigger or
-- generated column names them (issue #32). Their callers moved to the stored documents and
-- pages: imx_advisory_affected_json to imx_advisory_affected_page (functions/advisories.sql),
-- imx_image_newer_in_family to imx_image_lineage (functions/lineage.sql), imx_ref_rows to
-- imx_ref_page (functions/reference.sql), imx_request_json to imx_request_json_bounded
-- (functions/requests.sql). IF EXISTS: a database created after the move never had them (and
-- is not told so: a NOTICE per function in every fresh database's log says nothing useful).
SET LOCAL client_min_messages = warning;
DROP FUNCTION IF EXISTS imx_advisory_affected_json(text);
DROP FUNCTION IF EXISTS imx_image_newer_in_family(bigint);
DROP FUNCTION IF EXISTS imx_ref_rows(text);
DROP FUNCTION IF EXISTS imx_request_json(bigint);
