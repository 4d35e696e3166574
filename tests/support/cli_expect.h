/* cli_expect.h — checks shared by the command-line tests (test_cli_*.c):
 * the usage-error contract, line counts, the sizes and pixels of the
 * images the CLI writes, and what a folder holds after it wrote there.
 * They read the last run, R (cli_run.h). */
#ifndef QR_TEST_CLI_EXPECT_H
#define QR_TEST_CLI_EXPECT_H

#include <stddef.h>

#include "cli_run.h"

int cli_count_lines(const char *s);

/* A PPM the CLI wrote: checked complete (header "P6 W H 255", then
 * exactly W * H * 3 bytes); px points at its top row. */
typedef struct cli_ppm {
    int w, h;
    const unsigned char *px;
    char *data; /* the whole file */
} cli_ppm;

cli_ppm cli_read_ppm(const char *path);
void cli_ppm_free(cli_ppm *p);

/* Width and height from a PNG's IHDR chunk; asserts it is a PNG. */
void cli_png_size(const char *path, int *w, int *h);

/* Expects the folder dir to hold exactly `want` entries, none of them a
 * temporary file the CLI's writer left (a name holding ".tmp-"). */
void cli_expect_entries(const char *dir, int want);

/* The usage error contract of R: exit 2, exactly two lines on stderr, the
 * first "quadrender: ..." naming `what`, the second "Try 'quadrender CMD
 * --help'." (cmd NULL: "Try 'quadrender --help'."), nothing on stdout. */
void cli_expect_usage_error(const char *cmd, const char *what);

typedef struct cli_usage_case {
    const char *args[8]; /* NULL-terminated */
    const char *what;    /* the first line must mention this */
} cli_usage_case;

/* Runs each case and expects the usage error contract (with the command's
 * own help line when args[0] is a command), and no image written. */
void cli_expect_usage_cases(const cli_usage_case *cases, size_t n);

#endif
