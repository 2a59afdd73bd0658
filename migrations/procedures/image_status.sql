-- Use cases: change an image's lifecycle (PATCH /v1/images/{id}: deprecate, revoke with or
-- without cascade, schedule a revocation, restore) and make due scheduled revocations real.
-- Called only from server/db/images.c (imx_db_image_set_status,
-- imx_db_image_apply_due_revocations).

-- What follows a lifecycle change of images whose rows are already updated, under their
-- families' locks: p_left stopped being active (their fixes move to the next fixer of the
-- family), p_entered became active (they fix older rows that had no fix or a newer one), p_ids
-- every image changed. Then patch statuses and patch.available. Returns
-- {"patch_status_changed": [ids], "patch_events": n}.
CREATE OR REPLACE FUNCTION imx_image_status_effects(p_fams text[], p_ids bigint[],
                                                    p_left bigint[], p_entered bigint[])
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_touched bigint[] := '{}';
  v_changed bigint[];
  v_events integer;
  r record;
BEGIN
  -- Fixes held by images that stopped being active: the next fixer after each, per advisory.
  WITH gone AS (
    SELECT DISTINCT ia.fixed_by AS f, ia.advisory_id
      FROM image_advisories ia WHERE ia.fixed_by = ANY (p_left)
  ), nxt AS (
    SELECT g.f, g.advisory_id, imx_patch_next_fixer(i.family, i.published_at, i.id,
                                                    g.advisory_id) AS n
      FROM gone g JOIN images i ON i.id = g.f
  ), up AS (
    UPDATE image_advisories ia SET fixed_by = nxt.n
      FROM nxt WHERE ia.fixed_by = nxt.f AND ia.advisory_id = nxt.advisory_id
    RETURNING ia.image_id
  )
  SELECT v_touched || coalesce(array_agg(image_id), '{}') INTO v_touched FROM up;

  WITH gone AS (
    SELECT pa.pin_id, pa.advisory_id, pa.family, f.published_at, f.id
      FROM pin_advisories pa JOIN images f ON f.id = pa.fixed_by
     WHERE pa.fixed_by = ANY (p_left)
  )
  UPDATE pin_advisories pa
     SET fixed_by = imx_pin_next_fix(g.pin_id, g.family, g.published_at, g.id, g.advisory_id)
    FROM gone g WHERE pa.pin_id = g.pin_id AND pa.advisory_id = g.advisory_id;

  -- Images that became active, newest first (so the oldest of them wins where several could
  -- fix a row): the fix of every older row it does not share and that had none, or a newer one.
  FOR r IN SELECT i.id, i.family, i.published_at FROM images i WHERE i.id = ANY (p_entered)
            ORDER BY i.published_at DESC, i.id DESC LOOP
    WITH up AS (
      UPDATE image_advisories ia SET fixed_by = r.id
        FROM images o
       WHERE ia.family = r.family AND o.id = ia.image_id
         AND (o.published_at, o.id) < (r.published_at, r.id)
         AND NOT EXISTS (SELECT 1 FROM image_advisories x
                          WHERE x.image_id = r.id AND x.advisory_id = ia.advisory_id)
         AND (ia.fixed_by IS NULL OR EXISTS (SELECT 1 FROM images f WHERE f.id = ia.fixed_by
                AND (f.published_at, f.id) > (r.published_at, r.id)))
      RETURNING ia.image_id
    )
    SELECT v_touched || coalesce(array_agg(image_id), '{}') INTO v_touched FROM up;

    UPDATE pin_advisories pa SET fixed_by = r.id
      FROM images o
     WHERE pa.family = r.family AND o.id = pa.image_id
       AND (o.published_at, o.id) < (r.published_at, r.id)
       AND NOT EXISTS (SELECT 1 FROM image_advisories x
                        WHERE x.image_id = r.id AND x.advisory_id = pa.advisory_id)
       AND (pa.fixed_by IS NULL OR EXISTS (SELECT 1 FROM images f WHERE f.id = pa.fixed_by
              AND (f.published_at, f.id) > (r.published_at, r.id)))
       AND imx_pin_satisfied(pa.pin_id, r.id);
  END LOOP;

  v_changed := ARRAY(SELECT imx_patch_status_update(p_ids || v_touched));
  PERFORM imx_image_docs_refresh_os(ARRAY(SELECT x FROM unnest(v_touched) x
                                            EXCEPT SELECT y FROM unnest(p_ids || v_changed) y));
  v_events := imx_patch_announce(p_fams);
  -- the stored documents of the families' pins (pin_docs, 0050)
  PERFORM imx_pin_docs_refresh_families(p_fams);
  RETURN json_build_object('patch_status_changed', to_json(v_changed), 'patch_events', v_events);
END
$$;

-- A lifecycle change of p_id (and, with p_cascade, its descendants not already revoked).
-- p_status: active | deprecated | revoked, or NULL to keep each image's (a scheduled
-- revocation: p_revoke_at). p_event: image.revoked | image.deprecated | NULL, sent per image
-- changed. A deprecation keeps a scheduled revocation; a restore or an immediate revocation
-- replaces it. patch_status: revoked with the image, recomputed when it leaves revoked.
-- Steps: lock the families; update the rows; the events of the change; its effects
-- (imx_image_status_effects). Returns {"changed": [ids], "patch_status_changed": [ids],
-- "patch_events": n}. 22007/22008: p_revoke_at is not a time.
CREATE OR REPLACE FUNCTION imx_set_image_status(p_id bigint, p_status text, p_reason text,
                                                p_revoke_at text, p_cascade boolean,
                                                p_event text)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
  v_fams text[];
  v_left bigint[];
  v_entered bigint[];
  v_at timestamptz := p_revoke_at::timestamptz;
  v_fx json;
BEGIN
  v_ids := ARRAY(
    WITH RECURSIVE d (id) AS (
      SELECT p_id UNION SELECT c.id FROM images c JOIN d ON c.parent_id = d.id WHERE p_cascade)
    SELECT d.id FROM d JOIN images i ON i.id = d.id WHERE d.id = p_id OR i.status <> 'revoked');
  v_fams := ARRAY(SELECT DISTINCT family FROM images WHERE id = ANY (v_ids));
  PERFORM imx_patch_lock_families(v_fams);

  WITH old AS (
    SELECT id, status FROM images WHERE id = ANY (v_ids) FOR UPDATE
  ), u AS (
    UPDATE images i SET status = coalesce(p_status, i.status), status_reason = p_reason,
           updated_at = now(),
           revoke_at = CASE WHEN p_status = 'deprecated' THEN i.revoke_at ELSE v_at END,
           patch_status = CASE WHEN p_status = 'revoked' THEN 'revoked'
                               WHEN i.patch_status = 'revoked' THEN 'ok'
                               ELSE i.patch_status END
      FROM old WHERE i.id = old.id
    RETURNING i.id, old.status AS was, i.status AS now
  )
  SELECT coalesce(array_agg(id ORDER BY id), '{}'),
         coalesce(array_agg(id) FILTER (WHERE was = 'active' AND now <> 'active'), '{}'),
         coalesce(array_agg(id) FILTER (WHERE was <> 'active' AND now = 'active'), '{}')
    INTO v_ids, v_left, v_entered FROM u;

  IF p_event IS NOT NULL THEN
    PERFORM imx_image_event(p_event, x.id, p_id) FROM (SELECT unnest(v_ids) AS id ORDER BY 1) x;
  END IF;
  v_fx := imx_image_status_effects(v_fams, v_ids, v_left, v_entered);
  RETURN (jsonb_build_object('changed', to_jsonb(v_ids)) || v_fx::jsonb)::json;
END
$$;

-- Makes every scheduled revocation whose revoke_at has passed a real one, at most p_limit at a
-- time (the caller loops): status revoked, so the image's and its family's patch state follow.
-- Concurrent callers skip each other's rows. Returns how many images changed.
CREATE OR REPLACE FUNCTION imx_apply_due_revocations(p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
  v_fams text[];
  v_left bigint[];
BEGIN
  v_ids := ARRAY(SELECT id FROM images WHERE revoke_at <= now() AND revoke_at IS NOT NULL
                   AND status <> 'revoked' ORDER BY revoke_at, id LIMIT p_limit
                   FOR UPDATE SKIP LOCKED);
  IF cardinality(v_ids) = 0 THEN
    RETURN 0;
  END IF;
  v_fams := ARRAY(SELECT DISTINCT family FROM images WHERE id = ANY (v_ids));
  PERFORM imx_patch_lock_families(v_fams);
  WITH old AS (
    SELECT id, status FROM images WHERE id = ANY (v_ids)
  ), u AS (
    UPDATE images i SET status = 'revoked', patch_status = 'revoked', updated_at = now(),
           status_reason = coalesce(i.status_reason, 'scheduled revocation')
      FROM old WHERE i.id = old.id AND i.status <> 'revoked'
    RETURNING i.id, old.status AS was
  )
  SELECT coalesce(array_agg(id ORDER BY id), '{}'),
         coalesce(array_agg(id) FILTER (WHERE was = 'active'), '{}')
    INTO v_ids, v_left FROM u;
  PERFORM imx_image_status_effects(v_fams, v_ids, v_left, '{}');
  RETURN cardinality(v_ids);
END
$$;
