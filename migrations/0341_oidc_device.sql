-- Device sign-ins under way (`imaxe login --sso`, RFC 8628; server/api/oidc_device.c): the
-- provider's device code, kept here between the CLI's polls so that neither it nor the ID token
-- ever reaches the CLI, found by the SHA-256 of the handle the CLI holds, polled no more often
-- than interval_s (each too-early poll adds 5 s, as RFC 8628's slow_down), taken once when it
-- ends, and gone when it expires.
CREATE TABLE oidc_device_logins (
    handle_hash  text PRIMARY KEY CHECK (handle_hash ~ '^[0-9a-f]{64}$'),
    device_code  text NOT NULL CHECK (length(device_code) BETWEEN 1 AND 2048),
    nonce        text NOT NULL CHECK (length(nonce) BETWEEN 16 AND 128),
    interval_s   integer NOT NULL CHECK (interval_s BETWEEN 1 AND 300),
    next_poll_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oidc_device_logins_expires ON oidc_device_logins (expires_at);
COMMENT ON TABLE oidc_device_logins IS 'OIDC device sign-ins under way (imaxe login --sso): the provider''s device code, polled by the server for the CLI.';
