-- Trigger functions that keep the fleet's counts as nodes change (tables and triggers in
-- 0360_fleet_counts.sql): node counts per (team, image) in fleet_counts and each node's last
-- report time in node_seen, and the fold of fleet_counts' deltas at commit. They run for every
-- write of nodes; its one writer is
-- imx_node_report (procedures/nodes.sql, called by server/db/nodes.c), besides foreign-key
-- actions (a team's or an image's deletion). The reads that use them are in procedures/nodes.sql;
-- tests/integration/test_fleet_counts.c holds them against a count of every node.

-- Adds a delta to the nodes (and drifted nodes) of (p_team, p_image): one insert, nothing read
-- or locked, so a report never waits for another here, and a statement over many nodes (a
-- team's deletion) costs one row each; imx_fleet_counts_fold folds them when the transaction
-- commits.
CREATE OR REPLACE FUNCTION imx_fleet_count_add(p_team bigint, p_image bigint, p_nodes int,
                                               p_drifted int)
RETURNS void
LANGUAGE sql AS $$
  INSERT INTO fleet_counts (team_id, image_id, nodes, drifted)
  VALUES (p_team, p_image, p_nodes, p_drifted)
$$;

-- Deferred AFTER INSERT on fleet_counts (a delta, not a folded sum): at commit, folds the
-- delta's key into one row, once per key and transaction (a delta an earlier fold of this commit
-- took is gone: nothing to do). The fold takes the key's rows no other transaction holds (SKIP
-- LOCKED: it never waits, and two commits folding one key at once leave two rows, summed by the
-- reads and folded by the next change). Folding at commit rather than per change keeps a
-- transaction of many changes to one key linear: rows it wrote itself cannot be pruned before it
-- ends, so folding them again and again would read them again and again.
CREATE OR REPLACE FUNCTION imx_fleet_counts_fold() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM fleet_counts f WHERE f.id = NEW.id) THEN
    WITH gone AS (
      DELETE FROM fleet_counts f
       WHERE f.ctid = ANY (ARRAY(SELECT x.ctid FROM fleet_counts x
                                  WHERE x.team_id = NEW.team_id AND x.image_id = NEW.image_id
                                    FOR UPDATE SKIP LOCKED))
      RETURNING f.nodes, f.drifted)
    INSERT INTO fleet_counts (team_id, image_id, nodes, drifted, folded)
    SELECT NEW.team_id, NEW.image_id, sum(g.nodes), sum(g.drifted), true FROM gone g
    HAVING sum(g.nodes) <> 0 OR sum(g.drifted) <> 0;
  END IF;
  RETURN NULL;
END
$$;

-- AFTER INSERT, DELETE, or UPDATE of team_id, image_id or drift on nodes: the node leaves its
-- old key and joins its new one (image 0: not in the catalog); a new node gets its node_seen.
CREATE OR REPLACE FUNCTION imx_nodes_fleet_keep() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM imx_fleet_count_add(OLD.team_id, coalesce(OLD.image_id, 0), -1,
                                -(coalesce(OLD.drift, false))::int);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM imx_fleet_count_add(NEW.team_id, coalesce(NEW.image_id, 0), 1,
                                (coalesce(NEW.drift, false))::int);
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO node_seen (node_id, last_seen, team_id, image_id)
    VALUES (NEW.id, NEW.last_seen, NEW.team_id, coalesce(NEW.image_id, 0));
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE node_seen s SET team_id = NEW.team_id, image_id = coalesce(NEW.image_id, 0)
     WHERE s.node_id = NEW.id
       AND (s.team_id, s.image_id) IS DISTINCT FROM (NEW.team_id, coalesce(NEW.image_id, 0));
  END IF;
  RETURN NULL;
END
$$;

-- AFTER UPDATE of nodes.last_seen (every report): node_seen follows, lagging by at most
-- imx_node_seen_lag_s() (300 s, or half the stale time when that is shorter). So the lag costs
-- no exactness (imx_nodes_stale): node_seen.last_seen is never later than the node's (a step
-- back is written at once), a node silent for the stale time is always among its old rows, and
-- one older than that by more than the lag is stale for sure. What it saves: node_seen's row is
-- rewritten (and its index entry added) on every second report or fewer, not on each (a node
-- reporting every 5 minutes, stale after 15).
CREATE OR REPLACE FUNCTION imx_nodes_seen_keep() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE node_seen s SET last_seen = NEW.last_seen
   WHERE s.node_id = NEW.id
     AND (s.last_seen > NEW.last_seen
          OR s.last_seen < NEW.last_seen - make_interval(secs => imx_node_seen_lag_s()));
  RETURN NULL;
END
$$;

-- How far node_seen.last_seen may lag behind nodes.last_seen (imx_nodes_seen_keep); the stale
-- reads (imx_nodes_stale) rely on its ceiling of 300 s.
CREATE OR REPLACE FUNCTION imx_node_seen_lag_s() RETURNS numeric
LANGUAGE sql STABLE AS $$
  SELECT least(300, imx_node_stale_s() / 2.0)
$$;
