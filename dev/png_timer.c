/* png_timer.c — how fast raw 8-bit RGB becomes PNG: MB/s of raw RGB (width x
 * height x 3 bytes) and the compressed size, per deflate library, filter,
 * level and thread count.
 *
 *   encoder     the product's parallel PNG encoder (src/image/png_encoder.c,
 *               zlib), whole file, into a byte-counting sink
 *   zlib        the same chunks (filtered alike) deflated independently by
 *               zlib, with a sync flush and no dictionary: the deflate work
 *   libdeflate  the same chunks deflated by libdeflate (whole-buffer API:
 *               each chunk a complete, final stream, so these pieces could
 *               not be joined into one PNG as they are; speed and size only)
 *
 * Input: a binary PPM (--ppm FILE, e.g. from `quadrender render rand100k -s
 * 8192 -o x.ppm` on the GPU), or a built-in scene rendered here on the CPU
 * (--scene NAME -s N; slow at large sizes).
 *
 * Usage: png_timer [--ppm FILE | --scene NAME -s N] [--threads 1,2,4]
 *                  [--levels 1,6] [--filters up,sub,paeth,none,avg,adaptive]
 *                  [--libs encoder,zlib,libdeflate] [--chunk BYTES] [--dict BYTES]
 *                  [--strategy default|rle|filtered|huffman] (zlib's, for encoder and zlib)
 *                  [--reps N]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef QR_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "image/png_encoder.h"
#include "quadrender/image.h"
#include "quadrender/render_cpu.h"
#include "quadrender/scene.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of all threads: on a shared machine it says what the work costs
 * when the wall clock says little. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *msg)
{
    fprintf(stderr, "png_timer: %s\n", msg);
    exit(1);
}

/* ---- input ------------------------------------------------------------------ */

static unsigned char *read_ppm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open the PPM");
    int maxv;
    if (fscanf(f, "P6 %d %d %d", w, h, &maxv) != 3 || maxv != 255 || fgetc(f) == EOF)
        die("not an 8-bit binary PPM");
    size_t n = (size_t)*w * (size_t)*h * 3;
    unsigned char *px = malloc(n);
    if (!px || fread(px, 1, n, f) != n)
        die("short PPM");
    fclose(f);
    return px;
}

static unsigned char *render_scene(const char *name, int size)
{
    qr_error err;
    qr_scene *s;
    qr_image *img;
    if (qr_scene_load(name, 0, &s, &err) || qr_image_create(size, size, &img, &err) ||
        qr_render_cpu(s, img, &err))
        die(err.msg);
    unsigned char *px = malloc((size_t)size * size * 3);
    for (int r = 0; r < size; r++) { /* top row first */
        const float *src = img->rgba + (size_t)(size - 1 - r) * size * 4;
        for (int i = 0; i < size; i++)
            for (int c = 0; c < 3; c++)
                px[((size_t)r * size + i) * 3 + c] = qr_to_byte(src[4 * i + c]);
    }
    qr_image_destroy(img);
    qr_scene_destroy(s);
    return px;
}

/* ---- the product's encoder ----------------------------------------------------- */

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
    (void)buf;
    *(size_t *)cookie += n;
    return (ssize_t)n;
}

static size_t run_encoder(const unsigned char *px, int w, int h, const qr_png_params *p)
{
    size_t bytes = 0;
    cookie_io_functions_t io = {.write = count_write};
    FILE *f = fopencookie(&bytes, "wb", io);
    static char iobuf[1 << 20];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
    qr_png_encoder *e;
    qr_error err;
    /* bands of 64 rows, as a band renderer would hand them over */
    if (qr_png_encoder_open(f, "png_timer", w, h, p, &e, &err))
        die(err.msg);
    for (int r = 0; r < h; r += 64) {
        int n = h - r < 64 ? h - r : 64;
        if (qr_png_encoder_rows(e, px + (size_t)r * w * 3, n, &err))
            die(err.msg);
    }
    if (qr_png_encoder_finish(e, &err))
        die(err.msg);
    qr_png_encoder_free(e);
    fclose(f);
    return bytes;
}

/* ---- independent chunks, either library ----------------------------------------------- */

enum { LIB_ENCODER, LIB_ZLIB, LIB_LIBDEFLATE };
static const char *lib_names[] = {"encoder", "zlib", "libdeflate"};

typedef struct chunk_job {
    const unsigned char *px;
    int w, h, rows_per_chunk, nchunks, lib;
    qr_png_params p;
    atomic_int next;
    atomic_size_t out_bytes;
} chunk_job;

static void *chunk_thread(void *arg)
{
    chunk_job *j = arg;
    const size_t rb = (size_t)j->w * 3, fb = rb + 1;
    size_t in_cap = (size_t)j->rows_per_chunk * fb;
    unsigned char *filt = malloc(in_cap), *scratch = malloc(fb);
    size_t out_cap = in_cap + in_cap / 8 + 1024;
    unsigned char *out = malloc(out_cap);
    z_stream zs = {0};
    if (j->lib == LIB_ZLIB && deflateInit2(&zs, j->p.level, Z_DEFLATED, -15, 8, j->p.strategy))
        die("deflateInit2");
#ifdef QR_HAVE_LIBDEFLATE
    struct libdeflate_compressor *ld = NULL;
    if (j->lib == LIB_LIBDEFLATE && !(ld = libdeflate_alloc_compressor(j->p.level)))
        die("libdeflate_alloc_compressor");
#endif
    size_t total = 0;
    for (int k; (k = atomic_fetch_add(&j->next, 1)) < j->nchunks;) {
        int r0 = k * j->rows_per_chunk;
        int n = j->h - r0 < j->rows_per_chunk ? j->h - r0 : j->rows_per_chunk;
        for (int r = 0; r < n; r++) {
            const unsigned char *row = j->px + (size_t)(r0 + r) * rb;
            qr_png_filter_row(j->p.filter, 3, row, r0 + r ? row - rb : NULL, rb, filt + r * fb,
                              scratch);
        }
        size_t in_len = (size_t)n * fb;
        if (j->lib == LIB_ZLIB) {
            deflateReset(&zs);
            zs.next_in = filt;
            zs.avail_in = (uInt)in_len;
            zs.next_out = out;
            zs.avail_out = (uInt)out_cap;
            if (deflate(&zs, Z_SYNC_FLUSH) != Z_OK || zs.avail_in)
                die("deflate");
            total += out_cap - zs.avail_out;
        }
#ifdef QR_HAVE_LIBDEFLATE
        else {
            size_t got = libdeflate_deflate_compress(ld, filt, in_len, out, out_cap);
            if (!got)
                die("libdeflate_deflate_compress");
            total += got;
        }
#endif
    }
    atomic_fetch_add(&j->out_bytes, total);
    if (j->lib == LIB_ZLIB)
        deflateEnd(&zs);
#ifdef QR_HAVE_LIBDEFLATE
    if (ld)
        libdeflate_free_compressor(ld);
#endif
    free(filt);
    free(scratch);
    free(out);
    return NULL;
}

static size_t run_chunks(const unsigned char *px, int w, int h, const qr_png_params *p, int lib)
{
    chunk_job j = {.px = px, .w = w, .h = h, .lib = lib, .p = *p};
    size_t fb = (size_t)w * 3 + 1;
    size_t chunk = p->chunk_bytes;
    if (!chunk) { /* as the encoder chooses */
        chunk = fb * (size_t)h / QR_PNG_CHUNKS;
        chunk = chunk < QR_PNG_CHUNK_MIN ? QR_PNG_CHUNK_MIN
                : chunk > QR_PNG_CHUNK_MAX ? QR_PNG_CHUNK_MAX : chunk;
    }
    j.rows_per_chunk = (int)((chunk + fb - 1) / fb);
    j.nchunks = (h + j.rows_per_chunk - 1) / j.rows_per_chunk;
    atomic_init(&j.next, 0);
    atomic_init(&j.out_bytes, 0);
    pthread_t t[256];
    for (int i = 0; i < p->threads; i++)
        pthread_create(&t[i], NULL, chunk_thread, &j);
    for (int i = 0; i < p->threads; i++)
        pthread_join(t[i], NULL);
    return atomic_load(&j.out_bytes);
}

/* ---- command line ------------------------------------------------------------------------ */

static int parse_list(const char *s, int *out, int max)
{
    int n = 0;
    for (char *end; *s && n < max; s = *end ? end + 1 : end)
        out[n++] = (int)strtol(s, &end, 10);
    return n;
}

static int name_index(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return i;
    die("unknown name in a list");
    return -1;
}

static int parse_names(const char *s, const char *const *names, int nnames, int *out, int max)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = name_index(tok, names, nnames);
    return n;
}

int main(int argc, char **argv)
{
    static const char *const filter_names[] = {"none", "sub", "up", "avg", "paeth", "adaptive"};
    const char *ppm = NULL, *scene = "rand10k";
    int size = 2048, reps = 3;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads[16] = {1, (int)cores}, nthreads = cores > 1 ? 2 : 1;
    int levels[10] = {1}, nlevels = 1;
    int filters[6] = {QR_PNG_FILTER_DEFAULT}, nfilters = 1;
    int libs[3] = {LIB_ENCODER, LIB_ZLIB, LIB_LIBDEFLATE}, nlibs = 3;
    size_t chunk = 0, dict = QR_PNG_DICT_BYTES;
    int strategy = Z_DEFAULT_STRATEGY;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : "";
        if (!strcmp(argv[a], "--ppm")) ppm = v;
        else if (!strcmp(argv[a], "--scene")) scene = v;
        else if (!strcmp(argv[a], "-s")) size = atoi(v);
        else if (!strcmp(argv[a], "--reps")) reps = atoi(v);
        else if (!strcmp(argv[a], "--chunk")) chunk = (size_t)atol(v);
        else if (!strcmp(argv[a], "--dict")) dict = (size_t)atol(v);
        else if (!strcmp(argv[a], "--strategy"))
            strategy = !strcmp(v, "rle")        ? Z_RLE
                       : !strcmp(v, "filtered") ? Z_FILTERED
                       : !strcmp(v, "huffman")  ? Z_HUFFMAN_ONLY
                                                : Z_DEFAULT_STRATEGY;
        else if (!strcmp(argv[a], "--threads")) nthreads = parse_list(v, threads, 16);
        else if (!strcmp(argv[a], "--levels")) nlevels = parse_list(v, levels, 10);
        else if (!strcmp(argv[a], "--filters")) nfilters = parse_names(v, filter_names, 6, filters, 6);
        else if (!strcmp(argv[a], "--libs")) nlibs = parse_names(v, lib_names, 3, libs, 3);
        else die("usage: see the comment at the top of dev/png_timer.c");
        a++;
    }
    int w, h;
    double t0 = now_ms();
    unsigned char *px = ppm ? read_ppm(ppm, &w, &h) : render_scene(scene, w = h = size);
    double raw_mb = (double)w * h * 3 / 1e6;
    printf("# %s: %dx%d, %.1f MB of RGB (%s in %.0f ms), chunks of %zu bytes (0: by size), "
           "dictionary %zu, %ld cores, best of %d\n", ppm ? ppm : scene, w, h, raw_mb,
           ppm ? "read" : "rendered", now_ms() - t0, chunk, dict, cores, reps);
    printf("%-10s %-8s %5s %7s %9s %9s %9s %11s %7s\n", "library", "filter", "level", "threads",
           "ms", "MB/s", "cpu ms", "bytes", "ratio");
    for (int li = 0; li < nlibs; li++)
        for (int fi = 0; fi < nfilters; fi++)
            for (int lv = 0; lv < nlevels; lv++)
                for (int ti = 0; ti < nthreads; ti++) {
#ifndef QR_HAVE_LIBDEFLATE
                    if (libs[li] == LIB_LIBDEFLATE)
                        continue;
#endif
                    qr_png_params p = qr_png_params_for(levels[lv], threads[ti]);
                    p.filter = (qr_png_filter)filters[fi];
                    p.chunk_bytes = chunk;
                    p.dict_bytes = dict;
                    p.strategy = strategy;
                    double best = 1e30, best_cpu = 1e30;
                    size_t bytes = 0;
                    for (int r = 0; r < reps; r++) {
                        double t = now_ms(), c = cpu_ms();
                        bytes = libs[li] == LIB_ENCODER ? run_encoder(px, w, h, &p)
                                                        : run_chunks(px, w, h, &p, libs[li]);
                        t = now_ms() - t;
                        c = cpu_ms() - c;
                        best = t < best ? t : best;
                        best_cpu = c < best_cpu ? c : best_cpu;
                    }
                    printf("%-10s %-8s %5d %7d %9.1f %9.1f %9.1f %11zu %7.2f\n",
                           lib_names[libs[li]], filter_names[filters[fi]], levels[lv],
                           threads[ti], best, raw_mb / (best / 1e3), best_cpu, bytes,
                           raw_mb * 1e6 / (double)bytes);
                    fflush(stdout);
                }
    free(px);
    return 0;
}
