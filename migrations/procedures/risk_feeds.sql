-- Exploitation signals (tables in migrations/0150_kev_epss.sql): importing CISA's KEV catalog
-- and FIRST's EPSS scores (each one use case, one transaction, the feed's own dates kept), the
-- advisory.exploited events a KEV import sends, and the kev / epss members every advisory and
-- patch-status entry shows. Callers: server/db/risk_feeds.c (POST /v1/risk-feeds/kev and /epss,
-- GET /v1/risk-feeds) and, for the kev / epss members, imx_advisory_json in functions/advisories.sql,
-- imx_image_patch_doc in functions/image_docs.sql and imx_pin_doc in functions/pins.sql read
-- imx_kev_json and imx_epss_json from here; server/db/advisories.c imx_advisory_risk_tag).


-- The KEV entry of a list of CVEs: the one added first, as {cve, date_added, due_date,
-- known_ransomware_campaign_use}; NULL when none is in the catalog.
CREATE OR REPLACE FUNCTION imx_kev_json(p_cves text[]) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('cve', k.cve, 'date_added', k.date_added, 'due_date', k.due_date,
                           'known_ransomware_campaign_use', k.ransomware)
    FROM kev_entries k WHERE k.cve = ANY (p_cves)
   ORDER BY k.date_added, k.cve LIMIT 1
$$;

-- The highest EPSS score of a list of CVEs, as {score, percentile, cve, date (the scores' own
-- date)}; NULL when none has a score.
CREATE OR REPLACE FUNCTION imx_epss_json(p_cves text[]) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('score', e.epss::float8, 'percentile', e.percentile::float8,
                           'cve', e.cve, 'date', s.score_date)
    FROM epss_scores e CROSS JOIN epss_snapshot s WHERE e.cve = ANY (p_cves)
   ORDER BY e.epss DESC, e.cve LIMIT 1
$$;

-- What of an advisory's document the feeds decide (its kev and epss members), as 8 hex digits:
-- the second part of the advisory's ETag (server/db/advisories.c q_get), so that a KEV or EPSS
-- import that changes what the advisory shows changes its ETag, its revision unmoved.
CREATE OR REPLACE FUNCTION imx_advisory_risk_tag(p_cves text[]) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT left(md5(coalesce(imx_kev_json(p_cves)::text, '-') || '|'
                  || coalesce(imx_epss_json(p_cves)::text, '-')), 8)
$$;

-- The key that sorts advisories by risk, descending: in the KEV catalog first, then the highest
-- EPSS score, then newest, then id. Text in the "C" collation, so that a cursor can carry it.
CREATE OR REPLACE FUNCTION imx_advisory_risk_key(p_cves text[], p_published date, p_id text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT (CASE WHEN EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = ANY (p_cves))
               THEN '1' ELSE '0' END)
         || lpad(coalesce((SELECT max(e.epss) * 100000 FROM epss_scores e
                            WHERE e.cve = ANY (p_cves)), 0)::int::text, 6, '0')
         || to_char(p_published, 'YYYY-MM-DD') || ' ' || p_id
$$;



-- The feeds in use: {"kev": {catalog_version, date_released, entries, imported_at} | null,
-- "epss": {model_version, score_date, scores, imported_at} | null}.
CREATE OR REPLACE FUNCTION imx_risk_feeds_json() RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'kev', (SELECT json_build_object('catalog_version', c.catalog_version,
                     'date_released', c.date_released, 'entries', c.entries,
                     'imported_at', c.imported_at) FROM kev_catalog c),
    'epss', (SELECT json_build_object('model_version', s.model_version,
                      'score_date', s.score_date, 'scores', s.scores,
                      'imported_at', s.imported_at) FROM epss_snapshot s))
$$;

-- After an import that changed the feeds: the stored documents of the pins an advisory affects
-- are written again (their advisories show kev and epss; functions/pins.sql imx_pin_doc), their
-- history kept. Pins without a stored document stay without. Returns how many were written.
CREATE OR REPLACE FUNCTION imx_risk_pin_docs_refresh() RETURNS integer
LANGUAGE sql AS $$
  SELECT imx_pin_docs_write(ARRAY(SELECT DISTINCT d.pin_id FROM pin_docs d
                                    JOIN pin_advisories pa ON pa.pin_id = d.pin_id
                                   ORDER BY d.pin_id), false)
$$;

-- advisory.exploited for CVEs that just entered the catalog: once per (team, CVE), to each team
-- with a pin whose image an advisory listing the CVE affects. The event carries the CVE's KEV
-- entry and EPSS, the advisories and the team's pins concerned. Returns how many (team, CVE)
-- pairs were recorded (sent or not: a team without a subscription for it does not hear of it
-- later either).
CREATE OR REPLACE FUNCTION imx_kev_announce(p_cves text[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v record;
  v_n integer := 0;
  v_id bigint;
BEGIN
  FOR v IN
    WITH hit AS (
      SELECT DISTINCT p.team_id, c.cve, a.id AS advisory_id, p.id AS pin_id
        FROM unnest(p_cves) c(cve)
        JOIN advisories a ON a.cves @> ARRAY[c.cve] AND a.withdrawn_at IS NULL
        JOIN pin_advisories pa ON pa.advisory_id = a.id
        JOIN pins p ON p.id = pa.pin_id
    ), fresh AS (
      INSERT INTO exploited_events (team_id, cve)
      SELECT DISTINCT h.team_id, h.cve FROM hit h ORDER BY 1, 2
      ON CONFLICT DO NOTHING
      RETURNING team_id, cve
    )
    SELECT f.team_id, f.cve, t.slug,
           (SELECT jsonb_agg(jsonb_build_object('id', a.id, 'title', a.title,
                     'severity', a.severity, 'cvss', a.cvss, 'cves', to_jsonb(a.cves),
                     'url', a.url) ORDER BY a.id)
              FROM advisories a WHERE a.id IN (SELECT h.advisory_id FROM hit h
                                               WHERE h.team_id = f.team_id AND h.cve = f.cve))
             AS advisories,
           (SELECT jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name,
                     'image', jsonb_build_object('id', i.id, 'family', i.family,
                                                 'version', i.version)) ORDER BY p.id)
              FROM pins p JOIN images i ON i.id = p.image_id
             WHERE p.id IN (SELECT h.pin_id FROM hit h
                             WHERE h.team_id = f.team_id AND h.cve = f.cve)) AS pins,
           (SELECT array_agg(DISTINCT i.family ORDER BY i.family)
              FROM pins p JOIN images i ON i.id = p.image_id
             WHERE p.id IN (SELECT h.pin_id FROM hit h
                             WHERE h.team_id = f.team_id AND h.cve = f.cve)) AS families,
           (SELECT array_agg(DISTINCT p.name ORDER BY p.name) FROM pins p
             WHERE p.id IN (SELECT h.pin_id FROM hit h
                             WHERE h.team_id = f.team_id AND h.cve = f.cve)) AS pin_names,
           (SELECT a.severity FROM advisories a
             WHERE a.id IN (SELECT h.advisory_id FROM hit h
                             WHERE h.team_id = f.team_id AND h.cve = f.cve)
             ORDER BY imx_webhook_severity_rank(a.severity) DESC LIMIT 1) AS severity
      FROM fresh f JOIN teams t ON t.id = f.team_id
     ORDER BY f.team_id, f.cve
  LOOP
    v_id := imx_webhook_enqueue(v.team_id, 'advisory.exploited',
              jsonb_build_object('team', v.slug, 'cve', v.cve,
                'kev', imx_kev_json(ARRAY[v.cve])::jsonb,
                'epss', imx_epss_json(ARRAY[v.cve])::jsonb,
                'advisories', v.advisories, 'pins', v.pins),
              v.families, v.pin_names, v.severity);
    UPDATE exploited_events SET event_id = v_id WHERE team_id = v.team_id AND cve = v.cve;
    v_n := v_n + 1;
  END LOOP;
  RETURN v_n;
END
$$;

-- Imports a KEV catalog, p_doc {"catalog_version", "date_released" (timestamptz text),
-- "entries": [{cve, vendor, product, name, date_added, due_date|null, ransomware}]}, already
-- checked by server/domain/risk_feeds.c. The catalog replaces the stored one (entries it no
-- longer lists leave), unless it was released before the stored one. Returns {"outcome":
-- "imported" | "unchanged" | "stale", "catalog_version", "date_released", "entries", "added",
-- "removed", "changed", "exploited_events"}, or {"outcome": "invalid", "detail"} (a CVE listed
-- twice) changing nothing.
CREATE OR REPLACE FUNCTION imx_kev_import(p_doc jsonb, p_user bigint) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_released timestamptz := (p_doc ->> 'date_released')::timestamptz;
  v_version text := p_doc ->> 'catalog_version';
  v_prev kev_catalog;
  v_added text[];
  v_removed integer;
  v_changed integer;
  v_total integer;
  v_events integer := 0;
BEGIN
  -- One import at a time, and no advisory write or publish between reading the pins and
  -- recording their events.
  PERFORM pg_advisory_xact_lock(hashtext('imx_kev_import'), 0);
  PERFORM imx_patch_lock_global(true);
  SELECT * INTO v_prev FROM kev_catalog;
  IF FOUND AND v_prev.date_released > v_released THEN
    RETURN json_build_object('outcome', 'stale', 'catalog_version', v_prev.catalog_version,
                             'date_released', v_prev.date_released, 'entries', v_prev.entries,
                             'added', 0, 'removed', 0, 'changed', 0, 'exploited_events', 0);
  END IF;

  CREATE TEMP TABLE IF NOT EXISTS imx_kev_in (
    cve text PRIMARY KEY, vendor text, product text, name text, date_added date, due_date date,
    ransomware text) ON COMMIT DROP;
  TRUNCATE imx_kev_in;
  INSERT INTO imx_kev_in
  SELECT x.cve, x.vendor, x.product, x.name, x.date_added, x.due_date, x.ransomware
    FROM jsonb_to_recordset(p_doc -> 'entries') AS x(cve text, vendor text, product text,
           name text, date_added date, due_date date, ransomware text)
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS v_total = ROW_COUNT;
  IF v_total <> jsonb_array_length(p_doc -> 'entries') THEN
    DROP TABLE imx_kev_in;
    RETURN json_build_object('outcome', 'invalid', 'detail', (
      SELECT 'vulnerabilities lists ' || x.cve || ' more than once'
        FROM jsonb_to_recordset(p_doc -> 'entries') AS x(cve text)
       GROUP BY x.cve HAVING count(*) > 1 ORDER BY x.cve LIMIT 1));
  END IF;

  SELECT coalesce(array_agg(i.cve ORDER BY i.cve), '{}') INTO v_added
    FROM imx_kev_in i WHERE NOT EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = i.cve);

  DELETE FROM kev_entries k WHERE NOT EXISTS (SELECT 1 FROM imx_kev_in i WHERE i.cve = k.cve);
  GET DIAGNOSTICS v_removed = ROW_COUNT;

  INSERT INTO kev_entries AS k (cve, vendor, product, name, date_added, due_date, ransomware)
  SELECT i.cve, i.vendor, i.product, i.name, i.date_added, i.due_date, i.ransomware
    FROM imx_kev_in i
  ON CONFLICT (cve) DO UPDATE
    SET vendor = EXCLUDED.vendor, product = EXCLUDED.product, name = EXCLUDED.name,
        date_added = EXCLUDED.date_added, due_date = EXCLUDED.due_date,
        ransomware = EXCLUDED.ransomware
    WHERE (k.vendor, k.product, k.name, k.date_added, k.due_date, k.ransomware)
          IS DISTINCT FROM (EXCLUDED.vendor, EXCLUDED.product, EXCLUDED.name,
                            EXCLUDED.date_added, EXCLUDED.due_date, EXCLUDED.ransomware);
  GET DIAGNOSTICS v_changed = ROW_COUNT;
  v_changed := v_changed - cardinality(v_added);

  INSERT INTO kev_catalog AS c (one, catalog_version, date_released, entries, imported_by)
  VALUES (true, v_version, v_released, v_total, p_user)
  ON CONFLICT (one) DO UPDATE
    SET catalog_version = EXCLUDED.catalog_version, date_released = EXCLUDED.date_released,
        entries = EXCLUDED.entries, imported_at = now(), imported_by = EXCLUDED.imported_by;

  IF cardinality(v_added) > 0 THEN
    v_events := imx_kev_announce(v_added);
  END IF;
  IF cardinality(v_added) > 0 OR v_removed > 0 OR v_changed > 0 THEN
    PERFORM imx_risk_pin_docs_refresh();
  END IF;
  DROP TABLE imx_kev_in;
  RETURN json_build_object(
    'outcome', CASE WHEN cardinality(v_added) = 0 AND v_removed = 0 AND v_changed = 0
                         AND v_prev.catalog_version IS NOT DISTINCT FROM v_version
                    THEN 'unchanged' ELSE 'imported' END,
    'catalog_version', v_version, 'date_released', v_released, 'entries', v_total,
    'added', cardinality(v_added), 'removed', v_removed, 'changed', v_changed,
    'exploited_events', v_events);
END
$$;

-- Imports one day of EPSS scores (parallel arrays, already checked by
-- server/domain/risk_feeds.c): they replace the stored ones, unless dated before them. Returns
-- {"outcome": "imported" | "unchanged" | "stale", "model_version", "score_date", "scores",
-- "changed", "removed"}, or {"outcome": "invalid", "detail"} (a CVE listed twice).
CREATE OR REPLACE FUNCTION imx_epss_import(p_model text, p_date date, p_cves text[],
                                           p_epss numeric[], p_pct numeric[], p_user bigint)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_prev epss_snapshot;
  v_changed integer;
  v_removed integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('imx_epss_import'), 0);
  SELECT * INTO v_prev FROM epss_snapshot;
  IF FOUND AND v_prev.score_date > p_date THEN
    RETURN json_build_object('outcome', 'stale', 'model_version', v_prev.model_version,
                             'score_date', v_prev.score_date, 'scores', v_prev.scores,
                             'changed', 0, 'removed', 0);
  END IF;
  IF cardinality(p_cves) IS DISTINCT FROM cardinality(p_epss)
     OR cardinality(p_cves) IS DISTINCT FROM cardinality(p_pct) THEN
    RAISE EXCEPTION 'the score arrays differ in length' USING ERRCODE = '22023';
  END IF;
  IF (SELECT count(DISTINCT c) FROM unnest(p_cves) c) <> cardinality(p_cves) THEN
    RETURN json_build_object('outcome', 'invalid', 'detail', (
      SELECT 'the scores list ' || c || ' more than once' FROM unnest(p_cves) c
       GROUP BY c HAVING count(*) > 1 ORDER BY c LIMIT 1));
  END IF;
  DELETE FROM epss_scores e WHERE NOT EXISTS (SELECT 1 FROM unnest(p_cves) c(cve) WHERE c.cve = e.cve);
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  INSERT INTO epss_scores AS e (cve, epss, percentile)
  SELECT u.cve, u.epss, u.pct FROM unnest(p_cves, p_epss, p_pct) AS u(cve, epss, pct)
  ON CONFLICT (cve) DO UPDATE SET epss = EXCLUDED.epss, percentile = EXCLUDED.percentile
    WHERE (e.epss, e.percentile) IS DISTINCT FROM (EXCLUDED.epss, EXCLUDED.percentile);
  GET DIAGNOSTICS v_changed = ROW_COUNT;
  INSERT INTO epss_snapshot AS s (one, model_version, score_date, scores, imported_by)
  VALUES (true, p_model, p_date, coalesce(cardinality(p_cves), 0), p_user)
  ON CONFLICT (one) DO UPDATE
    SET model_version = EXCLUDED.model_version, score_date = EXCLUDED.score_date,
        scores = EXCLUDED.scores, imported_at = now(), imported_by = EXCLUDED.imported_by;
  IF v_changed > 0 OR v_removed > 0 OR v_prev.score_date IS DISTINCT FROM p_date THEN
    PERFORM imx_risk_pin_docs_refresh(); -- the epss member carries the scores' date
  END IF;
  RETURN json_build_object(
    'outcome', CASE WHEN v_changed = 0 AND v_removed = 0
                         AND v_prev.score_date IS NOT DISTINCT FROM p_date
                         AND v_prev.model_version IS NOT DISTINCT FROM p_model
                    THEN 'unchanged' ELSE 'imported' END,
    'model_version', p_model, 'score_date', p_date, 'scores', coalesce(cardinality(p_cves), 0),
    'changed', v_changed, 'removed', v_removed);
END
$$;
