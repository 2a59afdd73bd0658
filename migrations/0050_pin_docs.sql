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
-- A pin's document (replaces 0040's definition, the same document, byte for byte), in three
-- plpgsql / SQL pieces planned once a session: the candidate (imx_pin_candidate), the document
-- given its candidate (imx_pin_doc), and imx_pin_json putting them together. The summaries come
-- from the image rows where they cannot depend on the time or the session's time zone (as
-- lineage's do, 0021). A family refresh (imx_pin_docs_write) finds the candidate once for all
-- the pins on one image with the same constraints.

-- The image a pin should move to: among the newer active images of its image's family that
-- satisfy its constraints, the one with the fewest advisories, newest first (0006's rule). The
-- newest of them that no advisory affects is it whenever there is one (none has fewer), so the
-- walk counting every newer image's advisories (5 ms for a pin 199 versions behind on the bench
-- catalog) is left for families whose newer images all have some. NULL: none (or no such pin).
CREATE FUNCTION imx_pin_candidate(p_pin bigint) RETURNS bigint
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
CREATE FUNCTION imx_pin_doc(p_pin bigint, with_history boolean, p_cand bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  p record;
  v_utc boolean := current_setting('TimeZone') IN ('UTC', 'Etc/UTC');
  v_n bigint;
  v_fixed boolean;
  v_cand json;
  v_constraints json;
  v_advisories json;
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
  SELECT coalesce(json_agg(json_build_object(
           'id', f.id, 'title', f.title, 'severity', f.severity, 'cves', to_json(f.cves),
           'fixed_by', CASE WHEN f.fx_id IS NOT NULL THEN json_build_object(
             'id', f.fx_id, 'family', f.fx_family, 'version', f.fx_version) END)
           ORDER BY f.published DESC, f.id), '[]')
    INTO v_advisories
    FROM (SELECT a.id, a.title, a.severity, a.cves, a.published, fx.id AS fx_id,
                 fx.family AS fx_family, fx.version AS fx_version
            FROM pin_advisories pa JOIN advisories a ON a.id = pa.advisory_id
            LEFT JOIN images fx ON fx.id = pa.fixed_by
           WHERE pa.pin_id = p_pin
           ORDER BY a.published DESC, a.id LIMIT 5) f;
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
    'advisories', v_advisories,
    'created_at', p.created_at, 'updated_at', p.updated_at,
    'history', v_history);
END
$$;

-- GET /v1/pins/{id} (with_history) and the pins of GET /v1/pins (history null), from scratch.
CREATE OR REPLACE FUNCTION imx_pin_json(p_pin bigint, with_history boolean) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT imx_pin_doc(p_pin, with_history, imx_pin_candidate(p_pin))
$$;

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
  -- The pins still there, kept there until the end of the transaction (a pin deleted meanwhile
  -- drops out instead of failing the foreign key), locked in id order.
  IF p_ids IS NULL THEN
    p_ids := ARRAY(SELECT id FROM pins ORDER BY id FOR KEY SHARE);
  ELSE
    p_ids := ARRAY(SELECT id FROM pins WHERE id = ANY (p_ids) ORDER BY id FOR KEY SHARE);
  END IF;
  -- The candidate once for the pins on one image with the same constraints, then each
  -- document (materialized: built once each, for these pins only).
  WITH s AS MATERIALIZED (
    SELECT p.id, p.image_id, i.family,
           (SELECT string_agg(k.component || ' ' || k.lo::text || k.lo_incl::text || k.hi::text
                              || k.hi_incl::text, ';' ORDER BY k.ord)
              FROM pin_constraints k WHERE k.pin_id = p.id) AS sig
      FROM pins p JOIN images i ON i.id = p.image_id
     WHERE p.id = ANY (p_ids)
  ), g AS MATERIALIZED (
    SELECT s.image_id, s.sig, imx_pin_candidate(min(s.id)) AS cand
      FROM s GROUP BY s.image_id, s.sig
  ), x AS MATERIALIZED (
    SELECT s.id, s.family, imx_pin_doc(s.id, false, g.cand)::text AS l,
           CASE WHEN p_history THEN imx_pin_doc(s.id, true, g.cand)::text END AS f,
           (SELECT min(o.revoke_at) FROM images o
             WHERE o.revoke_at > now() AND o.status <> 'revoked' AND o.family = s.family) AS fu
      FROM s JOIN g ON g.image_id = s.image_id AND g.sig IS NOT DISTINCT FROM s.sig
  )
  INSERT INTO pin_docs AS d (pin_id, family, body, history, fresh_until)
  SELECT x.id, x.family, left(x.l, -5),
         CASE WHEN p_history AND left(x.f, length(x.l) - 5) = left(x.l, -5)
              THEN substr(x.f, length(x.l) - 4, length(x.f) - length(x.l) + 4) END,
         x.fu
    FROM x
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

-- GET /v1/images/resolve?pin=TEAM/NAME&region=R (replaces 0006's definition, the same
-- document): plpgsql planned once a session, the summary stored on the image row where the time
-- and the session's time zone cannot change it. {"pin": {id, team, name}|null, "image":
-- summary|null, "artifact_id": text|null, "emptied_by": null | "pin" | "status" | "region"};
-- never a revoked image.
CREATE OR REPLACE FUNCTION imx_pin_resolve(p_team bigint, p_name text, p_region text) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  p record;
  v_artifact text;
BEGIN
  SELECT x.id, t.slug, x.name, x.image_id, i.summary, i.revoke_at,
         i.status <> 'revoked' AND i.patch_status <> 'revoked'
           AND (i.revoke_at IS NULL OR i.revoke_at > now()) AS usable
    INTO p
    FROM pins x JOIN teams t ON t.id = x.team_id JOIN images i ON i.id = x.image_id
   WHERE x.team_id = p_team AND x.name = p_name;
  IF NOT FOUND THEN
    RETURN json_build_object('pin', NULL, 'image', NULL, 'artifact_id', NULL,
                             'emptied_by', 'pin');
  END IF;
  IF p.usable THEN
    SELECT a.artifact_id INTO v_artifact FROM image_artifacts a
     WHERE a.image_id = p.image_id AND a.region = p_region;
  END IF;
  RETURN json_build_object(
    'pin', json_build_object('id', p.id, 'team', p.slug, 'name', p.name),
    'image', CASE WHEN v_artifact IS NOT NULL THEN
      coalesce(CASE WHEN p.summary IS NOT NULL AND p.revoke_at IS NULL
                     AND current_setting('TimeZone') IN ('UTC', 'Etc/UTC') THEN p.summary END,
               imx_image_summary(p.image_id)) END,
    'artifact_id', v_artifact,
    'emptied_by', CASE WHEN v_artifact IS NOT NULL THEN NULL
                       WHEN NOT p.usable THEN 'status' ELSE 'region' END);
END
$$;
