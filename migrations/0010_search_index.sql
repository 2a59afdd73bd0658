-- What a server's in-memory search index (server/db/image_index.c) needs to stay exactly as
-- current as the images table, without a query per search beyond one primary-key read:
--   * images.written_xid: the transaction that last wrote each row, so that a server holding a
--     copy as of a snapshot can fetch only the rows written since (pg_visible_in_snapshot);
--   * image_index_state.generation: moved at the commit of every transaction that writes
--     images (a deferred trigger, once per transaction), so a server sees with one row read
--     whether anything was committed since its copy. The row lock is taken at commit, the last
--     lock such a transaction takes, so generations follow commit order and nothing waits on it
--     for longer than a commit;
--   * image_index_state.deletions: moved by DELETE and TRUNCATE (rows a delta cannot show), and
--     instance: a new value in a restored or different database; either makes a server reload.
-- The family sort and the facet lists order text by bytes (COLLATE "C") in SQL and in C alike,
-- whatever the database's locale.

ALTER TABLE images ALTER COLUMN family TYPE text COLLATE "C";

ALTER TABLE images ADD COLUMN written_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX images_written_xid ON images (written_xid);

-- imaxe:load functions/images.sql

CREATE TRIGGER images_written BEFORE INSERT OR UPDATE ON images
  FOR EACH ROW EXECUTE FUNCTION imx_image_written();

CREATE TABLE image_index_state (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    instance   uuid NOT NULL DEFAULT gen_random_uuid(),
    generation bigint NOT NULL DEFAULT 1,
    deletions  bigint NOT NULL DEFAULT 0
);
INSERT INTO image_index_state DEFAULT VALUES;
COMMENT ON TABLE image_index_state IS
  'Servers keep the search keys of every image in memory; they compare this row with the one their copy was made at (migrations/0010_search_index.sql).';

CREATE CONSTRAINT TRIGGER images_index_commit AFTER INSERT OR UPDATE ON images
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION imx_image_index_commit();

CREATE TRIGGER images_index_deleted AFTER DELETE OR TRUNCATE ON images
  FOR EACH STATEMENT EXECUTE FUNCTION imx_image_index_deleted();

-- A search page reads the stored summaries of its rows (migrations/0009_image_summary.sql). An
-- images row is ~2 kB, so half the summaries were moved out of line (three more buffer reads
-- each: 0.43 ms -> 0.26 ms for a page of 50 in EXPLAIN ANALYZE); MAIN keeps the summary in the
-- row and lets the larger search columns go out of line instead.
ALTER TABLE images ALTER COLUMN summary SET STORAGE MAIN;
UPDATE images SET summary = NULL;
