/* RFC 3339 date-times (see rfc3339.h). */
#include "util/rfc3339.h"

#include <stddef.h>

/* n digits at s as a number into *v; false when one is not a digit. */
static bool digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

static int days_in(int year, int month)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/* A calendar date at s (YYYY-MM-DD; what follows is not looked at). */
static bool date_at(const char *s)
{
    int y, mo, d;
    return digits(s, 4, &y) && s[4] == '-' && digits(s + 5, 2, &mo) && s[7] == '-' &&
           digits(s + 8, 2, &d) && y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= days_in(y, mo);
}

bool imx_date_ok(const char *s)
{
    return s && date_at(s) && s[10] == '\0';
}

bool imx_rfc3339_ok(const char *s)
{
    int y, mo, d, h, mi, sec, oh, om;
    if (!s || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) ||
        s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' || !digits(s + 17, 2, &sec))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in(y, mo) || h > 23 || mi > 59 || sec > 60)
        return false;
    const char *p = s + 19;
    if (*p == '.') {
        const char *f = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == f)
            return false;
    }
    if ((*p == 'Z' || *p == 'z') && p[1] == '\0')
        return true;
    if ((*p == '+' || *p == '-') && digits(p + 1, 2, &oh) && p[3] == ':' && digits(p + 4, 2, &om) &&
        p[6] == '\0')
        return oh <= 23 && om <= 59;
    return false;
}
