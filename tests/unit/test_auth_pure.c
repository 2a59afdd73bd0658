/* The pure parts of auth, as tables: JWT claim checks at a fixed clock, issuing and verifying
 * with key rotation, cursor encoding and tamper detection, base64url. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api/cursor.h"
#include "auth/password.h"
#include "auth/jwt.h"
#include "util/base64.h"

#define NOW 1800000000LL

struct claims_case {
    const char *name;
    struct imx_jwt_claims c;
    enum imx_jwt_result want;
};

static void claims_are_checked_with_leeway(void **state)
{
    (void)state;
    const struct claims_case cases[] = {
        { "valid",
          { "imaxe", "imaxe-api", "7", true, true, true, NOW + 600, NOW, NOW },
          IMX_JWT_OK },
        { "expired within leeway",
          { "imaxe", "imaxe-api", "7", true, false, true, NOW - 60, 0, NOW - 700 },
          IMX_JWT_OK },
        { "expired past leeway",
          { "imaxe", "imaxe-api", "7", true, false, true, NOW - 61, 0, NOW - 700 },
          IMX_JWT_EXPIRED },
        { "nbf within leeway",
          { "imaxe", "imaxe-api", "7", true, true, true, NOW + 600, NOW + 60, NOW },
          IMX_JWT_OK },
        { "nbf past leeway",
          { "imaxe", "imaxe-api", "7", true, true, true, NOW + 600, NOW + 61, NOW },
          IMX_JWT_NOT_YET_VALID },
        { "iat in the future",
          { "imaxe", "imaxe-api", "7", true, false, true, NOW + 600, 0, NOW + 61 },
          IMX_JWT_NOT_YET_VALID },
        { "no exp",
          { "imaxe", "imaxe-api", "7", false, false, true, 0, 0, NOW },
          IMX_JWT_MALFORMED },
        { "no iat",
          { "imaxe", "imaxe-api", "7", true, false, false, NOW + 600, 0, 0 },
          IMX_JWT_MALFORMED },
        { "wrong issuer",
          { "other", "imaxe-api", "7", true, false, true, NOW + 600, 0, NOW },
          IMX_JWT_BAD_ISSUER },
        { "no issuer",
          { NULL, "imaxe-api", "7", true, false, true, NOW + 600, 0, NOW },
          IMX_JWT_BAD_ISSUER },
        { "wrong audience",
          { "imaxe", "imaxe", "7", true, false, true, NOW + 600, 0, NOW },
          IMX_JWT_BAD_AUDIENCE },
        { "sub not a number",
          { "imaxe", "imaxe-api", "x7", true, false, true, NOW + 600, 0, NOW },
          IMX_JWT_BAD_SUBJECT },
        { "sub zero",
          { "imaxe", "imaxe-api", "0", true, false, true, NOW + 600, 0, NOW },
          IMX_JWT_BAD_SUBJECT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t uid = 0;
        enum imx_jwt_result got = imx_jwt_check_claims(&cases[i].c, NOW, &uid);
        if (got != cases[i].want)
            fail_msg("%s: got %s, want %s", cases[i].name, imx_jwt_result_name(got),
                     imx_jwt_result_name(cases[i].want));
        if (got == IMX_JWT_OK)
            assert_int_equal(uid, 7);
    }
}

#define SECRET_A "0123456789abcdef0123456789abcdef-a"
#define SECRET_B "0123456789abcdef0123456789abcdef-b"

static void issue_verify_and_rotate(void **state)
{
    char err[256];
    int64_t uid = 0;
    (void)state;
    assert_int_equal(imx_jwt_keys_set("too short", NULL, err, sizeof err), -1);
    assert_int_equal(imx_jwt_keys_set(SECRET_A, NULL, err, sizeof err), 0);
    char *a = imx_jwt_issue(42, NOW, 3600);
    assert_non_null(a);
    assert_int_equal(imx_jwt_verify(a, NOW + 10, &uid), IMX_JWT_OK);
    assert_int_equal(uid, 42);
    assert_int_equal(imx_jwt_verify(a, NOW + 3600 + 61, &uid), IMX_JWT_EXPIRED);
    assert_int_equal(imx_jwt_verify(a, NOW - 61, &uid), IMX_JWT_NOT_YET_VALID);

    /* Rotated: B signs, A still verifies by its kid; without A it is unknown. */
    assert_int_equal(imx_jwt_keys_set(SECRET_B, SECRET_A, err, sizeof err), 0);
    assert_int_equal(imx_jwt_verify(a, NOW + 10, &uid), IMX_JWT_OK);
    assert_int_equal(imx_jwt_keys_set(SECRET_B, NULL, err, sizeof err), 0);
    assert_int_equal(imx_jwt_verify(a, NOW + 10, &uid), IMX_JWT_UNKNOWN_KID);

    /* Signature flipped. */
    assert_int_equal(imx_jwt_keys_set(SECRET_A, NULL, err, sizeof err), 0);
    char *sig = strrchr(a, '.') + 1;
    sig[0] = sig[0] == 'A' ? 'B' : 'A';
    assert_int_equal(imx_jwt_verify(a, NOW + 10, &uid), IMX_JWT_BAD_SIGNATURE);
    assert_int_equal(imx_jwt_verify("a.b", NOW, &uid), IMX_JWT_MALFORMED);
    assert_int_equal(imx_jwt_verify("", NOW, &uid), IMX_JWT_MALFORMED);
    free(a);
}

static void cursors_round_trip_and_detect_tampering(void **state)
{
    (void)state;
    const unsigned char key[32] = "cursor-key-for-unit-tests-32byte";
    char out[IMX_CURSOR_MAX];
    assert_int_equal(imx_cursor_set_key(key, 8), -1);
    assert_int_equal(imx_cursor_set_key(key, sizeof key), 0);
    const char *keys[] = { "[1]", "[9007199254740991]", "[\"2026-03-17T00:00:00Z\",5]",
                           "[\"a.b/c?d\",null]" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *k = json_loads(keys[i], 0, NULL);
        assert_int_equal(imx_cursor_encode(k, out, sizeof out), 0);
        assert_null(strpbrk(out, "+/=&?# "));
        json_t *back = imx_cursor_decode(out);
        assert_true(json_equal(k, back));
        json_decref(back);
        /* Any one character changed is detected. */
        for (size_t p = 0; out[p]; p++) {
            char t[IMX_CURSOR_MAX];
            memcpy(t, out, sizeof t);
            t[p] = t[p] == 'x' ? 'y' : 'x';
            json_t *bad = imx_cursor_decode(t);
            if (bad)
                fail_msg("cursor %s accepted with position %zu changed", out, p);
        }
        json_decref(k);
    }
    assert_null(imx_cursor_decode(""));
    assert_null(imx_cursor_decode("."));
    assert_null(imx_cursor_decode("WzFd"));
    assert_int_equal(imx_cursor_encode(NULL, out, sizeof out), -1);
    json_t *one = json_loads("[1]", 0, NULL);
    assert_int_equal(imx_cursor_encode(one, out, 10), -1); /* too small */
    json_decref(one);
}

struct b64_case {
    const char *in, *out;
};

/* Unknown accounts are checked against a fixed hash: it must cost what a real one costs. */
static void the_unknown_account_hash_costs_what_a_real_one_does(void **state)
{
    (void)state;
    assert_int_equal(sodium_init() >= 0, 1);
    assert_true(imx_password_dummy_current());
}

static void base64url_is_canonical(void **state)
{
    (void)state;
    const struct b64_case cases[] = {
        { "", "" },        { "f", "Zg" },        { "fo", "Zm8" },
        { "foo", "Zm9v" }, { "foob", "Zm9vYg" }, { "\xfb\xff", "-_8" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char enc[32];
        unsigned char dec[32];
        imx_b64url_encode((const unsigned char *)cases[i].in, strlen(cases[i].in), enc, sizeof enc);
        assert_string_equal(enc, cases[i].out);
        long n = imx_b64url_decode(enc, strlen(enc), dec, sizeof dec);
        assert_int_equal(n, (long)strlen(cases[i].in));
        assert_memory_equal(dec, cases[i].in, (size_t)n);
    }
    unsigned char d[8];
    assert_int_equal(imx_b64url_decode("Zh", 2, d, sizeof d), -1); /* non-zero padding bits */
    assert_int_equal(imx_b64url_decode("Zg==", 4, d, sizeof d), -1);
    assert_int_equal(imx_b64url_decode("Z", 1, d, sizeof d), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(claims_are_checked_with_leeway),
        cmocka_unit_test(the_unknown_account_hash_costs_what_a_real_one_does),
        cmocka_unit_test(issue_verify_and_rotate),
        cmocka_unit_test(cursors_round_trip_and_detect_tampering),
        cmocka_unit_test(base64url_is_canonical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
