-- End of life of the rest of an image's stack, beside the driver branches' (ref_driver_branch.eol):
-- OS releases by their os-release ID and VERSION_ID prefix (kind 'os': ubuntu 22.04, amzn 2023,
-- rocky 8), and CUDA, Python and framework releases by major.minor (kind 'component': the
-- image_components name). basis says whose date it is: 'upstream' (the project or distribution),
-- 'endoflife.date' (its day where upstream gives a month), 'aws-dlc' (AWS's End of Patch for its
-- Deep Learning Containers, used where the project publishes no end of life: CUDA, PyTorch,
-- TensorFlow). An UNCONFIRMED row has no date and is never used (imx_image_eol_json,
-- migrations/procedures/eol.sql). Rows generated into 0261 from tools/reference/eol.csv
-- (tools/gen_knowledge.py --table eol).
CREATE TABLE ref_eol (
  kind        text NOT NULL CHECK (kind IN ('os', 'component')),
  component   text NOT NULL CHECK (component ~ '^[a-z0-9][a-z0-9._+-]{0,63}$'),
  release     text NOT NULL CHECK (release ~ '^[0-9]{1,9}([.][0-9]{1,9}){0,5}$'),
  -- The release's own parts, unpadded (imx_version_key pads to six): a component matches the
  -- release whose parts begin its version key.
  release_key int[] GENERATED ALWAYS AS (string_to_array(release, '.')::int[]) STORED,
  eol         date,
  basis       text NOT NULL CHECK (basis IN ('upstream', 'endoflife.date', 'aws-dlc')),
  status      text NOT NULL CHECK (status IN ('CONFIRMED', 'SECONDARY', 'PARTIAL', 'UNCONFIRMED')),
  source      text NOT NULL CHECK (source ~ '^https://' AND length(source) <= 2000),
  notes       text CHECK (length(notes) <= 1000),
  PRIMARY KEY (kind, component, release),
  CHECK ((status = 'UNCONFIRMED') = (eol IS NULL))
);
