-- NVIDIA's products as its CSAF bulletins name them -> imaxe components (issue #30). A bulletin's
-- product tree is translated product by product through these rows (server/domain/csaf.c): a
-- product is found by the product field of its CPE ("cpe:tesla" for cpe:2.3:a:nvidia:tesla:...),
-- by a prefix of it ("cpe-prefix:jetson") or by its name ("name:nemo framework"), on the
-- platform its architecture branch names (linux, windows, macos, vgpu-host, vgpu-guest,
-- cloud-gaming, jetson; "any" matches each). A row without a component says why imaxe does not
-- track that product, and the import lists it as unmapped with that note. branched: the
-- component's ranges are bounded below by their branch (the major: R580, Jetson Linux 36).
-- The rows are generated into 0101 from tools/reference/nvidia_products.csv
-- (tools/gen_knowledge.py --table nvidia_product) and updated by `imaxe-server reference import`.

CREATE TABLE ref_nvidia_product (
  match     text NOT NULL CHECK (match ~ '^(cpe|cpe-prefix|name):[a-z0-9_ .+-]{1,120}$'),
  platform  text NOT NULL CHECK (platform IN ('any', 'linux', 'windows', 'macos', 'vgpu-host',
                                              'vgpu-guest', 'cloud-gaming', 'jetson')),
  component text CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
  branched  boolean NOT NULL DEFAULT false,
  status    text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source    text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes     text NOT NULL CHECK (length(notes) BETWEEN 1 AND 1000),
  PRIMARY KEY (match, platform)
);
COMMENT ON TABLE ref_nvidia_product IS
  'NVIDIA product (CPE product, CPE prefix or name) on a platform -> imaxe component, or NULL with the reason it is not tracked. Read by the CSAF import (server/domain/csaf.c).';

CREATE TRIGGER ref_nvidia_product_generation AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON ref_nvidia_product FOR EACH STATEMENT EXECUTE FUNCTION imx_ref_generation_bump();

-- The reference import's table list (imx_ref_table_ok, imx_ref_import_order) names it; their
-- current bodies live in functions/reference.sql.

-- What a CSAF import left out (products that do not map or whose version text is not
-- understood: [{product, text, why}]) and read with a warning ([{product, text, warning}]), kept
-- with the advisory so an admin sees them and a later reference update can re-apply them.
ALTER TABLE advisories
  ADD COLUMN unmapped jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(unmapped) = 'array'),
  ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(warnings) = 'array');
