/* Every transition of the request state machine, legal and illegal, for each kind of actor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "domain/request_state.h"

#define C    IMX_REQ_ACTOR_CATALOG
#define R    IMX_REQ_ACTOR_REQUESTER
#define NONE 0u

/* The whole matrix: who may move from each state to each other state (0: illegal). */
static const unsigned allowed[IMX_REQ__COUNT][IMX_REQ__COUNT] = {
    /*                 open  approved building fulfilled rejected withdrawn */
    [IMX_REQ_OPEN] = { NONE, C, NONE, NONE, C, R },
    [IMX_REQ_APPROVED] = { NONE, NONE, C, NONE, C, R },
    [IMX_REQ_BUILDING] = { NONE, NONE, NONE, C, C, R },
    [IMX_REQ_FULFILLED] = { NONE, NONE, NONE, NONE, NONE, NONE },
    [IMX_REQ_REJECTED] = { NONE, NONE, NONE, NONE, NONE, NONE },
    [IMX_REQ_WITHDRAWN] = { NONE, NONE, NONE, NONE, NONE, NONE },
};

static void every_pair_for_every_actor(void **state)
{
    (void)state;
    const unsigned actors[] = { C, R, C | R };
    int checked = 0;
    for (int from = 0; from < IMX_REQ__COUNT; from++) {
        for (int to = 0; to < IMX_REQ__COUNT; to++) {
            for (size_t a = 0; a < 3; a++) {
                struct imx_request_needs needs = { true, true };
                enum imx_request_move got = imx_request_move_check(
                    (enum imx_request_state)from, (enum imx_request_state)to, actors[a], &needs);
                enum imx_request_move want = allowed[from][to] == 0 ? IMX_REQ_MOVE_ILLEGAL
                                             : (allowed[from][to] & actors[a])
                                                 ? IMX_REQ_MOVE_OK
                                                 : IMX_REQ_MOVE_FORBIDDEN;
                if (got != want)
                    fail_msg("%s -> %s as %u: got %d, want %d",
                             imx_request_state_name((enum imx_request_state)from),
                             imx_request_state_name((enum imx_request_state)to), actors[a], got,
                             want);
                if (want != IMX_REQ_MOVE_ILLEGAL) {
                    assert_int_equal(needs.image, to == IMX_REQ_FULFILLED);
                    assert_int_equal(needs.comment, to == IMX_REQ_REJECTED);
                }
                checked++;
            }
        }
    }
    assert_int_equal(checked, IMX_REQ__COUNT * IMX_REQ__COUNT * 3);
}

static void moves_from_lists_the_allowed_ones(void **state)
{
    (void)state;
    enum imx_request_state out[IMX_REQ__COUNT];
    assert_int_equal(imx_request_moves_from(IMX_REQ_OPEN, 0, out), 3);
    assert_int_equal(out[0], IMX_REQ_APPROVED);
    assert_int_equal(out[1], IMX_REQ_REJECTED);
    assert_int_equal(out[2], IMX_REQ_WITHDRAWN);
    assert_int_equal(imx_request_moves_from(IMX_REQ_OPEN, R, out), 1);
    assert_int_equal(out[0], IMX_REQ_WITHDRAWN);
    assert_int_equal(imx_request_moves_from(IMX_REQ_BUILDING, C, out), 2);
    assert_int_equal(out[0], IMX_REQ_FULFILLED);
    for (int s = IMX_REQ_FULFILLED; s <= IMX_REQ_WITHDRAWN; s++) {
        assert_true(imx_request_state_final((enum imx_request_state)s));
        assert_int_equal(imx_request_moves_from((enum imx_request_state)s, 0, out), 0);
    }
    assert_false(imx_request_state_final(IMX_REQ_BUILDING));
}

static void names_round_trip(void **state)
{
    (void)state;
    for (int s = 0; s < IMX_REQ__COUNT; s++)
        assert_int_equal(imx_request_state_parse(imx_request_state_name((enum imx_request_state)s)),
                         s);
    assert_int_equal(imx_request_state_parse("Open"), -1);
    assert_int_equal(imx_request_state_parse(""), -1);
    assert_int_equal(imx_request_state_parse(NULL), -1);
    assert_null(imx_request_state_name(IMX_REQ__COUNT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_pair_for_every_actor),
        cmocka_unit_test(moves_from_lists_the_allowed_ones),
        cmocka_unit_test(names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
