-- OS package inventories for the 100,000-image bench catalog (bench/gen_catalog.sql: 500
-- families x 200 builds; image g + 1 is family g % 500, build g / 500): 1,000 packages each,
-- stored exactly as imx_publish_packages (migrations/procedures/publish_images.sql) stores
-- them (interned packages, the same chunk cut, the same SHA-256 digests), written set-based.
-- Run by bench/os_packages.sh after bench_pkg_keys (version -> imx_pkgver_key hex, from
-- bench/pkgkey.c) is loaded.
--
-- The inventory model: openssl is 3.0.13-0ubuntu3.3 in a family's first 60 builds and
-- 3.0.13-0ubuntu3.5 after (so an advisory "<3.0.13-0ubuntu3.4" hits 30 % of the catalog, each
-- with a fix); of the other 999 packages 5 change every 2nd build, 50 every 10th, the rest never
-- within 200 builds; one package in ten is the family's own (a version only it has), the others
-- are shared by the families of the same distro base (family % 7).
\timing on
\set ON_ERROR_STOP 1
BEGIN;
CREATE UNLOGGED TABLE bench_names AS
SELECT p, CASE WHEN p = 0 THEN 'openssl' ELSE 'pkg-' || lpad(p::text, 3, '0') END AS name,
       CASE WHEN p = 0 THEN 200 WHEN p % 200 = 7 THEN 2 WHEN p % 20 = 3 THEN 10 ELSE 200 END
         AS period
  FROM generate_series(0, 999) p;
-- the chunk cut of imx_publish_packages: after every name whose hash is 0 mod 32, in name order
CREATE UNLOGGED TABLE bench_cut AS
SELECT p, name, period,
       sum(CASE WHEN hashtext(name) & 31 = 0 THEN 1 ELSE 0 END) OVER (ORDER BY name, p) AS c
  FROM bench_names;

CREATE FUNCTION pg_temp.bench_version(f int, n int, p int, period int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p = 0 THEN CASE WHEN n < 60 THEN '3.0.13-0ubuntu3.3' ELSE '3.0.13-0ubuntu3.5' END
              WHEN p % 10 = 1 THEN '2.' || f || '-' || (n / period)
              ELSE '1.' || (f % 7) || '-' || (n / period) END
$$;

-- A chunk's content changes only when one of its members does: with periods dividing each
-- other, at every (its smallest period)-th build, and for openssl's chunk also at build 60.
CREATE UNLOGGED TABLE bench_rep AS
WITH ch AS (SELECT c, min(period) AS pc, bool_or(p = 0) AS ssl FROM bench_cut GROUP BY c)
SELECT ch.c, n, min(n) OVER (PARTITION BY ch.c, n / ch.pc, ch.ssl AND n >= 60) AS n0
  FROM ch, generate_series(0, 199) n;

-- Every version a package takes: a family's own ones per family, the shared ones per distro
-- base (family % 7 of the families 0..6 stands for all), at each build where it moves.
INSERT INTO os_packages (ecosystem, name, version, key, vorder)
SELECT 'Ubuntu:24.04:LTS', x.name, x.version, decode(k.key, 'hex'), 'dpkg'
  FROM (SELECT DISTINCT b.name, pg_temp.bench_version(ff.f, n, b.p, b.period) AS version
          FROM bench_cut b
          CROSS JOIN generate_series(0, 199) n
          JOIN LATERAL (SELECT f FROM generate_series(0, CASE WHEN b.p % 10 = 1 THEN 499 ELSE 6 END) f)
            ff ON true
         WHERE n % b.period = 0 OR (b.p = 0 AND n = 60)) x
  JOIN bench_pkg_keys k ON k.version = x.version
 ORDER BY 1, 2, 3
ON CONFLICT DO NOTHING;

CREATE UNLOGGED TABLE bench_chunk AS
SELECT ff.f, b.c, r.n0, array_agg(op.id ORDER BY op.id) AS members
  FROM (SELECT DISTINCT c, n0 FROM bench_rep) r
  JOIN bench_cut b ON b.c = r.c
  CROSS JOIN generate_series(0, 499) ff(f)
  JOIN os_packages op ON op.ecosystem = 'Ubuntu:24.04:LTS' AND op.name = b.name
   AND op.version = pg_temp.bench_version(ff.f, r.n0, b.p, b.period)
 GROUP BY ff.f, b.c, r.n0;
ALTER TABLE bench_chunk ADD COLUMN digest bytea;
UPDATE bench_chunk SET digest = sha256(convert_to(members::text, 'UTF8'));

INSERT INTO os_package_chunks (digest, members)
SELECT DISTINCT ON (digest) digest, members FROM bench_chunk ORDER BY digest
ON CONFLICT (digest) DO NOTHING;
CREATE INDEX ON bench_chunk (f, c, n0);

INSERT INTO image_packages (image_id, chunks, n_packages, ecosystems, source)
SELECT g + 1, array_agg(k.id ORDER BY r.c), 1000, '{Ubuntu:24.04:LTS}', 'manifest'
  FROM generate_series(0, 99999) g
  JOIN bench_rep r ON r.n = g / 500
  JOIN bench_chunk b ON b.f = g % 500 AND b.c = r.c AND b.n0 = r.n0
  JOIN os_package_chunks k ON k.digest = b.digest
 GROUP BY g;
UPDATE images SET os_patch_status = 'ok' WHERE id IN (SELECT image_id FROM image_packages);
DROP TABLE bench_names, bench_cut, bench_rep, bench_chunk;
COMMIT;
ANALYZE os_packages, os_package_chunks, image_packages, images;
