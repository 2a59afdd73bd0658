-- Sign-ins that last: the web UI's cookie sessions and the CLI's refresh tokens. Only the SHA-256
-- of each secret is kept (the cookie value, the refresh token, the CSRF token), so a copy of the
-- table signs nobody in. A session ends at expires_at (the absolute lifetime), after idle_s
-- without use, or when revoked (sign-out, or the user or an admin revoking it).
CREATE TABLE sessions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('web', 'cli')),
    secret_hash  text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    csrf_hash    text CHECK (csrf_hash ~ '^[0-9a-f]{64}$'),
    via          text NOT NULL CHECK (via IN ('password', 'oidc')),
    user_agent   text NOT NULL DEFAULT '' CHECK (length(user_agent) <= 200),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    idle_s       integer NOT NULL CHECK (idle_s > 0),
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    CHECK (expires_at > created_at),
    CHECK (kind <> 'web' OR csrf_hash IS NOT NULL)
);
CREATE INDEX sessions_user ON sessions (user_id, id);
COMMENT ON TABLE sessions IS 'Web cookie sessions and CLI refresh tokens; secrets kept as SHA-256 only.';
