-- Exposure over time (issue #36; table team_exposure_daily, migrations/0270_exposure_history.sql).
-- Callers: server/db/exposure.c (the daily snapshot run by server/jobs/exposure.c, and GET
-- /v1/teams/{slug}/exposure/history).

-- Records p_day's exposure of every team (one row each; a second run the same day replaces the
-- day's row with the newer look, so the job may run hourly) and drops rows older than
-- p_keep_days before p_day. A pin is exposed when an advisory hits its pinned image; a node when
-- it runs (reported within imx_node_stale_s(), IMAXE_NODE_STALE_S, at the time of the run) an
-- image an advisory hits. Each counts once, under its most severe advisory. oldest_fix_days:
-- the longest an exposed pin's image has had a fix in its family (image_advisories.fixed_by),
-- counted from when that fix was there to take: the fix image's publication, or the advisory's
-- when it came later (not fix_seen_at, the moment this server noticed, which a late import or a
-- bulk load moves). Returns the rows written.
CREATE OR REPLACE FUNCTION imx_exposure_snapshot(p_day date, p_keep_days int) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('imx_exposure_snapshot'), 0);
  WITH worst AS (
    -- Each image an advisory hits: its most severe advisory (4 critical .. 1 low) and the
    -- earliest day a fix for one of them was seen.
    SELECT x.image_id,
           max(CASE a.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3
                               WHEN 'medium' THEN 2 ELSE 1 END) AS sev,
           min(greatest(f.published_at, a.published::timestamptz)) FILTER (WHERE f.id IS NOT NULL)
             AS fix_since
      FROM image_advisories x JOIN advisories a ON a.id = x.advisory_id
      LEFT JOIN images f ON f.id = x.fixed_by
     GROUP BY x.image_id
  ), p AS (
    SELECT pn.team_id, count(*) AS pins,
           count(w.image_id) AS exposed,
           count(*) FILTER (WHERE w.sev = 4) AS c, count(*) FILTER (WHERE w.sev = 3) AS h,
           count(*) FILTER (WHERE w.sev = 2) AS m, count(*) FILTER (WHERE w.sev = 1) AS l,
           max(greatest(p_day - (w.fix_since AT TIME ZONE 'UTC')::date, 0)) AS oldest
      FROM pins pn LEFT JOIN worst w ON w.image_id = pn.image_id
     GROUP BY pn.team_id
  ), n AS (
    SELECT nd.team_id, count(*) AS nodes,
           count(w.image_id) AS exposed,
           count(*) FILTER (WHERE w.sev = 4) AS c, count(*) FILTER (WHERE w.sev = 3) AS h,
           count(*) FILTER (WHERE w.sev = 2) AS m, count(*) FILTER (WHERE w.sev = 1) AS l
      FROM nodes nd LEFT JOIN worst w ON w.image_id = nd.image_id
     WHERE nd.last_seen >= now() - make_interval(secs => imx_node_stale_s())
     GROUP BY nd.team_id
  ), w AS (
    INSERT INTO team_exposure_daily AS d (team_id, day, pins, pins_exposed, pins_critical,
                pins_high, pins_medium, pins_low, nodes, nodes_exposed, nodes_critical,
                nodes_high, nodes_medium, nodes_low, oldest_fix_days)
    SELECT t.id, p_day, coalesce(p.pins, 0), coalesce(p.exposed, 0), coalesce(p.c, 0),
           coalesce(p.h, 0), coalesce(p.m, 0), coalesce(p.l, 0), coalesce(n.nodes, 0),
           coalesce(n.exposed, 0), coalesce(n.c, 0), coalesce(n.h, 0), coalesce(n.m, 0),
           coalesce(n.l, 0), p.oldest
      FROM teams t LEFT JOIN p ON p.team_id = t.id LEFT JOIN n ON n.team_id = t.id
     ORDER BY t.id
    ON CONFLICT (team_id, day) DO UPDATE SET
      pins = EXCLUDED.pins, pins_exposed = EXCLUDED.pins_exposed,
      pins_critical = EXCLUDED.pins_critical, pins_high = EXCLUDED.pins_high,
      pins_medium = EXCLUDED.pins_medium, pins_low = EXCLUDED.pins_low,
      nodes = EXCLUDED.nodes, nodes_exposed = EXCLUDED.nodes_exposed,
      nodes_critical = EXCLUDED.nodes_critical, nodes_high = EXCLUDED.nodes_high,
      nodes_medium = EXCLUDED.nodes_medium, nodes_low = EXCLUDED.nodes_low,
      oldest_fix_days = EXCLUDED.oldest_fix_days, taken_at = now()
    RETURNING 1
  )
  SELECT count(*) INTO v_n FROM w;
  DELETE FROM team_exposure_daily WHERE day < p_day - p_keep_days;
  RETURN v_n;
END
$$;

-- GET /v1/teams/{slug}/exposure/history: the team's last p_days days (counted back from its
-- newest row, so the answer does not depend on the reader's clock), oldest first, as
-- {"team", "days": [{day, pins: {total, exposed, critical, high, medium, low}, nodes: {...},
-- oldest_fix_days}]}; a day the job did not run is absent. NULL: no such team.
CREATE OR REPLACE FUNCTION imx_exposure_history(p_team bigint, p_days int) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT json_build_object('team', t.slug, 'days', coalesce((
    SELECT json_agg(json_build_object('day', d.day,
             'pins', json_build_object('total', d.pins, 'exposed', d.pins_exposed,
                       'critical', d.pins_critical, 'high', d.pins_high,
                       'medium', d.pins_medium, 'low', d.pins_low),
             'nodes', json_build_object('total', d.nodes, 'exposed', d.nodes_exposed,
                       'critical', d.nodes_critical, 'high', d.nodes_high,
                       'medium', d.nodes_medium, 'low', d.nodes_low),
             'oldest_fix_days', d.oldest_fix_days) ORDER BY d.day)
      FROM team_exposure_daily d
     WHERE d.team_id = t.id
       AND d.day > (SELECT max(l.day) FROM team_exposure_daily l WHERE l.team_id = t.id) - p_days),
    '[]'))::text
    FROM teams t WHERE t.id = p_team
$$;
