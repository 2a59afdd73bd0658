-- The fleet's use cases (issue #34): the manifest a node's report is compared with, recording a
-- report (the latest per node, a bounded history of changes, node.drifted once per change), and
-- the fleet's reads. Called from server/db/nodes.c, and imx_nodes_running from
-- server/db/advisories.c too (an image's patch document with its running nodes); drift itself is
-- computed in C by server/domain/drift.c, the code `imaxe probe --check` runs.

-- imx_node_manifest: the catalog image a node booted, named by id or by artifact id (an AMI id)
-- with or without its region, as drift compares it: {id, family, version, architecture, os,
-- kernel, gpus, components, packages}. No row when the catalog has no such image.
CREATE OR REPLACE FUNCTION imx_node_manifest(p_image bigint, p_artifact text, p_region text)
RETURNS TABLE (image_id bigint, manifest text)
LANGUAGE sql STABLE AS $$
  WITH img AS (
    SELECT i.* FROM images i WHERE p_image IS NOT NULL AND i.id = p_image
    UNION ALL
    (SELECT i.* FROM image_artifacts a JOIN images i ON i.id = a.image_id
      WHERE p_image IS NULL AND a.artifact_id = p_artifact
        AND (p_region IS NULL OR a.region = p_region)
      ORDER BY i.id DESC LIMIT 1))
  SELECT i.id, json_build_object(
    'id', i.id, 'family', i.family, 'version', i.version, 'architecture', i.architecture,
    'os', json_build_object('name', i.os_name, 'version', i.os_version), 'kernel', i.kernel,
    'gpus', to_json(i.gpus),
    -- a component listed more than once (two driver trees) comes once per entry with the GPUs
    -- it serves: drift compares the node with the entry for its GPU
    'components', (SELECT coalesce(json_agg(CASE WHEN c.gpus IS NULL
                     THEN json_build_object('name', c.name, 'version', c.version)
                     ELSE json_build_object('name', c.name, 'version', c.version,
                                            'gpus', to_json(c.gpus)) END
                                            ORDER BY c.name, c.entry), '[]')
                     FROM image_components c WHERE c.image_id = i.id),
    'packages', (SELECT coalesce(json_agg(json_build_object('name', o.name, 'version', o.version)
                                          ORDER BY o.name), '[]')
                   FROM image_packages ip, unnest(ip.chunks) ch(id)
                   JOIN os_package_chunks k ON k.id = ch.id, unnest(k.members) m(id)
                   JOIN os_packages o ON o.id = m.id
                  WHERE ip.image_id = i.id))::text
  FROM img i
$$;

-- Most history rows one node keeps, whatever IMAXE_NODE_HISTORY_DAYS says.
CREATE OR REPLACE FUNCTION imx_node_history_max() RETURNS int
LANGUAGE sql IMMUTABLE AS $$ SELECT 500 $$;

-- imx_node_report: records one report of node p_name of team p_team.
--   p_image        the catalog image it booted (NULL: not in the catalog)
--   p_booted       the image as the node named it
--   p_drift        whether it drifts from p_image (NULL: no image to compare with)
--   p_drift_items  the drift rows that count (server/domain/drift.c)
--   p_history_days how long history rows are kept
-- Steps: 1. take the node's row (creating it on its first report); 2. write the latest report,
-- and a history row when the report or the image changed; 3. node.drifted to the node's team
-- when the node drifts and its drift rows differ from the last report's (so once per change, not
-- once per report); 4. prune the node's history. Cost: one node's rows, never the fleet's.
-- Returns {"id", "name", "created", "changed", "drift", "drift_changed", "event"}.
CREATE OR REPLACE FUNCTION imx_node_report(p_team bigint, p_name text, p_image bigint,
                                           p_booted jsonb, p_instance_type text, p_gpus text[],
                                           p_gpu_count int, p_drift boolean, p_drift_items jsonb,
                                           p_report jsonb, p_history_days int)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_at timestamptz := clock_timestamp();
  v_digest text := md5(p_report::text);
  v_ddigest text := CASE WHEN p_drift THEN md5(coalesce(p_drift_items, '[]')::text) END;
  v_old nodes%ROWTYPE;
  v_id bigint;
  v_created boolean := false;
  v_changed boolean;
  v_event bigint;
BEGIN
  -- 1. The node's row, locked: two reports of one node at once are taken one after the other.
  SELECT * INTO v_old FROM nodes n WHERE n.team_id = p_team AND n.name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO nodes (team_id, name, image_id, booted, instance_type, gpus, gpu_count, drift,
                       drift_items, drift_digest, drift_since, report, report_digest,
                       first_seen, last_seen)
    VALUES (p_team, p_name, p_image, p_booted, p_instance_type, coalesce(p_gpus, '{}'),
            coalesce(p_gpu_count, 0), p_drift, coalesce(p_drift_items, '[]'), v_ddigest,
            CASE WHEN p_drift THEN v_at END, p_report, v_digest, v_at, v_at)
    ON CONFLICT (team_id, name) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NULL THEN
      -- Another report of the same new node committed first: go on as its second report.
      SELECT * INTO v_old FROM nodes n WHERE n.team_id = p_team AND n.name = p_name FOR UPDATE;
    ELSE
      v_created := true;
    END IF;
  END IF;

  -- 2. The latest report; history when something changed.
  IF v_created THEN
    v_changed := true;
  ELSE
    v_id := v_old.id;
    v_changed := v_old.report_digest <> v_digest OR v_old.image_id IS DISTINCT FROM p_image;
    UPDATE nodes n SET
      image_id = p_image, booted = p_booted, instance_type = p_instance_type,
      gpus = coalesce(p_gpus, '{}'), gpu_count = coalesce(p_gpu_count, 0),
      drift = p_drift, drift_items = coalesce(p_drift_items, '[]'), drift_digest = v_ddigest,
      drift_since = CASE WHEN NOT coalesce(p_drift, false) THEN NULL
                         WHEN coalesce(v_old.drift, false) THEN v_old.drift_since
                         ELSE v_at END,
      report = CASE WHEN v_changed THEN p_report ELSE n.report END,
      report_digest = v_digest, last_seen = v_at, reports = n.reports + 1
    WHERE n.id = v_id;
  END IF;
  IF v_changed THEN
    INSERT INTO node_reports (node_id, at, image_id, drift, drift_items, report)
    VALUES (v_id, v_at, p_image, p_drift, coalesce(p_drift_items, '[]'), p_report);
  END IF;

  -- 3. node.drifted, once per change of what drifts.
  IF p_drift AND v_ddigest IS DISTINCT FROM v_old.drift_digest THEN
    v_event := imx_webhook_enqueue(p_team, 'node.drifted',
      jsonb_build_object(
        'node', jsonb_build_object('name', p_name, 'team', (SELECT t.slug FROM teams t WHERE t.id = p_team),
                                   'instance_type', p_instance_type, 'gpus', to_jsonb(coalesce(p_gpus, '{}'))),
        'image', imx_image_event_json(p_image),
        'drift', coalesce(p_drift_items, '[]'),
        'previous_drift', CASE WHEN v_old.id IS NULL THEN NULL ELSE to_jsonb(v_old.drift) END),
      ARRAY(SELECT i.family FROM images i WHERE i.id = p_image));
  END IF;

  -- 4. History stays within its days and its count.
  DELETE FROM node_reports r
   WHERE r.node_id = v_id AND r.at < v_at - make_interval(days => p_history_days);
  IF v_changed THEN
    DELETE FROM node_reports r
     WHERE r.node_id = v_id
       AND r.at < (SELECT x.at FROM node_reports x WHERE x.node_id = v_id
                    ORDER BY x.at DESC OFFSET imx_node_history_max() - 1 LIMIT 1);
  END IF;

  RETURN jsonb_build_object('id', v_id, 'name', p_name, 'created', v_created, 'changed', v_changed,
                            'drift', p_drift,
                            'drift_changed', p_drift AND v_ddigest IS DISTINCT FROM v_old.drift_digest,
                            'event', v_event IS NOT NULL);
END
$$;

-- A node as the fleet lists it. p_stale_s: seconds without a report after which it is stale.
CREATE OR REPLACE FUNCTION imx_node_json(n nodes, p_stale_s int) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', n.name, 'team', (SELECT t.slug FROM teams t WHERE t.id = n.team_id),
    'image', CASE WHEN n.image_id IS NULL THEN NULL ELSE
      (SELECT json_build_object('id', i.id, 'family', i.family, 'version', i.version,
                                'status', imx_image_status(i.status, i.revoke_at),
                                'patch_status', i.patch_status)
         FROM images i WHERE i.id = n.image_id) END,
    'booted', n.booted, 'instance_type', n.instance_type, 'gpus', to_json(n.gpus),
    'gpu_count', n.gpu_count, 'drift', n.drift, 'drift_items', n.drift_items,
    'drift_since', n.drift_since,
    'stale', n.last_seen < now() - make_interval(secs => p_stale_s),
    'first_seen', n.first_seen, 'last_seen', n.last_seen, 'reports', n.reports)
$$;

-- One page of the caller's nodes (imx_caller_teams), filtered (NULL: any), by id after p_after:
-- {"items": [...]} and the key of the next page ([id], NULL on the last). The statement names
-- only the filters given, so each is planned with its index (nodes_image, nodes_drifted, the
-- primary key's order) rather than as one generic plan of `p IS NULL OR ...` terms.
CREATE OR REPLACE FUNCTION imx_nodes_page(p_user bigint, p_token_team bigint, p_team bigint,
                                          p_image bigint, p_family text, p_pin bigint,
                                          p_drift boolean, p_stale boolean, p_gpu text,
                                          p_patch text, p_stale_s int, p_after bigint, p_limit int)
RETURNS TABLE (doc text, next_key text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_where text := 'n.team_id = ANY ($1)';
  v_teams bigint[] := ARRAY(SELECT imx_caller_teams(p_user, p_token_team, p_team));
  v_ids bigint[];
BEGIN
  IF p_image IS NOT NULL THEN v_where := v_where || ' AND n.image_id = $2'; END IF;
  IF p_family IS NOT NULL THEN
    v_where := v_where || ' AND n.image_id IN (SELECT i.id FROM images i WHERE i.family = $3)';
  END IF;
  IF p_pin IS NOT NULL THEN
    v_where := v_where || ' AND (n.team_id, n.image_id) IN (SELECT p.team_id, p.image_id FROM pins p WHERE p.id = $4)';
  END IF;
  IF p_drift THEN v_where := v_where || ' AND n.drift';
  ELSIF p_drift = false THEN v_where := v_where || ' AND n.drift = false'; END IF;
  -- The stale few through node_seen's index (the oldest reports); not stale: most nodes, so
  -- walking them in id order and testing each row is the cheap way.
  IF p_stale THEN
    v_where := v_where || ' AND n.id IN (SELECT s.node_id FROM node_seen s'
                       || ' WHERE s.last_seen < now() - make_interval(secs => $5))'
                       || ' AND n.last_seen < now() - make_interval(secs => $5)';
  ELSIF p_stale = false THEN
    v_where := v_where || ' AND n.last_seen >= now() - make_interval(secs => $5)';
  END IF;
  IF p_gpu IS NOT NULL THEN v_where := v_where || ' AND n.gpus @> ARRAY[$7]'; END IF;
  IF p_patch IS NOT NULL THEN
    v_where := v_where || ' AND n.image_id IN (SELECT i.id FROM images i WHERE i.patch_status = $8)';
  END IF;
  IF p_after IS NOT NULL THEN v_where := v_where || ' AND n.id > $9'; END IF;
  EXECUTE 'SELECT ARRAY(SELECT n.id FROM nodes n WHERE ' || v_where
          || ' ORDER BY n.id LIMIT $10 + 1)'
    INTO v_ids
    USING v_teams, p_image, p_family, p_pin, p_stale_s, p_stale, p_gpu, p_patch, p_after, p_limit;
  RETURN QUERY
  SELECT json_build_object('items', coalesce((SELECT json_agg(imx_node_json(n, p_stale_s) ORDER BY n.id)
                                                FROM nodes n
                                               WHERE n.id = ANY (v_ids[1:p_limit])), '[]'))::text,
         CASE WHEN cardinality(v_ids) > p_limit
              THEN json_build_array(v_ids[p_limit])::text END;
END
$$;

-- One node of the caller's teams by name (p_team: that team only), with its latest report and
-- its history (newest first, at most p_history rows, without the reports themselves). Several
-- rows when teams share the name; none when the caller sees no such node.
CREATE OR REPLACE FUNCTION imx_node_get(p_user bigint, p_token_team bigint, p_team bigint,
                                        p_name text, p_stale_s int, p_history int)
RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT (imx_node_json(n, p_stale_s)::jsonb || jsonb_build_object(
            'report', n.report,
            'history', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                          'at', h.at, 'image_id', h.image_id, 'drift', h.drift,
                                          'drift_items', h.drift_items) ORDER BY h.at DESC), '[]')
                          FROM (SELECT * FROM node_reports r WHERE r.node_id = n.id
                                 ORDER BY r.at DESC LIMIT p_history) h),
            'history_rows', (SELECT count(*) FROM node_reports r WHERE r.node_id = n.id)))::text
    FROM nodes n
   WHERE n.name = p_name AND n.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, p_team))
   ORDER BY n.team_id LIMIT 2
$$;

-- The stale nodes (silent for p_stale_s seconds), from node_seen (functions/fleet.sql): a row
-- older than the cutoff by more than node_seen's greatest lag (300 s) is stale for sure and read
-- from node_seen alone; the few in the last 300 s before the cutoff are candidates that
-- nodes.last_seen decides. Planned on each call with the cutoff's value (EXECUTE), so that the
-- planner sees how few rows the range holds. Callers: imx_fleet_counts, imx_nodes_running,
-- imx_advisory_exposure.
CREATE OR REPLACE FUNCTION imx_nodes_stale(p_stale_s int)
RETURNS TABLE (node_id bigint, team_id bigint, image_id bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE
    'SELECT s.node_id, s.team_id, s.image_id FROM node_seen s WHERE s.last_seen < $1 - interval ''300 s''
     UNION ALL
     SELECT n.id, n.team_id, coalesce(n.image_id, 0) FROM node_seen s JOIN nodes n ON n.id = s.node_id
      WHERE s.last_seen >= $1 - interval ''300 s'' AND s.last_seen < $1 AND n.last_seen < $1'
    USING now() - make_interval(secs => p_stale_s);
END
$$;

-- The fleet in counts for the caller's teams: nodes per image and per pin (the pin's team's
-- nodes on the pinned image), each with how many drift and how many are stale; the largest
-- p_limit of each. Reads the counts kept per (team, image) in fleet_counts and the stale nodes
-- alone through node_seen's index (0360_fleet_counts.sql), never every node: at 100,000 nodes
-- counting the nodes themselves took 1.5 s (bench/RESULTS.md).
CREATE OR REPLACE FUNCTION imx_fleet_counts(p_user bigint, p_token_team bigint, p_team bigint,
                                            p_stale_s int, p_limit int)
RETURNS text
LANGUAGE sql STABLE AS $$
  WITH callers AS MATERIALIZED (SELECT imx_caller_teams(p_user, p_token_team, p_team) AS id),
  counts AS (
    SELECT f.team_id, f.image_id, sum(f.nodes)::bigint AS nodes, sum(f.drifted)::bigint AS drifted
      FROM fleet_counts f WHERE f.team_id IN (SELECT ct.id FROM callers ct)
     GROUP BY f.team_id, f.image_id HAVING sum(f.nodes) <> 0),
  stale AS (
    SELECT st.team_id, st.image_id, count(*) AS stale
      FROM imx_nodes_stale(p_stale_s) st
     WHERE st.team_id IN (SELECT ct.id FROM callers ct)
     GROUP BY 1, 2),
  mine AS MATERIALIZED (
    SELECT c.team_id, c.image_id, c.nodes, c.drifted, coalesce(s.stale, 0) AS stale
      FROM counts c LEFT JOIN stale s ON s.team_id = c.team_id AND s.image_id = c.image_id),
  by_image AS (
    SELECT m.image_id, sum(m.nodes)::bigint AS nodes, sum(m.drifted)::bigint AS drifted,
           sum(m.stale)::bigint AS stale
      FROM mine m WHERE m.image_id <> 0 GROUP BY m.image_id),
  by_pin AS (
    SELECT p.id, p.name, p.team_id, p.image_id, m.nodes, m.drifted, m.stale
      FROM pins p JOIN mine m ON m.team_id = p.team_id AND m.image_id = p.image_id
     WHERE p.team_id IN (SELECT ct.id FROM callers ct))
  SELECT json_build_object(
    'nodes', (SELECT coalesce(sum(m.nodes), 0)::bigint FROM mine m),
    'drifted', (SELECT coalesce(sum(m.drifted), 0)::bigint FROM mine m),
    'stale', (SELECT coalesce(sum(m.stale), 0)::bigint FROM mine m),
    'unknown_image', (SELECT coalesce(sum(m.nodes), 0)::bigint FROM mine m WHERE m.image_id = 0),
    'by_image', (SELECT coalesce(json_agg(x ORDER BY x.nodes DESC, (x.image->>'id')::bigint), '[]') FROM (
        SELECT json_build_object('id', i.id, 'family', i.family, 'version', i.version,
                                 'patch_status', i.patch_status) AS image,
               b.nodes, b.drifted, b.stale
          FROM by_image b JOIN images i ON i.id = b.image_id
         ORDER BY b.nodes DESC, i.id LIMIT p_limit) x),
    'by_pin', (SELECT coalesce(json_agg(y ORDER BY y.nodes DESC, y.id), '[]') FROM (
        SELECT b.id, b.name, (SELECT t.slug FROM teams t WHERE t.id = b.team_id) AS team,
               b.image_id, b.nodes, b.drifted, b.stale
          FROM by_pin b ORDER BY b.nodes DESC, b.id LIMIT p_limit) y))::text
$$;

-- How long a node may stay silent and still count as running, for SQL that has no request to
-- ask (webhook payloads, GET /v1/images/{id}/patch?nodes=true, the exposure snapshot):
-- IMAXE_NODE_STALE_S, which the server sets on every connection it opens as the session
-- setting imaxe.node_stale_s (server/db/pool.c); 900, its default, on a connection that did
-- not (psql).
-- Stale is decided when read, against now(): no job marks nodes, so a node is running or stale
-- by the setting in force at the moment of the question.
CREATE OR REPLACE FUNCTION imx_node_stale_s() RETURNS int
LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('imaxe.node_stale_s', true), '')::int, 900)
$$;

-- Running (not stale) nodes that booted p_image, of team p_team (NULL: every team): the count
-- kept in fleet_counts less the image's stale nodes, found through node_seen's index (its rows
-- are candidates, nodes.last_seen decides).
CREATE OR REPLACE FUNCTION imx_nodes_running(p_image bigint, p_team bigint) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT sum(f.nodes) FROM fleet_counts f
                    WHERE f.image_id = p_image AND (p_team IS NULL OR f.team_id = p_team)), 0)::bigint
       - (SELECT count(*) FROM imx_nodes_stale(imx_node_stale_s()) st
           WHERE st.image_id = p_image AND (p_team IS NULL OR st.team_id = p_team))
$$;

-- An advisory's exposure: the images it affects (and how many of them have a fix), the pins on
-- them and their teams (counts over every team), and the running nodes on them: every team's
-- as a count, the caller's teams' per image (the largest p_limit). NULL when no such advisory.
CREATE OR REPLACE FUNCTION imx_advisory_exposure(p_adv text, p_user bigint, p_token_team bigint,
                                                 p_stale_s int, p_limit int)
RETURNS text
LANGUAGE sql STABLE AS $$
  WITH a AS (SELECT * FROM advisories WHERE id = p_adv),
  imgs AS (SELECT x.image_id, x.fixed_by FROM image_advisories x WHERE x.advisory_id = p_adv),
  -- running nodes per (team, image): the kept counts less the stale ones (0360_fleet_counts.sql)
  counted AS (
    SELECT f.team_id, f.image_id, sum(f.nodes) AS nodes
      FROM fleet_counts f JOIN imgs ON imgs.image_id = f.image_id GROUP BY 1, 2),
  stale AS (
    SELECT st.team_id, st.image_id, count(*) AS nodes
      FROM imx_nodes_stale(p_stale_s) st JOIN imgs ON imgs.image_id = st.image_id GROUP BY 1, 2),
  running AS (
    SELECT c.team_id, c.image_id, (c.nodes - coalesce(s.nodes, 0))::bigint AS nodes
      FROM counted c LEFT JOIN stale s ON s.team_id = c.team_id AND s.image_id = c.image_id),
  mine AS (
    SELECT r.image_id, sum(r.nodes)::bigint AS nodes FROM running r
     WHERE r.team_id IN (SELECT imx_caller_teams(p_user, p_token_team, NULL))
     GROUP BY r.image_id HAVING sum(r.nodes) > 0)
  SELECT json_build_object(
    'advisory', json_build_object('id', a.id, 'title', a.title, 'severity', a.severity,
                                  'cves', to_json(a.cves)),
    'images', (SELECT count(*) FROM imgs),
    'images_with_fix', (SELECT count(*) FROM imgs WHERE fixed_by IS NOT NULL),
    'pins', (SELECT count(*) FROM pins p JOIN imgs ON imgs.image_id = p.image_id),
    'teams', (SELECT count(DISTINCT p.team_id) FROM pins p JOIN imgs ON imgs.image_id = p.image_id),
    'nodes', (SELECT coalesce(sum(r.nodes), 0)::bigint FROM running r),
    'your_nodes', (SELECT coalesce(sum(nodes), 0) FROM mine),
    'your_nodes_by_image', (SELECT coalesce(json_agg(json_build_object(
                               'image', json_build_object('id', i.id, 'family', i.family,
                                                          'version', i.version),
                               'fixed_by', imgs.fixed_by, 'nodes', m.nodes)
                             ORDER BY m.nodes DESC, i.id), '[]')
                              FROM (SELECT * FROM mine ORDER BY nodes DESC, image_id
                                     LIMIT p_limit) m
                              JOIN images i ON i.id = m.image_id
                              JOIN imgs ON imgs.image_id = m.image_id))::text
  FROM a
$$;
