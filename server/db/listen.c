/* LISTEN on a connection of its own (db/listen.h). */
#include "db/listen.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/pool.h"
#include "db/internal.h"

struct imx_db_listener {
    PGconn *pg;
};

struct imx_db_listener *imx_db_listen(const char *url, unsigned stmt_ms, const char *channel,
                                      char *err, size_t errlen)
{
    PGconn *pg = imx_db_connect_raw(url, stmt_ms, err, errlen);
    if (!pg)
        return NULL;
    char sql[128];
    snprintf(sql, sizeof sql, "LISTEN %s", channel);
    PGresult *res = PQexec(pg, sql);
    struct imx_db_listener *l = NULL;
    if (PQresultStatus(res) == PGRES_COMMAND_OK)
        l = malloc(sizeof *l);
    if (l)
        l->pg = pg;
    else
        snprintf(err, errlen, "%s", PQerrorMessage(pg));
    PQclear(res);
    if (!l)
        PQfinish(pg);
    return l;
}

int imx_db_listener_fd(const struct imx_db_listener *l)
{
    return PQsocket(l->pg);
}

int imx_db_listener_drain(struct imx_db_listener *l)
{
    if (!PQconsumeInput(l->pg))
        return -1;
    int n = 0;
    PGnotify *note;
    while ((note = PQnotifies(l->pg)) != NULL) {
        n++;
        PQfreemem(note);
    }
    return n;
}

void imx_db_listener_close(struct imx_db_listener *l)
{
    if (!l)
        return;
    PQfinish(l->pg);
    free(l);
}
