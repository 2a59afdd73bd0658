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

-- imaxe:load functions/version.sql

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

-- imaxe:load functions/pins.sql

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

-- imaxe:load functions/advisories.sql

-- imaxe:load functions/image_docs.sql

