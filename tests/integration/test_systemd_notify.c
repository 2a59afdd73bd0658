/* systemd readiness protocol: under Type=notify the server sends READY=1 once it is migrated
 * and listening, and STOPPING=1 when SIGTERM starts the drain. The test plays systemd: it
 * listens on the datagram socket named by NOTIFY_SOCKET. */
#include "harness.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Waits up to timeout_ms for a datagram containing want; returns whether one came. */
static bool receive_state(int fd, const char *want, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 100) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 100) <= 0)
            continue;
        char buf[1024];
        ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        if (strstr(buf, want))
            return true;
    }
    return false;
}

/* Fills srv->port and srv->base from the "listening on http://ADDR:PORT/" log line. */
static bool port_from_log(struct imx_srv *srv)
{
    srv->port = imx_t_port_from_log(srv->log_path);
    snprintf(srv->base, sizeof srv->base, "http://127.0.0.1:%u", srv->port);
    return srv->port != 0;
}

static void ready_after_listening_and_stopping_on_sigterm(void **state)
{
    (void)state;
    const char *db = imx_t_db_create("notify");
    char conninfo[1024], path[700], env_socket[800];
    snprintf(conninfo, sizeof conninfo, "%s", db);
    snprintf(path, sizeof path, "%s/notify.sock", imx_t_tmpdir("notify"));

    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    assert_true(strlen(path) < sizeof sa.sun_path);
    memcpy(sa.sun_path, path, strlen(path) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);

    snprintf(env_socket, sizeof env_socket, "NOTIFY_SOCKET=%s", path);
    const char *env[] = { env_socket, NULL };
    struct imx_srv srv;
    assert_int_equal(imx_t_server_spawn(&srv, conninfo, env), 0);
    assert_true(receive_state(fd, "READY=1", 30000));
    /* READY=1 means migrated and listening: the log already names the port, and /readyz
     * answers 200 at once, with no retry. */
    assert_true(port_from_log(&srv));
    struct imx_res res;
    assert_int_equal(imx_t_http(&srv, "GET", "/readyz", NULL, NULL, &res), 0);
    assert_int_equal(res.status, 200);
    imx_t_res_free(&res);

    kill(srv.pid, SIGTERM);
    assert_true(receive_state(fd, "STOPPING=1", 15000));
    assert_int_equal(imx_t_server_wait(&srv, 15), 0);
    close(fd);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ready_after_listening_and_stopping_on_sigterm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
