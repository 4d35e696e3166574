/* fuzz_input.c — see fuzz_input.h. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "fuzz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char paths[2][4][64]; /* [slot][extension] */
static const char *exts[4] = {".circles", ".par", ".npy", ".out"};

static void remove_files(void)
{
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < 4; e++)
            if (paths[s][e][0]) unlink(paths[s][e]);
}

const char *fuzz_file(int slot, const char *ext, const uint8_t *data, size_t size)
{
    int e = 0;
    while (e < 3 && strcmp(exts[e], ext) != 0) e++;
    char *path = paths[slot][e];
    if (!path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof paths[0][0], "%s/qr-fuzz-XXXXXX%s", dir && *dir ? dir : "/tmp", exts[e]);
        const int fd = mkstemps(path, (int)strlen(exts[e]));
        fuzz_check(fd >= 0, "cannot create the input file (set TMPDIR)");
        close(fd);
        static int registered;
        if (!registered) atexit(remove_files);
        registered = 1;
    }
    FILE *f = fopen(path, "wb");
    fuzz_check(f != NULL, "cannot open the input file");
    fuzz_check(size == 0 || fwrite(data, 1, size, f) == size, "cannot write the input file");
    fuzz_check(fclose(f) == 0, "cannot close the input file");
    return path;
}

void fuzz_check(int ok, const char *what)
{
    if (ok) return;
    fprintf(stderr, "fuzz check failed: %s\n", what);
    abort();
}

int fuzz_same_scene(const qr_scene *a, const qr_scene *b)
{
    return a->n == b->n && a->block_floats == b->block_floats && a->shading == b->shading &&
           a->anim == b->anim &&
           (a->block_floats == 0 || memcmp(a->block, b->block, a->block_floats * sizeof(float)) == 0);
}
