-- Compare's rows for many requests at once (server/db/images.c, coalesced by db/read_batch.c as
-- the stored documents are): one statement answers every compare waiting at the moment it is
-- sent. One compare a statement (0062's imx_compare_rows) cost PostgreSQL ~150 us of CPU at 32
-- connections on 2 cores, most of it per statement; pgbench of eight compares in one call gave
-- 5,739 calls/s (45,900 compares/s) beside 14,936/s for one.
--
-- The rows and the arithmetic are 0062's, value for value. The costs, moved into
-- imx_compare_costs, are computed only for the requests whose callers see a measurement of one of
-- their images (usually none).

-- imaxe:load functions/costs.sql

