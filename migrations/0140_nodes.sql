-- The fleet (issue #34): nodes that report what they run (`imaxe probe --report`), the latest
-- report of each, a bounded history of what changed, node-report API tokens, and the
-- node.drifted event. The use cases are in procedures/nodes.sql.

-- A token's scope: 'api' may do what its role allows; 'node-report' may only send node reports
-- (POST /v1/nodes/reports), for its team, and is refused everywhere else (server/auth/auth.c).
ALTER TABLE api_tokens ADD COLUMN scope text NOT NULL DEFAULT 'api'
  CHECK (scope IN ('api', 'node-report'));

-- One row a node (a team's machine, named as it names itself): its latest report and what the
-- server made of it. Rewritten on every report, so the columns a report changes are not indexed
-- (the update stays HOT) and the row leaves room for its next version (fillfactor).
CREATE TABLE nodes (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id       bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name          text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$'),
    -- The catalog image the node booted (NULL: the image it named is not in the catalog).
    image_id      bigint REFERENCES images (id) ON DELETE SET NULL,
    -- The image as the node named it: {"id"} or {"artifact_id", "region"}.
    booted        jsonb NOT NULL,
    instance_type text CHECK (length(instance_type) <= 64),
    gpus          text[] NOT NULL DEFAULT '{}',
    gpu_count     int NOT NULL DEFAULT 0 CHECK (gpu_count BETWEEN 0 AND 64),
    -- The drift rows that count (server/domain/drift.c); drift NULL when the image is unknown.
    drift         boolean,
    drift_items   jsonb NOT NULL DEFAULT '[]',
    drift_digest  text,
    drift_since   timestamptz,
    report        jsonb NOT NULL,
    report_digest text NOT NULL,
    first_seen    timestamptz NOT NULL DEFAULT now(),
    last_seen     timestamptz NOT NULL DEFAULT now(),
    reports       bigint NOT NULL DEFAULT 1,
    UNIQUE (team_id, name)
) WITH (fillfactor = 70);
CREATE INDEX nodes_image ON nodes (image_id, id);
CREATE INDEX nodes_name ON nodes (name, id);
-- The drifted few, for GET /v1/nodes?drift=true: drift rarely changes, so the index keeps the
-- reports' updates HOT.
CREATE INDEX nodes_drifted ON nodes (id) WHERE drift;
COMMENT ON TABLE nodes IS
  'Machines that report what they run: the latest report per (team, name); written only by imx_node_report().';

-- What a node ran over time: a row when its report changed (not on every report: a node that
-- reports the same stack every five minutes costs one row, not 288 a day). Pruned per node by
-- imx_node_report to IMAXE_NODE_HISTORY_DAYS and at most imx_node_history_max() rows.
CREATE TABLE node_reports (
    node_id     bigint NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    at          timestamptz NOT NULL,
    image_id    bigint REFERENCES images (id) ON DELETE SET NULL,
    drift       boolean,
    drift_items jsonb NOT NULL DEFAULT '[]',
    report      jsonb NOT NULL,
    PRIMARY KEY (node_id, at)
);
COMMENT ON TABLE node_reports IS
  'Bounded history of each node''s reports: one row per change, pruned by imx_node_report().';

-- Reports name their image by artifact id (an AMI id) and region.
CREATE INDEX image_artifacts_artifact ON image_artifacts (artifact_id, region);

-- node.drifted: a node's report started to differ from its image (or differs differently).
CREATE OR REPLACE FUNCTION imx_webhook_event_types() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ARRAY['patch.available', 'image.published', 'image.deprecated', 'image.revoked',
               'advisory.published', 'pin.moved', 'request.updated', 'ping',
               'image.compatibility_changed', 'node.drifted']
$$;
