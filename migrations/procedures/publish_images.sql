-- Use case: publish images (POST /v1/images publishes one, POST /v1/images:import many, all or
-- nothing). imx_publish_images is called only from imx_db_images_publish() in
-- server/db/images.c; imx_request_satisfied_by also from server/db/requests.c (a request's
-- candidates), imx_request_match_images from server/db/reference_import.c (requests a
-- compatibility change satisfies).
--
-- p_docs: a JSON array of manifests as server/db/images.c writes them (every value already
-- checked by the publish and import handlers of server/api/): {family, version, team_id, provider, architecture, os_name,
-- os_version, kernel, layer, parent_id, boot_seconds, size_gb, description, compatibility,
-- components:[{name, version, gpus?}], artifacts:[{region, artifact_id}], gpus:[...],
-- instance_families:[...], tags:[...], packages:[{ecosystem, name, version, key, order}],
-- packages_source}, each component with "key", its imx_version_key(), and each package with
-- "key", its imx_pkgver_key() as hex (server/domain/pkgver.c). A component name may appear
-- more than once (two driver trees, 0199_component_entries.sql), each entry then with the GPUs it
-- serves ("gpus", checked by the handlers: disjoint, among the image's); entries are numbered in
-- manifest order. images.components then gives that name every entry, [{version, gpus}];
-- component_keys holds entry 1's key and component_alt_keys the others' (search).
--
-- Steps, in order:
--   1. lock: the global patch lock (shared) and each family's lock, in name order;
--   2. insert the images, each row written once with its search copies and its own patch status,
--      then their child rows (components, artifacts, GPUs, instance families, tags);
--   3. image.published, one event per image in id order;
--   3b. the package inventories (imx_publish_packages: interned packages, shared chunks);
--   4. the advisories that affect the new images (their components and packages against the
--      ranges, indexed);
--   5. the fixes the new images bring to older images of their families, and to pins;
--   6. patch statuses of the images whose rows changed;
--   7. patch.available for the fixes that appeared (imx_patch_announce);
--   8. open requests that a new image satisfies: request_matches and request.updated;
--   9. the new images' stored detail documents (migrations/0020_point_reads.sql), last: every
--      write of their rows is done.
-- Returns {"ids":[new ids in manifest order], "patch_status_changed":[ids], "patch_events": n,
-- "request_matches": n}. Errors are the schema's (23505 family+version exists, 23514, 23503,
-- 23502 a component version that does not parse).
CREATE OR REPLACE FUNCTION imx_publish_images(p_docs jsonb) RETURNS json
LANGUAGE plpgsql
-- Planned once a session (a custom plan of the insert costs more than running it), and by index
-- lookups: what it reads is keyed by the new images, however small the tables' statistics say
-- they are.
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
DECLARE
  v_ids bigint[];
  v_fams text[];
  v_touched bigint[];
  v_changed bigint[];
  v_events integer;
  v_matches integer;
BEGIN
  -- 1. locks
  PERFORM imx_patch_lock_global(false);
  v_fams := ARRAY(SELECT DISTINCT d->>'family' FROM jsonb_array_elements(p_docs) d);
  PERFORM imx_patch_lock_families(v_fams);

  -- 2. the rows. clock_timestamp() after the family lock: a new image is the newest of its
  -- family, so its fixes are found in the new images alone (imx_patch_after_publish).
  PERFORM set_config('imaxe.copies_written', 'on', true);
  WITH d AS (
    SELECT x.j, x.o FROM jsonb_array_elements(p_docs) WITH ORDINALITY AS x(j, o)
  ), comps AS MATERIALIZED (
    -- key: imx_version_key(version), computed by the caller (imx_ver_format_key, the same parse)
    SELECT d.o, c.e->>'name' AS name, c.e->>'version' AS version, (c.e->>'key')::int[] AS k,
           row_number() OVER (PARTITION BY d.o, c.e->>'name' ORDER BY c.n)::smallint AS entry,
           count(*) OVER (PARTITION BY d.o, c.e->>'name') AS entries,
           c.e->'gpus' AS gpus
      FROM d, jsonb_array_elements(d.j->'components') WITH ORDINALITY AS c(e, n)
  ), multi AS (
    -- the entries of the components listed more than once, their GPUs made canonical (few: the
    -- reference lookup runs for these alone)
    SELECT comps.o, comps.name, comps.version, comps.k, comps.entry,
           ARRAY(SELECT DISTINCT coalesce(imx_ref_gpu_canonical(x), x)
                   FROM jsonb_array_elements_text(comps.gpus) x ORDER BY 1) AS gpus
      FROM comps WHERE comps.entries > 1
  ), byname AS (
    -- one value per (image, name): the version, or for a name listed more than once every
    -- entry as {version, gpus} (images.components; drift and compare read both spellings)
    SELECT comps.o, comps.name,
           CASE WHEN count(*) = 1 THEN to_json(min(comps.version))
                ELSE (SELECT json_agg(json_build_object('version', mu.version,
                                                        'gpus', to_json(mu.gpus)) ORDER BY mu.entry)
                        FROM multi mu WHERE mu.o = comps.o AND mu.name = comps.name) END AS val,
           min(imx_version_key_num(comps.k)) FILTER (WHERE comps.entry = 1) AS key1,
           bool_or(EXISTS (SELECT 1 FROM advisory_ranges r
                            JOIN advisories a ON a.id = r.advisory_id AND a.withdrawn_at IS NULL
                           WHERE r.component = comps.name
                             AND imx_key_in(comps.k, r.lo, r.lo_incl, r.hi, r.hi_incl))) AS hit
      FROM comps GROUP BY comps.o, comps.name
  ), cagg AS (
    SELECT o, json_object_agg(name, val ORDER BY name) AS components,
           jsonb_object_agg(name, key1) AS keys, array_agg(name) AS names, bool_or(hit) AS hit
      FROM byname GROUP BY o
  ), gpu AS MATERIALIZED (
    -- each GPU spelling of the batch resolved once (a reference lookup costs ~0.1 ms)
    SELECT x.g, coalesce(imx_ref_gpu_canonical(x.g), x.g) AS canon
      FROM (SELECT DISTINCT jsonb_array_elements_text(d.j->'gpus') AS g FROM d) x
  ), magg AS (
    SELECT multi.o,
           jsonb_agg(jsonb_build_object('name', multi.name, 'version', multi.version,
                                        'gpus', to_jsonb(multi.gpus))
                     ORDER BY multi.name, multi.entry) AS entries,
           (SELECT jsonb_object_agg(y.name, y.keys)
              FROM (SELECT m2.name, jsonb_agg(imx_version_key_num(m2.k) ORDER BY m2.entry) AS keys
                      FROM multi m2 WHERE m2.o = multi.o AND m2.entry > 1 GROUP BY m2.name) y)
             AS alt_keys
      FROM multi GROUP BY multi.o
  ), ins AS (
    INSERT INTO images (family, version, team_id, provider, architecture, os_name, os_version,
                        kernel, layer, parent_id, boot_seconds, size_gb, description,
                        compatibility, search, published_at, gpus, regions, tags, components,
                        component_keys, component_entries, component_alt_keys, patch_status,
                        os_patch_status)
    SELECT j->>'family', j->>'version', (j->>'team_id')::bigint, j->>'provider',
           j->>'architecture', j->>'os_name', j->>'os_version', j->>'kernel', j->>'layer',
           (j->>'parent_id')::bigint, (j->>'boot_seconds')::int, (j->>'size_gb')::numeric,
           coalesce(j->>'description', ''), coalesce(j->'compatibility', '{}'),
           imx_image_search_doc(j->>'family', j->>'description', coalesce(ca.names, '{}')),
           clock_timestamp(),
           ARRAY(SELECT DISTINCT gpu.canon FROM jsonb_array_elements_text(j->'gpus') x
                   JOIN gpu ON gpu.g = x ORDER BY 1),
           ARRAY(SELECT a->>'region' FROM jsonb_array_elements(j->'artifacts') a ORDER BY 1),
           ARRAY(SELECT DISTINCT t FROM jsonb_array_elements_text(j->'tags') t ORDER BY 1),
           coalesce(ca.components, '{}'), coalesce(ca.keys, '{}'), mg.entries, mg.alt_keys,
           CASE WHEN ca.hit THEN 'vulnerable' ELSE 'ok' END,
           CASE WHEN jsonb_array_length(coalesce(j->'packages', '[]')) > 0 THEN 'ok' END
      FROM d LEFT JOIN cagg ca ON ca.o = d.o LEFT JOIN magg mg ON mg.o = d.o ORDER BY d.o
    RETURNING id, family, version
  ), m AS (
    SELECT ins.id, d.j, d.o FROM ins JOIN d ON d.j->>'family' = ins.family
     AND d.j->>'version' = ins.version
  ), c AS (
    INSERT INTO image_components (image_id, name, version, entry, gpus)
    SELECT m.id, comps.name, comps.version, comps.entry, mu.gpus
      FROM m JOIN comps ON comps.o = m.o
      LEFT JOIN multi mu ON mu.o = comps.o AND mu.name = comps.name AND mu.entry = comps.entry
    RETURNING 1
  ), a AS (
    INSERT INTO image_artifacts (image_id, region, artifact_id)
    SELECT m.id, x->>'region', x->>'artifact_id' FROM m, jsonb_array_elements(m.j->'artifacts') x
    RETURNING 1
  ), g AS (
    INSERT INTO image_gpus (image_id, gpu)
    SELECT DISTINCT m.id, gpu.canon
      FROM m, jsonb_array_elements_text(m.j->'gpus') x JOIN gpu ON gpu.g = x
    RETURNING 1
  ), f AS (
    INSERT INTO image_instance_families (image_id, family)
    SELECT DISTINCT m.id, x FROM m, jsonb_array_elements_text(m.j->'instance_families') x
    RETURNING 1
  ), t AS (
    INSERT INTO image_tags (image_id, tag)
    SELECT DISTINCT m.id, x FROM m, jsonb_array_elements_text(m.j->'tags') x
    RETURNING 1
  )
  SELECT array_agg(m.id ORDER BY m.o) INTO v_ids FROM m;
  PERFORM set_config('imaxe.copies_written', 'off', true);

  -- 3. image.published, before anything it causes (building an event costs ~0.4 ms: only when
  -- some subscription asks for the type; imx_webhook_enqueue applies the filters)
  IF EXISTS (SELECT 1 FROM webhooks WHERE enabled AND 'image.published' = ANY (event_types)) THEN
    PERFORM imx_image_event('image.published', x.id, x.id)
       FROM (SELECT unnest(v_ids) AS id ORDER BY 1) x;
  END IF;

  -- 3b. package inventories
  PERFORM imx_publish_packages(v_ids, p_docs);

  -- 4. which advisories affect the new images: through a component, or an OS package
  INSERT INTO image_advisories (image_id, advisory_id, family)
  SELECT DISTINCT x.image_id, x.advisory_id, i.family
    FROM (SELECT c.image_id, r.advisory_id
            FROM unnest(v_ids) n(id)
            JOIN image_components c ON c.image_id = n.id
            JOIN advisory_ranges r ON r.component = c.name
             AND imx_key_in(c.version_key, r.lo, r.lo_incl, r.hi, r.hi_incl)
          UNION
          SELECT n.id, r.advisory_id
            FROM unnest(v_ids) n(id), imx_image_packages(n.id) p
            JOIN advisory_package_ranges r ON r.ecosystem = p.ecosystem AND r.package = p.name
             AND imx_pkg_key_in(p.key, r.lo, r.lo_incl, r.hi, r.hi_incl)) x
    JOIN images i ON i.id = x.image_id
    JOIN advisories a ON a.id = x.advisory_id AND a.withdrawn_at IS NULL;

  -- 5. the fixes they bring
  v_touched := ARRAY(SELECT imx_patch_after_publish(v_ids));
  PERFORM imx_pin_after_publish(v_ids);

  -- 6. patch statuses
  v_changed := ARRAY(SELECT imx_patch_status_update(v_touched || v_ids));

  -- 7. patch.available
  v_events := imx_patch_announce(v_fams);

  -- 8. open requests
  v_matches := imx_request_match_images(v_ids);

  -- 9. stored documents: the new images', and older ones whose os_packages changed (a fix
  -- moved) without their images row
  PERFORM imx_image_docs_write(v_ids);
  PERFORM imx_image_docs_refresh_os(ARRAY(SELECT x FROM unnest(v_touched) x
                                            EXCEPT SELECT y FROM unnest(v_changed || v_ids) y));
  -- and the pins of the families (candidate, fixes, statuses: pin_docs, 0050)
  PERFORM imx_pin_docs_refresh_families(v_fams);

  RETURN json_build_object('ids', to_json(v_ids), 'patch_status_changed', to_json(v_changed),
                           'patch_events', v_events, 'request_matches', v_matches);
END
$$;

-- Does the image satisfy the request: active, a compatibility report without errors (an image
-- whose stack does not fit together is never a match, whatever else it meets), every constraint
-- met by its components, every requested GPU supported, and os, architecture and tags as asked
-- (family is the name proposed for a new image, not a filter). Replaces 0007's definition, which
-- offered images whose report had errors; used by publish (below), request creation and the move
-- to fulfilled (server/db/requests.c).
CREATE OR REPLACE FUNCTION imx_request_satisfied_by(p_request bigint, p_image bigint)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT EXISTS (
    SELECT 1 FROM image_requests r JOIN images i ON i.id = p_image
     WHERE r.id = p_request AND i.status = 'active'
       AND coalesce(i.compatibility->>'ok', 'true') <> 'false'
       AND (r.os_name IS NULL OR i.os_name = r.os_name)
       AND (r.os_version IS NULL OR i.os_version = r.os_version)
       AND (r.architecture IS NULL OR i.architecture = r.architecture)
       AND NOT EXISTS (SELECT 1 FROM unnest(r.gpus) g(gpu) WHERE NOT EXISTS (
             SELECT 1 FROM image_gpus ig WHERE ig.image_id = i.id AND ig.gpu = g.gpu))
       AND NOT EXISTS (SELECT 1 FROM unnest(r.tags) t(tag) WHERE NOT EXISTS (
             SELECT 1 FROM image_tags it WHERE it.image_id = i.id AND it.tag = t.tag))
       AND NOT EXISTS (SELECT 1 FROM request_constraints k WHERE k.request_id = r.id
             AND NOT EXISTS (SELECT 1 FROM image_components c
                              WHERE c.image_id = i.id AND c.name = k.component
                                AND c.version_key >= k.lo AND c.version_key <= k.hi
                                AND (k.lo_incl OR c.version_key <> k.lo)
                                AND (k.hi_incl OR c.version_key <> k.hi))))
$$;

-- The package inventories of new images p_ids (p_docs in the same order): each (ecosystem,
-- name, version) interned in os_packages; each inventory, sorted by name, cut into chunks after
-- every name whose hash is 0 mod 32 (so a changed version or an added package changes only its
-- own chunk); each chunk stored once by the SHA-256 of its members; the image row lists its
-- chunks. Cost: the new images' packages, whatever the catalog holds.
CREATE OR REPLACE FUNCTION imx_publish_packages(p_ids bigint[], p_docs jsonb) RETURNS void
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM jsonb_array_elements(p_docs) d
                  WHERE jsonb_array_length(coalesce(d->'packages', '[]')) > 0) THEN
    RETURN;
  END IF;
  -- in one order, so that two publishes of new packages never wait on each other in a cycle
  INSERT INTO os_packages (ecosystem, name, version, key, vorder)
  SELECT DISTINCT p->>'ecosystem', p->>'name', p->>'version', decode(p->>'key', 'hex'),
         p->>'order'
    FROM jsonb_array_elements(p_docs) d, jsonb_array_elements(d->'packages') p
   ORDER BY 1, 2, 3
  ON CONFLICT (ecosystem, name, version) DO NOTHING;

  IF to_regclass('pg_temp.imx_publish_chunks') IS NULL THEN
    CREATE TEMP TABLE imx_publish_chunks (image_id bigint, chunk_no bigint, members integer[],
                                          digest bytea) ON COMMIT DELETE ROWS;
  END IF;
  TRUNCATE imx_publish_chunks;
  INSERT INTO imx_publish_chunks
  WITH d AS (
    SELECT x.j, x.o FROM jsonb_array_elements(p_docs) WITH ORDINALITY AS x(j, o)
  ), pk AS (
    SELECT DISTINCT p_ids[d.o] AS image_id, op.id, op.name
      FROM d, jsonb_array_elements(d.j->'packages') p
      JOIN os_packages op ON op.ecosystem = p->>'ecosystem' AND op.name = p->>'name'
       AND op.version = p->>'version'
  ), cut AS (
    SELECT pk.image_id, pk.id,
           sum(CASE WHEN hashtext(pk.name) & 31 = 0 THEN 1 ELSE 0 END)
             OVER (PARTITION BY pk.image_id ORDER BY pk.name, pk.id) AS chunk_no
      FROM pk
  ), ch AS (
    SELECT cut.image_id, cut.chunk_no, array_agg(cut.id ORDER BY cut.id) AS members
      FROM cut GROUP BY 1, 2
  )
  SELECT ch.image_id, ch.chunk_no, ch.members, sha256(convert_to(ch.members::text, 'UTF8'))
    FROM ch;

  INSERT INTO os_package_chunks (digest, members)
  SELECT DISTINCT ON (c.digest) c.digest, c.members FROM imx_publish_chunks c ORDER BY c.digest
  ON CONFLICT (digest) DO NOTHING;

  INSERT INTO image_packages (image_id, chunks, n_packages, ecosystems, source)
  SELECT c.image_id, array_agg(k.id ORDER BY c.chunk_no), sum(cardinality(c.members)),
         ARRAY(SELECT DISTINCT p->>'ecosystem'
                 FROM jsonb_array_elements(p_docs->(array_position(p_ids, c.image_id) - 1)
                                           ->'packages') p ORDER BY 1),
         coalesce(p_docs->(array_position(p_ids, c.image_id) - 1)->>'packages_source', 'manifest')
    FROM imx_publish_chunks c JOIN os_package_chunks k ON k.digest = c.digest
   GROUP BY c.image_id;
END
$$;

-- Open image requests that the new images satisfy, found by what the requests name: a
-- constraint whose interval holds one of the image's component versions (GiST over the key
-- ranges), GPUs the image supports (GIN), or, for requests naming neither, the few bare ones.
-- Each candidate is then checked whole (imx_request_satisfied_by). Records the match and tells
-- the requesting team (request.updated). Returns how many matches were recorded.
CREATE OR REPLACE FUNCTION imx_request_match_images(p_ids bigint[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer := 0;
  m record;
BEGIN
  FOR m IN
  WITH img AS (
    SELECT i.id, i.gpus FROM unnest(p_ids) n(id) JOIN images i ON i.id = n.id
     WHERE i.status = 'active'
  ), cand AS (
    SELECT img.id AS image_id, k.request_id
      FROM img JOIN image_components c ON c.image_id = img.id
      JOIN request_constraints k ON k.keys @> imx_version_key_num(c.version_key)
       AND k.component = c.name
    UNION
    SELECT img.id, r.id FROM img JOIN image_requests r
        ON r.state = 'open' AND r.gpus <> '{}' AND r.gpus <@ img.gpus
     WHERE NOT EXISTS (SELECT 1 FROM request_constraints k WHERE k.request_id = r.id)
    UNION
    SELECT img.id, r.id FROM img, image_requests r
     WHERE r.state = 'open' AND r.gpus = '{}'
       AND NOT EXISTS (SELECT 1 FROM request_constraints k WHERE k.request_id = r.id)
  ), ins AS (
    INSERT INTO request_matches (request_id, image_id, via)
    SELECT c.request_id, c.image_id, 'published'
      FROM cand c JOIN image_requests r ON r.id = c.request_id AND r.state = 'open'
     WHERE imx_request_satisfied_by(c.request_id, c.image_id)
    ON CONFLICT DO NOTHING
    RETURNING request_id, image_id
  )
  SELECT request_id, image_id FROM ins ORDER BY image_id, request_id
  LOOP
    PERFORM imx_request_event(m.request_id, 'matched', 'open', m.image_id);
    v_n := v_n + 1;
  END LOOP;
  RETURN v_n;
END
$$;
