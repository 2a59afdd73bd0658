-- The per-caller request rate limit shared by every replica (issue 17): one token bucket a caller,
-- reconciled by each replica about once a second (server/http/ratelimit.h), and the replicas'
-- heartbeats, from which each learns how many share the buckets. Unlogged: after a crash the
-- buckets start full again, which only forgives a minute of requests.
CREATE UNLOGGED TABLE rate_limit_buckets (
    key        bigint PRIMARY KEY, -- token id * 2 + 1, or user id * 2
    tokens     double precision NOT NULL, -- negative: requests owed
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rate_limit_buckets_updated ON rate_limit_buckets (updated_at);
COMMENT ON TABLE rate_limit_buckets IS 'Shared request-rate buckets, one a recent caller; pruned after five idle minutes.';

CREATE UNLOGGED TABLE rate_limit_replicas (
    replica text PRIMARY KEY CHECK (length(replica) <= 64),
    seen_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE rate_limit_replicas IS 'Server processes reconciling rate-limit buckets, with their last heartbeat.';
