-- Point reads (issue 13), continued: the documents of lineage, an image's patch status and
-- compare's costs built by plpgsql functions planned once a session (compare's rows themselves:
-- 0043, after the OS columns they read). Their SQL-language
-- predecessors (0004, 0006) are not inlined, so PostgreSQL planned their queries again on every
-- call, for every entry: 8 ms for one lineage on the 100,000-image bench catalog, most of it
-- planning. The documents are the same as before, byte for byte.

