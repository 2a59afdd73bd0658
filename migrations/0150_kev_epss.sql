-- Exploitation signals for advisories: CISA's Known Exploited Vulnerabilities catalog and FIRST's
-- EPSS scores, each as the latest imported snapshot with the feed's own dates, and the
-- advisory.exploited events already sent (once per team and CVE, ever). The import use cases
-- are migrations/procedures/risk_feeds.sql.

-- The imported KEV catalog's identity (one row): an older catalog is refused.
CREATE TABLE kev_catalog (
    one             boolean PRIMARY KEY DEFAULT true CHECK (one),
    catalog_version text NOT NULL CHECK (length(catalog_version) BETWEEN 1 AND 64),
    date_released   timestamptz NOT NULL,
    entries         integer NOT NULL CHECK (entries >= 0),
    imported_at     timestamptz NOT NULL DEFAULT now(),
    imported_by     bigint REFERENCES users (id) ON DELETE SET NULL
);

-- One row per CVE in the catalog, with CISA's dates (date_added: when it entered the catalog;
-- due_date: the federal remediation deadline).
CREATE TABLE kev_entries (
    cve         text PRIMARY KEY CHECK (cve ~ '^CVE-[0-9]{4}-[0-9]{4,19}$'),
    vendor      text NOT NULL DEFAULT '' CHECK (length(vendor) <= 500),
    product     text NOT NULL DEFAULT '' CHECK (length(product) <= 500),
    name        text NOT NULL DEFAULT '' CHECK (length(name) <= 500),
    date_added  date NOT NULL,
    due_date    date,
    ransomware  text NOT NULL DEFAULT 'Unknown' CHECK (length(ransomware) BETWEEN 1 AND 32)
);

-- The imported EPSS snapshot's identity (one row): an older score date is refused.
CREATE TABLE epss_snapshot (
    one           boolean PRIMARY KEY DEFAULT true CHECK (one),
    model_version text NOT NULL CHECK (length(model_version) BETWEEN 1 AND 64),
    score_date    date NOT NULL,
    scores        integer NOT NULL CHECK (scores >= 0),
    imported_at   timestamptz NOT NULL DEFAULT now(),
    imported_by   bigint REFERENCES users (id) ON DELETE SET NULL
);

CREATE TABLE epss_scores (
    cve        text PRIMARY KEY CHECK (cve ~ '^CVE-[0-9]{4}-[0-9]{4,19}$'),
    epss       numeric(6,5) NOT NULL CHECK (epss BETWEEN 0 AND 1),
    percentile numeric(6,5) NOT NULL CHECK (percentile BETWEEN 0 AND 1)
);

-- advisory.exploited, sent once per (team, CVE): a CVE leaving the catalog and coming back, or
-- a second pin of the team, never sends it again.
CREATE TABLE exploited_events (
    team_id    bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    cve        text NOT NULL,
    event_id   bigint,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, cve)
);
