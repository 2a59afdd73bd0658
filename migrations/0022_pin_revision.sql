-- Pins' ETag and If-Match (issue 14, server/api/etag.c): a revision moved by every write of a
-- pin a team makes (moving it; deleting it checks it), as 0033 gives the other mutable
-- resources. What the server itself keeps current on a pin (its status, candidate) does not move
-- it: the ETag names the pin as its team last set it.
ALTER TABLE pins ADD COLUMN revision bigint NOT NULL DEFAULT 1 CHECK (revision > 0);
