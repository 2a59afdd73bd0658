-- End of life ahead: when an image's stack stops being supported, from the knowledge tables, and
-- the image.eol_approaching events for pinned images (migrations/0151_eol_events.sql).
-- Callers: server/db/eol.c (GET /v1/images/{id}/eol, GET /v1/pins/{id}/eol, and the announcing
-- job server/jobs/eol.c), server/db/images.c (the search's eol_before filter) and
-- server/db/pins.c (the pin list's eol_before filter and the pin document's eol). Dated parts:
-- the driver branch (ref_driver_branch.eol: NVIDIA's month, or endoflife.date's estimate), and
-- the OS release, CUDA, Python, PyTorch and TensorFlow releases of ref_eol
-- (migrations/0260_ref_eol.sql: whose date it is in basis; UNCONFIRMED rows have none).

-- The dated parts of an image's stack, each {component, version, release, eol, basis, status,
-- source}. An OS is matched by its os-release ID (Amazon Linux's spellings as amzn) and the
-- longest release that is its VERSION_ID or a dotted prefix of it (rhel 9.4 -> 9); a component
-- by the longest release that prefixes its version (python 3.10.12 -> 3.10).
CREATE OR REPLACE FUNCTION imx_image_eol_parts(p_image bigint)
RETURNS TABLE (component text, version text, release text, eol date, basis text, status text,
               source text)
LANGUAGE sql STABLE AS $$
  SELECT c.name, c.version, 'R' || b.branch, b.eol, b.eol_basis, b.status,
         coalesce(b.eol_source, b.source)
    FROM image_components c JOIN ref_driver_branch b ON b.branch = c.version_key[1]
   WHERE c.image_id = p_image AND c.name = 'nvidia-driver' AND b.eol IS NOT NULL
  UNION ALL
  SELECT 'os', i.os_name || ' ' || i.os_version, k.component || ' ' || k.release, k.eol, k.basis,
         k.status, k.source
    FROM images i CROSS JOIN LATERAL (
      SELECT r.* FROM ref_eol r
       WHERE r.kind = 'os' AND r.eol IS NOT NULL
         AND r.component = CASE WHEN lower(i.os_name) IN ('amazon-linux', 'amazonlinux', 'al2',
                                  'al2023', 'amazon') THEN 'amzn' ELSE lower(i.os_name) END
         AND (i.os_version = r.release OR i.os_version LIKE r.release || '.%')
       ORDER BY length(r.release) DESC LIMIT 1) k
   WHERE i.id = p_image
  UNION ALL
  SELECT c.name, c.version, k.release, k.eol, k.basis, k.status, k.source
    FROM image_components c CROSS JOIN LATERAL (
      SELECT r.* FROM ref_eol r
       WHERE r.kind = 'component' AND r.component = c.name AND r.eol IS NOT NULL
         AND c.version_key[1:cardinality(r.release_key)] = r.release_key
       ORDER BY cardinality(r.release_key) DESC LIMIT 1) k
   WHERE c.image_id = p_image
$$;

-- An image's earliest end of life (NULL: no part dated): the filters' test.
CREATE OR REPLACE FUNCTION imx_image_eol_date(p_image bigint) RETURNS date
LANGUAGE sql STABLE AS $$
  SELECT min(p.eol) FROM imx_image_eol_parts(p_image) p
$$;

-- An image's end of life: {"date": the earliest, "reaches": [what ends then], "stack": [every
-- dated part]}; NULL when no part is dated.
CREATE OR REPLACE FUNCTION imx_image_eol_json(p_image bigint) RETURNS json
LANGUAGE sql STABLE AS $$
  WITH parts AS (SELECT * FROM imx_image_eol_parts(p_image))
  SELECT json_build_object('date', min(p.eol),
           'reaches', json_agg(json_build_object('component', p.component, 'version', p.version,
                        'release', p.release, 'eol', p.eol, 'basis', p.basis,
                        'status', p.status, 'source', p.source)
                        ORDER BY p.component) FILTER (WHERE p.eol = (SELECT min(eol) FROM parts)),
           'stack', json_agg(json_build_object('component', p.component, 'version', p.version,
                      'release', p.release, 'eol', p.eol, 'basis', p.basis,
                      'status', p.status, 'source', p.source)
                      ORDER BY p.eol, p.component))
    FROM parts p HAVING count(*) > 0
$$;

-- Announces the thresholds pinned images reached by p_today: for each (team, pinned image) whose
-- end of life is at most 90, 30 or 0 days away, every threshold reached is recorded once, and
-- one image.eol_approaching is sent for the closest threshold newly reached (an image first seen
-- 20 days out hears of 30, never of 90 afterwards). Returns how many events were staged.
CREATE OR REPLACE FUNCTION imx_eol_announce(p_today date) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v record;
  v_n integer := 0;
  v_id bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('imx_eol_announce'), 0);
  FOR v IN
    WITH pinned AS (
      SELECT p.team_id, p.image_id, array_agg(p.name ORDER BY p.name) AS pins
        FROM pins p GROUP BY p.team_id, p.image_id
    ), dated AS (
      SELECT pn.*, imx_image_eol_json(pn.image_id) AS eol_doc FROM pinned pn
    ), reached AS (
      SELECT d.team_id, d.image_id, (d.eol_doc ->> 'date')::date AS eol, t.th
        FROM dated d CROSS JOIN (VALUES (90), (30), (0)) t(th)
       WHERE d.eol_doc IS NOT NULL AND (d.eol_doc ->> 'date')::date - p_today <= t.th
    ), fresh AS (
      INSERT INTO eol_events (team_id, image_id, threshold, eol)
      SELECT r.team_id, r.image_id, r.th, r.eol FROM reached r ORDER BY 1, 2, 3
      ON CONFLICT DO NOTHING
      RETURNING team_id, image_id, threshold, eol
    )
    SELECT f.team_id, f.image_id, min(f.threshold) AS threshold, f.eol, t.slug, i.family,
           d.pins, d.eol_doc::text AS eol_doc
      FROM fresh f JOIN teams t ON t.id = f.team_id JOIN images i ON i.id = f.image_id
      JOIN dated d ON d.team_id = f.team_id AND d.image_id = f.image_id
     GROUP BY f.team_id, f.image_id, f.eol, t.slug, i.family, d.pins, d.eol_doc::text
     ORDER BY f.team_id, f.image_id
  LOOP
    v_id := imx_webhook_enqueue(v.team_id, 'image.eol_approaching',
              jsonb_build_object('team', v.slug, 'image', imx_image_event_json(v.image_id),
                'threshold_days', v.threshold, 'days_left', v.eol - p_today,
                'eol', v.eol_doc::jsonb, 'pins', to_jsonb(v.pins)),
              ARRAY[v.family], v.pins, NULL);
    UPDATE eol_events SET event_id = v_id
     WHERE team_id = v.team_id AND image_id = v.image_id AND threshold = v.threshold
       AND eol = v.eol;
    v_n := v_n + 1;
  END LOOP;
  RETURN v_n;
END
$$;
