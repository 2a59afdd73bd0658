-- End of life ahead: when an image's stack stops being supported, from the knowledge tables, and
-- the image.eol_approaching events for pinned images (migrations/0151_eol_events.sql).
-- Callers: server/db/eol.c (GET /v1/images/{id}/eol, and the announcing job server/jobs/eol.c). The
-- knowledge tables date the end of life of driver branches only (ref_driver_branch.eol: NVIDIA's
-- month, or endoflife.date's estimate, eol_basis says which); CUDA, OS, Python and framework
-- releases carry no end-of-life date there yet, so they reach none here.

-- An image's end of life: {"date": the earliest, "reaches": [what ends then], "stack": [every
-- dated part]}, each part {component, version, release, eol, basis}; NULL when no part is dated.
CREATE OR REPLACE FUNCTION imx_image_eol_json(p_image bigint) RETURNS json
LANGUAGE sql STABLE AS $$
  WITH parts AS (
    SELECT c.name AS component, c.version, 'R' || b.branch AS release, b.eol,
           b.eol_basis AS basis
      FROM image_components c JOIN ref_driver_branch b ON b.branch = c.version_key[1]
     WHERE c.image_id = p_image AND c.name = 'nvidia-driver' AND b.eol IS NOT NULL
  )
  SELECT json_build_object('date', min(p.eol),
           'reaches', json_agg(json_build_object('component', p.component, 'version', p.version,
                        'release', p.release, 'eol', p.eol, 'basis', p.basis)
                        ORDER BY p.component) FILTER (WHERE p.eol = (SELECT min(eol) FROM parts)),
           'stack', json_agg(json_build_object('component', p.component, 'version', p.version,
                      'release', p.release, 'eol', p.eol, 'basis', p.basis)
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
