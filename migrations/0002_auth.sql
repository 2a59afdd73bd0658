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
