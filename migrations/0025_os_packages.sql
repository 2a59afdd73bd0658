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

-- Does a package version key lie inside a stored interval (NULL ends unbounded)?
CREATE FUNCTION imx_pkg_key_in(k bytea, lo bytea, lo_incl boolean, hi bytea, hi_incl boolean)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (lo IS NULL OR k > lo OR (lo_incl AND k = lo))
     AND (hi IS NULL OR k < hi OR (hi_incl AND k = hi))
$$;

-- The packages of an image: (ecosystem, name, version, key) of every member of its chunks.
CREATE FUNCTION imx_image_packages(p_image bigint)
RETURNS TABLE (id integer, ecosystem text, name text, version text, key bytea)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT op.id, op.ecosystem, op.name, op.version, op.key
    FROM image_packages ip, unnest(ip.chunks) ch(id)
    JOIN os_package_chunks c ON c.id = ch.id, unnest(c.members) m(id)
    JOIN os_packages op ON op.id = m.id
   WHERE ip.image_id = p_image
$$;

-- Everything the image detail document says about the OS: NULL when the image has no
-- inventory, else {"ecosystems", "packages": n, "source", "patch_status", "advisories": [{id,
-- title, severity, cves, fixed_by, packages: [{ecosystem, name, version, range, fixed}]}]}: each
-- advisory that reaches the image through a package, with the packages it hits and the fixed
-- version. What changes it: publish (the new image's, and the fixed_by of older images of the
-- family), advisory publish / revise / withdraw, image status changes (fixed_by, revoked); each
-- refreshes the stored documents it changes (imx_image_docs_refresh_os). plpgsql, planned once a
-- session: as an SQL function it was planned on every call (3 ms of a compare).
CREATE FUNCTION imx_image_os_json(image_id bigint) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  -- $1, not the parameter's name: image_packages has a column of that name
  SELECT json_build_object(
    'ecosystems', to_json(ip.ecosystems), 'packages', ip.n_packages, 'source', ip.source,
    'patch_status', i.os_patch_status,
    'advisories', coalesce((
      SELECT json_agg(json_build_object(
          'id', a.id, 'title', a.title, 'severity', a.severity, 'cves', to_json(a.cves),
          'fixed_by', CASE WHEN fx.id IS NOT NULL THEN json_build_object(
            'id', fx.id, 'family', fx.family, 'version', fx.version) END,
          'packages', hit.packages)
          ORDER BY a.published DESC, a.id)
        FROM image_advisories ia JOIN advisories a ON a.id = ia.advisory_id
        LEFT JOIN images fx ON fx.id = ia.fixed_by
        CROSS JOIN LATERAL (
          SELECT json_agg(json_build_object('ecosystem', p.ecosystem, 'name', p.name,
                   'version', p.version, 'range', r.range, 'fixed', r.fixed)
                   ORDER BY p.name, r.ord) AS packages
            FROM advisory_package_ranges r
            JOIN imx_image_packages(i.id) p ON p.ecosystem = r.ecosystem AND p.name = r.package
             AND imx_pkg_key_in(p.key, r.lo, r.lo_incl, r.hi, r.hi_incl)
           WHERE r.advisory_id = ia.advisory_id) hit
       WHERE ia.image_id = i.id AND hit.packages IS NOT NULL), '[]'))
    INTO v
    FROM images i JOIN image_packages ip ON ip.image_id = i.id
   WHERE i.id = $1;
  RETURN v;
END
$$;

-- The detail document (0020's imx_image_json = imx_image_doc_head || imx_image_doc_tail) gets
-- "os_packages" (imx_image_os_json) as its last key, in the changing part: 0020's tail with the
-- key added, nothing else changed. The stored tails (image_docs) follow every UPDATE of images
-- (0020's sync trigger); the use cases that change imx_image_os_json without writing the images
-- row refresh them with imx_image_docs_refresh_os (below).
CREATE OR REPLACE FUNCTION imx_image_doc_tail(i images) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT ', ' || substr(json_build_object(
    'status', imx_image_status(i.status, i.revoke_at), 'status_reason', i.status_reason,
    'revoke_at', i.revoke_at, 'patch_status', i.patch_status, 'updated_at', i.updated_at,
    'compatibility', i.compatibility, 'os_packages', imx_image_os_json(i.id))::text, 2)
$$;

-- Rewrites the stored tails of those of p_ids that have a package inventory (their os_packages
-- may have changed while their images row did not: another advisory's row, a fix that moved, an
-- advisory's title). Returns how many changed.
CREATE FUNCTION imx_image_docs_refresh_os(p_ids bigint[]) RETURNS integer
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
  v_n integer;
BEGIN
  UPDATE image_docs d
     SET tail = x.t, etag = '"' || md5(d.head || x.t) || '"'
    FROM (SELECT i.id, imx_image_doc_tail(i) AS t
            FROM (SELECT DISTINCT u AS id FROM unnest(p_ids) u) u
            JOIN image_packages ip ON ip.image_id = u.id JOIN images i ON i.id = u.id) x
   WHERE d.image_id = x.id AND d.tail <> x.t;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;

-- As 0014's, with the package ranges among "affected" in their place ({ecosystem, package,
-- range, fixed}).
CREATE OR REPLACE FUNCTION imx_advisory_json(p_id text) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', a.id, 'title', a.title, 'published', a.published, 'severity', a.severity,
    'cvss', a.cvss, 'cvss_v4', a.cvss_v4, 'cves', to_json(a.cves), 'url', a.url,
    'source', a.source, 'source_version', a.source_version,
    'created_at', a.created_at, 'revision', a.revision, 'updated_at', a.updated_at,
    'withdrawn_at', a.withdrawn_at, 'withdrawn_reason', a.withdrawn_reason,
    'affected', (SELECT coalesce(json_agg(x.j ORDER BY x.ord), '[]') FROM (
                   SELECT r.ord, json_build_object('component', r.component, 'range', r.range,
                            'fixed', r.fixed) AS j
                     FROM advisory_ranges r WHERE r.advisory_id = a.id
                   UNION ALL
                   SELECT r.ord, json_build_object('ecosystem', r.ecosystem, 'package', r.package,
                            'range', r.range, 'fixed', r.fixed)
                     FROM advisory_package_ranges r WHERE r.advisory_id = a.id) x),
    'affected_images', (SELECT count(*) FROM image_advisories ia WHERE ia.advisory_id = a.id))
  FROM advisories a WHERE a.id = p_id
$$;

-- Compare's OS rows: [{"name": "os_patch_status", "values": [...], "differs"}, {"name":
-- "os_advisories", "values": [os_packages.advisories of each image, null without an
-- inventory], "differs"}], in the order of p_ids.
CREATE FUNCTION imx_compare_os_fields(p_ids bigint[]) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v json;
BEGIN
  WITH imgs AS (
    SELECT u.ord, i.os_patch_status, imx_image_os_json(i.id)::jsonb -> 'advisories' AS advs
      FROM unnest(p_ids) WITH ORDINALITY u(id, ord) JOIN images i ON i.id = u.id
  )
  SELECT json_build_array(
    json_build_object('name', 'os_patch_status',
      'values', jsonb_agg(to_jsonb(os_patch_status) ORDER BY ord),
      'differs', count(DISTINCT coalesce(os_patch_status, '')) > 1),
    json_build_object('name', 'os_advisories',
      'values', jsonb_agg(coalesce(advs, 'null'::jsonb) ORDER BY ord),
      'differs', count(DISTINCT coalesce(advs, 'null'::jsonb)) > 1))
    INTO v
    FROM imgs;
  RETURN v;
END
$$;
