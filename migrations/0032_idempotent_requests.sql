-- Idempotency-Key for every POST that creates something (issue 14; server/api/idempotency.c):
-- the reply one principal (user, and the API token when one was used) got for a key, with a
-- fingerprint of the request it answered (SHA-256 of method, path and body), so that a retry
-- replays it and a different request under the same key is refused. A row is written in the
-- transaction of the change it describes, so neither exists without the other; rows expire
-- after IMAXE_IDEMPOTENCY_TTL_H hours (imx_db_idempotency_prune, from the outbox retention pass).
-- It replaces idempotency_keys (0013), which only the image import used and which only ever
-- held replies of the last 24 hours.

CREATE TABLE idempotent_requests (
    user_id      bigint NOT NULL,
    token_id     bigint NOT NULL DEFAULT 0,
    key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint  text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
    status       integer NOT NULL CHECK (status BETWEEN 200 AND 399),
    content_type text NOT NULL,
    headers      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(headers) = 'array'),
    body         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, token_id, key)
);
CREATE INDEX idempotent_requests_created ON idempotent_requests (created_at);

DROP TABLE idempotency_keys;
