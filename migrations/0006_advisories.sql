-- Security advisories with affected version ranges, each image's patch status kept current by
-- triggers (image_advisories: which advisory affects which image, and the image that fixes it),
-- the patch.available events that follow, and pins: a team's named channel to one image.

-- ---------------------------------------------------------------------------
-- Advisories. Ranges are stored as the constraint text the client wrote and as the interval of
-- version keys it parses to (server/domain/version.c), unbounded ends as the smallest and largest
-- keys, so that "component version in range" is one index-friendly comparison.
CREATE TABLE advisories (
    id         text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$'),
    title      text NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
    published  date NOT NULL,
    severity   text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
    cvss       numeric(3,1) CHECK (cvss BETWEEN 0 AND 10),
    cves       text[] NOT NULL DEFAULT '{}',
    url        text CHECK (length(url) <= 2000),
    source     text NOT NULL DEFAULT 'imaxe' CHECK (source IN ('imaxe', 'osv')),
    created_by bigint REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX advisories_published ON advisories (published DESC, id DESC);
CREATE INDEX advisories_cves ON advisories USING gin (cves);
CREATE INDEX advisories_severity ON advisories (severity);
COMMENT ON TABLE advisories IS
  'Security bulletins (NVIDIA driver, Container Toolkit, OSV imports). Immutable once published.';

CREATE TABLE advisory_ranges (
    advisory_id text NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    ord         int NOT NULL CHECK (ord >= 0),
    component   text NOT NULL CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
    range       text NOT NULL CHECK (length(range) BETWEEN 1 AND 300),
    lo          int[] NOT NULL CHECK (cardinality(lo) = 6),
    lo_incl     boolean NOT NULL,
    hi          int[] NOT NULL CHECK (cardinality(hi) = 6),
    hi_incl     boolean NOT NULL,
    fixed       text CHECK (fixed IS NULL OR imx_version_key(fixed) IS NOT NULL),
    PRIMARY KEY (advisory_id, ord)
);
CREATE INDEX advisory_ranges_component ON advisory_ranges (component, lo, hi);
COMMENT ON COLUMN advisory_ranges.range IS 'As written, e.g. ">=580, <580.95.05"; lo/hi are its key interval.';

-- Does a component version key lie inside a stored interval?
CREATE FUNCTION imx_key_in(k int[], lo int[], lo_incl boolean, hi int[], hi_incl boolean)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT k >= lo AND k <= hi AND (lo_incl OR k <> lo) AND (hi_incl OR k <> hi)
$$;

-- ---------------------------------------------------------------------------
-- Which advisory affects which image, and fixed_by: the oldest newer active image of the same
-- family that the advisory does not affect (NULL: no fix yet). fix_seen_at is set the first time
-- fixed_by is not NULL and never cleared, so "a fix appeared" is detected once.
CREATE TABLE image_advisories (
    image_id    bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    advisory_id text NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    fixed_by    bigint REFERENCES images (id) ON DELETE SET NULL,
    fix_seen_at timestamptz,
    PRIMARY KEY (image_id, advisory_id)
);
CREATE INDEX image_advisories_advisory ON image_advisories (advisory_id, image_id);
CREATE INDEX image_advisories_fixed_by ON image_advisories (fixed_by) WHERE fixed_by IS NOT NULL;
COMMENT ON TABLE image_advisories IS
  'Maintained only by imx_patch_refresh_family() (triggers on images, image_components and advisory_ranges); never written by handlers.';

-- ---------------------------------------------------------------------------
-- Pins: a team's named channel pointing at one image, with optional component constraints.
CREATE TABLE pins (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id    bigint NOT NULL REFERENCES teams (id),
    name       text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    image_id   bigint NOT NULL REFERENCES images (id),
    created_by bigint REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (team_id, name)
);
CREATE INDEX pins_image ON pins (image_id);

CREATE TABLE pin_constraints (
    pin_id    bigint NOT NULL REFERENCES pins (id) ON DELETE CASCADE,
    ord       int NOT NULL CHECK (ord >= 0),
    component text NOT NULL CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
    range     text NOT NULL CHECK (length(range) BETWEEN 1 AND 300),
    lo        int[] NOT NULL CHECK (cardinality(lo) = 6),
    lo_incl   boolean NOT NULL,
    hi        int[] NOT NULL CHECK (cardinality(hi) = 6),
    hi_incl   boolean NOT NULL,
    PRIMARY KEY (pin_id, ord)
);

CREATE TABLE pin_history (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pin_id     bigint NOT NULL REFERENCES pins (id) ON DELETE CASCADE,
    from_image bigint REFERENCES images (id),
    to_image   bigint NOT NULL REFERENCES images (id),
    moved_by   bigint REFERENCES users (id),
    moved_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pin_history_pin ON pin_history (pin_id, id);

-- Does an image satisfy every constraint of a pin? (No constraints: always.)
CREATE FUNCTION imx_pin_satisfied(p_pin bigint, p_image bigint) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT NOT EXISTS (SELECT 1 FROM pin_constraints k WHERE k.pin_id = p_pin AND NOT EXISTS (
    SELECT 1 FROM image_components c WHERE c.image_id = p_image AND c.name = k.component
      AND imx_key_in(c.version_key, k.lo, k.lo_incl, k.hi, k.hi_incl)))
$$;

-- The image a pin should move to for advisory p_adv: the oldest active image of the pinned
-- image's family, newer than it, satisfying the pin's constraints, that p_adv does not affect.
CREATE FUNCTION imx_pin_fix(p_pin bigint, p_adv text) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT n.id FROM pins p JOIN images o ON o.id = p.image_id
    JOIN images n ON n.family = o.family AND n.status = 'active'
     AND (n.published_at, n.id) > (o.published_at, o.id)
  WHERE p.id = p_pin AND imx_pin_satisfied(p.id, n.id)
    AND NOT EXISTS (SELECT 1 FROM image_advisories x WHERE x.image_id = n.id AND x.advisory_id = p_adv)
  ORDER BY n.published_at, n.id LIMIT 1
$$;

-- ---------------------------------------------------------------------------
-- patch.available events, staged in the transaction that made the fix appear. One row is one
-- event to send: kind 'family' once per (family, advisory, fixing image), for subscriptions to
-- the family; kind 'pin' once per (pin, pinned image, advisory), for the pin's team.
CREATE TABLE patch_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('family', 'pin')),
    family      text NOT NULL,
    pin_id      bigint REFERENCES pins (id) ON DELETE CASCADE,
    team_id     bigint REFERENCES teams (id),
    image_id    bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    advisory_id text NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    fixed_by    bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'pin') = (pin_id IS NOT NULL))
);
CREATE UNIQUE INDEX patch_events_family_once ON patch_events (family, advisory_id, fixed_by)
  WHERE kind = 'family';
CREATE UNIQUE INDEX patch_events_pin_once ON patch_events (pin_id, image_id, advisory_id)
  WHERE kind = 'pin';
COMMENT ON TABLE patch_events IS
  'patch.available events, written by imx_patch_refresh_family() in the transaction that made a fix appear; the unique indexes make each one happen once.';

-- (pin, pinned image, advisory) triples whose fix the pin already knew when it was created or
-- moved: a later refresh does not announce them as new.
CREATE TABLE pin_patch_seen (
    pin_id      bigint NOT NULL REFERENCES pins (id) ON DELETE CASCADE,
    image_id    bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    advisory_id text NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    PRIMARY KEY (pin_id, image_id, advisory_id)
);

-- ---------------------------------------------------------------------------
-- Recomputes image_advisories and images.patch_status for every image of one family, and
-- stages the patch.available events for fixes that appeared. Returns the (image, advisory,
-- fixed_by) rows whose fixed_by appeared for the first time in this call: the moment
-- "a fix exists" becomes true. Serialized per family by a transaction-scoped advisory lock, and
-- every statement after the lock reads a fresh snapshot (READ COMMITTED), so two transactions
-- publishing the fix and the advisory at the same time cannot both miss each other.
CREATE FUNCTION imx_patch_refresh_family(fam text)
RETURNS TABLE (image_id bigint, advisory_id text, fixed_by bigint)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('imx_patch_family'), hashtext(fam));

  RETURN QUERY
  WITH fam_images AS (
    SELECT i.id, i.published_at, i.status FROM images i WHERE i.family = fam
  ), affected AS (
    SELECT DISTINCT f.id AS image_id, r.advisory_id
    FROM fam_images f JOIN image_components c ON c.image_id = f.id
    JOIN advisory_ranges r ON r.component = c.name
     AND imx_key_in(c.version_key, r.lo, r.lo_incl, r.hi, r.hi_incl)
  ), computed AS (
    SELECT a.image_id, a.advisory_id,
           (SELECT n.id FROM fam_images o, fam_images n
             WHERE o.id = a.image_id AND n.status = 'active'
               AND (n.published_at, n.id) > (o.published_at, o.id)
               AND NOT EXISTS (SELECT 1 FROM affected x
                                WHERE x.image_id = n.id AND x.advisory_id = a.advisory_id)
             ORDER BY n.published_at, n.id LIMIT 1) AS fixed_by
    FROM affected a
  ), dropped AS (
    DELETE FROM image_advisories ia USING fam_images f
    WHERE ia.image_id = f.id AND NOT EXISTS (SELECT 1 FROM affected a
      WHERE a.image_id = ia.image_id AND a.advisory_id = ia.advisory_id)
    RETURNING 1
  ), fresh AS (
    -- Computed rows with a fix whose stored row had none before (or did not exist).
    SELECT c.image_id, c.advisory_id, c.fixed_by FROM computed c
    LEFT JOIN image_advisories old ON old.image_id = c.image_id AND old.advisory_id = c.advisory_id
    WHERE c.fixed_by IS NOT NULL AND old.fix_seen_at IS NULL
  ), upserted AS (
    INSERT INTO image_advisories AS ia (image_id, advisory_id, fixed_by, fix_seen_at)
    SELECT c.image_id, c.advisory_id, c.fixed_by,
           CASE WHEN c.fixed_by IS NOT NULL THEN now() END FROM computed c
    ON CONFLICT ON CONSTRAINT image_advisories_pkey DO UPDATE
      SET fixed_by = EXCLUDED.fixed_by, fix_seen_at = coalesce(ia.fix_seen_at, EXCLUDED.fix_seen_at)
      WHERE ia.fixed_by IS DISTINCT FROM EXCLUDED.fixed_by
         OR (ia.fix_seen_at IS NULL AND EXCLUDED.fix_seen_at IS NOT NULL)
    RETURNING 1
  ), family_events AS (
    -- Family subscribers hear once per (family, advisory, fixing image).
    /* outbox: patch.available */
    INSERT INTO patch_events (kind, family, image_id, advisory_id, fixed_by)
    SELECT DISTINCT ON (f.advisory_id, f.fixed_by) 'family', fam, f.image_id, f.advisory_id,
           f.fixed_by
    FROM fresh f ORDER BY f.advisory_id, f.fixed_by, f.image_id
    ON CONFLICT DO NOTHING
    RETURNING 1
  )
  -- Data-modifying CTEs run to completion whether or not the result reads them.
  SELECT f.image_id, f.advisory_id, f.fixed_by FROM fresh f;

  -- 'revoked' is also kept when set by hand on an image still marked active (an operator
  -- pulling it from resolve); imx_patch_on_status clears it when status leaves 'revoked'.
  UPDATE images i SET patch_status = s.status
  FROM (SELECT i2.id, CASE
          WHEN i2.status = 'revoked' OR i2.patch_status = 'revoked' THEN 'revoked'
          WHEN NOT EXISTS (SELECT 1 FROM image_advisories ia WHERE ia.image_id = i2.id) THEN 'ok'
          WHEN EXISTS (SELECT 1 FROM image_advisories ia
                        WHERE ia.image_id = i2.id AND ia.fixed_by IS NOT NULL) THEN 'patch_available'
          ELSE 'vulnerable' END AS status
        FROM images i2 WHERE i2.family = fam) s
  WHERE i.id = s.id AND i.patch_status IS DISTINCT FROM s.status;

  -- Pins hear once per (pin, pinned image, advisory) when a fix satisfying their constraints
  -- exists; pin_patch_seen holds the fixes a pin already knew when it was created or moved.
  /* outbox: patch.available */
  WITH cand AS (
    SELECT p.id AS pin_id, p.team_id, ia.image_id, ia.advisory_id,
           imx_pin_fix(p.id, ia.advisory_id) AS fix
    FROM pins p JOIN images i ON i.id = p.image_id AND i.family = fam
    JOIN image_advisories ia ON ia.image_id = p.image_id
  ), seen AS (
    INSERT INTO pin_patch_seen (pin_id, image_id, advisory_id)
    SELECT c.pin_id, c.image_id, c.advisory_id FROM cand c WHERE c.fix IS NOT NULL
    ON CONFLICT DO NOTHING
    RETURNING pin_patch_seen.pin_id, pin_patch_seen.image_id, pin_patch_seen.advisory_id
  )
  INSERT INTO patch_events (kind, family, pin_id, team_id, image_id, advisory_id, fixed_by)
  SELECT 'pin', fam, c.pin_id, c.team_id, c.image_id, c.advisory_id, c.fix
  FROM seen s JOIN cand c USING (pin_id, image_id, advisory_id)
  ON CONFLICT DO NOTHING;
END
$$;
COMMENT ON FUNCTION imx_patch_refresh_family(text) IS
  'Recomputes image_advisories and patch_status of a family, stages patch.available events; returns the fixes that appeared.';

-- Every family (after a bulk load, or to repair): returns the fixes that appeared.
CREATE FUNCTION imx_patch_refresh_all() RETURNS TABLE (image_id bigint, advisory_id text, fixed_by bigint)
LANGUAGE sql AS $$
  SELECT r.* FROM (SELECT DISTINCT family FROM images ORDER BY family) f,
    LATERAL imx_patch_refresh_family(f.family) r
$$;

-- Triggers: statement-level with transition tables, so a bulk insert refreshes each family once.
-- They run at the end of the statement: the catalog's single-statement publish (images and
-- components in one WITH) is complete by then, and a loader that inserts the image and then its
-- components in two statements refreshes twice, the second time with the components.
CREATE FUNCTION imx_patch_on_images_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE fam text;
BEGIN
  FOR fam IN SELECT DISTINCT n.family FROM new_images n ORDER BY 1 LOOP
    PERFORM imx_patch_refresh_family(fam);
  END LOOP;
  RETURN NULL;
END
$$;
CREATE TRIGGER images_patch_insert AFTER INSERT ON images
  REFERENCING NEW TABLE AS new_images FOR EACH STATEMENT
  EXECUTE FUNCTION imx_patch_on_images_insert();

CREATE FUNCTION imx_patch_on_components_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE fam text;
BEGIN
  FOR fam IN SELECT DISTINCT i.family FROM new_components n JOIN images i ON i.id = n.image_id
             ORDER BY 1 LOOP
    PERFORM imx_patch_refresh_family(fam);
  END LOOP;
  RETURN NULL;
END
$$;
CREATE TRIGGER image_components_patch_insert AFTER INSERT ON image_components
  REFERENCING NEW TABLE AS new_components FOR EACH STATEMENT
  EXECUTE FUNCTION imx_patch_on_components_insert();

-- A status change (deprecate, revoke) can change which image fixes what in the whole family.
CREATE FUNCTION imx_patch_on_status() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'revoked' THEN
    UPDATE images SET patch_status = 'ok' WHERE id = NEW.id AND patch_status = 'revoked';
  END IF;
  PERFORM imx_patch_refresh_family(NEW.family);
  RETURN NULL;
END
$$;
CREATE TRIGGER images_patch_status AFTER UPDATE OF status ON images
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION imx_patch_on_status();

CREATE FUNCTION imx_patch_on_ranges_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE fam text;
BEGIN
  -- Only families with an image inside a new range can change.
  FOR fam IN SELECT DISTINCT i.family FROM new_ranges r
             JOIN image_components c ON c.name = r.component
              AND imx_key_in(c.version_key, r.lo, r.lo_incl, r.hi, r.hi_incl)
             JOIN images i ON i.id = c.image_id ORDER BY 1 LOOP
    PERFORM imx_patch_refresh_family(fam);
  END LOOP;
  RETURN NULL;
END
$$;
CREATE TRIGGER advisory_ranges_patch_insert AFTER INSERT ON advisory_ranges
  REFERENCING NEW TABLE AS new_ranges FOR EACH STATEMENT
  EXECUTE FUNCTION imx_patch_on_ranges_insert();

-- ---------------------------------------------------------------------------
-- JSON documents for the API.
CREATE FUNCTION imx_advisory_json(p_id text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', a.id, 'title', a.title, 'published', a.published, 'severity', a.severity,
    'cvss', a.cvss, 'cves', to_json(a.cves), 'url', a.url, 'source', a.source,
    'created_at', a.created_at,
    'affected', (SELECT coalesce(json_agg(json_build_object('component', r.component,
                   'range', r.range, 'fixed', r.fixed) ORDER BY r.ord), '[]')
                 FROM advisory_ranges r WHERE r.advisory_id = a.id),
    'affected_images', (SELECT count(*) FROM image_advisories ia WHERE ia.advisory_id = a.id))
  FROM advisories a WHERE a.id = p_id
$$;

-- The images an advisory affects, grouped by family, each with its fix (oldest newer active
-- image of the family that the advisory does not affect) when one exists.
CREATE FUNCTION imx_advisory_affected_json(p_id text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('advisory', a.id, 'families', coalesce((
    SELECT json_agg(json_build_object('family', f.family, 'images', f.images) ORDER BY f.family)
    FROM (SELECT i.family, json_agg(json_build_object(
            'id', i.id, 'version', i.version, 'status', i.status, 'patch_status', i.patch_status,
            'published_at', i.published_at,
            'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
              'id', fx.id, 'family', fx.family, 'version', fx.version) END)
            ORDER BY i.published_at, i.id) AS images
          FROM image_advisories ia JOIN images i ON i.id = ia.image_id
          LEFT JOIN images fx ON fx.id = ia.fixed_by
          WHERE ia.advisory_id = a.id GROUP BY i.family) f), '[]'))
  FROM advisories a WHERE a.id = p_id
$$;

-- GET /v1/images/{id}/patch: the image's patch status, each advisory with its fix, and which
-- advisories the fix still leaves open.
CREATE FUNCTION imx_image_patch_json(p_image bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object('image_id', i.id, 'family', i.family, 'version', i.version,
    'status', i.patch_status,
    'advisories', coalesce((SELECT json_agg(json_build_object(
        'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
        'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
          'id', fx.id, 'family', fx.family, 'version', fx.version) END,
        'still_open_in_fix', CASE WHEN fx.id IS NOT NULL THEN (
          SELECT coalesce(json_agg(o.advisory_id ORDER BY o.advisory_id), '[]')
          FROM image_advisories o WHERE o.image_id = fx.id) ELSE '[]'::json END)
        ORDER BY a.published DESC, a.id)
      FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
      LEFT JOIN images fx ON fx.id = ia.fixed_by
      WHERE ia.image_id = i.id), '[]'))
  FROM images i WHERE i.id = p_image
$$;

-- A pin's status: revoked (the pinned image is), patch_available (an advisory affects it and an
-- image satisfying the constraints fixes it), vulnerable (affected, no such fix), behind (a newer
-- active image of the family satisfies the constraints), current. candidate: the image to move
-- to: among newer active images satisfying the constraints, the one with the fewest advisories,
-- newest first.
CREATE FUNCTION imx_pin_json(p_pin bigint, with_history boolean) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (SELECT p.*, t.slug AS team, i.family, i.published_at AS pub, i.status AS img_status
             FROM pins p JOIN teams t ON t.id = p.team_id JOIN images i ON i.id = p.image_id
             WHERE p.id = p_pin),
  adv AS (SELECT ia.advisory_id, imx_pin_fix(p.id, ia.advisory_id) AS fix
          FROM p JOIN image_advisories ia ON ia.image_id = p.image_id),
  cand AS (SELECT n.id FROM p JOIN images n ON n.family = p.family AND n.status = 'active'
             AND (n.published_at, n.id) > (p.pub, p.image_id)
           WHERE imx_pin_satisfied(p.id, n.id)
           ORDER BY (SELECT count(*) FROM image_advisories x WHERE x.image_id = n.id),
                    n.published_at DESC, n.id DESC
           LIMIT 1)
  SELECT json_build_object(
    'id', p.id, 'team', p.team, 'name', p.name,
    'image', imx_image_summary(p.image_id),
    'constraints', (SELECT coalesce(json_agg(json_build_object('component', k.component,
                      'range', k.range) ORDER BY k.ord), '[]')
                    FROM pin_constraints k WHERE k.pin_id = p.id),
    'status', CASE
      WHEN p.img_status = 'revoked' THEN 'revoked'
      WHEN EXISTS (SELECT 1 FROM adv WHERE adv.fix IS NOT NULL) THEN 'patch_available'
      WHEN EXISTS (SELECT 1 FROM adv) THEN 'vulnerable'
      WHEN EXISTS (SELECT 1 FROM cand) THEN 'behind'
      ELSE 'current' END,
    'candidate', (SELECT imx_image_summary(cand.id) FROM cand),
    'advisories', (SELECT coalesce(json_agg(json_build_object(
        'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
        'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
          'id', fx.id, 'family', fx.family, 'version', fx.version) END)
        ORDER BY a.published DESC, a.id), '[]')
      FROM adv JOIN advisories a ON a.id = adv.advisory_id LEFT JOIN images fx ON fx.id = adv.fix),
    'created_at', p.created_at, 'updated_at', p.updated_at,
    'history', CASE WHEN with_history THEN (SELECT coalesce(json_agg(json_build_object(
        'from_image', h.from_image, 'to_image', h.to_image, 'moved_at', h.moved_at,
        'moved_by', u.email) ORDER BY h.id DESC), '[]')
      FROM pin_history h LEFT JOIN users u ON u.id = h.moved_by WHERE h.pin_id = p.id) END)
  FROM p
$$;

-- The constraints of a pin that an image does not satisfy, as [{component, range}] (empty: all
-- hold). For PUT /v1/pins/{id}: 422 naming them.
CREATE FUNCTION imx_pin_unmet(p_pin bigint, p_image bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(json_agg(json_build_object('component', k.component, 'range', k.range,
           'version', (SELECT c.version FROM image_components c
                        WHERE c.image_id = p_image AND c.name = k.component))
           ORDER BY k.ord), '[]')
  FROM pin_constraints k WHERE k.pin_id = p_pin AND NOT EXISTS (
    SELECT 1 FROM image_components c WHERE c.image_id = p_image AND c.name = k.component
      AND imx_key_in(c.version_key, k.lo, k.lo_incl, k.hi, k.hi_incl))
$$;

-- Records the fixes a pin already knows at its image (on create and move), so that only fixes
-- appearing later are announced.
CREATE FUNCTION imx_pin_mark_seen(p_pin bigint) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO pin_patch_seen (pin_id, image_id, advisory_id)
  SELECT p.id, p.image_id, ia.advisory_id FROM pins p
  JOIN image_advisories ia ON ia.image_id = p.image_id
  WHERE p.id = p_pin AND imx_pin_fix(p.id, ia.advisory_id) IS NOT NULL
  ON CONFLICT DO NOTHING
$$;

-- GET /v1/images/resolve?pin=TEAM/NAME&region=R: the pinned image's artifact in region, never a
-- revoked image. {"pin": {id, team, name}|null, "image": summary|null, "artifact_id": text|null,
-- "emptied_by": null | "pin" | "status" | "region"}.
CREATE FUNCTION imx_pin_resolve(p_team bigint, p_name text, p_region text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (SELECT p.id, t.slug, p.name, p.image_id FROM pins p JOIN teams t ON t.id = p.team_id
             WHERE p.team_id = p_team AND p.name = p_name),
  s AS (SELECT p.* FROM p JOIN images i ON i.id = p.image_id
        WHERE i.status <> 'revoked' AND i.patch_status <> 'revoked'
          AND (i.revoke_at IS NULL OR i.revoke_at > now())),
  r AS (SELECT s.*, a.artifact_id FROM s JOIN image_artifacts a
          ON a.image_id = s.image_id AND a.region = p_region)
  SELECT json_build_object(
    'pin', (SELECT json_build_object('id', p.id, 'team', p.slug, 'name', p.name) FROM p),
    'image', (SELECT imx_image_summary(r.image_id) FROM r),
    'artifact_id', (SELECT r.artifact_id FROM r),
    'emptied_by', CASE WHEN EXISTS (SELECT 1 FROM r) THEN NULL
      WHEN NOT EXISTS (SELECT 1 FROM p) THEN 'pin'
      WHEN NOT EXISTS (SELECT 1 FROM s) THEN 'status' ELSE 'region' END)
$$;
