-- The catalog: images (one published version of a family), their components, per-region
-- artifacts, GPUs, instance families and tags; and ref_generation, which tells every replica
-- when the reference data changed so that its cached snapshot is reloaded.

-- ---------------------------------------------------------------------------
-- imx_version_key(), same results as 0001's, about 4x faster (one regex match, no CTE): it
-- computes every image_components.version_key, so it sets how fast a catalog loads (~35 us a
-- call before, ~8 us now). Checked equal to 0001's on 300,000 random strings and to
-- imx_ver_parse() by tests/integration/test_catalog_sql.c.
CREATE OR REPLACE FUNCTION imx_version_key(v text) RETURNS int[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  m text[];
  parts int[];
BEGIN
  IF length(v) > 64 THEN
    RETURN NULL;
  END IF;
  m := regexp_match(v, '^[vV]?([0-9]{1,9}(?:[.-][0-9]{1,9})*)(.*)$');
  IF m IS NULL THEN
    RETURN NULL;
  END IF;
  parts := string_to_array(translate(m[1], '-', '.'), '.')::int[];
  IF cardinality(parts) > 6 OR m[2] ~ '^[0-9]' OR m[2] !~ '^[A-Za-z0-9.+_~-]*$' THEN
    RETURN NULL;
  END IF;
  RETURN parts || array_fill(0, ARRAY[6 - cardinality(parts)]);
END
$$;

-- ---------------------------------------------------------------------------
-- Reference-data generation: one row, bumped once per statement that changes any ref_ table.
CREATE TABLE ref_generation (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    generation bigint NOT NULL DEFAULT 1,
    changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO ref_generation DEFAULT VALUES;
COMMENT ON TABLE ref_generation IS
  'Bumped by a statement-level trigger on every ref_ table; servers cache the reference snapshot and reload it when generation differs.';

CREATE FUNCTION imx_ref_generation_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ref_generation SET generation = generation + 1, changed_at = now();
  RETURN NULL;
END
$$;

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_gpu',
                           'ref_driver_branch', 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build',
                           'ref_tensorflow', 'ref_instance_type'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I '
                   'FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump()',
                   t || '_generation', t);
  END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- A version key (int[6], each part < 10^9) as one number with the same order, so that a
-- jsonb object {name: number} can be range-checked per row without unpacking arrays.
CREATE FUNCTION imx_version_key_num(k int[]) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT ((((k[1]::numeric * 1000000000 + k[2]) * 1000000000 + k[3]) * 1000000000 + k[4])
          * 1000000000 + k[5]) * 1000000000 + k[6]
$$;

-- Part n (1..6) of a key made by imx_version_key_num (a jsonb number); NULL for NULL.
CREATE FUNCTION imx_version_key_part(k jsonb, n int) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT mod(div(k::numeric, power(1000000000::numeric, 6 - n)), 1000000000)
$$;

-- "major.minor" of such a key, as the cuda and framework facets show it; NULL for NULL. Built-in
-- functions only, here and in imx_version_key_part: generated columns call them while
-- pg_restore loads the data with an empty search_path.
CREATE FUNCTION imx_version_key_mm(k jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT div(k::numeric, 1000000000::numeric ^ 5) || '.'
         || mod(div(k::numeric, 1000000000::numeric ^ 4), 1000000000)
$$;

CREATE TABLE images (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    family        text NOT NULL CHECK (family ~ '^[a-z0-9][a-z0-9._-]{0,99}$'),
    version       text NOT NULL CHECK (version ~ '^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$'),
    team_id       bigint NOT NULL REFERENCES teams (id),
    provider      text NOT NULL CHECK (provider IN ('aws', 'gcp', 'azure', 'onprem', 'oci-container')),
    architecture  text NOT NULL CHECK (architecture IN ('x86_64', 'arm64')),
    os_name       text NOT NULL CHECK (os_name ~ '^[a-z][a-z0-9-]{0,31}$'),
    os_version    text NOT NULL CHECK (os_version ~ '^[0-9A-Za-z][0-9A-Za-z._-]{0,31}$'),
    kernel        text CHECK (length(kernel) <= 64),
    layer         text NOT NULL CHECK (layer IN ('platform', 'model')),
    parent_id     bigint REFERENCES images (id),
    boot_seconds  int CHECK (boot_seconds >= 0),
    size_gb       numeric(8,2) CHECK (size_gb >= 0),
    description   text NOT NULL DEFAULT '' CHECK (length(description) <= 4000),
    status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deprecated', 'revoked')),
    status_reason text CHECK (length(status_reason) <= 1000),
    revoke_at     timestamptz,
    patch_status  text NOT NULL DEFAULT 'ok'
                  CHECK (patch_status IN ('ok', 'vulnerable', 'patch_available', 'revoked')),
    published_at  timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    compatibility jsonb NOT NULL DEFAULT '{}',
    -- Filled on insert from family, description and component names (images are immutable).
    search        tsvector NOT NULL DEFAULT ''::tsvector,
    -- Copies of the child tables kept by the imx_image_denorm triggers (below), so that a search
    -- filters, a facet counts and a summary reads one row per image (bench/NOTES-search.md):
    -- sorted arrays of image_gpus.gpu, image_artifacts.region and image_tags.tag; components
    -- as the summary shows them ({name: version} by name); component_keys {name:
    -- imx_version_key_num(version_key)} for constraints; and the facet values derived from them.
    gpus           text[] NOT NULL DEFAULT '{}',
    regions        text[] NOT NULL DEFAULT '{}',
    tags           text[] NOT NULL DEFAULT '{}',
    components     json NOT NULL DEFAULT '{}',
    component_keys jsonb NOT NULL DEFAULT '{}',
    facet_cuda     text GENERATED ALWAYS AS (imx_version_key_mm(component_keys->'cuda')) STORED,
    facet_driver   text GENERATED ALWAYS AS (
                     'R' || imx_version_key_part(component_keys->'nvidia-driver', 1)) STORED,
    facet_frameworks text[] GENERATED ALWAYS AS (array_remove(ARRAY[
                     'pytorch ' || imx_version_key_mm(component_keys->'pytorch'),
                     'tensorflow ' || imx_version_key_mm(component_keys->'tensorflow')], NULL)) STORED,
    UNIQUE (family, version),
    CHECK (parent_id IS NULL OR parent_id <> id),
    CHECK (status <> 'revoked' OR status_reason IS NOT NULL)
);
COMMENT ON TABLE images IS
  'One immutable published version of an image family. Only status, status_reason, revoke_at, patch_status and updated_at change after publish.';
COMMENT ON COLUMN images.layer IS 'platform = OS + driver + toolkit (e.g. an AMI); model = a container on top of a platform image.';
COMMENT ON COLUMN images.compatibility IS 'The compatibility report computed at publish (server/domain/compat.c).';

-- Keyset orders: each sort of the search has an index that serves it with its id tie-break.
CREATE INDEX images_published ON images (published_at DESC, id DESC);
CREATE INDEX images_family_sort ON images (family, id);
CREATE INDEX images_boot_sort ON images ((coalesce(boot_seconds, 2147483647)), id);
CREATE INDEX images_size_sort ON images ((coalesce(size_gb, 'Infinity'::numeric)), id);
CREATE INDEX images_search ON images USING gin (search);
CREATE INDEX images_gpus ON images USING gin (gpus);
CREATE INDEX images_regions ON images USING gin (regions);
CREATE INDEX images_tags ON images USING gin (tags);
CREATE INDEX images_provider ON images (provider);
CREATE INDEX images_architecture ON images (architecture);
CREATE INDEX images_os ON images (os_name, os_version);
CREATE INDEX images_layer ON images (layer);
CREATE INDEX images_status ON images (status);
CREATE INDEX images_patch_status ON images (patch_status) WHERE patch_status <> 'ok';
CREATE INDEX images_parent ON images (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX images_team ON images (team_id);
-- resolve: newest usable image of a family.
CREATE INDEX images_family_newest ON images (family, published_at DESC, id DESC)
  WHERE status = 'active' AND patch_status <> 'revoked';

CREATE TABLE image_components (
    image_id    bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    name        text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
    version     text NOT NULL,
    -- NOT NULL: a component version must parse (computed once, not again in a CHECK).
    version_key int[] GENERATED ALWAYS AS (imx_version_key(version)) STORED NOT NULL,
    PRIMARY KEY (image_id, name)
);
CREATE INDEX image_components_name_key ON image_components (name, version_key, image_id);
COMMENT ON TABLE image_components IS
  'Software in an image (nvidia-driver, cuda, cudnn, nccl, pytorch, ...); version_key orders versions (imx_version_key).';

CREATE TABLE image_artifacts (
    image_id    bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    region      text NOT NULL CHECK (region ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
    artifact_id text NOT NULL CHECK (length(artifact_id) BETWEEN 1 AND 512),
    PRIMARY KEY (image_id, region)
);
CREATE INDEX image_artifacts_region ON image_artifacts (region, image_id);
COMMENT ON TABLE image_artifacts IS 'Where an image can be launched: AMI id per AWS region, image URI per GCP/Azure location, digest per registry.';

CREATE TABLE image_gpus (
    image_id bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    gpu      text NOT NULL CHECK (length(gpu) BETWEEN 1 AND 64),
    PRIMARY KEY (image_id, gpu)
);
CREATE INDEX image_gpus_gpu ON image_gpus (gpu, image_id);
COMMENT ON COLUMN image_gpus.gpu IS 'ref_gpu.gpu_model when the name is known (imx_ref_gpu_canonical), else as given.';

CREATE TABLE image_instance_families (
    image_id bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    family   text NOT NULL CHECK (family ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
    PRIMARY KEY (image_id, family)
);
CREATE INDEX image_instance_families_family ON image_instance_families (family, image_id);

CREATE TABLE image_tags (
    image_id bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    tag      text NOT NULL CHECK (tag ~ '^[a-z0-9][a-z0-9:._-]{0,63}$'),
    PRIMARY KEY (image_id, tag)
);
CREATE INDEX image_tags_tag ON image_tags (tag, image_id);
COMMENT ON TABLE image_tags IS 'Hardening/compliance and other labels: cis, fips, stig, boot-optimized, ...';

-- images.gpus, regions, tags, components and component_keys follow their child tables: after
-- every statement that writes one (publish, tests, the demo), the images it touched are
-- recomputed from that table, in the same transaction. Images are immutable after publish, so
-- this runs a handful of times per image. imx_image_denorm_refresh(ids, NULL) recomputes every
-- copy at once (bench/gen_catalog.sh loads with the triggers off, then calls it).
CREATE FUNCTION imx_image_denorm_refresh(ids bigint[], tbl text) RETURNS void
LANGUAGE sql AS $$
  UPDATE images i SET
    components = CASE WHEN tbl IS NULL OR tbl = 'image_components' THEN
      coalesce((SELECT json_object_agg(c.name, c.version ORDER BY c.name)
                  FROM image_components c WHERE c.image_id = i.id), '{}') ELSE i.components END,
    component_keys = CASE WHEN tbl IS NULL OR tbl = 'image_components' THEN
      coalesce((SELECT jsonb_object_agg(c.name, imx_version_key_num(c.version_key))
                  FROM image_components c WHERE c.image_id = i.id), '{}') ELSE i.component_keys END,
    gpus = CASE WHEN tbl IS NULL OR tbl = 'image_gpus' THEN
      ARRAY(SELECT g.gpu FROM image_gpus g WHERE g.image_id = i.id ORDER BY g.gpu) ELSE i.gpus END,
    regions = CASE WHEN tbl IS NULL OR tbl = 'image_artifacts' THEN
      ARRAY(SELECT a.region FROM image_artifacts a WHERE a.image_id = i.id ORDER BY a.region)
      ELSE i.regions END,
    tags = CASE WHEN tbl IS NULL OR tbl = 'image_tags' THEN
      ARRAY(SELECT t.tag FROM image_tags t WHERE t.image_id = i.id ORDER BY t.tag) ELSE i.tags END
  WHERE i.id = ANY (ids)
$$;

CREATE FUNCTION imx_image_denorm() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  ids bigint[];
BEGIN
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

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['image_components', 'image_gpus', 'image_artifacts', 'image_tags'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION imx_image_denorm()', t || '_denorm_ins', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION imx_image_denorm()', t || '_denorm_del', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS changed_old'
                   ' NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION imx_image_denorm()',
                   t || '_denorm_upd', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION imx_image_denorm()', t || '_denorm_trunc', t);
  END LOOP;
END
$$;

-- The search document of an image: family and description weigh more than component names.
CREATE FUNCTION imx_image_search_doc(family text, description text, names text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('simple', replace(coalesce(family, ''), '-', ' ') || ' ' || coalesce(family, '')), 'A')
      || setweight(to_tsvector('simple', coalesce(description, '')), 'B')
      || setweight(to_tsvector('simple', coalesce(array_to_string(names, ' '), '')), 'C')
$$;

-- The status an image has now: a revocation scheduled with revoke_at counts from that time on.
CREATE FUNCTION imx_image_status(status text, revoke_at timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN revoke_at <= now() THEN 'revoked' ELSE status END
$$;

-- The JSON documents the API returns, built here so that every read is one statement.
CREATE FUNCTION imx_image_summary(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', i.id, 'family', i.family, 'version', i.version, 'provider', i.provider,
    'architecture', i.architecture, 'os', json_build_object('name', i.os_name, 'version', i.os_version),
    'layer', i.layer, 'status', imx_image_status(i.status, i.revoke_at), 'patch_status', i.patch_status,
    'published_at', i.published_at, 'boot_seconds', i.boot_seconds, 'size_gb', i.size_gb,
    'components', i.components, 'gpus', to_json(i.gpus), 'regions', to_json(i.regions),
    'tags', to_json(i.tags))
  FROM images i WHERE i.id = image_id
$$;

CREATE FUNCTION imx_image_json(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'id', i.id, 'family', i.family, 'version', i.version,
    'team', (SELECT t.slug FROM teams t WHERE t.id = i.team_id), 'team_id', i.team_id,
    'provider', i.provider, 'architecture', i.architecture,
    'os', json_build_object('name', i.os_name, 'version', i.os_version), 'kernel', i.kernel,
    'layer', i.layer, 'parent_id', i.parent_id, 'boot_seconds', i.boot_seconds, 'size_gb', i.size_gb,
    'description', i.description, 'status', imx_image_status(i.status, i.revoke_at), 'status_reason', i.status_reason,
    'revoke_at', i.revoke_at, 'patch_status', i.patch_status, 'published_at', i.published_at,
    'updated_at', i.updated_at,
    'components', (SELECT coalesce(json_object_agg(c.name, c.version ORDER BY c.name), '{}')
                     FROM image_components c WHERE c.image_id = i.id),
    'artifacts', (SELECT coalesce(json_object_agg(a.region, a.artifact_id ORDER BY a.region), '{}')
                    FROM image_artifacts a WHERE a.image_id = i.id),
    'gpus', (SELECT coalesce(json_agg(g.gpu ORDER BY g.gpu), '[]') FROM image_gpus g WHERE g.image_id = i.id),
    'instance_families', (SELECT coalesce(json_agg(f.family ORDER BY f.family), '[]')
                            FROM image_instance_families f WHERE f.image_id = i.id),
    'tags', (SELECT coalesce(json_agg(t.tag ORDER BY t.tag), '[]') FROM image_tags t WHERE t.image_id = i.id),
    'children', (SELECT coalesce(json_agg(ch.id ORDER BY ch.id), '[]') FROM images ch WHERE ch.parent_id = i.id),
    'compatibility', i.compatibility)
  FROM images i WHERE i.id = image_id
$$;

-- Lineage: an image with its parent chain and its children; an entry whose parent's family has
-- a newer usable image than that parent is outdated_parent, and newer_parent names it.
CREATE FUNCTION imx_image_newer_in_family(image_id bigint) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT jsonb_build_object('id', n.id, 'family', n.family, 'version', n.version)
  FROM images p JOIN images n ON n.family = p.family AND (n.published_at, n.id) > (p.published_at, p.id)
  WHERE p.id = image_id AND n.status = 'active' AND n.patch_status <> 'revoked'
    AND (n.revoke_at IS NULL OR n.revoke_at > now())
  ORDER BY n.published_at DESC, n.id DESC LIMIT 1
$$;

CREATE FUNCTION imx_image_lineage_entry(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT (imx_image_summary(i.id)::jsonb
          || jsonb_build_object('parent_id', i.parent_id, 'outdated_parent', x.newer IS NOT NULL,
                                'newer_parent', x.newer))::json
  FROM images i, LATERAL (SELECT imx_image_newer_in_family(i.parent_id) AS newer) x
  WHERE i.id = image_id
$$;

CREATE FUNCTION imx_image_lineage(image_id bigint) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT i.id, i.parent_id, 0 FROM images i WHERE i.id = image_id
    UNION ALL
    SELECT p.id, p.parent_id, up.depth + 1 FROM up JOIN images p ON p.id = up.parent_id
    WHERE up.depth < 64)
  SELECT json_build_object(
    'image', imx_image_lineage_entry(image_id),
    'parents', (SELECT coalesce(json_agg(imx_image_lineage_entry(up.id) ORDER BY up.depth), '[]')
                  FROM up WHERE up.depth > 0),
    'children', (SELECT coalesce(json_agg(imx_image_lineage_entry(c.id) ORDER BY c.id), '[]')
                   FROM images c WHERE c.parent_id = image_id))
  WHERE EXISTS (SELECT 1 FROM images WHERE id = image_id)
$$;

-- ---------------------------------------------------------------------------
-- Reference data over the API: list a table, add a row, correct a row. The table name is checked
-- against this list here as well as in C; identifiers are quoted with format('%I').
CREATE FUNCTION imx_ref_table_ok(tbl text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT tbl IN ('ref_cuda_mvc', 'ref_cuda_driver', 'ref_gpu_arch', 'ref_gpu', 'ref_driver_branch',
                 'ref_cudnn', 'ref_pytorch', 'ref_pytorch_build', 'ref_tensorflow',
                 'ref_instance_type')
$$;

-- The primary-key columns of a ref_ table, in key order.
CREATE FUNCTION imx_ref_pk(tbl text) RETURNS text[]
LANGUAGE sql STABLE AS $$
  SELECT array_agg(a.attname::text ORDER BY array_position(i.indkey::int2[], a.attnum))
  FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::int2[])
  WHERE i.indrelid = tbl::regclass AND i.indisprimary
$$;

CREATE FUNCTION imx_ref_rows(tbl text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  r json;
BEGIN
  IF NOT imx_ref_table_ok(tbl) THEN
    RAISE EXCEPTION 'no such reference table' USING ERRCODE = '42P01';
  END IF;
  EXECUTE format('SELECT coalesce(json_agg(row_to_json(t) ORDER BY %s), ''[]'') FROM %I t',
                 (SELECT string_agg(format('t.%I', k), ', ') FROM unnest(imx_ref_pk(tbl)) k), tbl)
    INTO r;
  RETURN r;
END
$$;

-- Inserts row (is_update false) or updates the row with row's primary key, setting only the
-- columns row names (is_update true). Returns the stored row, or NULL when no row had that key.
-- Unknown columns: 42703 with the names in DETAIL; a missing key column on update: 23502.
CREATE FUNCTION imx_ref_write(tbl text, row_in jsonb, is_update boolean) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  bad text;
  cols text;
  sets text;
  pkcond text;
  r json;
BEGIN
  IF NOT imx_ref_table_ok(tbl) THEN
    RAISE EXCEPTION 'no such reference table' USING ERRCODE = '42P01';
  END IF;
  SELECT string_agg(k, ',' ORDER BY k) INTO bad FROM jsonb_object_keys(row_in) k
  WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = tbl::regclass
                    AND a.attname = k AND a.attnum > 0 AND NOT a.attisdropped);
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'unknown column' USING ERRCODE = '42703', DETAIL = bad;
  END IF;
  IF NOT is_update THEN
    SELECT string_agg(format('%I', k), ', ') INTO cols FROM jsonb_object_keys(row_in) k;
    EXECUTE format('INSERT INTO %I AS t (%s) SELECT %s FROM jsonb_populate_record(NULL::%I, $1)'
                   ' RETURNING row_to_json(t)', tbl, cols, cols, tbl, tbl) INTO r USING row_in;
    RETURN r;
  END IF;
  SELECT string_agg(k, ',') INTO bad FROM unnest(imx_ref_pk(tbl)) k WHERE NOT row_in ? k;
  IF bad IS NOT NULL THEN
    RAISE EXCEPTION 'key column missing' USING ERRCODE = '23502', DETAIL = bad;
  END IF;
  SELECT string_agg(format('t.%I = x.%I', k, k), ' AND ') INTO pkcond FROM unnest(imx_ref_pk(tbl)) k;
  SELECT string_agg(format('%I = x.%I', k, k), ', ') INTO sets FROM jsonb_object_keys(row_in) k;
  EXECUTE format('UPDATE %I AS t SET %s FROM jsonb_populate_record(NULL::%I, $1) x WHERE %s'
                 ' RETURNING row_to_json(t)', tbl, sets, tbl, pkcond) INTO r USING row_in;
  RETURN r;
END
$$;
