-- OpenID Connect sign-in (server/auth/oidc.c). oidc_logins holds each sign-in under way between
-- the redirect to the provider and its return: found by the SHA-256 of its state, taken once
-- (a replayed state finds nothing), and good for ten minutes. oidc_identities ties a provider's
-- subject to the imaxe user it signed in, so that a changed email still finds the same user.
CREATE TABLE oidc_logins (
    state_hash text PRIMARY KEY CHECK (state_hash ~ '^[0-9a-f]{64}$'),
    nonce      text NOT NULL CHECK (length(nonce) BETWEEN 16 AND 128),
    verifier   text NOT NULL CHECK (length(verifier) BETWEEN 43 AND 128),
    next       text NOT NULL DEFAULT '' CHECK (length(next) <= 500),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_logins_created ON oidc_logins (created_at);
COMMENT ON TABLE oidc_logins IS 'OIDC sign-ins under way: state (hashed), nonce, PKCE verifier; single use, ten minutes.';

CREATE TABLE oidc_identities (
    issuer     text NOT NULL CHECK (length(issuer) <= 512),
    subject    text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX oidc_identities_user ON oidc_identities (user_id);
COMMENT ON TABLE oidc_identities IS 'Which imaxe user a provider subject signs in as.';
