-- Who may see and change what: users, teams, memberships with a role per team, API tokens,
-- and the audit log of every write.

-- Roles order as declared: viewer < member < publisher < admin (enum comparison).
CREATE TYPE team_role AS ENUM ('viewer', 'member', 'publisher', 'admin');

CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text NOT NULL CHECK (email ~ '^[^@\s]+@[^@\s]+$' AND length(email) <= 254),
    display_name  text NOT NULL DEFAULT '' CHECK (length(display_name) <= 200),
    password_hash text NOT NULL,
    is_admin      boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    disabled_at   timestamptz
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
COMMENT ON TABLE users IS 'People who sign in; is_admin is the global admin flag (reference data, advisories, teams).';

CREATE TABLE teams (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug       text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE teams IS 'Owners of images, pins, webhooks, measurements and requests.';

CREATE TABLE memberships (
    team_id    bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       team_role NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- API tokens for scripts: opaque secrets stored only as SHA-256 hashes, each restricted to
-- one team and capped at a role (never above the creator's role there).
CREATE TABLE api_tokens (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id     bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    role        team_role NOT NULL,
    token_hash  text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz,
    CHECK (expires_at > created_at)
);
CREATE INDEX api_tokens_user ON api_tokens (user_id, id);
COMMENT ON TABLE api_tokens IS 'Opaque script tokens (imx_...); only the SHA-256 of the secret is kept.';

-- Login throttling shared by every replica: one row per key ('email:...' or 'ip:...') with the
-- failures counted in the current fixed window.
CREATE TABLE login_throttle (
    key          text PRIMARY KEY CHECK (length(key) <= 300),
    failures     integer NOT NULL CHECK (failures >= 0),
    window_start timestamptz NOT NULL
);
COMMENT ON TABLE login_throttle IS 'Failed logins per account and per client address, for 429s.';

-- Every write: who, when, what, in which request, with a small detail document.
CREATE TABLE audit_log (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at             timestamptz NOT NULL DEFAULT now(),
    actor_user_id  bigint REFERENCES users (id) ON DELETE SET NULL,
    actor_token_id bigint REFERENCES api_tokens (id) ON DELETE SET NULL,
    action         text NOT NULL CHECK (length(action) BETWEEN 1 AND 64),
    resource       text NOT NULL CHECK (length(resource) BETWEEN 1 AND 64),
    resource_id    text CHECK (length(resource_id) <= 300),
    request_id     text NOT NULL,
    detail         jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_actor ON audit_log (actor_user_id, id);
CREATE INDEX audit_log_resource ON audit_log (resource, action, id);
CREATE INDEX audit_log_at ON audit_log (at);
COMMENT ON TABLE audit_log IS 'Append-only record of every write; read by global admins at /v1/audit.';
