-- image.eol_approaching, sent once per (team, pinned image, threshold of 90, 30 or 0 days,
-- end-of-life date): a date the knowledge tables move makes a new series. The use case is
-- imx_eol_announce (migrations/procedures/eol.sql), run by server/jobs/eol.c.
CREATE TABLE eol_events (
    team_id    bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    image_id   bigint NOT NULL REFERENCES images (id) ON DELETE CASCADE,
    threshold  integer NOT NULL CHECK (threshold IN (90, 30, 0)),
    eol        date NOT NULL,
    event_id   bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, image_id, threshold, eol)
);
