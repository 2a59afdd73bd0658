-- Patch status, kept incrementally: the pieces the use cases (publish_images.sql,
-- advisory_publish.sql, image_status.sql, pin_refresh.sql, patch_rebuild.sql) are built of.
-- No C wrapper calls these; each use case calls them in the order its file shows.
--
-- The rule every piece keeps (tests/integration/test_patch_oracle.c recomputes it from scratch
-- after every step of random operation sequences):
--   image_advisories (I, X): advisory X (not withdrawn) has a range that one of I's components
--     lies in. fixed_by(I, X) = the oldest image of I's family, newer than I (published_at, id),
--     with status active, that X does not affect.
--   pin_advisories (P, X): the same for the pinned image, where the fix must also satisfy the
--     pin's constraints.
--   images.patch_status: revoked (status revoked, or set so by hand), ok (no row), patch_available
--     (a row has fixed_by), vulnerable. images.os_patch_status: the same over the rows of
--     advisories with package ranges, for images with a package inventory (NULL otherwise).
--   An advisory affects an image through a component (advisory_ranges against image_components)
--   or through an OS package (advisory_package_ranges against the image's inventory,
--   image_packages: the same ecosystem and package, its version key in the interval).
--   patch.available: once per (family, X, fixed_by) when a row's first fix appears (fix_seen_at),
--     and once per (pin, pinned image, X) when the pin's first fix appears (pin_patch_seen),
--     except fixes a pin already had when it was made or moved.
--
-- The set-based pieces are plpgsql rather than SQL functions so that each session plans them
-- once (a SQL function is planned at every call: 10 ms for imx_patch_after_publish).
--
-- Locks: every use case that changes a family's patch state holds that family's transaction
-- lock (imx_patch_lock_families). Publishes also hold the global lock shared and advisory writes
-- hold it exclusively, so an advisory and a publish never miss each other's rows.

CREATE OR REPLACE FUNCTION imx_patch_lock_global(p_exclusive boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_exclusive THEN
    PERFORM pg_advisory_xact_lock(hashtext('imx_patch_global'), 0);
  ELSE
    PERFORM pg_advisory_xact_lock_shared(hashtext('imx_patch_global'), 0);
  END IF;
END
$$;

-- Takes the family locks in name order (so two use cases never wait on each other in a cycle).
CREATE OR REPLACE FUNCTION imx_patch_lock_families(p_fams text[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('imx_patch_family'), hashtext(x.f))
     FROM (SELECT DISTINCT f FROM unnest(p_fams) f ORDER BY f) x;
END
$$;

-- The oldest active image of fam newer than (after_pub, after_id) that adv does not affect.
-- Walks the family in publish order from that point: usually one or two index entries.
CREATE OR REPLACE FUNCTION imx_patch_next_fixer(fam text, after_pub timestamptz, after_id bigint,
                                                adv text)
RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT n.id FROM images n
   WHERE n.family = fam AND (n.published_at, n.id) > (after_pub, after_id) AND n.status = 'active'
     AND NOT EXISTS (SELECT 1 FROM image_advisories x WHERE x.image_id = n.id AND x.advisory_id = adv)
   ORDER BY n.published_at, n.id LIMIT 1
$$;

-- The same for a pin: the fix must also satisfy the pin's constraints.
CREATE OR REPLACE FUNCTION imx_pin_next_fix(p_pin bigint, fam text, after_pub timestamptz,
                                            after_id bigint, adv text)
RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT n.id FROM images n
   WHERE n.family = fam AND (n.published_at, n.id) > (after_pub, after_id) AND n.status = 'active'
     AND NOT EXISTS (SELECT 1 FROM image_advisories x WHERE x.image_id = n.id AND x.advisory_id = adv)
     AND imx_pin_satisfied(p_pin, n.id)
   ORDER BY n.published_at, n.id LIMIT 1
$$;

-- fixed_by of every row of advisory adv in the families fams, in one ordered pass per family:
-- reading each family newest first, the fix of an image is the oldest fixer seen so far.
-- Returns the images whose row changed. (Advisory publish computes the same pass before it
-- writes the rows, in imx_advisory_reconcile; imx_patch_rebuild uses this one.)
CREATE OR REPLACE FUNCTION imx_patch_pass(p_fams text[], adv text) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY
    WITH fam AS MATERIALIZED (
      SELECT i.id, i.family,
             i.status = 'active' AND NOT EXISTS (SELECT 1 FROM image_advisories x
                                                  WHERE x.image_id = i.id AND x.advisory_id = adv)
               AS fixer,
             row_number() OVER (PARTITION BY i.family ORDER BY i.published_at, i.id) AS rn
        FROM images i WHERE i.family = ANY (p_fams)
    ), nxt AS (
      SELECT f.id, f.family,
             min(CASE WHEN f.fixer THEN f.rn END) OVER (PARTITION BY f.family ORDER BY f.rn DESC
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS next_rn
        FROM fam f
    ), want AS (
      SELECT n.id AS image_id, fx.id AS fixed_by
        FROM nxt n LEFT JOIN fam fx ON fx.family = n.family AND fx.rn = n.next_rn
    ), up AS (
      UPDATE image_advisories ia SET fixed_by = w.fixed_by
        FROM want w
       WHERE ia.advisory_id = adv AND ia.image_id = w.image_id
         AND ia.fixed_by IS DISTINCT FROM w.fixed_by
      RETURNING ia.image_id
    )
    SELECT up.image_id FROM up;
END
$$;

-- After new images were inserted (with their image_advisories rows): the fixes they bring. For
-- each family, the "tail" is its images from the oldest new one on (normally just the new
-- images). Rows that can change: the tail's own rows, and older rows that wait for a fix
-- (fixed_by NULL) or whose fix lies in the tail; an older row's fix becomes the oldest fixer of
-- the tail. Only advisories with such rows are looked at, each found with a loose index scan,
-- so the cost follows the new images and their advisories, not the family's size.
-- Returns the images whose row changed.
CREATE OR REPLACE FUNCTION imx_patch_after_publish(p_ids bigint[]) RETURNS SETOF bigint
LANGUAGE plpgsql
-- Its inputs are the few new images: planned once a session, by index lookups only, whatever
-- the statistics say (a family that is most of a small catalog made it scan the family).
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET enable_hashjoin = off
SET enable_mergejoin = off AS $$
BEGIN
  RETURN QUERY
    WITH RECURSIVE starts AS (
      SELECT DISTINCT ON (i.family) i.family, i.published_at, i.id
        FROM images i WHERE i.id = ANY (p_ids) ORDER BY i.family, i.published_at, i.id
    ), tail AS MATERIALIZED (
      -- in publish order from the start (images_family_order)
      SELECT t.* FROM starts s, LATERAL (
        SELECT i.id, i.family, i.published_at, i.status FROM images i
         WHERE i.family = s.family AND (i.published_at, i.id) >= (s.published_at, s.id)
         ORDER BY i.published_at, i.id) t
    ), waiting (family, advisory_id) AS (
      SELECT x.family, x.advisory_id FROM starts s, LATERAL (
        SELECT ia.family, ia.advisory_id FROM image_advisories ia
         WHERE ia.family = s.family AND ia.fixed_by IS NULL ORDER BY ia.advisory_id LIMIT 1) x
      UNION ALL
      SELECT x.family, x.advisory_id FROM waiting w, LATERAL (
        SELECT ia.family, ia.advisory_id FROM image_advisories ia
         WHERE ia.family = w.family AND ia.fixed_by IS NULL AND ia.advisory_id > w.advisory_id
         ORDER BY ia.advisory_id LIMIT 1) x
    ), advs AS (
      SELECT t.family, ia.advisory_id FROM tail t JOIN image_advisories ia ON ia.image_id = t.id
      UNION
      SELECT family, advisory_id FROM waiting
      UNION
      SELECT ia.family, ia.advisory_id FROM tail t JOIN image_advisories ia ON ia.fixed_by = t.id
    ), ranked AS MATERIALIZED (
      SELECT g.*, row_number() OVER (PARTITION BY g.family, g.advisory_id
                                     ORDER BY g.published_at, g.id) AS rn
        FROM (SELECT a.family, a.advisory_id, t.id, t.published_at,
                     t.status = 'active' AND NOT EXISTS (SELECT 1 FROM image_advisories x
                       WHERE x.image_id = t.id AND x.advisory_id = a.advisory_id) AS fixer
                FROM advs a JOIN tail t ON t.family = a.family) g
    ), nexts AS (
      SELECT r.family, r.advisory_id, r.id,
             min(CASE WHEN r.fixer THEN r.rn END) OVER (PARTITION BY r.family, r.advisory_id
               ORDER BY r.rn DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS next_rn
        FROM ranked r
    ), firsts AS (
      SELECT family, advisory_id, min(rn) FILTER (WHERE fixer) AS rn FROM ranked GROUP BY 1, 2
    ), rws AS (
      -- the tail's own rows: the next fixer after them
      SELECT n.id AS image_id, n.advisory_id, n.family, n.next_rn AS want_rn
        FROM nexts n JOIN image_advisories ia ON ia.image_id = n.id AND ia.advisory_id = n.advisory_id
      UNION ALL
      -- older rows still waiting for a fix, of advisories the tail fixes
      SELECT ia.image_id, ia.advisory_id, ia.family, f.rn
        FROM firsts f JOIN image_advisories ia ON ia.family = f.family
         AND ia.advisory_id = f.advisory_id AND ia.fixed_by IS NULL
       WHERE f.rn IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tail t WHERE t.id = ia.image_id)
      UNION ALL
      -- older rows whose fix is in the tail (only when images were published out of order)
      SELECT ia.image_id, ia.advisory_id, ia.family, f.rn
        FROM tail t JOIN image_advisories ia ON ia.fixed_by = t.id
        JOIN firsts f ON f.family = ia.family AND f.advisory_id = ia.advisory_id
       WHERE NOT EXISTS (SELECT 1 FROM tail t2 WHERE t2.id = ia.image_id)
    ), want AS (
      SELECT r.image_id, r.advisory_id, fx.id AS fixed_by
        FROM rws r LEFT JOIN ranked fx ON fx.family = r.family AND fx.advisory_id = r.advisory_id
         AND fx.rn = r.want_rn
    ), up AS (
      UPDATE image_advisories ia SET fixed_by = w.fixed_by
        FROM want w
       WHERE ia.image_id = w.image_id AND ia.advisory_id = w.advisory_id
         AND ia.fixed_by IS DISTINCT FROM w.fixed_by
      RETURNING ia.image_id
    )
    SELECT up.image_id FROM up;
END
$$;

-- The pins a publish can give a fix: rows waiting for one in the new images' families (of
-- advisories that one of the new images does not affect), rows whose fix lies after the oldest
-- new image, and pins on images in that tail. Each is recomputed with the pin walk from the
-- later of the pinned image and the start of the tail.
CREATE OR REPLACE FUNCTION imx_pin_after_publish(p_ids bigint[]) RETURNS void
LANGUAGE plpgsql
-- Its inputs are the few new images: planned once a session, by index lookups only, whatever
-- the statistics say (a family that is most of a small catalog made it scan the family).
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET enable_hashjoin = off
SET enable_mergejoin = off AS $$
BEGIN
    WITH RECURSIVE starts AS (
      SELECT DISTINCT ON (i.family) i.family, i.published_at, i.id
        FROM images i WHERE i.id = ANY (p_ids) ORDER BY i.family, i.published_at, i.id
    ), waiting (family, advisory_id) AS (
      SELECT x.family, x.advisory_id FROM starts s, LATERAL (
        SELECT pa.family, pa.advisory_id FROM pin_advisories pa
         WHERE pa.family = s.family AND pa.fixed_by IS NULL ORDER BY pa.advisory_id LIMIT 1) x
      UNION ALL
      SELECT x.family, x.advisory_id FROM waiting w, LATERAL (
        SELECT pa.family, pa.advisory_id FROM pin_advisories pa
         WHERE pa.family = w.family AND pa.fixed_by IS NULL AND pa.advisory_id > w.advisory_id
         ORDER BY pa.advisory_id LIMIT 1) x
    ), fixing AS (
      -- waiting (family, advisory) pairs that one of the new images could fix
      SELECT w.family, w.advisory_id FROM waiting w
       WHERE EXISTS (SELECT 1 FROM images n WHERE n.id = ANY (p_ids) AND n.family = w.family
                       AND n.status = 'active' AND NOT EXISTS (SELECT 1 FROM image_advisories x
                         WHERE x.image_id = n.id AND x.advisory_id = w.advisory_id))
    ), tail AS (
      SELECT t.id FROM starts s, LATERAL (
        SELECT i.id FROM images i
         WHERE i.family = s.family AND (i.published_at, i.id) >= (s.published_at, s.id)
         ORDER BY i.published_at, i.id) t
    ), rws AS (
      SELECT pa.pin_id, pa.advisory_id FROM fixing f JOIN pin_advisories pa
          ON pa.family = f.family AND pa.advisory_id = f.advisory_id AND pa.fixed_by IS NULL
      UNION
      SELECT pa.pin_id, pa.advisory_id FROM tail t JOIN pin_advisories pa ON pa.fixed_by = t.id
      UNION
      SELECT pa.pin_id, pa.advisory_id FROM tail t JOIN pin_advisories pa ON pa.image_id = t.id
    ), want AS (
      SELECT pa.pin_id, pa.advisory_id,
             CASE WHEN (pi.published_at, pi.id) > (s.published_at, s.id - 1)
                  THEN imx_pin_next_fix(pa.pin_id, pa.family, pi.published_at, pi.id, pa.advisory_id)
                  ELSE imx_pin_next_fix(pa.pin_id, pa.family, s.published_at, s.id - 1,
                                        pa.advisory_id) END AS fix
        FROM rws r JOIN pin_advisories pa ON pa.pin_id = r.pin_id AND pa.advisory_id = r.advisory_id
        JOIN images pi ON pi.id = pa.image_id JOIN starts s ON s.family = pa.family
    )
    UPDATE pin_advisories pa SET fixed_by = w.fix
      FROM want w
     WHERE pa.pin_id = w.pin_id AND pa.advisory_id = w.advisory_id
       AND pa.fixed_by IS DISTINCT FROM w.fix;
END
$$;

-- Recomputes images.patch_status of p_ids from their rows, and os_patch_status (the same over
-- the advisories with package ranges; NULL for an image without a package inventory). Returns
-- the images that changed.
CREATE OR REPLACE FUNCTION imx_patch_status_update(p_ids bigint[]) RETURNS SETOF bigint
LANGUAGE plpgsql
-- Per image, by primary key, however many (1 for a publish, 40,000 for a large advisory): a
-- plan from the statistics scanned the images and their rows (3 ms for one image in a catalog
-- of 6,000).
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
  RETURN QUERY
    WITH up AS (
      UPDATE images i SET patch_status = s.st, os_patch_status = s.os
        FROM (SELECT i2.id, CASE
                WHEN i2.status = 'revoked' OR i2.patch_status = 'revoked' THEN 'revoked'
                WHEN NOT EXISTS (SELECT 1 FROM image_advisories ia WHERE ia.image_id = i2.id) THEN 'ok'
                WHEN EXISTS (SELECT 1 FROM image_advisories ia
                              WHERE ia.image_id = i2.id AND ia.fixed_by IS NOT NULL)
                  THEN 'patch_available'
                ELSE 'vulnerable' END AS st,
              CASE
                WHEN i2.os_patch_status IS NULL THEN NULL
                WHEN i2.status = 'revoked' OR i2.patch_status = 'revoked' THEN 'revoked'
                WHEN NOT EXISTS (SELECT 1 FROM image_advisories ia
                                  WHERE ia.image_id = i2.id AND EXISTS (
                                    SELECT 1 FROM advisory_package_ranges r
                                     WHERE r.advisory_id = ia.advisory_id)) THEN 'ok'
                WHEN EXISTS (SELECT 1 FROM image_advisories ia
                              WHERE ia.image_id = i2.id AND ia.fixed_by IS NOT NULL AND EXISTS (
                                SELECT 1 FROM advisory_package_ranges r
                                 WHERE r.advisory_id = ia.advisory_id))
                  THEN 'patch_available'
                ELSE 'vulnerable' END AS os
                FROM (SELECT DISTINCT x AS id FROM unnest(p_ids) x) u JOIN images i2 ON i2.id = u.id) s
       WHERE i.id = s.id AND (i.patch_status IS DISTINCT FROM s.st
                              OR i.os_patch_status IS DISTINCT FROM s.os)
      RETURNING i.id
    )
    SELECT up.id FROM up;
END
$$;

-- Enqueues the patch.available webhook events of staged patch_events rows, in one pass however
-- many there are (an advisory reaching 10,000 pins stages 10,000): each image's and advisory's
-- JSON is built once. A 'pin' row goes to the pin's team (filtered by pin name, family and
-- severity); a 'family' row to every team's subscriptions that list the family. An event that
-- no subscription wants is not stored. Returns how many events were stored.
CREATE OR REPLACE FUNCTION imx_patch_events_send(p_staged bigint[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_at timestamptz := clock_timestamp();
  v_n integer;
BEGIN
  IF to_regclass('pg_temp.imx_patch_outbox') IS NULL THEN
    CREATE TEMP TABLE imx_patch_outbox (
    staged bigint, event_id bigint, team_id bigint, data jsonb, families text[], pins text[],
      severity text, listed_only boolean) ON COMMIT DELETE ROWS;
  END IF;
  TRUNCATE imx_patch_outbox;
  INSERT INTO imx_patch_outbox (staged, team_id, data, families, pins, severity, listed_only)
  WITH s AS (
    SELECT pe.* FROM patch_events pe WHERE pe.id = ANY (p_staged)
  ), img AS (
    SELECT u.id, imx_image_event_json(u.id) AS j
      FROM (SELECT image_id AS id FROM s UNION SELECT fixed_by FROM s) u
  ), adv AS (
    SELECT a.id, a.severity, jsonb_build_object('id', a.id, 'title', a.title, 'severity',
             a.severity, 'cvss', a.cvss, 'cves', to_jsonb(a.cves), 'url', a.url,
             'kev', imx_kev_json(a.cves), 'epss', imx_epss_json(a.cves)) AS j
      FROM advisories a WHERE a.id IN (SELECT advisory_id FROM s)
  ), pin AS (
    SELECT p.id, p.name, jsonb_build_object('id', p.id, 'team', t.slug, 'name', p.name) AS j
      FROM pins p JOIN teams t ON t.id = p.team_id WHERE p.id IN (SELECT pin_id FROM s)
  )
  SELECT s.id, CASE WHEN s.kind = 'pin' THEN s.team_id END,
         jsonb_build_object('kind', s.kind, 'team', pin.j -> 'team', 'pin', pin.j,
                            'family', s.family, 'image', ii.j, 'advisories',
                            jsonb_build_array(adv.j), 'fixed_by', fi.j,
                            -- Running nodes on the exposed image (procedures/nodes.sql): the
                            -- pin's team's for a pin event, every team's for a family event.
                            'nodes_exposed', imx_nodes_running(s.image_id,
                                               CASE WHEN s.kind = 'pin' THEN s.team_id END)),
         ARRAY[s.family], CASE WHEN pin.name IS NOT NULL THEN ARRAY[pin.name] ELSE '{}' END,
         adv.severity, s.kind = 'family'
    FROM s JOIN adv ON adv.id = s.advisory_id JOIN img ii ON ii.id = s.image_id
    JOIN img fi ON fi.id = s.fixed_by LEFT JOIN pin ON pin.id = s.pin_id;
  -- Only events some subscription wants get an id and a row.
  UPDATE imx_patch_outbox o SET event_id = nextval(pg_get_serial_sequence('webhook_events', 'id'))
   WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.enabled
                   AND imx_webhook_wants(w, o.team_id, 'patch.available', o.families, o.pins,
                                         o.severity, o.listed_only));
  INSERT INTO webhook_events (id, team_id, type, data, families, pins, severity, body, created_at)
  OVERRIDING SYSTEM VALUE
  SELECT o.event_id, o.team_id, 'patch.available', o.data, o.families, o.pins, o.severity,
         json_build_object('id', 'msg_' || o.event_id, 'type', 'patch.available',
           'timestamp', to_char(v_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           'data', o.data)::text,
         v_at
    FROM imx_patch_outbox o WHERE o.event_id IS NOT NULL;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  -- In staging order, so that each subscription receives them in that order (FIFO by id).
  INSERT INTO webhook_deliveries (event_id, webhook_id, next_attempt_at)
  SELECT o.event_id, w.id, v_at
    FROM imx_patch_outbox o JOIN webhooks w ON w.enabled
     AND imx_webhook_wants(w, o.team_id, 'patch.available', o.families, o.pins, o.severity,
                           o.listed_only)
   WHERE o.event_id IS NOT NULL
   ORDER BY o.staged, w.id;
  IF v_n > 0 THEN
    PERFORM pg_notify('imx_webhooks', '');
  END IF;
  RETURN v_n;
END
$$;

-- Announces the fixes that appeared in families p_fams: first the family events (one per
-- (family, advisory, fixing image) whose row had never had a fix), then the pin events (one per
-- (pin, pinned image, advisory) the pin has not known a fix for). Returns how many
-- patch.available events were staged.
CREATE OR REPLACE FUNCTION imx_patch_announce(p_fams text[]) RETURNS integer
LANGUAGE plpgsql
-- The rows it looks for are the few just fixed (partial indexes): never a scan of the family.
SET enable_seqscan = off AS $$
DECLARE
  v_staged bigint[];
BEGIN
  WITH fresh AS (
    UPDATE image_advisories ia SET fix_seen_at = now()
     WHERE ia.family = ANY (p_fams) AND ia.fixed_by IS NOT NULL AND ia.fix_seen_at IS NULL
    RETURNING ia.image_id, ia.advisory_id, ia.fixed_by, ia.family
  ), staged AS (
    INSERT INTO patch_events (kind, family, image_id, advisory_id, fixed_by)
    SELECT DISTINCT ON (f.family, f.advisory_id, f.fixed_by) 'family', f.family, f.image_id,
           f.advisory_id, f.fixed_by
      FROM fresh f ORDER BY f.family, f.advisory_id, f.fixed_by, f.image_id
    ON CONFLICT DO NOTHING
    RETURNING id
  )
  SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO v_staged FROM staged;

  WITH due AS (
    UPDATE pin_advisories pa SET seen = true
     WHERE pa.family = ANY (p_fams) AND pa.fixed_by IS NOT NULL AND NOT pa.seen
    RETURNING pa.pin_id, pa.image_id, pa.advisory_id, pa.family, pa.fixed_by
  ), newly AS (
    INSERT INTO pin_patch_seen (pin_id, image_id, advisory_id)
    SELECT pin_id, image_id, advisory_id FROM due
    ON CONFLICT DO NOTHING
    RETURNING pin_id, image_id, advisory_id
  ), staged AS (
    INSERT INTO patch_events (kind, family, pin_id, team_id, image_id, advisory_id, fixed_by)
    SELECT 'pin', d.family, d.pin_id, p.team_id, d.image_id, d.advisory_id, d.fixed_by
      FROM newly n JOIN due d USING (pin_id, image_id, advisory_id) JOIN pins p ON p.id = d.pin_id
     ORDER BY d.pin_id, d.advisory_id
    ON CONFLICT DO NOTHING
    RETURNING id
  )
  SELECT v_staged || coalesce(array_agg(id ORDER BY id), '{}') INTO v_staged FROM staged;

  IF cardinality(v_staged) > 0 THEN
    PERFORM imx_patch_events_send(v_staged);
  END IF;
  RETURN cardinality(v_staged);
END
$$;
