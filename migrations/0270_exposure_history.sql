-- Exposure over time (issue #36): one row per team and day with what advisories hit that day,
-- so the exposure screen can show whether it is shrinking. Written only by imx_exposure_snapshot
-- (migrations/procedures/exposure_history.sql), run by server/jobs/exposure.c; kept
-- IMAXE_EXPOSURE_HISTORY_DAYS days. A pin or node counts under the most severe advisory that
-- hits its image, so the four severity columns add up to the exposed total.
CREATE TABLE team_exposure_daily (
    team_id          bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    day              date NOT NULL,
    pins             integer NOT NULL,
    pins_exposed     integer NOT NULL,
    pins_critical    integer NOT NULL,
    pins_high        integer NOT NULL,
    pins_medium      integer NOT NULL,
    pins_low         integer NOT NULL,
    -- Running nodes: reported within IMAXE_NODE_STALE_S when the snapshot was taken.
    nodes            integer NOT NULL,
    nodes_exposed    integer NOT NULL,
    nodes_critical   integer NOT NULL,
    nodes_high       integer NOT NULL,
    nodes_medium     integer NOT NULL,
    nodes_low        integer NOT NULL,
    -- Days from when the oldest fix an exposed pin could move to was there (its family has a
    -- newer image the advisory does not hit: that image's publication, or the advisory's if
    -- later) to day; NULL when no exposed pin has a fix.
    oldest_fix_days  integer,
    taken_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, day),
    CHECK (pins_exposed = pins_critical + pins_high + pins_medium + pins_low),
    CHECK (nodes_exposed = nodes_critical + nodes_high + nodes_medium + nodes_low)
);
COMMENT ON TABLE team_exposure_daily IS
  'Daily exposure per team: written only by imx_exposure_snapshot(), pruned by it to IMAXE_EXPOSURE_HISTORY_DAYS.';
