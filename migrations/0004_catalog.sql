-- The catalog: images (one published version of a family), their components, per-region
-- artifacts, GPUs, instance families and tags; and ref_generation, which tells every replica
-- when the reference data changed so that its cached snapshot is reloaded.

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

-- imaxe:load functions/reference.sql

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

-- imaxe:load functions/version.sql

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

-- imaxe:load functions/images.sql

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

