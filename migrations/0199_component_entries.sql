-- Images that carry a component more than once (issue #31 part 3). Numbered before 0200: that
-- migration recomputes stored version keys, which runs the copy triggers whose current bodies
-- read these columns.
-- Since 2026-09 the EKS GPU
-- AMIs hold two NVIDIA driver trees and load one at boot by the GPU attached. A manifest lists
-- such a component once per tree, each entry with the GPUs it serves; the use cases that read
-- them are procedures/publish_images.sql (writes), functions/images.sql (the copies on images),
-- functions/image_docs.sql (detail and patch documents) and procedures/nodes.sql (drift).

-- entry: 1 for a component listed once, 1..n in manifest order for one listed n times (entry 1
-- is the one images.components shows). gpus: the image's GPUs (canonical, as image_gpus) that
-- the entry serves; NULL for a component listed once (it serves them all).
ALTER TABLE image_components
  ADD COLUMN entry smallint NOT NULL DEFAULT 1 CHECK (entry BETWEEN 1 AND 8),
  ADD COLUMN gpus text[] CHECK (gpus IS NULL OR cardinality(gpus) BETWEEN 1 AND 64);
ALTER TABLE image_components DROP CONSTRAINT image_components_pkey;
ALTER TABLE image_components ADD PRIMARY KEY (image_id, name, entry);
COMMENT ON COLUMN image_components.entry IS
  '1..n for a component the manifest lists n times (two driver trees), else 1.';
COMMENT ON COLUMN image_components.gpus IS
  'The GPUs the entry serves when the component is listed more than once; NULL otherwise.';

-- Copies on images, kept with the others (0004's copy triggers, imx_image_denorm_refresh):
-- images.components gives a name listed more than once all its entries, [{version, gpus}]
-- instead of a version; component_entries lists those entries, [{name, version, gpus}] in (name,
-- entry) order, NULL when there are none (nearly every image: its patch document stays as it
-- was); component_alt_keys holds the version keys of entries 2..n, {name: [key, ...]}, so that
-- search matches any entry (component_keys holds entry 1's).
ALTER TABLE images ADD COLUMN component_entries jsonb, ADD COLUMN component_alt_keys jsonb;
