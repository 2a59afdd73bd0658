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

-- Writes the stored documents of these pins from scratch (p_ids NULL: every pin), with their
-- history when p_history, else keeping the stored one. Returns how many rows it wrote.
CREATE FUNCTION imx_pin_docs_write(p_ids bigint[], p_history boolean) RETURNS integer
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  v_n integer;
BEGIN
  IF p_ids IS NULL THEN
    p_ids := ARRAY(SELECT id FROM pins ORDER BY id);
  END IF;
  INSERT INTO pin_docs AS d (pin_id, family, body, history, fresh_until)
  SELECT x.id, x.family, left(x.l, -5),
         CASE WHEN p_history AND right(x.l, 5) = 'null}' AND left(x.f, length(x.l) - 5) = left(x.l, -5)
              THEN substr(x.f, length(x.l) - 4, length(x.f) - length(x.l) + 4) END,
         x.fu
    FROM (SELECT p.id, i.family, imx_pin_json(p.id, false)::text AS l,
                 CASE WHEN p_history THEN imx_pin_json(p.id, true)::text END AS f,
                 (SELECT min(o.revoke_at) FROM images o
                   WHERE o.revoke_at > now() AND o.status <> 'revoked'
                     AND o.family = i.family) AS fu
            FROM unnest(p_ids) u(id) JOIN pins p ON p.id = u.id
            JOIN images i ON i.id = p.image_id) x
   WHERE right(x.l, 5) = 'null}'
  ON CONFLICT (pin_id) DO UPDATE
    SET family = EXCLUDED.family, body = EXCLUDED.body, fresh_until = EXCLUDED.fresh_until,
        history = CASE WHEN p_history THEN EXCLUDED.history ELSE d.history END;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;

-- Refreshes the stored documents of the pins on images of these families (their history
-- unchanged), found by pin_docs_family: pins without a row stay without (their reader builds
-- them). Called by the use cases that change a family's images or their advisories, after their
-- changes and under the families' locks. Returns how many it wrote.
CREATE FUNCTION imx_pin_docs_refresh_families(p_fams text[]) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_fams) IS NULL OR cardinality(p_fams) = 0 THEN
    RETURN 0;
  END IF;
  RETURN imx_pin_docs_write(ARRAY(SELECT d.pin_id FROM pin_docs d
                                   WHERE d.family = ANY (p_fams) ORDER BY d.pin_id), false);
END
$$;

SELECT imx_pin_docs_write(NULL, true);
