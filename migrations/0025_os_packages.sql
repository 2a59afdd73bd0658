-- Operating-system package inventories and distro advisories (issue #19).
--
-- Storage: an image's packages are (ecosystem, name, version) triples as the distro spells them
-- (Ubuntu:24.04:LTS, openssl, 3.0.13-0ubuntu3.5). Each distinct triple is stored once
-- (os_packages, with its order key). An image's inventory, sorted by name, is cut into chunks
-- where a package name's hash says so (about one name in 32: content-defined, so a version
-- change or an added package changes one chunk and leaves the others as they were); each distinct
-- chunk is stored once (os_package_chunks, addressed by the SHA-256 of its members) and an image
-- is the list of its chunks (image_packages.chunks). The builds of a family share all but the few
-- chunks whose packages moved, so 100,000 images of 1,000 packages cost about a chunk list each
-- plus the chunks that changed (bench/os_packages.sh measures it; bench/RESULTS.md).
--
-- Order: versions compare by their ecosystem's rules (dpkg for Debian and Ubuntu, rpmvercmp for
-- the rpm distros), through a byte key made by server/domain/pkgver.c (imx_pkgver_key) that
-- orders as the distro does: PostgreSQL compares and indexes it as bytea, and never parses a
-- distro version itself.
--
-- Matching: an advisory's package range names (ecosystem, package, key interval). The versions
-- of that package in the interval are an index range scan of os_packages; the chunks holding
-- them a GIN lookup; the images holding those chunks another. So an advisory touches only the
-- images that hold the package, and a publish looks up only its own packages.

CREATE TABLE os_packages (
    id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ecosystem text NOT NULL CHECK (ecosystem ~ '^[A-Za-z0-9][A-Za-z0-9 .:_-]{0,63}$'),
    name      text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9.+_~-]{0,127}$'),
    version   text NOT NULL CHECK (length(version) BETWEEN 1 AND 128),
    key       bytea NOT NULL CHECK (length(key) BETWEEN 1 AND 272),
    vorder    text NOT NULL CHECK (vorder IN ('dpkg', 'rpm')),
    UNIQUE (ecosystem, name, version)
);
-- By name first: advisories look up (name, ecosystem, key range), searches (name, key range).
CREATE INDEX os_packages_key ON os_packages (name, ecosystem, key);
COMMENT ON TABLE os_packages IS
  'Each distinct (ecosystem, package, version) once; key: imx_pkgver_key() of the version and vorder the order it follows (server/domain/pkgver.c, imx_pkg_ecosystem_order). Rows are never updated or deleted.';

CREATE TABLE os_package_chunks (
    id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    digest  bytea NOT NULL UNIQUE CHECK (length(digest) = 32),
    members integer[] NOT NULL CHECK (cardinality(members) BETWEEN 1 AND 5000)
);
CREATE INDEX os_package_chunks_members ON os_package_chunks USING gin (members);
COMMENT ON TABLE os_package_chunks IS
  'A run of an inventory: os_packages ids, ascending; digest = sha256 of members as text. Shared by every image that holds the same run.';

CREATE TABLE image_packages (
    image_id   bigint PRIMARY KEY REFERENCES images (id) ON DELETE CASCADE,
    chunks     integer[] NOT NULL,
    n_packages integer NOT NULL CHECK (n_packages BETWEEN 1 AND 5000),
    ecosystems text[] NOT NULL,
    source     text NOT NULL CHECK (source IN ('manifest', 'cyclonedx', 'spdx', 'probe'))
);
CREATE INDEX image_packages_chunks ON image_packages USING gin (chunks);
COMMENT ON TABLE image_packages IS
  'An image''s OS package inventory as its chunks (os_package_chunks), written once by imx_publish_images.';

-- The OS half of an image's patch status: NULL when the image has no inventory, else as
-- patch_status but over the advisories that reach it through a package. Written only by
-- imx_patch_status_update (procedures/_patch.sql) and the publish.
ALTER TABLE images ADD COLUMN os_patch_status text
  CHECK (os_patch_status IN ('ok', 'vulnerable', 'patch_available', 'revoked'));

-- An advisory's ranges over distro packages, beside advisory_ranges (GPU stack components). ord
-- is the entry's place in the advisory's "affected" list, shared with advisory_ranges. lo / hi:
-- imx_pkgver_key() bounds; NULL is unbounded.
CREATE TABLE advisory_package_ranges (
    advisory_id text NOT NULL REFERENCES advisories (id) ON DELETE CASCADE,
    ord         int NOT NULL CHECK (ord >= 0),
    ecosystem   text NOT NULL CHECK (ecosystem ~ '^[A-Za-z0-9][A-Za-z0-9 .:_-]{0,63}$'),
    package     text NOT NULL CHECK (package ~ '^[A-Za-z0-9][A-Za-z0-9.+_~-]{0,127}$'),
    range       text NOT NULL CHECK (length(range) BETWEEN 1 AND 300),
    lo          bytea,
    lo_incl     boolean NOT NULL,
    hi          bytea,
    hi_incl     boolean NOT NULL,
    fixed       text CHECK (length(fixed) BETWEEN 1 AND 128),
    PRIMARY KEY (advisory_id, ord)
);
CREATE INDEX advisory_package_ranges_package ON advisory_package_ranges (ecosystem, package);

-- imaxe:load functions/version.sql

-- imaxe:load functions/image_docs.sql

-- imaxe:load functions/costs.sql
