-- Point reads (issue 13): what lets GET /v1/images/{id} answer with one primary-key read, and a
-- signed-in request skip its principal query.
--
-- image_docs: each image's detail document stored ready to send, in two parts:
--   * head: the fields that never change after publish, rendered once by imx_image_doc_head();
--   * tail: the fields that do (status, reason, revoke_at, patch status, updated_at, the stored
--     compatibility report), rendered by imx_image_doc_tail() from the images row;
--   * etag: '"' || md5(head || tail) || '"', the ETag the API sends;
--   * fresh_until: a scheduled revocation turns the status to revoked when revoke_at passes,
--     without a write; a stored tail is not used after that moment.
-- The publish use case (procedures/publish_images.sql) writes the row of each new image. Every
-- later UPDATE of images refreshes the tail of the rows it wrote (imx_image_docs_sync, one
-- set-based statement per UPDATE statement): bookkeeping of a copy, like the summary (0009) and
-- the search copies; it decides nothing. imx_image_json() is the same document built from
-- scratch: readers fall back to it for a row without a stored document (a catalog loaded with
-- SQL before imx_image_docs_rebuild()), and tests compare the two byte for byte.
--
-- auth_epoch: one counter moved by every write that can take a right away (a token revoked or
-- deleted, a user disabled or deleted or their admin flag changed, a membership added, changed
-- or removed). A server caches principals with the epoch it read them at; the statements of the
-- read endpoints return the current epoch beside their answer, and a different epoch sends the
-- request back through the full check (server/auth/principal_cache.c). Rights granted by
-- creating a token need no move: a new token is not in any cache.

CREATE TABLE auth_epoch (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    n        bigint NOT NULL DEFAULT 1
);
INSERT INTO auth_epoch DEFAULT VALUES;

-- imaxe:load functions/auth.sql

CREATE TRIGGER api_tokens_auth_epoch AFTER UPDATE OR DELETE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION imx_auth_epoch_move();
CREATE TRIGGER users_auth_epoch AFTER UPDATE OF is_admin, disabled_at OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION imx_auth_epoch_move();
CREATE TRIGGER memberships_auth_epoch AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION imx_auth_epoch_move();

-- imaxe:load functions/image_docs.sql

CREATE TABLE image_docs (
    image_id    bigint PRIMARY KEY REFERENCES images (id) ON DELETE CASCADE,
    head        text NOT NULL,
    tail        text NOT NULL,
    etag        text NOT NULL,
    fresh_until timestamptz
);
ALTER TABLE image_docs ALTER COLUMN head SET STORAGE MAIN;
ALTER TABLE image_docs ALTER COLUMN tail SET STORAGE MAIN;

CREATE TRIGGER images_docs_sync AFTER UPDATE ON images REFERENCING NEW TABLE AS imx_images_written
  FOR EACH STATEMENT EXECUTE FUNCTION imx_image_docs_sync();

SELECT imx_image_docs_write(NULL);
