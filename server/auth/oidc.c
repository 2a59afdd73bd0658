/* OpenID Connect sign-in: settings, discovery, JWKS with rotation, ID-token validation and the
 * group map (auth/oidc.h). */
#include "auth/oidc.h"

#include <ctype.h>
#include <curl/curl.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/base64.h"
#include "util/log.h"

static const char *const roles[] = { "viewer", "member", "publisher", "admin" };

static int role_rank(const char *r)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(r, roles[i]) == 0)
            return i + 1;
    return 0;
}

static bool slug_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
            return false;
    return true;
}

/* Copies [b, e) without surrounding spaces into out (len bytes). Returns -1 when it does not
 * fit or is empty. */
static int trimmed(const char *b, const char *e, char *out, size_t len)
{
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if (e == b || (size_t)(e - b) >= len)
        return -1;
    memcpy(out, b, (size_t)(e - b));
    out[e - b] = '\0';
    return 0;
}

int imx_oidc_map_parse(const char *text, struct imx_oidc_map *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (const char *p = text ? text : ""; *p;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *b = p;
        while (b < end && isspace((unsigned char)*b))
            b++;
        if (b < end) {
            /* The group is everything before the last '=': group names may hold '=' (an LDAP
             * DN such as cn=ml,ou=groups would need its commas escaped, which we do not read). */
            const char *eq = NULL, *colon = NULL;
            for (const char *q = b; q < end; q++)
                if (*q == '=')
                    eq = q;
            if (eq)
                colon = memchr(eq, ':', (size_t)(end - eq));
            if (out->n == IMX_OIDC_MAP_MAX) {
                snprintf(err, errlen, "IMAXE_OIDC_GROUP_MAP has more than %d entries",
                         IMX_OIDC_MAP_MAX);
                return -1;
            }
            struct imx_oidc_map_entry *m = &out->e[out->n];
            if (!eq || !colon || trimmed(b, eq, m->group, sizeof m->group) != 0 ||
                trimmed(eq + 1, colon, m->team, sizeof m->team) != 0 ||
                trimmed(colon + 1, end, m->role, sizeof m->role) != 0) {
                snprintf(err, errlen,
                         "IMAXE_OIDC_GROUP_MAP entry '%.*s' is not group=team:role (e.g. "
                         "ml-engineers=ml-platform:member)",
                         (int)(end - b > 80 ? 80 : end - b), b);
                return -1;
            }
            if (!slug_ok(m->team)) {
                snprintf(err, errlen, "IMAXE_OIDC_GROUP_MAP: '%s' is not a team slug", m->team);
                return -1;
            }
            if (!role_rank(m->role)) {
                snprintf(err, errlen,
                         "IMAXE_OIDC_GROUP_MAP: role '%s' is not viewer, member, publisher or "
                         "admin",
                         m->role);
                return -1;
            }
            out->n++;
        }
        p = *end ? end + 1 : end;
    }
    return 0;
}

size_t imx_oidc_grants(const struct imx_oidc_map *map, const char *const *groups, size_t ngroups,
                       struct imx_oidc_grant *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < map->n; i++) {
        const struct imx_oidc_map_entry *m = &map->e[i];
        size_t t = 0;
        while (t < n && strcmp(out[t].team, m->team) != 0)
            t++;
        if (t == n) {
            if (n == max)
                continue;
            snprintf(out[n].team, sizeof out[n].team, "%s", m->team);
            out[n].role[0] = '\0';
            n++;
        }
        bool member = false;
        for (size_t g = 0; g < ngroups && !member; g++)
            member = strcmp(groups[g], m->group) == 0;
        if (member && role_rank(m->role) > role_rank(out[t].role))
            snprintf(out[t].role, sizeof out[t].role, "%s", m->role);
    }
    return n;
}

const char *imx_oidc_claims_check(const json_t *c, const struct imx_oidc_expect *x)
{
    if (!json_is_object(c))
        return "the ID token's claims are not an object";
    const char *iss = json_string_value(json_object_get(c, "iss"));
    if (!iss || strcmp(iss, x->issuer) != 0)
        return "the ID token's issuer (iss) is not the configured provider";
    const json_t *aud = json_object_get(c, "aud");
    bool ours = false;
    size_t naud = 0;
    if (json_is_string(aud)) {
        ours = strcmp(json_string_value(aud), x->client_id) == 0;
        naud = 1;
    } else if (json_is_array(aud)) {
        size_t i;
        const json_t *a;
        json_array_foreach(aud, i, a)
        {
            if (json_is_string(a) && strcmp(json_string_value(a), x->client_id) == 0)
                ours = true;
        }
        naud = json_array_size(aud);
    }
    if (!ours)
        return "the ID token is not for this client (aud)";
    const char *azp = json_string_value(json_object_get(c, "azp"));
    if ((naud > 1 || azp) && (!azp || strcmp(azp, x->client_id) != 0))
        return "the ID token's authorized party (azp) is not this client";
    const json_t *exp = json_object_get(c, "exp"), *iat = json_object_get(c, "iat");
    if (!json_is_integer(exp) || json_integer_value(exp) + IMX_OIDC_LEEWAY_S < x->now)
        return "the ID token has expired (exp)";
    if (!json_is_integer(iat) || json_integer_value(iat) > x->now + IMX_OIDC_LEEWAY_S)
        return "the ID token was issued in the future (iat)";
    const json_t *nj = json_object_get(c, "nonce");
    const char *nonce = json_string_value(nj);
    if (x->nonce_optional && !nj)
        ; /* a device sign-in: the provider need not echo the nonce (RFC 8628 has none) */
    else if (!nonce || !x->nonce || strcmp(nonce, x->nonce) != 0)
        return "the ID token's nonce is not the one this sign-in sent";
    const char *sub = json_string_value(json_object_get(c, "sub"));
    if (!sub || !*sub || strlen(sub) > 255)
        return "the ID token names no subject (sub)";
    return NULL;
}

/* ---- settings and provider state ------------------------------------------------------- */

static struct {
    char issuer[512];
    char client_id[256];
    char *client_secret; /* NULL: a public client (PKCE only) */
    char redirect_url[512];
    char scopes[256];
    char groups_claim[64];
    char name[64];
    unsigned timeout_ms;
    struct imx_oidc_map map;
} cfg;

/* The provider as discovered, and its keys. Guarded by lock; fetched lazily so that a provider
 * down at start-up does not keep imaxe from starting (password sign-in still works). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *discovery; /* the discovery document, or NULL until fetched */
static json_t *jwks;      /* the "keys" array of the last JWKS fetched */
static time_t jwks_at;    /* when it was fetched */

bool imx_oidc_enabled(void)
{
    return cfg.issuer[0] != '\0';
}

const char *imx_oidc_name(void)
{
    return cfg.name;
}

const struct imx_oidc_map *imx_oidc_group_map(void)
{
    return &cfg.map;
}

/* Whether url is https, or http to a loopback address (a provider run by a test or a developer). */
static bool url_allowed(const char *url)
{
    if (strncmp(url, "https://", 8) == 0)
        return true;
    return strncmp(url, "http://127.", 11) == 0 || strncmp(url, "http://localhost", 16) == 0 ||
           strncmp(url, "http://[::1]", 12) == 0;
}

static void env_copy(char *dst, size_t len, const char *name, const char *def)
{
    const char *s = getenv(name);
    snprintf(dst, len, "%s", s && *s ? s : def);
}

int imx_oidc_init(char *err, size_t errlen)
{
    env_copy(cfg.issuer, sizeof cfg.issuer, "IMAXE_OIDC_ISSUER", "");
    if (!cfg.issuer[0])
        return 0;
    /* The issuer is compared to iss exactly, as OpenID Connect Discovery says. */
    env_copy(cfg.client_id, sizeof cfg.client_id, "IMAXE_OIDC_CLIENT_ID", "");
    env_copy(cfg.redirect_url, sizeof cfg.redirect_url, "IMAXE_OIDC_REDIRECT_URL", "");
    env_copy(cfg.scopes, sizeof cfg.scopes, "IMAXE_OIDC_SCOPES", "openid email profile");
    env_copy(cfg.groups_claim, sizeof cfg.groups_claim, "IMAXE_OIDC_GROUPS_CLAIM", "groups");
    env_copy(cfg.name, sizeof cfg.name, "IMAXE_OIDC_NAME", "single sign-on");
    char t[16];
    env_copy(t, sizeof t, "IMAXE_OIDC_TIMEOUT_MS", "5000");
    unsigned long long ms = 0;
    if (imx_parse_uint(t, 100, 60000, &ms) != 0) {
        snprintf(err, errlen, "IMAXE_OIDC_TIMEOUT_MS must be a whole number from 100 to 60000");
        return -1;
    }
    cfg.timeout_ms = (unsigned)ms;
    if (!cfg.client_id[0] || !cfg.redirect_url[0]) {
        snprintf(err, errlen,
                 "IMAXE_OIDC_ISSUER is set: IMAXE_OIDC_CLIENT_ID and IMAXE_OIDC_REDIRECT_URL "
                 "(https://<imaxe>/v1/auth/oidc/callback) are needed too");
        return -1;
    }
    if (!url_allowed(cfg.issuer)) {
        snprintf(err, errlen, "IMAXE_OIDC_ISSUER must be an https URL (got '%.200s')", cfg.issuer);
        return -1;
    }
    int failed = 0;
    cfg.client_secret = imx_config_secret("IMAXE_OIDC_CLIENT_SECRET", &failed);
    if (failed) {
        snprintf(err, errlen, "IMAXE_OIDC_CLIENT_SECRET_FILE cannot be read");
        return -1;
    }
    return imx_oidc_map_parse(getenv("IMAXE_OIDC_GROUP_MAP"), &cfg.map, err, errlen);
}

/* ---- HTTP to the provider ---------------------------------------------------------------- */

struct body {
    char *p;
    size_t n;
    bool over;
};

static size_t on_data(char *d, size_t sz, size_t nm, void *cls)
{
    struct body *b = cls;
    size_t n = sz * nm;
    if (b->n + n > IMX_OIDC_DOC_MAX) {
        b->over = true;
        return 0;
    }
    char *p = realloc(b->p, b->n + n + 1);
    if (!p)
        return 0;
    memcpy(p + b->n, d, n);
    b->n += n;
    p[b->n] = '\0';
    b->p = p;
    return n;
}

/* GET url (or POST form when form is not NULL) and parse the JSON answer. Returns a new
 * reference, or NULL with why in err. *status gets the HTTP status. */
static json_t *fetch_json(const char *url, const char *form, long *status, char *err, size_t errlen)
{
    *status = 0;
    if (!url_allowed(url)) {
        snprintf(err, errlen, "the provider's URL %.200s is not https", url);
        return NULL;
    }
    CURL *curl = curl_easy_init();
    if (!curl) {
        snprintf(err, errlen, "libcurl cannot start");
        return NULL;
    }
    struct body b = { 0 };
    struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)cfg.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)cfg.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "imaxe");
    if (form)
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, form);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    curl_slist_free_all(h);
    curl_easy_cleanup(curl);
    json_t *doc = NULL;
    if (rc != CURLE_OK)
        snprintf(err, errlen, "%s: %s", url,
                 b.over ? "the answer is too large" : curl_easy_strerror(rc));
    else if (!(doc = b.p ? json_loads(b.p, 0, NULL) : NULL) || !json_is_object(doc)) {
        snprintf(err, errlen, "%s answered %ld without a JSON object", url, *status);
        json_decref(doc);
        doc = NULL;
    }
    free(b.p);
    return doc;
}

/* The discovery document (borrowed; lock held by the caller), fetched when not yet had. */
static json_t *discovered(char *err, size_t errlen)
{
    if (discovery)
        return discovery;
    char url[600];
    size_t n = strlen(cfg.issuer);
    snprintf(url, sizeof url, "%.*s/.well-known/openid-configuration",
             (int)(n && cfg.issuer[n - 1] == '/' ? n - 1 : n), cfg.issuer);
    long status;
    json_t *d = fetch_json(url, NULL, &status, err, errlen);
    if (!d)
        return NULL;
    const char *iss = json_string_value(json_object_get(d, "issuer"));
    if (status != 200 || !iss || strcmp(iss, cfg.issuer) != 0 ||
        !json_string_value(json_object_get(d, "authorization_endpoint")) ||
        !json_string_value(json_object_get(d, "token_endpoint")) ||
        !json_string_value(json_object_get(d, "jwks_uri"))) {
        snprintf(err, errlen,
                 "the discovery document at %s is not for issuer %s, or lacks an endpoint", url,
                 cfg.issuer);
        json_decref(d);
        return NULL;
    }
    discovery = d;
    return d;
}

/* Fetches the JWKS again (lock held). Returns 0 or -1 with why. */
static int jwks_fetch(char *err, size_t errlen)
{
    json_t *d = discovered(err, errlen);
    if (!d)
        return -1;
    long status;
    json_t *doc =
        fetch_json(json_string_value(json_object_get(d, "jwks_uri")), NULL, &status, err, errlen);
    if (!doc)
        return -1;
    json_t *keys = json_object_get(doc, "keys");
    if (status != 200 || !json_is_array(keys)) {
        snprintf(err, errlen, "the provider's JWKS has no keys array");
        json_decref(doc);
        return -1;
    }
    json_decref(jwks);
    jwks = json_incref(keys);
    jwks_at = time(NULL);
    json_decref(doc);
    imx_info("oidc: read %zu signing keys from the provider", json_array_size(jwks));
    return 0;
}

/* The JWK with kid (any, when kid is NULL and there is one key) for alg's key type: a new
 * reference. Fetches the keys again once when none matches, unless they were fetched less than
 * IMX_OIDC_JWKS_MIN_S ago (a flood of tokens naming made-up keys costs the provider nothing). */
static json_t *jwk_for(const char *kid, const char *kty, char *err, size_t errlen)
{
    pthread_mutex_lock(&lock);
    json_t *found = NULL;
    for (int pass = 0; pass < 2 && !found; pass++) {
        if (pass == 1 || !jwks) {
            if (jwks && time(NULL) - jwks_at < IMX_OIDC_JWKS_MIN_S) {
                snprintf(err, errlen, "no signing key %s (the keys were read %lds ago)",
                         kid ? kid : "(unnamed)", (long)(time(NULL) - jwks_at));
                break;
            }
            if (jwks_fetch(err, errlen) != 0)
                break;
        }
        size_t i;
        json_t *k;
        json_array_foreach(jwks, i, k)
        {
            const char *kk = json_string_value(json_object_get(k, "kid"));
            const char *ty = json_string_value(json_object_get(k, "kty"));
            const char *use = json_string_value(json_object_get(k, "use"));
            if (!ty || strcmp(ty, kty) != 0 || (use && strcmp(use, "sig") != 0))
                continue;
            if (kid ? (kk && strcmp(kk, kid) == 0) : json_array_size(jwks) == 1) {
                found = json_incref(k);
                break;
            }
        }
        if (!found && pass == 1)
            snprintf(err, errlen, "the provider has no signing key %s", kid ? kid : "(unnamed)");
    }
    pthread_mutex_unlock(&lock);
    return found;
}

/* ---- keys and signatures ------------------------------------------------------------------- */

/* base64url member name of jwk into out; returns the length or -1. */
static long b64_member(const json_t *jwk, const char *name, unsigned char *out, size_t len)
{
    const char *s = json_string_value(json_object_get(jwk, name));
    return s ? imx_b64url_decode(s, strlen(s), out, len) : -1;
}

static EVP_PKEY *pkey_from_jwk(const json_t *jwk, bool ec)
{
    unsigned char a[1024], b[1024];
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    BIGNUM *n = NULL, *e = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    if (!bld)
        return NULL;
    if (ec) {
        const char *crv = json_string_value(json_object_get(jwk, "crv"));
        long xl = b64_member(jwk, "x", a, sizeof a), yl = b64_member(jwk, "y", b, sizeof b);
        unsigned char pub[65];
        if (!crv || strcmp(crv, "P-256") != 0 || xl != 32 || yl != 32)
            goto out;
        pub[0] = 0x04;
        memcpy(pub + 1, a, 32);
        memcpy(pub + 33, b, 32);
        if (!OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
            !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub))
            goto out;
    } else {
        long nl = b64_member(jwk, "n", a, sizeof a), el = b64_member(jwk, "e", b, sizeof b);
        /* 2048 bits at least: a shorter RSA key is not one a provider should sign with. */
        if (nl < 256 || el < 1 || el > 8)
            goto out;
        n = BN_bin2bn(a, (int)nl, NULL);
        e = BN_bin2bn(b, (int)el, NULL);
        if (!n || !e || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
            !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
            goto out;
    }
    params = OSSL_PARAM_BLD_to_param(bld);
    ctx = EVP_PKEY_CTX_new_from_name(NULL, ec ? "EC" : "RSA", NULL);
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pkey = NULL;
out:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    BN_free(n);
    BN_free(e);
    return pkey;
}

/* Verifies sig over data with pkey (SHA-256). ES256's signature is r || s, which OpenSSL wants
 * as DER. Returns whether it holds. */
static bool verify_sig(EVP_PKEY *pkey, bool ec, const unsigned char *data, size_t dlen,
                       const unsigned char *sig, size_t slen)
{
    unsigned char der[80];
    const unsigned char *s = sig;
    size_t sl = slen;
    if (ec) {
        if (slen != 64)
            return false;
        ECDSA_SIG *es = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(sig, 32, NULL), *ss = BN_bin2bn(sig + 32, 32, NULL);
        if (!es || !r || !ss || ECDSA_SIG_set0(es, r, ss) != 1) {
            ECDSA_SIG_free(es);
            BN_free(r);
            BN_free(ss);
            return false;
        }
        unsigned char *p = der;
        int len = i2d_ECDSA_SIG(es, NULL);
        if (len <= 0 || (size_t)len > sizeof der) {
            ECDSA_SIG_free(es);
            return false;
        }
        i2d_ECDSA_SIG(es, &p);
        ECDSA_SIG_free(es);
        s = der;
        sl = (size_t)len;
    }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1 &&
              EVP_DigestVerify(md, s, sl, data, dlen) == 1;
    EVP_MD_CTX_free(md);
    return ok;
}

/* Decodes a base64url JSON part of a JWT into a new object, or NULL. */
static json_t *jwt_part(const char *b, size_t n)
{
    if (n > 64 * 1024)
        return NULL;
    unsigned char *buf = malloc(n);
    if (!buf)
        return NULL;
    long len = imx_b64url_decode(b, n, buf, n);
    json_t *j = len > 0 ? json_loadb((const char *)buf, (size_t)len, 0, NULL) : NULL;
    free(buf);
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Verifies the ID token's signature with the provider's keys. Returns its claims (new) or NULL
 * with why; *upstream true when the keys could not be had. */
static json_t *id_token_verified(const char *tok, bool *upstream, char *err, size_t errlen)
{
    const char *d1 = strchr(tok, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (!d1 || !d2 || strchr(d2 + 1, '.')) {
        snprintf(err, errlen, "the ID token is not a signed JWT");
        return NULL;
    }
    json_t *hdr = jwt_part(tok, (size_t)(d1 - tok));
    const char *alg = hdr ? json_string_value(json_object_get(hdr, "alg")) : NULL;
    /* Only the algorithms named here: never "none", never HS256 with a public key. */
    bool ec = alg && strcmp(alg, "ES256") == 0;
    if (!alg || (!ec && strcmp(alg, "RS256") != 0)) {
        snprintf(err, errlen, "the ID token is signed with %s, not RS256 or ES256",
                 alg ? alg : "no algorithm");
        json_decref(hdr);
        return NULL;
    }
    json_t *jwk =
        jwk_for(json_string_value(json_object_get(hdr, "kid")), ec ? "EC" : "RSA", err, errlen);
    json_decref(hdr);
    if (!jwk) {
        *upstream = !jwks;
        return NULL;
    }
    EVP_PKEY *pkey = pkey_from_jwk(jwk, ec);
    json_decref(jwk);
    unsigned char sig[600];
    long sl = imx_b64url_decode(d2 + 1, strlen(d2 + 1), sig, sizeof sig);
    bool ok = pkey && sl > 0 &&
              verify_sig(pkey, ec, (const unsigned char *)tok, (size_t)(d2 - tok), sig, (size_t)sl);
    EVP_PKEY_free(pkey);
    if (!ok) {
        snprintf(err, errlen, "the ID token's signature does not verify");
        return NULL;
    }
    json_t *claims = jwt_part(d1 + 1, (size_t)(d2 - d1 - 1));
    if (!claims)
        snprintf(err, errlen, "the ID token's claims are not JSON");
    return claims;
}

/* ---- the flow ------------------------------------------------------------------------------ */

static char *random_b64(size_t bytes)
{
    unsigned char r[64];
    char *s = malloc(IMX_B64URL_LEN(bytes) + 1);
    if (!s || bytes > sizeof r || RAND_bytes(r, (int)bytes) != 1) {
        free(s);
        return NULL;
    }
    imx_b64url_encode(r, bytes, s, IMX_B64URL_LEN(bytes) + 1);
    return s;
}

/* Appends name=value (URL-encoded) to buf. */
static void param(CURL *c, char *buf, size_t len, const char *name, const char *value)
{
    char *v = curl_easy_escape(c, value, 0);
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s=%s", at && buf[at - 1] != '?' ? "&" : "", name, v ? v : "");
    curl_free(v);
}

/* The discovery document's endpoint name, copied (new), or NULL with why. */
static char *endpoint_of(const char *name, char *err, size_t errlen)
{
    pthread_mutex_lock(&lock);
    json_t *d = discovered(err, errlen);
    const char *e = d ? json_string_value(json_object_get(d, name)) : NULL;
    char *copy = e ? strdup(e) : NULL;
    pthread_mutex_unlock(&lock);
    if (d && !e)
        snprintf(err, errlen, "the provider's discovery document has no %s", name);
    return copy;
}

int imx_oidc_start(struct imx_oidc_start *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *endpoint = endpoint_of("authorization_endpoint", err, errlen);
    if (!endpoint)
        return -1;
    out->state = random_b64(32);
    out->nonce = random_b64(32);
    out->verifier = random_b64(48);
    CURL *c = curl_easy_init();
    size_t len = strlen(endpoint) + 2048;
    out->url = malloc(len);
    if (!out->state || !out->nonce || !out->verifier || !c || !out->url) {
        snprintf(err, errlen, "out of memory or randomness");
        free(endpoint);
        if (c)
            curl_easy_cleanup(c);
        imx_oidc_start_free(out);
        return -1;
    }
    /* PKCE S256: the challenge is base64url(SHA-256(verifier)). */
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)out->verifier, strlen(out->verifier), md);
    char challenge[IMX_B64URL_LEN(SHA256_DIGEST_LENGTH) + 1];
    imx_b64url_encode(md, sizeof md, challenge, sizeof challenge);
    snprintf(out->url, len, "%s%s", endpoint, strchr(endpoint, '?') ? "&" : "?");
    param(c, out->url, len, "response_type", "code");
    param(c, out->url, len, "client_id", cfg.client_id);
    param(c, out->url, len, "redirect_uri", cfg.redirect_url);
    param(c, out->url, len, "scope", cfg.scopes);
    param(c, out->url, len, "state", out->state);
    param(c, out->url, len, "nonce", out->nonce);
    param(c, out->url, len, "code_challenge", challenge);
    param(c, out->url, len, "code_challenge_method", "S256");
    curl_easy_cleanup(c);
    free(endpoint);
    return 0;
}

void imx_oidc_start_free(struct imx_oidc_start *s)
{
    free(s->url);
    free(s->state);
    free(s->nonce);
    free(s->verifier);
    memset(s, 0, sizeof *s);
}

void imx_oidc_identity_free(struct imx_oidc_identity *id)
{
    free(id->issuer);
    free(id->subject);
    free(id->email);
    free(id->name);
    for (size_t i = 0; i < id->ngroups; i++)
        free(id->groups[i]);
    free(id->groups);
    memset(id, 0, sizeof *id);
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

/* Who signed in, from the token endpoint's answer tok (borrowed) with HTTP status: the ID token
 * verified and its claims checked. Returns 0 with *out filled, or -1 with why (*upstream as
 * imx_oidc_finish says). */
static int identity_from(json_t *tok, long status, const char *nonce, bool nonce_optional,
                         struct imx_oidc_identity *out, bool *upstream, char *err, size_t errlen)
{
    const char *id_token = json_string_value(json_object_get(tok, "id_token"));
    if (status != 200 || !id_token) {
        const char *e = json_string_value(json_object_get(tok, "error"));
        /* invalid_grant: the code was used, expired, or is not for this verifier. */
        *upstream = !(status == 400 && e);
        snprintf(err, errlen, "the provider's token endpoint answered %ld (%.80s)", status,
                 e ? e : "no id_token");
        return -1;
    }
    *upstream = false;
    json_t *claims = id_token_verified(id_token, upstream, err, errlen);
    if (!claims)
        return -1;
    struct imx_oidc_expect x = {
        .issuer = cfg.issuer,
        .client_id = cfg.client_id,
        .nonce = nonce,
        .nonce_optional = nonce_optional,
        .now = time(NULL),
    };
    const char *why = imx_oidc_claims_check(claims, &x);
    if (why) {
        snprintf(err, errlen, "%s", why);
        json_decref(claims);
        return -1;
    }
    const char *email = json_string_value(json_object_get(claims, "email"));
    if (!email || !strchr(email, '@') || strlen(email) > 254) {
        snprintf(err, errlen,
                 "the ID token has no email claim (ask for the email scope: IMAXE_OIDC_SCOPES)");
        json_decref(claims);
        return -1;
    }
    out->issuer = strdup(cfg.issuer);
    out->subject = dup_or_empty(json_string_value(json_object_get(claims, "sub")));
    out->email = strdup(email);
    out->name = dup_or_empty(json_string_value(json_object_get(claims, "name")));
    out->email_verified = json_is_true(json_object_get(claims, "email_verified"));
    json_t *g = json_object_get(claims, cfg.groups_claim);
    size_t ng = json_is_array(g) ? json_array_size(g) : 0;
    if (ng > IMX_OIDC_GROUPS_MAX)
        ng = IMX_OIDC_GROUPS_MAX;
    out->groups = calloc(ng ? ng : 1, sizeof *out->groups);
    for (size_t i = 0; out->groups && i < ng; i++) {
        const char *s = json_string_value(json_array_get(g, i));
        if (s && strlen(s) < 256)
            out->groups[out->ngroups++] = strdup(s);
    }
    json_decref(claims);
    if (!out->issuer || !out->subject || !out->email || !out->name || !out->groups) {
        imx_oidc_identity_free(out);
        snprintf(err, errlen, "out of memory");
        *upstream = true;
        return -1;
    }
    return 0;
}

int imx_oidc_finish(const char *code, const char *verifier, const char *nonce,
                    struct imx_oidc_identity *out, bool *upstream, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    *upstream = true;
    char *token_endpoint = endpoint_of("token_endpoint", err, errlen);
    if (!token_endpoint)
        return -1;
    CURL *c = curl_easy_init();
    char form[4096] = "";
    if (!c) {
        free(token_endpoint);
        snprintf(err, errlen, "libcurl cannot start");
        return -1;
    }
    param(c, form, sizeof form, "grant_type", "authorization_code");
    param(c, form, sizeof form, "code", code);
    param(c, form, sizeof form, "redirect_uri", cfg.redirect_url);
    param(c, form, sizeof form, "client_id", cfg.client_id);
    param(c, form, sizeof form, "code_verifier", verifier);
    if (cfg.client_secret)
        param(c, form, sizeof form, "client_secret", cfg.client_secret);
    curl_easy_cleanup(c);
    long status;
    json_t *tok = fetch_json(token_endpoint, form, &status, err, errlen);
    OPENSSL_cleanse(form, sizeof form);
    free(token_endpoint);
    if (!tok)
        return -1;
    int rc = identity_from(tok, status, nonce, false, out, upstream, err, errlen);
    json_decref(tok);
    return rc;
}

/* ---- the device authorization grant (RFC 8628) ---------------------------------------------- */

void imx_oidc_device_free(struct imx_oidc_device *d)
{
    free(d->device_code);
    free(d->user_code);
    free(d->verification_uri);
    free(d->verification_uri_complete);
    free(d->nonce);
    memset(d, 0, sizeof *d);
}

/* A string member of at most max bytes, copied (new), or NULL. */
static char *member_dup(const json_t *o, const char *name, size_t max)
{
    const char *v = json_string_value(json_object_get(o, name));
    return v && *v && strlen(v) <= max ? strdup(v) : NULL;
}

int imx_oidc_device_start(struct imx_oidc_device *out, bool *upstream, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    *upstream = true;
    char *endpoint = endpoint_of("device_authorization_endpoint", err, errlen);
    if (!endpoint)
        return -1;
    out->nonce = random_b64(32);
    CURL *c = curl_easy_init();
    char form[2048] = "";
    if (!c || !out->nonce) {
        snprintf(err, errlen, "out of memory or randomness");
        if (c)
            curl_easy_cleanup(c);
        free(endpoint);
        imx_oidc_device_free(out);
        return -1;
    }
    param(c, form, sizeof form, "client_id", cfg.client_id);
    param(c, form, sizeof form, "scope", cfg.scopes);
    param(c, form, sizeof form, "nonce", out->nonce);
    if (cfg.client_secret)
        param(c, form, sizeof form, "client_secret", cfg.client_secret);
    curl_easy_cleanup(c);
    long status;
    json_t *doc = fetch_json(endpoint, form, &status, err, errlen);
    OPENSSL_cleanse(form, sizeof form);
    free(endpoint);
    if (!doc) {
        imx_oidc_device_free(out);
        return -1;
    }
    const char *e = json_string_value(json_object_get(doc, "error"));
    if (status != 200 || e) {
        /* unauthorized_client, invalid_scope...: the client is not set up for device sign-in. */
        *upstream = !(status >= 400 && status < 500 && e);
        snprintf(err, errlen, "the provider's device authorization endpoint answered %ld (%.80s)",
                 status, e ? e : "no error named");
        json_decref(doc);
        imx_oidc_device_free(out);
        return -1;
    }
    out->device_code = member_dup(doc, "device_code", 2048);
    out->user_code = member_dup(doc, "user_code", 64);
    out->verification_uri = member_dup(doc, "verification_uri", 1024);
    out->verification_uri_complete = member_dup(doc, "verification_uri_complete", 1024);
    json_t *ei = json_object_get(doc, "expires_in"), *iv = json_object_get(doc, "interval");
    out->expires_in = json_is_integer(ei) ? (long)json_integer_value(ei) : 0;
    out->interval = json_is_integer(iv) ? (long)json_integer_value(iv) : IMX_OIDC_DEVICE_INTERVAL_S;
    json_decref(doc);
    /* The URIs are shown to a person to open: https (or a loopback provider's http) only. */
    if (!out->device_code || !out->user_code || !out->verification_uri ||
        !url_allowed(out->verification_uri) ||
        (out->verification_uri_complete && !url_allowed(out->verification_uri_complete)) ||
        out->expires_in < 1 || out->interval < 1 || out->interval > 60) {
        snprintf(err, errlen,
                 "the provider's device authorization answer lacks a device_code, user_code, "
                 "https verification_uri, expires_in or a sane interval");
        imx_oidc_device_free(out);
        return -1;
    }
    if (out->expires_in > IMX_OIDC_DEVICE_TTL_MAX_S)
        out->expires_in = IMX_OIDC_DEVICE_TTL_MAX_S;
    *upstream = false;
    return 0;
}

enum imx_oidc_poll imx_oidc_device_poll(const char *device_code, const char *nonce,
                                        struct imx_oidc_identity *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char *endpoint = endpoint_of("token_endpoint", err, errlen);
    if (!endpoint)
        return IMX_OIDC_POLL_UPSTREAM;
    CURL *c = curl_easy_init();
    char form[4096] = "";
    if (!c) {
        free(endpoint);
        snprintf(err, errlen, "libcurl cannot start");
        return IMX_OIDC_POLL_UPSTREAM;
    }
    param(c, form, sizeof form, "grant_type", "urn:ietf:params:oauth:grant-type:device_code");
    param(c, form, sizeof form, "device_code", device_code);
    param(c, form, sizeof form, "client_id", cfg.client_id);
    if (cfg.client_secret)
        param(c, form, sizeof form, "client_secret", cfg.client_secret);
    curl_easy_cleanup(c);
    long status;
    json_t *tok = fetch_json(endpoint, form, &status, err, errlen);
    OPENSSL_cleanse(form, sizeof form);
    free(endpoint);
    if (!tok)
        return IMX_OIDC_POLL_UPSTREAM;
    const char *e = json_string_value(json_object_get(tok, "error"));
    enum imx_oidc_poll res = IMX_OIDC_POLL_DONE;
    if (status == 400 && e && strcmp(e, "authorization_pending") == 0)
        res = IMX_OIDC_POLL_PENDING;
    else if (status == 400 && e && strcmp(e, "slow_down") == 0)
        res = IMX_OIDC_POLL_SLOW_DOWN;
    else if (status == 400 && e && strcmp(e, "access_denied") == 0)
        res = IMX_OIDC_POLL_DENIED;
    else if (status == 400 && e && strcmp(e, "expired_token") == 0)
        res = IMX_OIDC_POLL_EXPIRED;
    if (res != IMX_OIDC_POLL_DONE) {
        json_decref(tok);
        return res;
    }
    bool upstream = false;
    int rc = identity_from(tok, status, nonce, true, out, &upstream, err, errlen);
    json_decref(tok);
    if (rc == 0)
        return IMX_OIDC_POLL_DONE;
    return upstream ? IMX_OIDC_POLL_UPSTREAM : IMX_OIDC_POLL_REFUSED;
}
