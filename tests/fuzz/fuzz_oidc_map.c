/* Fuzz target for IMAXE_OIDC_GROUP_MAP's parser and the grants it makes (server/auth/oidc.c):
 * any text either parses into entries that hold (a group with no surrounding blanks or comma, a
 * team slug, one of the four roles, at most IMX_OIDC_MAP_MAX) and that write back to text parsing
 * to the same map, or is refused with a message; the grants name each mapped team once, give
 * nothing to a caller in no group and the highest mapped role to a caller in every group. Built
 * with -DIMX_LIBFUZZER for libFuzzer, otherwise a bounded, deterministic run from seeds (part of
 * the unit tests). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/oidc.h"
#include "driver.h"

#define FUZZ_INPUT_MAX 4096

static int rank(const char *r)
{
    static const char *const roles[] = { "viewer", "member", "publisher", "admin" };
    for (int i = 0; i < 4; i++)
        if (strcmp(r, roles[i]) == 0)
            return i + 1;
    return 0;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool slug(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || (s[i] == '-' && i)))
            return false;
    return true;
}

int imx_fuzz_one(const uint8_t *data, size_t size)
{
    if (size > FUZZ_INPUT_MAX)
        return 0;
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    static struct imx_oidc_map map, again;
    char err[256];
    memset(err, 0, sizeof err);
    int rc = imx_oidc_map_parse(s, &map, err, sizeof err);
    CHECK(rc == 0 || rc == -1);
    if (rc != 0) {
        CHECK(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
        free(s);
        return 0;
    }
    CHECK(map.n <= IMX_OIDC_MAP_MAX);
    /* Each entry holds, and the map writes back to text that parses to the same map. */
    static char text[IMX_OIDC_MAP_MAX * 220];
    size_t at = 0;
    text[0] = '\0';
    for (size_t i = 0; i < map.n; i++) {
        const struct imx_oidc_map_entry *e = &map.e[i];
        size_t g = strlen(e->group);
        CHECK(g > 0 && !blank(e->group[0]) && !blank(e->group[g - 1]));
        CHECK(!strchr(e->group, ','));
        CHECK(slug(e->team));
        CHECK(rank(e->role) > 0);
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%s=%s:%s", i ? "," : "", e->group,
                               e->team, e->role);
    }
    CHECK_ON(imx_oidc_map_parse(text, &again, err, sizeof err) == 0, text);
    CHECK_ON(again.n == map.n, text);
    for (size_t i = 0; i < map.n; i++) {
        CHECK_ON(strcmp(again.e[i].group, map.e[i].group) == 0, text);
        CHECK_ON(strcmp(again.e[i].team, map.e[i].team) == 0, text);
        CHECK_ON(strcmp(again.e[i].role, map.e[i].role) == 0, text);
    }
    /* In no group: every mapped team named once, with no role. In every group: the highest. */
    static struct imx_oidc_grant grants[IMX_OIDC_MAP_MAX];
    static const char *groups[IMX_OIDC_MAP_MAX];
    size_t ng = imx_oidc_grants(&map, NULL, 0, grants, IMX_OIDC_MAP_MAX);
    CHECK(ng <= map.n);
    for (size_t i = 0; i < ng; i++) {
        CHECK(grants[i].role[0] == '\0');
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(grants[i].team, grants[j].team) != 0);
    }
    for (size_t i = 0; i < map.n; i++) {
        bool named = false;
        for (size_t j = 0; j < ng && !named; j++)
            named = strcmp(grants[j].team, map.e[i].team) == 0;
        CHECK(named);
        groups[i] = map.e[i].group;
    }
    ng = imx_oidc_grants(&map, groups, map.n, grants, IMX_OIDC_MAP_MAX);
    for (size_t i = 0; i < ng; i++) {
        int best = 0;
        for (size_t j = 0; j < map.n; j++)
            if (strcmp(map.e[j].team, grants[i].team) == 0 && rank(map.e[j].role) > best)
                best = rank(map.e[j].role);
        CHECK(rank(grants[i].role) == best);
    }
    free(s);
    return 0;
}

#ifndef IMX_LIBFUZZER

static const char *const seeds[] = {
    "ml-engineers=ml-platform:member",
    " a=t:viewer , b=t:admin,c=u-2:publisher ",
    "cn=ml=ml:member",
    "g=team:owner",
    "g=Team:member",
    ",,g=t:member,,",
    "g:x=t:member",
    "=t:member",
    "g=:member",
    "g=t:",
    "",
};

const struct imx_fuzz_replay imx_fuzz_replay = {
    IMX_FUZZ_SEEDS(seeds),
    .alphabet = "abz09-=:, \tGmemberviewadminpublish",
    .max_edits = 4,
    .raw_one_in = 50,
    .cap = FUZZ_INPUT_MAX,
    .iterations = 100000,
    .rng = 0x2545f4914f6cdd1du,
};

#endif /* IMX_LIBFUZZER */
