-- Deterministic bench catalog: 100,000 images (500 families x 200 versions), 12 components each,
-- artifacts in up to 3 regions, GPUs, tags, lineage (model families built on platform families).
-- Set-based: one INSERT ... SELECT per table. Run bench/gen_catalog.sh URL on a migrated,
-- otherwise empty catalog (it runs this, then bench/gen_catalog_components.sql in 2 sessions).
\timing on
BEGIN;
INSERT INTO teams (slug, name) VALUES ('bench-platform', 'Bench platform'), ('bench-ml', 'Bench ML')
ON CONFLICT (slug) DO NOTHING;

-- Six realistic stacks from the reference data; family f uses stack f % 6.
DROP TABLE IF EXISTS bench_stack;
-- A real table: bench/gen_catalog_components.sql reads it from other sessions.
CREATE UNLOGGED TABLE bench_stack (s int PRIMARY KEY, branch int, cuda text, cudnn text, nccl text,
  fw text, fw_version text, gpus text[]);
INSERT INTO bench_stack VALUES
  (0, 535, '12.2.2', '8.9.7.29', '2.18.5', 'pytorch', '2.3.1+cu121', '{V100,T4,A10G}'),
  (1, 550, '12.4.1', '9.1.0.70', '2.21.5', 'pytorch', '2.5.1+cu124', '{A100,H100,L4}'),
  (2, 570, '12.8.1', '9.8.0.87', '2.26.2', 'pytorch', '2.7.1+cu128', '{H100,H200,B200}'),
  (3, 580, '13.0.2', '9.13.0.50', '2.27.7', 'pytorch', '2.9.0+cu130', '{H100,B200,L40S}'),
  (4, 580, '12.9.1', '9.10.2.21', '2.27.3', 'pytorch', '2.8.0+cu129', '{A100,H100}'),
  (5, 525, '11.8.0', '8.9.7.29', '2.16.5', 'tensorflow', '2.14.1', '{V100,T4}');

-- g = 0..99999: family f = g % 500, sequence n = g / 500 (0..199). ids are g + 1, so a model
-- image (f >= 250) can name its parent, platform family f - 250 at the same sequence.
INSERT INTO images (id, family, version, team_id, provider, architecture, os_name, os_version,
                    kernel, layer, parent_id, boot_seconds, size_gb, description, status,
                    status_reason, patch_status, published_at, search)
OVERRIDING SYSTEM VALUE
SELECT g + 1, fam, '1.' || n,
       (SELECT id FROM teams WHERE slug = CASE WHEN f < 250 THEN 'bench-platform' ELSE 'bench-ml' END),
       CASE WHEN f >= 250 THEN 'oci-container' ELSE (ARRAY['aws','gcp','azure','onprem'])[1 + f % 4] END,
       CASE WHEN f % 7 = 0 THEN 'arm64' ELSE 'x86_64' END,
       CASE WHEN f % 5 = 4 THEN 'rocky' ELSE 'ubuntu' END,
       CASE WHEN f % 5 = 4 THEN '9.4' WHEN f % 2 = 0 THEN '24.04' ELSE '22.04' END,
       '6.8.0-' || (1000 + n) || '-aws',
       CASE WHEN f < 250 THEN 'platform' ELSE 'model' END,
       CASE WHEN f >= 250 THEN (n * 500 + (f - 250)) + 1 END,
       30 + (g::bigint * 7919) % 300, round((20 + (g::bigint * 104729) % 8000 / 100.0)::numeric, 2),
       'Bench ' || CASE WHEN f < 250 THEN 'platform' ELSE 'model' END || ' image with ' || st.fw
         || ' on CUDA ' || st.cuda,
       CASE WHEN g % 997 = 0 THEN 'revoked' WHEN n < 5 THEN 'deprecated' ELSE 'active' END,
       CASE WHEN g % 997 = 0 THEN 'bench: revoked for a test' END,
       CASE WHEN g % 997 = 0 THEN 'revoked' WHEN n < 150 AND f % 2 = 0 THEN 'patch_available'
            WHEN n >= 195 AND f % 10 = 0 THEN 'vulnerable' ELSE 'ok' END,
       timestamptz '2024-01-01 00:00:00+00' + g * interval '10 minutes',
       imx_image_search_doc(fam, 'Bench image with ' || st.fw || ' on CUDA ' || st.cuda,
         ARRAY['nvidia-driver','cuda','cudnn','nccl','python',st.fw,'nvidia-container-toolkit',
               'dcgm','efa','linux-kernel','openssl','gcc'])
FROM generate_series(0, :images - 1) g,
     LATERAL (SELECT g % 500 AS f, g / 500 AS n) k,
     LATERAL (SELECT CASE WHEN k.f < 250 THEN 'platform-' ELSE 'model-' END
                     || lpad(k.f::text, 3, '0') AS fam) fm,
     bench_stack st
WHERE st.s = k.f % 6;
SELECT setval(pg_get_serial_sequence('images', 'id'), (SELECT max(id) FROM images));

INSERT INTO image_artifacts (image_id, region, artifact_id)
SELECT i.id, r.region, CASE WHEN i.provider = 'oci-container'
         THEN 'registry.example.com/' || i.family || '@sha256:' || md5(i.id || r.region) || md5(r.region || i.id)
         ELSE 'ami-' || substr(md5(i.id || r.region), 1, 17) END
FROM images i,
     (VALUES ('us-east-1', 1), ('us-west-2', 2), ('eu-west-1', 3)) r(region, m)
WHERE r.m = 1 OR (r.m = 2 AND i.id % 2 = 0) OR (r.m = 3 AND i.id % 3 = 0);

INSERT INTO image_gpus (image_id, gpu)
SELECT i.id, unnest(st.gpus)
FROM images i JOIN bench_stack st ON st.s = ((i.id - 1) % 500) % 6;

INSERT INTO image_instance_families (image_id, family)
SELECT i.id, f.family
FROM images i JOIN bench_stack st ON st.s = ((i.id - 1) % 500) % 6,
     LATERAL unnest(CASE st.s WHEN 0 THEN ARRAY['p3','g4dn','g5'] WHEN 1 THEN ARRAY['p4d','p5','g6']
                    WHEN 2 THEN ARRAY['p5','p5en','p6-b200'] WHEN 3 THEN ARRAY['p5','p6-b200','g6e']
                    WHEN 4 THEN ARRAY['p4d','p5'] ELSE ARRAY['p3','g4dn'] END) f(family);

INSERT INTO image_tags (image_id, tag)
SELECT i.id, t.tag
FROM images i, (VALUES ('cis', 3), ('fips', 10), ('boot-optimized', 4), ('stig', 25)) t(tag, m)
WHERE ((i.id - 1) % 500) % t.m = 0;
COMMIT;
ANALYZE images, image_components, image_artifacts, image_gpus, image_instance_families, image_tags;
