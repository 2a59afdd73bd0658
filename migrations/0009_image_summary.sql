-- The search summary stored on every image row, so that a search page aggregates stored JSON
-- instead of building 50 json_build_object summaries (half of the page statement's execution,
-- bench/RESULTS.md). A BEFORE row trigger keeps it from the row itself (the search keys copied
-- from the child tables arrive by UPDATE of the row, so it follows them too). It is built as
-- imx_image_summary() builds it, with the stored status and published_at rendered in UTC:
-- readers use it only when the image has no revoke_at (the status then never depends on the
-- time) and their session's TimeZone renders the same text (server/db/images.c).
ALTER TABLE images ADD COLUMN summary json;

-- imaxe:load functions/images.sql

CREATE TRIGGER images_summary BEFORE INSERT OR UPDATE ON images
  FOR EACH ROW EXECUTE FUNCTION imx_image_summary_store();

UPDATE images SET summary = NULL;
