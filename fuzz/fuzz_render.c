/* fuzz_render.c — libFuzzer harness of the CPU pipeline a .circles file
 * goes through: read -> host index -> CPU renders -> stats JSON.
 *
 * Input: four bytes of settings (image width and height, 1 to 96 pixels;
 * the index capacity; minimum leaf side and thread count), then the
 * .circles text. Checks: the index is consistent (qr_index_stats_compute
 * checks it), exact mode from that index equals the reference renderer
 * byte for byte, fast mode runs, and the stats JSON, whose scene name is
 * taken from the input's bytes, is well-formed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "json_check.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "quadrender/stats.h"

/* Larger scenes are read (the reader is fuzzed) but not rendered: each
 * input should take milliseconds. */
#define MAX_RENDERED 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_json(const qr_index_stats *st, const qr_stats_context *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fuzz_check(f != NULL, "open_memstream");
    qr_error err;
    fuzz_check(qr_index_stats_write_json(f, st, ctx, &err) == QR_OK, "the stats JSON is not written");
    fuzz_check(fclose(f) == 0, "fclose");
    fuzz_check(json_well_formed(text, len), "the stats JSON is malformed");
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    const int32_t w = 1 + data[0] % 96, h = 1 + data[1] % 96;
    qr_index_params p;
    qr_index_params_default(&p);
    p.capacity = 1 + data[2] % 64;
    p.min_leaf = 16 << (data[3] & 3);
    const int threads = 1 + (data[3] >> 2) % 3;
    const char *path = fuzz_file(0, ".circles", data + 4, size - 4);
    qr_scene *s = NULL;
    qr_error err;
    if (qr_scene_read_circles(path, &s, &err) != QR_OK) return 0;
    if (s->n > MAX_RENDERED) {
        qr_scene_destroy(s);
        return 0;
    }
    qr_image *ref = NULL, *img = NULL;
    fuzz_check(qr_image_create(w, h, &ref, &err) == QR_OK, "image");
    fuzz_check(qr_image_create(w, h, &img, &err) == QR_OK, "image");
    fuzz_check(qr_render_cpu(s, ref, &err) == QR_OK, "the reference renderer failed");
    qr_index *ix = NULL;
    fuzz_check(qr_index_build_host(s, w, h, NULL, &p, QR_RENDER_FAST, &ix, &err) == QR_OK,
               "the host index build failed");
    fuzz_check(qr_render_cpu_index(s, ix, QR_RENDER_EXACT, threads, img, &err) == QR_OK,
               "the exact CPU render failed");
    fuzz_check(memcmp(img->rgba, ref->rgba, (size_t)w * (size_t)h * 4 * sizeof(float)) == 0,
               "exact mode differs from the reference");
    fuzz_check(qr_render_cpu_index(s, ix, QR_RENDER_FAST, threads, img, &err) == QR_OK,
               "the fast CPU render failed");
    qr_index_stats st;
    fuzz_check(qr_index_stats_compute(ix, s->n, &st, &err) == QR_OK, "the index is inconsistent");
    char name[40];
    const size_t nlen = size - 4 < sizeof name - 1 ? size - 4 : sizeof name - 1;
    memcpy(name, data + 4, nlen);
    name[nlen] = '\0';
    qr_stats_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.scene = name;
    ctx.circles = s->n;
    ctx.width = w;
    ctx.height = h;
    ctx.params = p;
    ctx.device = "cpu";
    check_json(&st, &ctx);
    qr_index_destroy(ix);
    qr_image_destroy(img);
    qr_image_destroy(ref);
    qr_scene_destroy(s);
    return 0;
}
