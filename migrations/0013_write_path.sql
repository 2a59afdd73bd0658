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
