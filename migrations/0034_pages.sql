-- Pages for the lists that had none (issue 14): an advisory's affected images and the reference
-- tables, one keyset page at a time. Each returns the page's document and the key of its last
-- item when a further page exists (NULL on the last page); server/api/cursor.c seals that key
-- into next_cursor.

-- imaxe:load functions/advisories.sql

-- imaxe:load functions/reference.sql
