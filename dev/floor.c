/* floor.c — what each scene needs, whatever the index: the numbers
 * docs/benchmarks.md compares our times with. Runs on the CPU, on all the
 * cores (the counting is the library's, qr_work_floor_count in
 * quadrender/floor.h; the counts do not depend on the thread count).
 *
 *   box tests   pixel-circle tests the reference renderer makes (box areas)
 *   covered     pixel-circle pairs that blend (exact mode must do each)
 *   fast blends blends front to back until the pixel's transmittance T
 *               drops to the fast-mode stop (what fast mode must do)
 *   bytes       packed circles read once (32 B each) + the image written
 *               once (16 B per pixel)
 * Usage: floor [-s size] scene... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/floor.h"
#include "quadrender/scene.h"

int main(int argc, char **argv)
{
    int size = 1024, first = 1;
    if (argc > 2 && !strcmp(argv[1], "-s")) {
        size = atoi(argv[2]);
        first = 3;
    }
    printf("%-11s %9s %9s %14s %14s %14s %12s\n", "scene", "circles", "visible", "box tests",
           "covered", "fast blends", "MB floor");
    for (int a = first; a < argc; a++) {
        qr_error err;
        qr_scene *s = NULL;
        if (qr_scene_load(argv[a], 0, &s, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
        qr_work_floor f;
        if (qr_work_floor_count(s, size, size, 0, &f, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            qr_scene_destroy(s);
            return 1;
        }
        printf("%-11s %9d %9d %14lld %14lld %14lld %12.1f\n", s->name, s->n, f.visible,
               (long long)f.box_tests, (long long)f.covered, (long long)f.fast_blends,
               f.bytes / 1e6);
        qr_scene_destroy(s);
    }
    return 0;
}
