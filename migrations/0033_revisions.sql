-- Revisions for ETag / If-Match (issue 14; server/db/revisions.c): every write of a webhook
-- subscription, an image request (transitions, comments), a team (its members) or an instance type
-- (the row, its prices) moves the row's revision in the same transaction, after checking it against
-- the If-Match the client sent; the ETag is "r<revision>". Reference rows share ref_generation
-- (0004), which every statement writing a ref_ table already moves.

ALTER TABLE webhooks ADD COLUMN revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0);
ALTER TABLE image_requests ADD COLUMN revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0);
ALTER TABLE teams ADD COLUMN revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0);
ALTER TABLE ref_instance_type ADD COLUMN revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0);
