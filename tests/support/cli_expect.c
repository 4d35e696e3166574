/* cli_expect.c — see cli_expect.h. */
#include "cli_expect.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

int cli_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

cli_ppm cli_read_ppm(const char *path)
{
    cli_ppm p = {0, 0, NULL, NULL};
    size_t len;
    p.data = qr_test_read_file(path, &len);
    int maxval = 0, hdr = 0;
    cr_assert(sscanf(p.data, "P6 %d %d %d%n", &p.w, &p.h, &maxval, &hdr) == 3,
              "%s: bad PPM header", path);
    cr_assert_eq(maxval, 255);
    hdr++; /* the single whitespace after maxval */
    cr_assert_eq(len, (size_t)hdr + (size_t)p.w * (size_t)p.h * 3, "%s: %zu bytes", path, len);
    p.px = (const unsigned char *)p.data + hdr;
    return p;
}

void cli_ppm_free(cli_ppm *p)
{
    free(p->data);
    p->data = NULL;
    p->px = NULL;
}

void cli_png_size(const char *path, int *w, int *h)
{
    size_t len;
    unsigned char *d = (unsigned char *)qr_test_read_file(path, &len);
    cr_assert(len > 24 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0,
              "%s is not a PNG", path);
    *w = (int)((unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19]);
    *h = (int)((unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23]);
    free(d);
}

/* The names in dir other than . and .., joined by spaces (for messages), and
 * their count. */
static int list_dir(const char *dir, char *names, size_t size)
{
    DIR *d = opendir(dir);
    cr_assert(d, "%s: %s", dir, strerror(errno));
    int n = 0;
    size_t used = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        int w = snprintf(names + used, size - used, "%s ", e->d_name);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
    }
    closedir(d);
    return n;
}

void cli_expect_entries(const char *dir, int want)
{
    char names[8192];
    int n = list_dir(dir, names, sizeof names);
    cr_expect_eq(n, want, "%s holds %d entries, expected %d: %s", dir, n, want, names);
    cr_expect(!strstr(names, ".tmp-"), "a temporary file left in %s: %s", dir, names);
}

void cli_expect_usage_error(const char *cmd, const char *what)
{
    cr_expect_eq(R.code, 2, "exit code %d, stderr: %s", R.code, R.err);
    cr_expect_eq(cli_count_lines(R.err), 2, "stderr: %s", R.err);
    cr_expect_eq(strncmp(R.err, "quadrender: ", 12), 0, "stderr: %s", R.err);
    const char *nl = strchr(R.err, '\n');
    cr_assert(nl, "stderr: %s", R.err);
    char first[1024];
    snprintf(first, sizeof first, "%.*s", (int)(nl - R.err), R.err);
    cr_expect(strstr(first, what), "first line does not mention '%s': %s", what, R.err);
    char try_line[128];
    if (cmd)
        snprintf(try_line, sizeof try_line, "Try 'quadrender %s --help'.\n", cmd);
    else
        snprintf(try_line, sizeof try_line, "Try 'quadrender --help'.\n");
    cr_expect_str_eq(nl + 1, try_line);
    cr_expect_str_eq(R.out, "");
}

void cli_expect_usage_cases(const cli_usage_case *cases, size_t n)
{
    const char *out = qr_test_tmp("never.ppm");
    for (size_t i = 0; i < n; i++) {
        qr_cli_run(NULL, cases[i].args, &R);
        cr_expect(R.code == 2, "case %zu (%s %s %s %s): exit %d", i, cases[i].args[0],
                  cases[i].args[1] ? cases[i].args[1] : "", cases[i].args[2] ? cases[i].args[2] : "",
                  cases[i].args[3] ? cases[i].args[3] : "", R.code);
        const char *a0 = cases[i].args[0];
        bool is_cmd = !strcmp(a0, "render") || !strcmp(a0, "dump") || !strcmp(a0, "scenes") ||
                      !strcmp(a0, "check") || !strcmp(a0, "stats") || !strcmp(a0, "query") ||
                      !strcmp(a0, "tiles");
        cli_expect_usage_error(is_cmd ? a0 : NULL, cases[i].what);
    }
    cr_expect(!qr_test_exists(out), "a usage error wrote an image");
}
