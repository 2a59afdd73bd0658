-- Pin reads from stored documents (issue 13): GET /v1/pins and GET /v1/pins/{id} built
-- imx_pin_json() (status, candidate, advisories) on every request, 0.6 to 1 ms of planning and
-- execution each (1,300 and 1,800 req/s at 32 connections on the bench catalog).
--
-- pin_docs: each pin's document as imx_pin_json() renders it, in UTC, in two parts:
--   * family: the pinned image's family, as of the last write (what a family refresh finds);
--   * body: imx_pin_json(pin, false) without its closing 'null}' (the history of a list entry);
--   * history: the history array that GET /v1/pins/{id} puts there (body || history || '}' is
--     imx_pin_json(pin, true)); NULL when not stored (then the reader builds the document);
--   * fresh_until: the earliest scheduled revocation still ahead in the pin's family: the
--     pinned image's and the candidate's status turn revoked at that moment without a write, so
--     a stored body is not used after it.
-- Everything a pin's document shows lies in its image's family (the pinned image, the
-- candidate, the fixes) or in the pin itself (name, constraints, history) or in the advisories
-- affecting the pinned image. So the use cases that change those refresh the documents of the
-- pins of the families they touch, in their own transaction, under the families' locks
-- (imx_pin_docs_refresh_families: publish, lifecycle changes and due revocations, advisory
-- publish, revise and withdraw), and a pin's create or move refreshes that pin
-- (imx_pin_refresh); a deleted pin's row goes with it. The cost of a refresh is the pins of
-- those families, never the catalog. A pin without a row (pins inserted with SQL) is built from
-- scratch by the reader; tests/integration/test_point_reads.c compares the stored documents
-- with imx_pin_json() after every step.
-- A pin's document (replaces 0040's definition, the same document, byte for byte), in three
-- plpgsql / SQL pieces planned once a session: the candidate (imx_pin_candidate), the document
-- given its candidate (imx_pin_doc), and imx_pin_json putting them together. The summaries come
-- from the image rows where they cannot depend on the time or the session's time zone (as
-- lineage's do, 0021). A family refresh (imx_pin_docs_write) finds the candidate once for all
-- the pins on one image with the same constraints.

-- imaxe:load functions/pins.sql

CREATE TABLE pin_docs (
    pin_id      bigint PRIMARY KEY REFERENCES pins (id) ON DELETE CASCADE,
    family      text NOT NULL,
    body        text NOT NULL,
    history     text,
    fresh_until timestamptz
);
ALTER TABLE pin_docs ALTER COLUMN body SET STORAGE MAIN;
CREATE INDEX pin_docs_family ON pin_docs (family);
COMMENT ON TABLE pin_docs IS 'Stored pin documents (imx_pin_json, UTC), refreshed by the use cases that change them.';

SELECT imx_pin_docs_write(NULL, true);

