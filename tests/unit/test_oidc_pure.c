/* The pure parts of single sign-on and sessions, as tables: IMAXE_OIDC_GROUP_MAP parsing, what
 * a groups claim grants, ID-token claim checks at a fixed clock, and the Cookie header parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "auth/oidc.h"
#include "auth/session.h"

#define NOW 1800000000LL

static void group_maps_parse_or_say_why(void **state)
{
    (void)state;
    const struct {
        const char *text;
        int rc;
        size_t n;
    } cases[] = {
        { "", 0, 0 },
        { "ml=ml-platform:member", 0, 1 },
        { " ml = ml-platform : member , admins=ops:admin,", 0, 2 },
        { "cn=ml=ml-platform:viewer", 0, 1 }, /* the last '=' splits group from team */
        { "ml-platform:member", -1, 0 },
        { "ml=ml-platform", -1, 0 },
        { "ml=ML Platform:member", -1, 0 },
        { "ml=ml-platform:owner", -1, 0 },
        { "=ml-platform:member", -1, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct imx_oidc_map m;
        char err[256] = "";
        int rc = imx_oidc_map_parse(cases[i].text, &m, err, sizeof err);
        if (rc != cases[i].rc)
            fail_msg("'%s': rc %d (%s)", cases[i].text, rc, err);
        if (rc == 0)
            assert_int_equal(m.n, cases[i].n);
        else
            assert_non_null(strstr(err, "IMAXE_OIDC_GROUP_MAP"));
    }
    struct imx_oidc_map m;
    char err[256];
    assert_int_equal(imx_oidc_map_parse("cn=ml=ml-platform:viewer", &m, err, sizeof err), 0);
    assert_string_equal(m.e[0].group, "cn=ml");
}

static void groups_grant_the_highest_mapped_role(void **state)
{
    (void)state;
    struct imx_oidc_map m;
    char err[256];
    assert_int_equal(imx_oidc_map_parse("eng=ml:member, admins=ml:admin, admins=ops:publisher, "
                                        "readers=ml:viewer",
                                        &m, err, sizeof err),
                     0);
    struct imx_oidc_grant g[8];
    const char *const both[] = { "readers", "admins", "other" };
    size_t n = imx_oidc_grants(&m, both, 3, g, 8);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].team, "ml");
    assert_string_equal(g[0].role, "admin");
    assert_string_equal(g[1].team, "ops");
    assert_string_equal(g[1].role, "publisher");
    const char *const eng[] = { "eng" };
    n = imx_oidc_grants(&m, eng, 1, g, 8);
    assert_string_equal(g[0].role, "member");
    assert_string_equal(g[1].role, ""); /* mapped, not granted: the membership goes */
    n = imx_oidc_grants(&m, NULL, 0, g, 8);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].role, "");
}

static void id_token_claims_are_checked(void **state)
{
    (void)state;
    const struct imx_oidc_expect x = {
        .issuer = "https://idp.test", .client_id = "imaxe", .nonce = "n0nce", .now = NOW
    };
    /* A device sign-in's: the provider need not echo the nonce, but may not send another. */
    struct imx_oidc_expect dx = x;
    dx.nonce_optional = true;
    const struct {
        const char *name, *json;
        bool ok, device_ok;
    } cases[] = {
        { "valid",
          "{\"iss\":\"https://idp.test\",\"aud\":\"imaxe\",\"sub\":\"u1\",\"exp\":%lld,"
          "\"iat\":%lld,\"nonce\":\"n0nce\"}",
          true, true },
        { "aud list with azp",
          "{\"iss\":\"https://idp.test\",\"aud\":[\"imaxe\",\"x\"],\"azp\":"
          "\"imaxe\",\"sub\":\"u1\",\"exp\":%lld,\"iat\":%lld,\"nonce\":"
          "\"n0nce\"}",
          true, true },
        { "aud list without azp",
          "{\"iss\":\"https://idp.test\",\"aud\":[\"imaxe\",\"x\"],"
          "\"sub\":\"u1\",\"exp\":%lld,\"iat\":%lld,\"nonce\":\"n0nce\"}",
          false, false },
        { "other issuer",
          "{\"iss\":\"https://evil.test\",\"aud\":\"imaxe\",\"sub\":\"u1\","
          "\"exp\":%lld,\"iat\":%lld,\"nonce\":\"n0nce\"}",
          false, false },
        { "other client",
          "{\"iss\":\"https://idp.test\",\"aud\":\"other\",\"sub\":\"u1\","
          "\"exp\":%lld,\"iat\":%lld,\"nonce\":\"n0nce\"}",
          false, false },
        { "other nonce",
          "{\"iss\":\"https://idp.test\",\"aud\":\"imaxe\",\"sub\":\"u1\","
          "\"exp\":%lld,\"iat\":%lld,\"nonce\":\"replayed\"}",
          false, false },
        { "no nonce",
          "{\"iss\":\"https://idp.test\",\"aud\":\"imaxe\",\"sub\":\"u1\","
          "\"exp\":%lld,\"iat\":%lld}",
          false, true },
        { "no sub",
          "{\"iss\":\"https://idp.test\",\"aud\":\"imaxe\",\"exp\":%lld,\"iat\":%lld,"
          "\"nonce\":\"n0nce\"}",
          false, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, cases[i].json, NOW + 300, NOW);
        json_t *c = json_loads(text, 0, NULL);
        assert_non_null(c);
        const char *why = imx_oidc_claims_check(c, &x);
        if ((why == NULL) != cases[i].ok)
            fail_msg("%s: %s", cases[i].name, why ? why : "accepted");
        why = imx_oidc_claims_check(c, &dx);
        if ((why == NULL) != cases[i].device_ok)
            fail_msg("device, %s: %s", cases[i].name, why ? why : "accepted");
        json_decref(c);
    }
    /* Expired beyond the leeway, and issued in the future beyond it. */
    const long long times[][3] = { { NOW - 61, NOW - 600, 0 },
                                   { NOW - 59, NOW - 600, 1 },
                                   { NOW + 900, NOW + 61, 0 } };
    for (size_t i = 0; i < 3; i++) {
        json_t *c = json_pack("{s:s, s:s, s:s, s:I, s:I, s:s}", "iss", "https://idp.test", "aud",
                              "imaxe", "sub", "u1", "exp", (json_int_t)times[i][0], "iat",
                              (json_int_t)times[i][1], "nonce", "n0nce");
        assert_int_equal(imx_oidc_claims_check(c, &x) == NULL, times[i][2] == 1);
        json_decref(c);
    }
}

static void cookies_are_found_by_whole_name(void **state)
{
    (void)state;
    char v[64];
    assert_true(imx_session_cookie_in("a=1; imaxe_session=abc; b=2", "imaxe_session", v, sizeof v));
    assert_string_equal(v, "abc");
    assert_false(imx_session_cookie_in("ximaxe_session=abc", "imaxe_session", v, sizeof v));
    assert_false(imx_session_cookie_in("imaxe_session=", "imaxe_session", v, sizeof v));
    assert_false(imx_session_cookie_in(NULL, "imaxe_session", v, sizeof v));
    assert_false(imx_session_cookie_in("imaxe_session=0123456789", "imaxe_session", v, 5));
    assert_true(
        imx_session_cookie_in("imaxe_csrf=t;imaxe_session=s", "imaxe_session", v, sizeof v));
    assert_string_equal(v, "s");
    assert_true(imx_session_unsafe_method("POST") && imx_session_unsafe_method("DELETE"));
    assert_false(imx_session_unsafe_method("GET") || imx_session_unsafe_method("HEAD"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(group_maps_parse_or_say_why),
        cmocka_unit_test(groups_grant_the_highest_mapped_role),
        cmocka_unit_test(id_token_claims_are_checked),
        cmocka_unit_test(cookies_are_found_by_whole_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
