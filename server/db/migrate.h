/* Applies migrations/NNNN_name.sql in order, once each, then re-applies the changed files of
 * migrations/functions/ and migrations/procedures/, under a PostgreSQL advisory lock. */
#ifndef IMX_DB_MIGRATE_H
#define IMX_DB_MIGRATE_H

#include <stddef.h>

#include "db/status.h"

struct imx_db_conn;

/* Connects to url (waiting up to wait_s for PostgreSQL to come up, and logging that it waits)
 * on a connection of its own, applies every migration in dir not yet recorded in
 * schema_migrations, each in its own transaction, then (in one more) every re-applied file whose
 * text changed since it was last loaded, and closes it. Returns 0, or -1 with a message in err
 * (nothing of the failing one is kept). *latest receives the highest version found in dir. */
int imx_db_migrate(const char *url, unsigned wait_s, const char *dir, int *latest, char *err,
                   size_t errlen);

/* The highest migration version in dir, or -1 with a message. */
int imx_migrations_latest(const char *dir, char *err, size_t errlen);

/* Reads the highest applied migration on a pooled connection into *applied: IMX_DBS_OK, or the
 * failure. */
enum imx_db_status imx_db_migrations_applied(struct imx_db_conn *c, unsigned long long *applied);

#endif
