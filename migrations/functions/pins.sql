-- SQL functions: pins, their resolution and their stored documents (pin_docs, 0050_pin_docs.sql).
-- Re-applied by server/db/migrate.c whenever this file changes.
-- Callers: server/db/pins.c (imx_pin_json, imx_pin_unmet, imx_pin_resolve, imx_pin_resolution);
-- imx_pin_docs_write (imx_pin_docs_render; tests/integration/test_patch_oracle.c compares it with
-- imx_pin_json); the procedures (procedures/pin_refresh.sql: imx_pin_docs_write; publish_images.sql,
-- image_status.sql, advisory_publish.sql: imx_pin_docs_refresh_families; _patch.sql:
-- imx_pin_satisfied).

-- Does an image satisfy every constraint of a pin? (No constraints: always.)
CREATE OR REPLACE FUNCTION imx_pin_satisfied(p_pin bigint, p_image bigint) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT NOT EXISTS (SELECT 1 FROM pin_constraints k WHERE k.pin_id = p_pin AND NOT EXISTS (
    SELECT 1 FROM image_components c WHERE c.image_id = p_image AND c.name = k.component
      AND imx_key_in(c.version_key, k.lo, k.lo_incl, k.hi, k.hi_incl)))
$$;

-- The image a pin should move to for advisory p_adv: the oldest active image of the pinned
-- image's family, newer than it, satisfying the pin's constraints, that p_adv does not affect.
CREATE OR REPLACE FUNCTION imx_pin_fix(p_pin bigint, p_adv text) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT n.id FROM pins p JOIN images o ON o.id = p.image_id
    JOIN images n ON n.family = o.family AND n.status = 'active'
     AND (n.published_at, n.id) > (o.published_at, o.id)
  WHERE p.id = p_pin AND imx_pin_satisfied(p.id, n.id)
    AND NOT EXISTS (SELECT 1 FROM image_advisories x WHERE x.image_id = n.id AND x.advisory_id = p_adv)
  ORDER BY n.published_at, n.id LIMIT 1
$$;

-- GET /v1/pins/{id} (with_history) and the pins of GET /v1/pins (history null), from scratch.
CREATE OR REPLACE FUNCTION imx_pin_json(p_pin bigint, with_history boolean) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT imx_pin_doc(p_pin, with_history, imx_pin_candidate(p_pin))
$$;

-- The constraints of a pin that an image does not satisfy, as [{component, range}] (empty: all
-- hold). For PUT /v1/pins/{id}: 422 naming them.
CREATE OR REPLACE FUNCTION imx_pin_unmet(p_pin bigint, p_image bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(json_agg(json_build_object('component', k.component, 'range', k.range,
           'version', (SELECT c.version FROM image_components c
                        WHERE c.image_id = p_image AND c.name = k.component
                        ORDER BY c.entry LIMIT 1))
           ORDER BY k.ord), '[]')
  FROM pin_constraints k WHERE k.pin_id = p_pin AND NOT EXISTS (
    SELECT 1 FROM image_components c WHERE c.image_id = p_image AND c.name = k.component
      AND imx_key_in(c.version_key, k.lo, k.lo_incl, k.hi, k.hi_incl))
$$;

CREATE OR REPLACE FUNCTION imx_pin_resolve(p_team bigint, p_name text, p_region text)
RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT doc FROM imx_pin_resolution(p_team, p_name, p_region)
$$;

-- The image a pin should move to: among the newer active images of its image's family that
-- satisfy its constraints, the one with the fewest advisories, newest first (0006's rule). The
-- newest of them that no advisory affects is it whenever there is one (none has fewer), so the
-- walk counting every newer image's advisories (5 ms for a pin 199 versions behind on the bench
-- catalog) is left for families whose newer images all have some. NULL: none (or no such pin).
CREATE OR REPLACE FUNCTION imx_pin_candidate(p_pin bigint) RETURNS bigint
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  p record;
  v_cand bigint;
BEGIN
  SELECT x.image_id, i.family, i.published_at AS pub,
         EXISTS (SELECT 1 FROM pin_constraints k WHERE k.pin_id = x.id) AS constrained
    INTO p
    FROM pins x JOIN images i ON i.id = x.image_id WHERE x.id = p_pin;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  SELECT n.id INTO v_cand FROM images n
   WHERE n.family = p.family AND n.status = 'active' AND (n.published_at, n.id) > (p.pub, p.image_id)
     AND NOT EXISTS (SELECT 1 FROM image_advisories x WHERE x.image_id = n.id)
     AND (NOT p.constrained OR imx_pin_satisfied(p_pin, n.id))
   ORDER BY n.published_at DESC, n.id DESC LIMIT 1;
  IF v_cand IS NULL THEN
    SELECT n.id INTO v_cand FROM images n
     WHERE n.family = p.family AND n.status = 'active'
       AND (n.published_at, n.id) > (p.pub, p.image_id)
       AND (NOT p.constrained OR imx_pin_satisfied(p_pin, n.id))
     ORDER BY (SELECT count(*) FROM image_advisories x WHERE x.image_id = n.id),
              n.published_at DESC, n.id DESC
     LIMIT 1;
  END IF;
  RETURN v_cand;
END
$$;

-- The pin's document with p_cand as its candidate (imx_pin_candidate(p_pin): the caller's).
-- Status: revoked (the pinned image is), patch_available (an advisory affects it and an image
-- satisfying the constraints fixes it), vulnerable (affected, no such fix), behind (there is a
-- candidate), current. NULL: no such pin.
CREATE OR REPLACE FUNCTION imx_pin_doc(p_pin bigint, with_history boolean, p_cand bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  p record;
  v_utc boolean := current_setting('TimeZone') IN ('UTC', 'Etc/UTC');
  v_n bigint;
  v_fixed boolean;
  v_cand json;
  v_constraints json;
  v_advisories json;
  v_kev_n bigint;
  v_history json;
BEGIN
  SELECT x.id, x.name, x.image_id, x.created_at, x.updated_at, t.slug AS team,
         i.status AS img_status,
         CASE WHEN i.summary IS NOT NULL AND i.revoke_at IS NULL AND v_utc THEN i.summary END
           AS summary
    INTO p
    FROM pins x JOIN teams t ON t.id = x.team_id JOIN images i ON i.id = x.image_id
   WHERE x.id = p_pin;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  SELECT coalesce(json_agg(json_build_object('component', k.component, 'range', k.range)
                           ORDER BY k.ord), '[]')
    INTO v_constraints
    FROM pin_constraints k WHERE k.pin_id = p_pin;
  IF p_cand IS NOT NULL THEN
    SELECT coalesce(CASE WHEN c.summary IS NOT NULL AND c.revoke_at IS NULL AND v_utc
                         THEN c.summary END, imx_image_summary(c.id))
      INTO v_cand FROM images c WHERE c.id = p_cand;
  END IF;
  SELECT count(*), coalesce(bool_or(pa.fixed_by IS NOT NULL), false) INTO v_n, v_fixed
    FROM pin_advisories pa WHERE pa.pin_id = p_pin;
  -- The five shown are the riskiest: in CISA's KEV catalog first, then newest; each with its
  -- kev and epss (procedures/risk_feeds.sql), as the advisory itself shows them.
  SELECT count(*) INTO v_kev_n
    FROM pin_advisories pa JOIN advisories a ON a.id = pa.advisory_id
   WHERE pa.pin_id = p_pin AND EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = ANY (a.cves));
  SELECT coalesce(json_agg(json_build_object(
           'id', f.id, 'title', f.title, 'severity', f.severity, 'cves', to_json(f.cves),
           'kev', imx_kev_json(f.cves), 'epss', imx_epss_json(f.cves),
           'fixed_by', CASE WHEN f.fx_id IS NOT NULL THEN json_build_object(
             'id', f.fx_id, 'family', f.fx_family, 'version', f.fx_version) END)
           ORDER BY f.in_kev DESC, f.published DESC, f.id), '[]')
    INTO v_advisories
    FROM (SELECT a.id, a.title, a.severity, a.cves, a.published, fx.id AS fx_id,
                 fx.family AS fx_family, fx.version AS fx_version,
                 EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = ANY (a.cves)) AS in_kev
            FROM pin_advisories pa JOIN advisories a ON a.id = pa.advisory_id
            LEFT JOIN images fx ON fx.id = pa.fixed_by
           WHERE pa.pin_id = p_pin
           ORDER BY in_kev DESC, a.published DESC, a.id LIMIT 5) f;
  IF with_history THEN
    SELECT coalesce(json_agg(json_build_object(
             'from_image', h.from_image, 'to_image', h.to_image, 'moved_at', h.moved_at,
             'moved_by', h.email) ORDER BY h.id DESC), '[]')
      INTO v_history
      FROM (SELECT h.id, h.from_image, h.to_image, h.moved_at, u.email
              FROM pin_history h LEFT JOIN users u ON u.id = h.moved_by
             WHERE h.pin_id = p_pin ORDER BY h.id DESC LIMIT 100) h;
  END IF;
  RETURN json_build_object(
    'id', p.id, 'team', p.team, 'name', p.name,
    'image', coalesce(p.summary, imx_image_summary(p.image_id)),
    'constraints', v_constraints,
    'status', CASE
      WHEN p.img_status = 'revoked' THEN 'revoked'
      WHEN v_fixed THEN 'patch_available'
      WHEN v_n > 0 THEN 'vulnerable'
      WHEN p_cand IS NOT NULL THEN 'behind'
      ELSE 'current' END,
    'candidate', v_cand,
    'advisory_count', v_n,
    'kev_count', v_kev_n,
    'advisories', v_advisories,
    'eol', imx_image_eol_json(p.image_id),
    'created_at', p.created_at, 'updated_at', p.updated_at,
    'history', v_history);
END
$$;

-- The stored documents of these pins (pin_docs' columns; history NULL unless p_history), built
-- for all of them at once: the same bytes as imx_pin_json (imx_pin_candidate, imx_pin_doc), which
-- stays the definition (readers of pins without a row, IMAXE_READ_CACHE=0, the tests' oracle).
-- A publish of a driver bulletin refreshes every pin of the catalog's families: rendering them one
-- by one through those PL/pgSQL functions and rewriting every row cost ~1.1 s of CPU for 1,000
-- pins, ~40 % of the publish; this ~0.7 s (bench/RESULTS.md, "Feed import with 1,000 pins").
-- Here each part is one set operation over all the pins: the candidates of
-- the distinct (image, constraints) pairs from one join of those pairs with the newer active
-- images of their families (each image's advisory count counted once), the advisories' kev and
-- epss once per advisory, the end of life once per pinned image, the history and the
-- revocation horizon once per pin and per family. In UTC, as stored. PL/pgSQL for its one plan a
-- session (generic: a pin's create or move renders one pin; as a SQL function this statement was
-- planned on every call, 15-24 ms a pin where the row-by-row functions took 3-8 ms).
CREATE OR REPLACE FUNCTION imx_pin_docs_render(p_ids bigint[], p_history boolean)
RETURNS TABLE (pin_id bigint, family text, body text, history text, fresh_until timestamptz)
LANGUAGE plpgsql STABLE SET TimeZone = 'UTC' SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH s AS MATERIALIZED (
    SELECT p.id, p.name, p.team_id, p.image_id, p.created_at, p.updated_at, i.family,
           i.published_at AS pub, i.status AS img_status,
           CASE WHEN i.summary IS NOT NULL AND i.revoke_at IS NULL THEN i.summary END AS summary,
           -- the constraints as a value: pins on one image with equal ones share a candidate
           (SELECT json_agg(json_build_array(k.component, k.lo, k.lo_incl, k.hi, k.hi_incl)
                            ORDER BY k.ord)::text
              FROM pin_constraints k WHERE k.pin_id = p.id) AS sig
      FROM pins p JOIN images i ON i.id = p.image_id
     WHERE p.id = ANY (p_ids)
  ), g AS MATERIALIZED (
    SELECT s.image_id, s.sig, min(s.id) AS rep, min(s.family) AS family, min(s.pub) AS pub
      FROM s GROUP BY s.image_id, s.sig
  ), fi AS MATERIALIZED (
    -- the images a candidate can be, with the count that ranks them (0006's rule)
    SELECT n.id, n.family, n.published_at,
           (SELECT count(*) FROM image_advisories x WHERE x.image_id = n.id) AS cnt
      FROM images n
     WHERE n.family IN (SELECT g.family FROM g) AND n.status = 'active'
  ), c AS MATERIALIZED (
    -- imx_pin_candidate for every pair: of the newer active images satisfying the constraints,
    -- the fewest advisories, newest first
    SELECT DISTINCT ON (g.image_id, g.sig) g.image_id, g.sig, f.id AS cand
      FROM g JOIN fi f ON f.family = g.family AND (f.published_at, f.id) > (g.pub, g.image_id)
     WHERE g.sig IS NULL OR imx_pin_satisfied(g.rep, f.id)
     ORDER BY g.image_id, g.sig, f.cnt, f.published_at DESC, f.id DESC
  ), pa AS MATERIALIZED (
    SELECT pa.pin_id, pa.advisory_id, pa.fixed_by
      FROM pin_advisories pa WHERE pa.pin_id IN (SELECT s.id FROM s)
  ), adv AS MATERIALIZED (
    SELECT a.id, a.title, a.severity, a.cves, a.published,
           EXISTS (SELECT 1 FROM kev_entries k WHERE k.cve = ANY (a.cves)) AS in_kev,
           imx_kev_json(a.cves) AS kev, imx_epss_json(a.cves) AS epss
      FROM advisories a WHERE a.id IN (SELECT pa.advisory_id FROM pa)
  ), pc AS (
    SELECT pa.pin_id, count(*) AS n, bool_or(pa.fixed_by IS NOT NULL) AS fixed,
           count(*) FILTER (WHERE a.in_kev) AS kev_n
      FROM pa LEFT JOIN adv a ON a.id = pa.advisory_id GROUP BY pa.pin_id
  ), top AS (
    -- the five shown: in CISA's KEV catalog first, then newest (imx_pin_doc)
    SELECT f.pin_id, json_agg(json_build_object(
             'id', f.id, 'title', f.title, 'severity', f.severity, 'cves', to_json(f.cves),
             'kev', f.kev, 'epss', f.epss,
             'fixed_by', CASE WHEN f.fx_id IS NOT NULL THEN json_build_object(
               'id', f.fx_id, 'family', f.fx_family, 'version', f.fx_version) END)
             ORDER BY f.in_kev DESC, f.published DESC, f.id) AS j
      FROM (SELECT pa.pin_id, a.*, fx.id AS fx_id, fx.family AS fx_family,
                   fx.version AS fx_version,
                   row_number() OVER (PARTITION BY pa.pin_id
                                      ORDER BY a.in_kev DESC, a.published DESC, a.id) AS k
              FROM pa JOIN adv a ON a.id = pa.advisory_id
              LEFT JOIN images fx ON fx.id = pa.fixed_by) f
     WHERE f.k <= 5
     GROUP BY f.pin_id
  ), kc AS (
    SELECT k.pin_id, json_agg(json_build_object('component', k.component, 'range', k.range)
                              ORDER BY k.ord) AS j
      FROM pin_constraints k WHERE k.pin_id IN (SELECT s.id FROM s) GROUP BY k.pin_id
  ), hist AS (
    SELECT h.pin_id, json_agg(json_build_object(
             'from_image', h.from_image, 'to_image', h.to_image, 'moved_at', h.moved_at,
             'moved_by', h.email) ORDER BY h.id DESC) AS j
      FROM (SELECT h.pin_id, h.id, h.from_image, h.to_image, h.moved_at, u.email,
                   row_number() OVER (PARTITION BY h.pin_id ORDER BY h.id DESC) AS k
              FROM pin_history h LEFT JOIN users u ON u.id = h.moved_by
             WHERE p_history AND h.pin_id IN (SELECT s.id FROM s)) h
     WHERE h.k <= 100
     GROUP BY h.pin_id
  ), eol AS MATERIALIZED (
    SELECT x.image_id, imx_image_eol_json(x.image_id) AS j
      FROM (SELECT DISTINCT s.image_id FROM s) x
  ), fu AS (
    -- fresh_until: the earliest scheduled revocation still ahead in the family
    SELECT o.family, min(o.revoke_at) AS t
      FROM images o
     WHERE o.revoke_at > now() AND o.status <> 'revoked' AND o.family IN (SELECT s.family FROM s)
     GROUP BY o.family
  )
  SELECT s.id, s.family,
         left(json_build_object(
           'id', s.id, 'team', t.slug, 'name', s.name,
           'image', coalesce(s.summary, imx_image_summary(s.image_id)),
           'constraints', coalesce(kc.j, '[]'),
           'status', CASE
             WHEN s.img_status = 'revoked' THEN 'revoked'
             WHEN coalesce(pc.fixed, false) THEN 'patch_available'
             WHEN coalesce(pc.n, 0) > 0 THEN 'vulnerable'
             WHEN c.cand IS NOT NULL THEN 'behind'
             ELSE 'current' END,
           'candidate', CASE WHEN c.cand IS NOT NULL THEN
             coalesce(CASE WHEN ci.summary IS NOT NULL AND ci.revoke_at IS NULL THEN ci.summary END,
                      imx_image_summary(ci.id)) END,
           'advisory_count', coalesce(pc.n, 0),
           'kev_count', coalesce(pc.kev_n, 0),
           'advisories', coalesce(top.j, '[]'),
           'eol', eol.j,
           'created_at', s.created_at, 'updated_at', s.updated_at,
           'history', NULL::json)::text, -5),
         CASE WHEN p_history THEN coalesce(hist.j, '[]')::text END,
         fu.t
    FROM s JOIN teams t ON t.id = s.team_id
    LEFT JOIN c ON c.image_id = s.image_id AND c.sig IS NOT DISTINCT FROM s.sig
    LEFT JOIN images ci ON ci.id = c.cand
    LEFT JOIN pc ON pc.pin_id = s.id
    LEFT JOIN top ON top.pin_id = s.id
    LEFT JOIN kc ON kc.pin_id = s.id
    LEFT JOIN hist ON hist.pin_id = s.id
    LEFT JOIN eol ON eol.image_id = s.image_id
    LEFT JOIN fu ON fu.family = s.family;
END
$$;

-- Writes the stored documents of these pins (p_ids NULL: every pin), with their history when
-- p_history, else keeping the stored one: only the rows whose bytes change (a refresh after a
-- bulletin that leaves a pin's document as it was writes nothing for it). Returns how many rows
-- it wrote.
CREATE OR REPLACE FUNCTION imx_pin_docs_write(p_ids bigint[], p_history boolean) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer;
BEGIN
  -- The pins still there, kept there until the end of the transaction (a pin deleted meanwhile
  -- drops out instead of failing the foreign key), locked in id order.
  IF p_ids IS NULL THEN
    p_ids := ARRAY(SELECT id FROM pins ORDER BY id FOR KEY SHARE);
  ELSE
    p_ids := ARRAY(SELECT id FROM pins WHERE id = ANY (p_ids) ORDER BY id FOR KEY SHARE);
  END IF;
  -- (none: also 0050 on a new database, before the tables the documents read exist)
  IF cardinality(p_ids) = 0 THEN
    RETURN 0;
  END IF;
  INSERT INTO pin_docs AS d (pin_id, family, body, history, fresh_until)
  SELECT r.pin_id, r.family, r.body, r.history, r.fresh_until
    FROM imx_pin_docs_render(p_ids, p_history) r
    LEFT JOIN pin_docs o ON o.pin_id = r.pin_id
   WHERE o.pin_id IS NULL OR o.body <> r.body OR o.family <> r.family
      OR o.fresh_until IS DISTINCT FROM r.fresh_until
      OR (p_history AND o.history IS DISTINCT FROM r.history)
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
CREATE OR REPLACE FUNCTION imx_pin_docs_refresh_families(p_fams text[]) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(p_fams) IS NULL OR cardinality(p_fams) = 0 THEN
    RETURN 0;
  END IF;
  RETURN imx_pin_docs_write(ARRAY(SELECT d.pin_id FROM pin_docs d
                                   WHERE d.family = ANY (p_fams) ORDER BY d.pin_id), false);
END
$$;

-- Resolve by pin as one SELECT the planner inlines, so that the statement that resolves the pins
-- of every request waiting at once (server/db/pins.c q_resolve_batch, coalesced by
-- db/read_batch.c) runs them in its own plan. 0050's imx_pin_resolve, a PL/pgSQL function, cost
-- ~55 us of PostgreSQL CPU a call inside such a statement, its two queries planned and run
-- apart; imx_pin_resolve is now this SELECT too (the reference path, IMAXE_READ_CACHE=0,
-- calls it), so both answer the same document, key for key:
-- {pin: {id, team, name} | null, image: summary | null, artifact_id, emptied_by}, never a
-- revoked image.
CREATE OR REPLACE FUNCTION imx_pin_resolution(p_team bigint, p_name text, p_region text)
RETURNS TABLE (doc json)
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'pin', CASE WHEN x.id IS NOT NULL THEN
      json_build_object('id', x.id, 'team', t.slug, 'name', x.name) END,
    'image', CASE WHEN a.artifact_id IS NOT NULL THEN
      coalesce(CASE WHEN i.summary IS NOT NULL AND i.revoke_at IS NULL
                     AND current_setting('TimeZone') IN ('UTC', 'Etc/UTC') THEN i.summary END,
               imx_image_summary(i.id)) END,
    'artifact_id', a.artifact_id,
    'emptied_by', CASE WHEN x.id IS NULL THEN 'pin'
                       WHEN a.artifact_id IS NOT NULL THEN NULL
                       WHEN u.usable THEN 'region' ELSE 'status' END)
    FROM (SELECT 1) one
    LEFT JOIN pins x ON x.team_id = p_team AND x.name = p_name
    LEFT JOIN teams t ON t.id = x.team_id
    LEFT JOIN images i ON i.id = x.image_id
    LEFT JOIN LATERAL (
      SELECT i.status <> 'revoked' AND i.patch_status <> 'revoked'
             AND (i.revoke_at IS NULL OR i.revoke_at > now()) AS usable) u ON true
    LEFT JOIN image_artifacts a ON u.usable AND a.image_id = i.id AND a.region = p_region
$$;
