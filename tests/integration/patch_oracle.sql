-- The oracle of tests/integration/test_patch_oracle.c: the patch state of the catalog recomputed
-- from scratch after every step, written apart from the server's incremental use cases
-- (migrations/procedures/) and as plainly as possible (whole-catalog queries, no indexes in
-- mind), with the announcement history a step leaves behind kept in its own tables.
CREATE SCHEMA oracle;

-- (image, advisory, fixed_by) as the rules define them.
CREATE FUNCTION oracle.rows() RETURNS TABLE (image_id bigint, advisory_id text, fixed_by bigint)
LANGUAGE sql STABLE AS $$
  WITH aff AS (
    SELECT DISTINCT c.image_id, r.advisory_id
      FROM image_components c
      JOIN advisory_ranges r ON r.component = c.name
       AND c.version_key >= r.lo AND c.version_key <= r.hi
       AND (r.lo_incl OR c.version_key <> r.lo) AND (r.hi_incl OR c.version_key <> r.hi)
      JOIN advisories a ON a.id = r.advisory_id AND a.withdrawn_at IS NULL
    UNION
    -- through an OS package: every package of the image's stored inventory against every
    -- package range of its ecosystem and name
    SELECT DISTINCT ip.image_id, r.advisory_id
      FROM image_packages ip CROSS JOIN LATERAL unnest(ip.chunks) ch(id)
      JOIN os_package_chunks c ON c.id = ch.id CROSS JOIN LATERAL unnest(c.members) m(id)
      JOIN os_packages op ON op.id = m.id
      JOIN advisory_package_ranges r ON r.ecosystem = op.ecosystem AND r.package = op.name
       AND (r.lo IS NULL OR op.key > r.lo OR (r.lo_incl AND op.key = r.lo))
       AND (r.hi IS NULL OR op.key < r.hi OR (r.hi_incl AND op.key = r.hi))
      JOIN advisories a ON a.id = r.advisory_id AND a.withdrawn_at IS NULL
  )
  SELECT a.image_id, a.advisory_id,
         (SELECT n.id FROM images o JOIN images n ON n.family = o.family
           WHERE o.id = a.image_id AND n.status = 'active'
             AND (n.published_at, n.id) > (o.published_at, o.id)
             AND NOT EXISTS (SELECT 1 FROM aff x WHERE x.image_id = n.id
                               AND x.advisory_id = a.advisory_id)
           ORDER BY n.published_at, n.id LIMIT 1)
    FROM aff a
$$;

-- The announcement history.
CREATE TABLE oracle.exp_rows (image_id bigint, advisory_id text, fixed_by bigint);
CREATE TABLE oracle.exp_pins (pin_id bigint, image_id bigint, advisory_id text, fixed_by bigint);
CREATE TABLE oracle.seen_fix (image_id bigint, advisory_id text, PRIMARY KEY (image_id, advisory_id));
CREATE TABLE oracle.family_events (family text, advisory_id text, fixed_by bigint, image_id bigint,
                                   PRIMARY KEY (family, advisory_id, fixed_by));
CREATE TABLE oracle.pin_seen (pin_id bigint, image_id bigint, advisory_id text,
                              PRIMARY KEY (pin_id, image_id, advisory_id));
CREATE TABLE oracle.pin_events (pin_id bigint, image_id bigint, advisory_id text, fixed_by bigint);
-- Every pin event ever staged (a deleted pin's staged rows go with it; its webhook events stay).
CREATE TABLE oracle.pin_events_all (pin_id bigint, image_id bigint, advisory_id text);

-- One step happened (p_pin: a pin just created or moved, whose fixes count as known; p_gone: a
-- pin just deleted). Recomputes everything, records what should have been announced, and returns
-- the first difference with the server's state ('' when there is none).
CREATE FUNCTION oracle.step(p_pin bigint, p_gone bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  d text;
BEGIN
  TRUNCATE oracle.exp_rows, oracle.exp_pins;
  INSERT INTO oracle.exp_rows SELECT * FROM oracle.rows();
  INSERT INTO oracle.exp_pins
  SELECT p.id, p.image_id, e.advisory_id,
         (SELECT n.id FROM images o JOIN images n ON n.family = o.family
           WHERE o.id = p.image_id AND n.status = 'active'
             AND (n.published_at, n.id) > (o.published_at, o.id)
             AND NOT EXISTS (SELECT 1 FROM oracle.exp_rows x WHERE x.image_id = n.id
                               AND x.advisory_id = e.advisory_id)
             AND NOT EXISTS (SELECT 1 FROM pin_constraints k WHERE k.pin_id = p.id
                               AND NOT EXISTS (SELECT 1 FROM image_components c
                                 WHERE c.image_id = n.id AND c.name = k.component
                                   AND c.version_key >= k.lo AND c.version_key <= k.hi
                                   AND (k.lo_incl OR c.version_key <> k.lo)
                                   AND (k.hi_incl OR c.version_key <> k.hi)))
           ORDER BY n.published_at, n.id LIMIT 1)
    FROM pins p JOIN oracle.exp_rows e ON e.image_id = p.image_id;

  -- History: a row that stopped existing forgets its fix; a first fix is announced per
  -- (family, advisory, fix), the smallest image id speaking for it.
  DELETE FROM oracle.seen_fix s WHERE NOT EXISTS (SELECT 1 FROM oracle.exp_rows e
    WHERE e.image_id = s.image_id AND e.advisory_id = s.advisory_id);
  WITH fresh AS (
    SELECT e.* FROM oracle.exp_rows e
     WHERE e.fixed_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM oracle.seen_fix s
       WHERE s.image_id = e.image_id AND s.advisory_id = e.advisory_id)
  ), mark AS (
    INSERT INTO oracle.seen_fix SELECT image_id, advisory_id FROM fresh RETURNING 1
  )
  INSERT INTO oracle.family_events
  SELECT DISTINCT ON (i.family, f.advisory_id, f.fixed_by) i.family, f.advisory_id, f.fixed_by,
         f.image_id
    FROM fresh f JOIN images i ON i.id = f.image_id
   ORDER BY i.family, f.advisory_id, f.fixed_by, f.image_id
  ON CONFLICT DO NOTHING;

  DELETE FROM oracle.pin_seen WHERE pin_id = p_gone;
  DELETE FROM oracle.pin_events WHERE pin_id = p_gone;
  INSERT INTO oracle.pin_seen SELECT pin_id, image_id, advisory_id FROM oracle.exp_pins
   WHERE pin_id = p_pin AND fixed_by IS NOT NULL ON CONFLICT DO NOTHING;
  WITH newly AS (
    INSERT INTO oracle.pin_seen SELECT pin_id, image_id, advisory_id FROM oracle.exp_pins
     WHERE fixed_by IS NOT NULL ON CONFLICT DO NOTHING RETURNING *
  )
  , ev AS (
    INSERT INTO oracle.pin_events SELECT n.pin_id, n.image_id, n.advisory_id, e.fixed_by
      FROM newly n JOIN oracle.exp_pins e USING (pin_id, image_id, advisory_id) RETURNING *
  )
  INSERT INTO oracle.pin_events_all SELECT pin_id, image_id, advisory_id FROM ev;

  -- The comparisons, each one way and the other.
  SELECT 'image_advisories: expected ' || coalesce(string_agg(format('%s', x), ' '), '') INTO d FROM (
    (SELECT image_id, advisory_id, fixed_by FROM oracle.exp_rows
     EXCEPT SELECT image_id, advisory_id, fixed_by FROM image_advisories)
    UNION ALL SELECT NULL, '(server has)', NULL
    UNION ALL (SELECT image_id, advisory_id, fixed_by FROM image_advisories
     EXCEPT SELECT image_id, advisory_id, fixed_by FROM oracle.exp_rows)) x
   HAVING count(*) > 1;
  IF d IS NOT NULL THEN RETURN d; END IF;

  SELECT 'patch_status: ' || string_agg(format('image %s is %s, expected %s', i.id, i.patch_status,
           e.st), '; ') INTO d
    FROM images i, LATERAL (SELECT CASE
      WHEN i.status = 'revoked' THEN 'revoked'
      WHEN NOT EXISTS (SELECT 1 FROM oracle.exp_rows r WHERE r.image_id = i.id) THEN 'ok'
      WHEN EXISTS (SELECT 1 FROM oracle.exp_rows r WHERE r.image_id = i.id
                     AND r.fixed_by IS NOT NULL) THEN 'patch_available'
      ELSE 'vulnerable' END AS st) e
   WHERE i.patch_status <> e.st;
  IF d IS NOT NULL THEN RETURN d; END IF;

  -- The OS half: over the advisories with package ranges, for images with an inventory.
  SELECT 'os_patch_status: ' || string_agg(format('image %s is %s, expected %s', i.id,
           coalesce(i.os_patch_status, 'null'), coalesce(e.st, 'null')), '; ') INTO d
    FROM images i, LATERAL (SELECT CASE
      WHEN NOT EXISTS (SELECT 1 FROM image_packages ip WHERE ip.image_id = i.id) THEN NULL
      WHEN i.status = 'revoked' THEN 'revoked'
      WHEN NOT EXISTS (SELECT 1 FROM oracle.exp_rows r WHERE r.image_id = i.id
                         AND r.advisory_id IN (SELECT advisory_id FROM advisory_package_ranges))
        THEN 'ok'
      WHEN EXISTS (SELECT 1 FROM oracle.exp_rows r WHERE r.image_id = i.id
                     AND r.fixed_by IS NOT NULL
                     AND r.advisory_id IN (SELECT advisory_id FROM advisory_package_ranges))
        THEN 'patch_available'
      ELSE 'vulnerable' END AS st) e
   WHERE i.os_patch_status IS DISTINCT FROM e.st;
  IF d IS NOT NULL THEN RETURN d; END IF;

  SELECT 'pin_advisories: expected ' || coalesce(string_agg(format('%s', x), ' '), '') INTO d FROM (
    (SELECT pin_id, image_id, advisory_id, fixed_by FROM oracle.exp_pins
     EXCEPT SELECT pin_id, image_id, advisory_id, fixed_by FROM pin_advisories)
    UNION ALL SELECT NULL, NULL, '(server has)', NULL
    UNION ALL (SELECT pin_id, image_id, advisory_id, fixed_by FROM pin_advisories
     EXCEPT SELECT pin_id, image_id, advisory_id, fixed_by FROM oracle.exp_pins)) x
   HAVING count(*) > 1;
  IF d IS NOT NULL THEN RETURN d; END IF;

  SELECT 'family patch.available: expected ' || coalesce(string_agg(format('%s', x), ' '), '')
    INTO d FROM (
    (SELECT family, advisory_id, fixed_by, image_id FROM oracle.family_events
     EXCEPT SELECT family, advisory_id, fixed_by, image_id FROM patch_events WHERE kind = 'family')
    UNION ALL SELECT '(server has)', NULL, NULL, NULL
    UNION ALL (SELECT family, advisory_id, fixed_by, image_id FROM patch_events
                WHERE kind = 'family'
     EXCEPT SELECT family, advisory_id, fixed_by, image_id FROM oracle.family_events)) x
   HAVING count(*) > 1;
  IF d IS NOT NULL THEN RETURN d; END IF;

  SELECT 'pin patch.available: expected ' || coalesce(string_agg(format('%s', x), ' '), '')
    INTO d FROM (
    (SELECT pin_id, image_id, advisory_id, fixed_by FROM oracle.pin_events
     EXCEPT ALL SELECT pin_id, image_id, advisory_id, fixed_by FROM patch_events WHERE kind = 'pin')
    UNION ALL SELECT NULL, NULL, '(server has)', NULL
    UNION ALL (SELECT pin_id, image_id, advisory_id, fixed_by FROM patch_events WHERE kind = 'pin'
     EXCEPT ALL SELECT pin_id, image_id, advisory_id, fixed_by FROM oracle.pin_events)) x
   HAVING count(*) > 1;
  IF d IS NOT NULL THEN RETURN d; END IF;

  -- Every staged patch.available went out to the subscription that wants them all, once.
  SELECT format('webhook events: %s patch.available, %s expected', w.n, e.n) INTO d
    FROM (SELECT count(*) AS n FROM webhook_events WHERE type = 'patch.available') w,
         (SELECT (SELECT count(*) FROM oracle.family_events)
                 + (SELECT count(*) FROM oracle.pin_events_all) AS n) e
   WHERE w.n <> e.n;
  RETURN coalesce(d, '');
END
$$;
