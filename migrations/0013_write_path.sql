-- The write path as explicit use cases. Every state change that used to run as a trigger
-- cascade (publish -> patch status of the whole family, twice; advisory ranges -> every affected
-- family; a status change -> the family; publish -> every open request) is now a named function
-- in migrations/procedures/, called from exactly one wrapper in server/db/ (README "Development
-- map"). What stays a trigger is bookkeeping only: the search summary, written_xid and the index
-- generation (0009, 0010), the reference generation (0004), the per-team webhook limit (0005) and
-- the child-table copies on images (0004), which a publish now writes itself.
--
-- This file holds the schema those procedures need; their bodies live in procedures/, which the
-- server re-applies on every migrate (server/db/migrate.c).

-- ---------------------------------------------------------------------------
-- The triggers that carried business logic, and the full-family refresh they ran.
DROP TRIGGER images_patch_insert ON images;
DROP TRIGGER image_components_patch_insert ON image_components;
DROP TRIGGER images_patch_status ON images;
DROP TRIGGER advisory_ranges_patch_insert ON advisory_ranges;
DROP TRIGGER patch_events_enqueue ON patch_events;
DROP TRIGGER images_request_matches ON images;
DROP FUNCTION imx_patch_on_images_insert();
DROP FUNCTION imx_patch_on_components_insert();
DROP FUNCTION imx_patch_on_status();
DROP FUNCTION imx_patch_on_ranges_insert();
DROP FUNCTION imx_patch_event_enqueue();
DROP FUNCTION imx_request_matches_on_publish();
DROP FUNCTION imx_patch_refresh_all();
DROP FUNCTION imx_patch_refresh_family(text);
DROP FUNCTION imx_image_apply_due_revocations();
DROP FUNCTION imx_pin_mark_seen(bigint);

-- A publish writes images.gpus, regions, tags, components and component_keys with the row
-- (procedures/publish_images.sql) and says so for its transaction, so the copy triggers of 0004
-- do not write the row again; SQL loaders (tests, bench, the demo) still get their copies.
CREATE OR REPLACE FUNCTION imx_image_denorm() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
  IF current_setting('imaxe.copies_written', true) = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    ids := ARRAY(SELECT id FROM images);
  ELSIF TG_OP = 'UPDATE' THEN
    ids := ARRAY(SELECT image_id FROM changed UNION SELECT image_id FROM changed_old);
  ELSE
    ids := ARRAY(SELECT DISTINCT image_id FROM changed);
  END IF;
  PERFORM imx_image_denorm_refresh(ids, TG_TABLE_NAME);
  RETURN NULL;
END
$$;

-- The fixer walk, the pin walk and a publish's pass read a family's images in publish order.
CREATE INDEX images_family_order ON images (family, published_at, id);

-- ---------------------------------------------------------------------------
-- Advisories can be revised and withdrawn.
ALTER TABLE advisories
  ADD COLUMN revision integer NOT NULL DEFAULT 1 CHECK (revision >= 1),
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN withdrawn_at timestamptz,
  ADD COLUMN withdrawn_reason text CHECK (length(withdrawn_reason) <= 1000);
COMMENT ON TABLE advisories IS
  'Security bulletins (NVIDIA driver, Container Toolkit, OSV imports). Revised in place (revision counts, the ETag follows it); withdrawn ones keep their row and affect nothing.';

-- image_advisories: the family rides along (an image never changes family), so a publish finds
-- the rows of its family that still wait for a fix without reading the family.
ALTER TABLE image_advisories ADD COLUMN family text COLLATE "C";
UPDATE image_advisories ia SET family = i.family FROM images i WHERE i.id = ia.image_id;
ALTER TABLE image_advisories ALTER COLUMN family SET NOT NULL;
CREATE INDEX image_advisories_waiting ON image_advisories (family, advisory_id)
  WHERE fixed_by IS NULL;
CREATE INDEX image_advisories_family ON image_advisories (family, advisory_id);
COMMENT ON TABLE image_advisories IS
  'Which advisory affects which image, and fixed_by (the oldest newer active image of the family it does not affect). Written only by the use cases in migrations/procedures/.';

-- ---------------------------------------------------------------------------
-- pin_advisories: for every pin, each advisory affecting its image and the image the pin should
-- move to for it (the oldest newer active image of the family that satisfies the pin's
-- constraints and is not affected), kept by the same use cases. seen: the fix was announced (or
-- already known when the pin was made or moved), see pin_patch_seen.
CREATE TABLE pin_advisories (
    pin_id      bigint NOT NULL REFERENCES pins (id) ON DELETE CASCADE,
    advisory_id text NOT NULL,
    image_id    bigint NOT NULL,
    family      text COLLATE "C" NOT NULL,
    fixed_by    bigint REFERENCES images (id),
    seen        boolean NOT NULL DEFAULT false,
    PRIMARY KEY (pin_id, advisory_id),
    FOREIGN KEY (image_id, advisory_id) REFERENCES image_advisories (image_id, advisory_id)
      ON DELETE CASCADE
);
CREATE INDEX pin_advisories_waiting ON pin_advisories (family, advisory_id) WHERE fixed_by IS NULL;
CREATE INDEX pin_advisories_fixed_by ON pin_advisories (fixed_by) WHERE fixed_by IS NOT NULL;
CREATE INDEX pin_advisories_image ON pin_advisories (image_id, advisory_id);
CREATE INDEX pin_advisories_family ON pin_advisories (family, advisory_id);
CREATE INDEX pin_advisories_unseen ON pin_advisories (family) WHERE fixed_by IS NOT NULL AND NOT seen;
COMMENT ON TABLE pin_advisories IS
  'Per pin, each advisory affecting its image and the fix satisfying its constraints; written only by migrations/procedures/.';

-- Existing pins: their rows as of now, every fix that exists counted as known (announced).
INSERT INTO pin_advisories (pin_id, advisory_id, image_id, family, fixed_by, seen)
SELECT p.id, ia.advisory_id, p.image_id, ia.family, f.fix, f.fix IS NOT NULL
  FROM pins p JOIN image_advisories ia ON ia.image_id = p.image_id,
       LATERAL (SELECT imx_pin_fix(p.id, ia.advisory_id) AS fix) f;
INSERT INTO pin_patch_seen (pin_id, image_id, advisory_id)
SELECT pin_id, image_id, advisory_id FROM pin_advisories WHERE seen ON CONFLICT DO NOTHING;

-- Fresh fixes of image rows wait here for their announcement within the same use case.
CREATE INDEX image_advisories_unannounced ON image_advisories (family)
  WHERE fixed_by IS NOT NULL AND fix_seen_at IS NULL;

-- ---------------------------------------------------------------------------
-- Open requests are found by what they name: a constraint's version interval as one numeric
-- range (imx_version_key_num order), GPUs, and the few that name neither.
ALTER TABLE request_constraints ADD COLUMN keys numrange GENERATED ALWAYS AS (
  numrange(imx_version_key_num(lo), imx_version_key_num(hi),
           CASE WHEN lo_incl THEN '[' ELSE '(' END || CASE WHEN hi_incl THEN ']' ELSE ')' END))
  STORED;
CREATE INDEX request_constraints_keys ON request_constraints USING gist (keys);
CREATE INDEX image_requests_open_gpus ON image_requests USING gin (gpus) WHERE state = 'open';
CREATE INDEX image_requests_open_bare ON image_requests (id) WHERE state = 'open' AND gpus = '{}';

-- ---------------------------------------------------------------------------
-- The outbox keeps what is still owed, for a bounded time: the dispatcher prunes delivered and
-- failed deliveries past the retention, and events none of whose deliveries is left.
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (updated_at)
  WHERE state <> 'pending';
CREATE INDEX webhook_events_created ON webhook_events (created_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- Which procedure files are loaded, with their checksums (server/db/migrate.c).
CREATE TABLE IF NOT EXISTS schema_procedures (
    name       text PRIMARY KEY,
    checksum   text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------
-- Reads of the new state. An advisory shows its revision and withdrawal; a pin's advisories and
-- their fixes come from pin_advisories instead of being recomputed per read.
CREATE OR REPLACE FUNCTION imx_advisory_json(p_id text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', a.id, 'title', a.title, 'published', a.published, 'severity', a.severity,
    'cvss', a.cvss, 'cves', to_json(a.cves), 'url', a.url, 'source', a.source,
    'created_at', a.created_at, 'revision', a.revision, 'updated_at', a.updated_at,
    'withdrawn_at', a.withdrawn_at, 'withdrawn_reason', a.withdrawn_reason,
    'affected', (SELECT coalesce(json_agg(json_build_object('component', r.component,
                   'range', r.range, 'fixed', r.fixed) ORDER BY r.ord), '[]')
                 FROM advisory_ranges r WHERE r.advisory_id = a.id),
    'affected_images', (SELECT count(*) FROM image_advisories ia WHERE ia.advisory_id = a.id))
  FROM advisories a WHERE a.id = p_id
$$;

CREATE OR REPLACE FUNCTION imx_pin_json(p_pin bigint, with_history boolean) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH p AS (SELECT p.*, t.slug AS team, i.family, i.published_at AS pub, i.status AS img_status
             FROM pins p JOIN teams t ON t.id = p.team_id JOIN images i ON i.id = p.image_id
             WHERE p.id = p_pin),
  adv AS (SELECT pa.advisory_id, pa.fixed_by AS fix FROM pin_advisories pa WHERE pa.pin_id = p_pin),
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

-- ---------------------------------------------------------------------------
-- Idempotency-Key for bulk import (POST /v1/images:import): the reply a key got, per caller and
-- route, kept 24 hours so that a retry gets the same reply instead of a second import.
CREATE TABLE idempotency_keys (
    user_id        bigint NOT NULL,
    route          text NOT NULL,
    key            text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    request_sha256 text NOT NULL,
    status         integer NOT NULL,
    response       text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, route, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
