-- The fleet's counts kept as nodes change, so GET /v1/fleet, GET /v1/nodes?stale=true and the
-- running-node counts stop reading every node (bench/RESULTS.md, "Fleet reads at 100,000
-- nodes"): nodes and drifted nodes per (team, image) in fleet_counts, and each node's last
-- report time in node_seen, whose index finds the stale nodes alone. Both are kept by triggers
-- on nodes (functions/fleet.sql), so every writer (imx_node_report, a team's deletion, an
-- image's deletion setting nodes.image_id to NULL) keeps them true.

-- Signed deltas of the node counts, folded when their transaction commits
-- (imx_fleet_counts_fold): the sum over a (team, image) is the count; usually one row, a few
-- while reports of the same key commit at once. Insert-only and folded with SKIP LOCKED, so
-- concurrent reports never wait on one another here nor deadlock (one counter row per key,
-- updated in place, would make every new node of a team wait for the last one's commit). No foreign keys: the triggers delete a key's rows when its count
-- reaches zero (a team's deletion removes its nodes, which removes their counts).
CREATE TABLE fleet_counts (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id  bigint NOT NULL,
    image_id bigint NOT NULL DEFAULT 0, -- 0: the image the nodes named is not in the catalog
    nodes    bigint NOT NULL,
    drifted  bigint NOT NULL,
    folded   boolean NOT NULL DEFAULT false -- a fold's sum, not a delta to fold at commit
);
CREATE INDEX fleet_counts_team ON fleet_counts (team_id, image_id);
CREATE INDEX fleet_counts_image ON fleet_counts (image_id);
COMMENT ON TABLE fleet_counts IS
  'Nodes and drifted nodes per (team, image) as signed deltas (sum them); kept by the triggers on nodes.';

-- Each node's last report time, beside the node, lagging by at most 300 s or half the stale time
-- (imx_nodes_seen_keep): nodes.last_seen is not indexed so that a report stays a HOT update of
-- the wide nodes row; this narrow row takes the index instead, and its old rows are the
-- candidates a read tests against nodes.last_seen.
CREATE TABLE node_seen (
    node_id   bigint PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
    last_seen timestamptz NOT NULL,
    -- the node's team and image (0: unknown), so that counting the long-silent nodes reads this
    -- narrow table alone (at 100,000 nodes, 5,000 random reads of the wide rows took ~250 ms)
    team_id   bigint NOT NULL,
    image_id  bigint NOT NULL
);
CREATE INDEX node_seen_last ON node_seen (last_seen);
COMMENT ON TABLE node_seen IS
  'nodes.last_seen again, at most 300 s (or half the stale time) behind, with the node''s team and image, indexed (stale candidates are the oldest); kept by the triggers on nodes.';

-- imaxe:load functions/fleet.sql
INSERT INTO fleet_counts (team_id, image_id, nodes, drifted, folded)
SELECT n.team_id, coalesce(n.image_id, 0), count(*), count(*) FILTER (WHERE n.drift), true
  FROM nodes n GROUP BY 1, 2;
INSERT INTO node_seen (node_id, last_seen, team_id, image_id)
SELECT n.id, n.last_seen, n.team_id, coalesce(n.image_id, 0) FROM nodes n;

CREATE CONSTRAINT TRIGGER fleet_counts_fold AFTER INSERT ON fleet_counts
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NOT NEW.folded)
  EXECUTE FUNCTION imx_fleet_counts_fold();
CREATE TRIGGER nodes_fleet_insert AFTER INSERT ON nodes
  FOR EACH ROW EXECUTE FUNCTION imx_nodes_fleet_keep();
CREATE TRIGGER nodes_fleet_delete AFTER DELETE ON nodes
  FOR EACH ROW EXECUTE FUNCTION imx_nodes_fleet_keep();
-- Only the rare report that moves a node to another image or changes whether it drifts: the
-- WHEN clause spares the every-five-minutes report the call.
CREATE TRIGGER nodes_fleet_update AFTER UPDATE OF team_id, image_id, drift ON nodes
  FOR EACH ROW WHEN (OLD.team_id <> NEW.team_id OR OLD.image_id IS DISTINCT FROM NEW.image_id
                     OR OLD.drift IS DISTINCT FROM NEW.drift)
  EXECUTE FUNCTION imx_nodes_fleet_keep();
CREATE TRIGGER nodes_seen_update AFTER UPDATE OF last_seen ON nodes
  FOR EACH ROW WHEN (OLD.last_seen IS DISTINCT FROM NEW.last_seen)
  EXECUTE FUNCTION imx_nodes_seen_keep();
