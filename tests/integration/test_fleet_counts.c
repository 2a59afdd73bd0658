/* The fleet's kept counts against an oracle (migrations/0360_fleet_counts.sql,
 * functions/fleet.sql): random sequences of node reports (new nodes, unchanged, another image,
 * drift on and off, an unknown image), node removals, image deletions (nodes.image_id set to
 * NULL by the foreign key), a team's deletion and nodes going silent; after every step the
 * counts kept per (team, image), node_seen, GET /v1/fleet's document, the stale page and the
 * running-node counts equal what counting every node from scratch gives. Then reports of one key
 * from two open transactions at once (the fold skips the other's rows, neither waits). Set
 * IMX_TEST_SEED to replay a sequence; the seed in use is printed. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/internal.h"
#include "db/migrate.h"

#define STEPS      150
#define NAMES      30
#define STALE_S    600
#define IMAGES_MAX 8

static const char *db_url;
static PGconn *pg;
static long long user_id, teams[3], images[IMAGES_MAX];
static int n_images;
static unsigned long long rng;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* The first value of q's first row (static buffer), failing the test on an error. */
static const char *q1(PGconn *c, const char *q)
{
    static char out[65536];
    PGresult *r = PQexec(c, q);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        PQclear(r);
        fail_msg("%s: %s", q, msg);
    }
    snprintf(out, sizeof out, "%s",
             st == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "");
    PQclear(r);
    return out;
}

static long long q_id(const char *q)
{
    return atoll(q1(pg, q));
}

static long long new_team(int k)
{
    char q[256];
    snprintf(q, sizeof q,
             "INSERT INTO teams (slug, name) VALUES ('fleet%d-%llu', 'Fleet') RETURNING id", k,
             (unsigned long long)rnd(1000000));
    return q_id(q);
}

static void new_image(void)
{
    char q[512];
    snprintf(q, sizeof q,
             "INSERT INTO images (family, version, team_id, provider, architecture, os_name,"
             " os_version, layer) VALUES ('fleet', '%d', %lld, 'aws', 'x86_64', 'ubuntu',"
             " '24.04', 'platform') RETURNING id",
             (int)rnd(1000000), teams[0]);
    images[n_images++] = q_id(q);
}

/* One report through the procedure the API calls. */
static void report(PGconn *c, long long team, int name)
{
    char q[1024], img[24] = "NULL";
    const char *drift = "NULL";
    if (n_images > 0 && rnd(6) != 0) {
        snprintf(img, sizeof img, "%lld", images[rnd((unsigned)n_images)]);
        drift = rnd(4) == 0 ? "true" : "false";
    }
    snprintf(q, sizeof q,
             "SELECT imx_node_report(%lld, 'n%d', %s, '{\"id\": 1}', 'p5.48xlarge', '{H100}', 8,"
             " %s, '[]', '{\"k\": %u}', 30)",
             team, name, img, drift, rnd(3));
    q1(c, q);
}

/* The fleet document counted from every node: imx_fleet_counts' body before 0360. */
static const char oracle_fleet[] =
    "WITH mine AS ("
    "  SELECT n.team_id, n.image_id, n.drift,"
    "         n.last_seen < now() - make_interval(secs => $S) AS stale"
    "    FROM nodes n WHERE n.team_id IN (SELECT imx_caller_teams($U, NULL, NULL))),"
    " by_image AS ("
    "  SELECT m.image_id, count(*) AS nodes, count(*) FILTER (WHERE m.drift) AS drifted,"
    "         count(*) FILTER (WHERE m.stale) AS stale"
    "    FROM mine m GROUP BY m.image_id),"
    " by_pin AS ("
    "  SELECT p.id, p.name, p.team_id, p.image_id, count(m.*) AS nodes,"
    "         count(*) FILTER (WHERE m.drift) AS drifted, count(*) FILTER (WHERE m.stale) AS stale"
    "    FROM pins p JOIN mine m ON m.team_id = p.team_id AND m.image_id = p.image_id"
    "   WHERE p.team_id IN (SELECT imx_caller_teams($U, NULL, NULL))"
    "   GROUP BY p.id)"
    " SELECT json_build_object("
    "  'nodes', (SELECT count(*) FROM mine),"
    "  'drifted', (SELECT count(*) FROM mine WHERE drift),"
    "  'stale', (SELECT count(*) FROM mine WHERE stale),"
    "  'unknown_image', (SELECT count(*) FROM mine WHERE image_id IS NULL),"
    "  'by_image', (SELECT coalesce(json_agg(x ORDER BY x.nodes DESC, (x.image->>'id')::bigint),"
    "   '[]') FROM ("
    "      SELECT json_build_object('id', i.id, 'family', i.family, 'version', i.version,"
    "                               'patch_status', i.patch_status) AS image,"
    "             b.nodes, b.drifted, b.stale"
    "        FROM by_image b JOIN images i ON i.id = b.image_id"
    "       ORDER BY b.nodes DESC, i.id LIMIT 100) x),"
    "  'by_pin', (SELECT coalesce(json_agg(y ORDER BY y.nodes DESC, y.id), '[]') FROM ("
    "      SELECT b.id, b.name, (SELECT t.slug FROM teams t WHERE t.id = b.team_id) AS team,"
    "             b.image_id, b.nodes, b.drifted, b.stale"
    "        FROM by_pin b ORDER BY b.nodes DESC, b.id LIMIT 100) y))::text";

/* Replaces every $S and $U of t (the stale seconds and the user) into out. */
static void fill(const char *t, char *out, size_t len)
{
    size_t o = 0;
    for (; *t && o + 32 < len; t++) {
        if (t[0] == '$' && (t[1] == 'S' || t[1] == 'U')) {
            o += (size_t)snprintf(out + o, len - o, "%lld",
                                  t[1] == 'S' ? (long long)STALE_S : user_id);
            t++;
        } else {
            out[o++] = *t;
        }
    }
    out[o] = '\0';
}

/* Every kept count equals the count from scratch; returns what differs ("" when nothing). */
static void check(int step, const char *what)
{
    static char q[16384];
    /* Per (team, image) over every team, the caller's or not. */
    const char *diff =
        q1(pg,
           "SELECT coalesce(string_agg(format('%s/%s kept %s/%s counted %s/%s', coalesce(k.team_id,"
           " c.team_id), coalesce(k.image_id, c.image_id), k.nodes, k.drifted, c.nodes, c.drifted),"
           " '; '), '') FROM"
           " (SELECT team_id, image_id, sum(nodes) AS nodes, sum(drifted) AS drifted"
           "    FROM fleet_counts GROUP BY 1, 2 HAVING sum(nodes) <> 0 OR sum(drifted) <> 0) k"
           " FULL JOIN (SELECT team_id, coalesce(image_id, 0) AS image_id, count(*) AS nodes,"
           "    count(*) FILTER (WHERE drift) AS drifted FROM nodes GROUP BY 1, 2) c"
           " ON k.team_id = c.team_id AND k.image_id = c.image_id"
           " WHERE k.nodes IS DISTINCT FROM c.nodes OR k.drifted IS DISTINCT FROM c.drifted");
    if (*diff)
        fail_msg("step %d (%s): counts differ: %s", step, what, diff);
    /* node_seen: a row a node, with its team and image, never later than the node's last
     * report and at most 300 s earlier (imx_node_seen_lag_s). */
    diff = q1(pg, "SELECT count(*) FROM node_seen s FULL JOIN nodes n ON n.id = s.node_id"
                  " WHERE s.last_seen IS NULL OR n.last_seen IS NULL OR s.last_seen > n.last_seen"
                  " OR s.last_seen < n.last_seen - interval '300 s' OR s.team_id <> n.team_id"
                  " OR s.image_id <> coalesce(n.image_id, 0)");
    if (strcmp(diff, "0") != 0)
        fail_msg("step %d (%s): %s node_seen rows out of bounds", step, what, diff);
    /* The document GET /v1/fleet answers, against the one counted from every node. */
    char oracle[8192];
    fill(oracle_fleet, oracle, sizeof oracle);
    snprintf(q, sizeof q,
             "SELECT CASE WHEN a = b THEN '' ELSE 'kept: ' || a || ' counted: ' || b END"
             " FROM (SELECT imx_fleet_counts(%lld, NULL, NULL, %d, 100) AS a, (%s) AS b) x",
             user_id, STALE_S, oracle);
    diff = q1(pg, q);
    if (*diff)
        fail_msg("step %d (%s): fleet document differs: %s", step, what, diff);
    /* The stale page (node_seen's index) against the nodes tested one by one. */
    snprintf(q, sizeof q,
             "SELECT CASE WHEN a = b THEN '' ELSE 'page: ' || a || ' counted: ' || b END FROM"
             " (SELECT (SELECT doc FROM imx_nodes_page(%lld, NULL, NULL, NULL, NULL, NULL, NULL,"
             "   true, NULL, NULL, %d, NULL, 1000)) AS a,"
             "  json_build_object('items', coalesce((SELECT json_agg(imx_node_json(n, %d)"
             "   ORDER BY n.id) FROM nodes n WHERE n.team_id IN (SELECT imx_caller_teams(%lld,"
             "   NULL, NULL)) AND n.last_seen < now() - make_interval(secs => %d)), '[]'))::text"
             "   AS b) x",
             user_id, STALE_S, STALE_S, user_id, STALE_S);
    diff = q1(pg, q);
    if (*diff)
        fail_msg("step %d (%s): stale page differs: %s", step, what, diff);
    /* Running nodes per image, every team's and each team's. */
    snprintf(q, sizeof q,
             "SET imaxe.node_stale_s = '%d'; SELECT coalesce(string_agg(format('image %%s team"
             " %%s: %%s, counted %%s', i.id, t.id, imx_nodes_running(i.id, t.id), (SELECT"
             " count(*) FROM nodes n WHERE n.image_id = i.id AND (t.id IS NULL OR n.team_id ="
             " t.id) AND n.last_seen >= now() - make_interval(secs => %d))), '; '), '')"
             " FROM images i, (SELECT id FROM teams UNION ALL SELECT NULL) t"
             " WHERE imx_nodes_running(i.id, t.id) <> (SELECT count(*) FROM nodes n"
             " WHERE n.image_id = i.id AND (t.id IS NULL OR n.team_id = t.id)"
             " AND n.last_seen >= now() - make_interval(secs => %d))",
             STALE_S, STALE_S, STALE_S);
    diff = q1(pg, q);
    if (*diff)
        fail_msg("step %d (%s): running nodes differ: %s", step, what, diff);
}

static int setup(void **state)
{
    (void)state;
    db_url = imx_t_db_create("fleet_counts");
    if (!db_url)
        return -1;
    pg = PQconnectdb(db_url);
    if (PQstatus(pg) != CONNECTION_OK)
        return -1;
    char dir[1024], err[512];
    snprintf(dir, sizeof dir, "%s/migrations", getenv("IMX_TEST_SOURCE_DIR"));
    int latest;
    if (imx_migrate(pg, dir, &latest, err, sizeof err) != 0) {
        fprintf(stderr, "migrate: %s\n", err);
        return -1;
    }
    PQclear(PQexec(pg, "SET client_min_messages = warning"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    PQfinish(pg);
    return 0;
}

static void kept_counts_equal_counting_every_node(void **state)
{
    (void)state;
    const char *seed = getenv("IMX_TEST_SEED");
    rng = seed && *seed ? strtoull(seed, NULL, 10)
                        : 0x9e3779b97f4a7c15ULL ^ (unsigned long long)time(NULL);
    if (!rng)
        rng = 1;
    printf("fleet counts: seed %llu (IMX_TEST_SEED to replay)\n", rng);
    for (int k = 0; k < 3; k++)
        teams[k] = new_team(k);
    char q[512];
    user_id = q_id("INSERT INTO users (email, password_hash) VALUES ('fleet@test.imaxe', 'x')"
                   " RETURNING id");
    /* The caller sees teams 0 and 1, not 2. */
    for (int k = 0; k < 2; k++) {
        snprintf(q, sizeof q,
                 "INSERT INTO memberships (team_id, user_id, role) VALUES (%lld, %lld, 'viewer')",
                 teams[k], user_id);
        q1(pg, q);
    }
    for (int k = 0; k < 3; k++)
        new_image();
    /* Pins of teams 0 and 1 on the first two images. */
    for (int k = 0; k < 4; k++) {
        snprintf(q, sizeof q,
                 "INSERT INTO pins (team_id, name, image_id) VALUES (%lld, 'pin%d', %lld)",
                 teams[k % 2], k, images[k / 2]);
        q1(pg, q);
    }
    int counts[7] = { 0 };
    const char *steps_env = getenv("IMX_TEST_STEPS");
    int steps = steps_env && atoi(steps_env) > 0 ? atoi(steps_env) : STEPS;
    for (int step = 0; step < steps; step++) {
        unsigned op = rnd(100);
        const char *what;
        if (op < 60) {
            what = "report";
            report(pg, teams[rnd(3)], (int)rnd(NAMES));
            counts[0]++;
        } else if (op < 72) {
            what = "node removed";
            snprintf(q, sizeof q, "DELETE FROM nodes WHERE team_id = %lld AND name = 'n%u'",
                     teams[rnd(3)], rnd(NAMES));
            q1(pg, q);
            counts[1]++;
        } else if (op < 88) {
            what = "node silent";
            /* Goes quiet for 0 to 2x the stale time (the report procedure is the only writer of
             * last_seen otherwise; the triggers must follow any writer). */
            snprintf(q, sizeof q,
                     "UPDATE nodes SET last_seen = now() - make_interval(secs => %u)"
                     " WHERE team_id = %lld AND name = 'n%u'",
                     rnd(2 * STALE_S), teams[rnd(3)], rnd(NAMES));
            q1(pg, q);
            counts[2]++;
        } else if (op < 93 && n_images < IMAGES_MAX) {
            what = "image added";
            new_image();
            counts[3]++;
        } else if (op < 97 && n_images > 3) {
            /* An image without pins is deleted: the foreign key sets its nodes' image_id to
             * NULL (unknown image). */
            what = "image deleted";
            int k = 3 + (int)rnd((unsigned)(n_images - 3));
            snprintf(q, sizeof q, "DELETE FROM images WHERE id = %lld", images[k]);
            q1(pg, q);
            images[k] = images[--n_images];
            counts[4]++;
        } else if (op < 99) {
            what = "team 2 deleted and made again";
            snprintf(q, sizeof q, "DELETE FROM teams WHERE id = %lld", teams[2]);
            q1(pg, q);
            teams[2] = new_team(2);
            counts[5]++;
        } else {
            what = "a batch in one transaction";
            q1(pg, "BEGIN");
            for (int k = 0; k < 20; k++)
                report(pg, teams[rnd(3)], (int)rnd(NAMES));
            q1(pg, "COMMIT");
            counts[6]++;
        }
        check(step, what);
    }
    printf("fleet counts: %d steps (%d reports, %d removals, %d silences, %d images added, %d"
           " deleted, %d team deletions, %d batches), %s nodes at the end, every step equal\n",
           steps, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6],
           q1(pg, "SELECT count(*) FROM nodes"));
    assert_true(counts[0] > 0 && counts[1] > 0 && counts[2] > 0 && counts[4] > 0);
}

static void reports_of_one_key_at_once_fold_without_waiting(void **state)
{
    (void)state;
    PGconn *a = PQconnectdb(db_url), *b = PQconnectdb(db_url);
    assert_int_equal(PQstatus(a), CONNECTION_OK);
    assert_int_equal(PQstatus(b), CONNECTION_OK);
    /* A report waiting on a lock would hang the test: fail it instead. */
    q1(b, "SET lock_timeout = '5s'");
    for (int round = 0; round < 10; round++) {
        q1(a, "BEGIN");
        q1(b, "BEGIN");
        for (int k = 0; k < 5; k++) {
            report(a, teams[0], 100 + round * 10 + k);
            report(b, teams[0], 200 + round * 10 + k);
        }
        q1(round % 2 ? a : b, "COMMIT");
        q1(round % 2 ? b : a, "COMMIT");
        check(round, "two transactions at once");
    }
    /* The rows stay folded: a few per key, not one per report. */
    const char *rows = q1(pg, "SELECT max(c) FROM (SELECT count(*) AS c FROM fleet_counts"
                              " GROUP BY team_id, image_id) x");
    printf("fleet counts: most rows one key holds after the concurrent rounds: %s\n", rows);
    assert_true(atoi(rows) <= 3);
    PQfinish(a);
    PQfinish(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_counts_equal_counting_every_node),
        cmocka_unit_test(reports_of_one_key_at_once_fold_without_waiting),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
