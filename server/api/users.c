/* POST /v1/users: global admins create accounts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "auth/auth.h"
#include "auth/password.h"
#include "db/auth.h"
#include "api/tx.h"

static const struct imx_api_field user_fields[] = {
    { "email", JSON_STRING, true },
    { "password", JSON_STRING, true },
    { "display_name", JSON_STRING, false },
    { "admin", JSON_TRUE, false },
    { NULL, JSON_NULL, false },
};

struct create_user {
    const char *email, *display_name;
    bool admin;
    char hash[crypto_pwhash_STRBYTES];
};

static bool email_ok(const char *s)
{
    const char *at = strchr(s, '@');
    return strlen(s) <= 254 && at && at != s && at[1] && !strchr(at + 1, '@') &&
           !strpbrk(s, " \t\r\n");
}

static int create_user_tx(struct imx_req *r, void *cls)
{
    struct imx_db_fault why = { 0 };
    struct create_user *u = cls;
    int64_t new_id;
    struct imx_db_json j;
    enum imx_db_status st = imx_db_user_create(imx_api_conn(r), u->email, u->display_name, u->hash,
                                               u->admin ? "true" : "false", &new_id, &j, &why);
    if (st == IMX_DBS_CONFLICT) {
        imx_reply_problem(r, IMX_E_CONFLICT, "A user with this email exists");
        return -1;
    }
    if (st != IMX_DBS_OK)
        return imx_api_tx_fail(r, st, &why);
    json_t *user = imx_api_json_load(&j);
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)new_id);
    json_t *detail = json_pack("{s:s, s:b}", "email", u->email, "admin", u->admin);
    int rc = imx_audit(r, "create", "user", id, detail);
    json_decref(detail);
    if (rc != 0) {
        json_decref(user);
        return -1;
    }
    imx_reply_json_steal(r, 201, user);
    return 0;
}

void imx_api_user_create(struct imx_req *r)
{
    json_t *body = imx_req_json(r);
    if (!body)
        return;
    json_t *errors = json_array();
    imx_api_check_fields(body, user_fields, errors);
    struct create_user u = {
        .email = json_string_value(json_object_get(body, "email")),
        .display_name = json_string_value(json_object_get(body, "display_name")),
        .admin = json_is_true(json_object_get(body, "admin")),
    };
    const char *password = json_string_value(json_object_get(body, "password"));
    if (u.email && !email_ok(u.email))
        imx_verr(errors, "/email", "must be an email address of at most 254 characters");
    if (password && (strlen(password) < IMX_PASSWORD_MIN || strlen(password) > IMX_PASSWORD_MAX))
        imx_verr(errors, "/password", "must be %d to %d characters", IMX_PASSWORD_MIN,
                 IMX_PASSWORD_MAX);
    if (u.display_name && strlen(u.display_name) > 200)
        imx_verr(errors, "/display_name", "must be at most 200 characters");
    if (json_array_size(errors) > 0) {
        imx_reply_invalid_steal(r, errors, "The user has invalid fields");
        return;
    }
    json_decref(errors);
    if (!u.display_name)
        u.display_name = "";
    int hashed = imx_password_hash(password, u.hash);
    if (hashed == IMX_PASSWORD_BUSY) {
        imx_reply_header(r, "Retry-After", "1");
        imx_reply_problem(r, IMX_E_BUSY, "Every password slot is busy; try again in a second");
        return;
    }
    if (hashed != 0) {
        imx_reply_problem(r, IMX_E_INTERNAL, NULL);
        return;
    }
    imx_api_tx(r, create_user_tx, &u);
    sodium_memzero(u.hash, sizeof u.hash);
}
