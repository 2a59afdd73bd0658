/* Bench helper: reads "ORDER<TAB>VERSION" lines (ORDER dpkg or rpm) on stdin and prints
 * "VERSION<TAB>KEY" with KEY the hex of imx_pkgver_key() (server/domain/pkgver.c), so that
 * bench/gen_os_packages.sql stores the keys the server would. Built by bench/os_packages.sh. */
#include <stdio.h>
#include <string.h>

#include "domain/pkgver.h"

int main(void)
{
    char line[512];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (!tab)
            return 1;
        *tab = '\0';
        enum imx_pkg_order o = strcmp(line, "rpm") == 0 ? IMX_PKG_RPM : IMX_PKG_DPKG;
        char hex[IMX_PKGVER_KEY_HEX_SIZE];
        if (imx_pkgver_key_hex(o, tab + 1, hex) != 0)
            return 1;
        printf("%s\t%s\n", tab + 1, hex + 2);
    }
    return 0;
}
