/* quadrender/image.h — float RGBA render targets and image files.
 *
 * Pixels are 4 floats (R, G, B, A), row-major, and row 0 is the BOTTOM row
 * (y = 0), matching the normalized scene coordinates. Writers flip to the
 * file format's own convention.
 *
 * Output formats, chosen by extension:
 *   .png  8-bit RGB (zlib, on all cores), or 8-bit RGBA with alpha (below)
 *   .ppm  P6 8-bit RGB, top row first
 *   .pfm  float RGB, little-endian, bottom row first (as PFM specifies)
 * 8-bit values are (unsigned char)(255 * clamp(v, 0, 1)) — truncation — so a
 * PPM equals byte for byte the one the CS149 tool writes.
 *
 * Alpha: an image of a transparent background holds in R, G, B the colour
 * premultiplied by A (the colour over black) and in A the coverage. With
 * qr_image_write_options.alpha a PNG keeps it, as colour type 6 (8-bit
 * RGBA, straight alpha: qr_to_rgba8); PPM and PFM have no alpha channel
 * and refuse it. Without it, A is dropped and R, G, B are written as they
 * are.
 *
 * Every writer goes through a temporary file and a rename: a failed run never
 * leaves a half-written image behind.
 *
 * The whole-image writers are thin users of the streaming writer below
 * (qr_image_writer), which takes rows in bands and encodes PNG on all cores.
 */
#ifndef QUADRENDER_IMAGE_H
#define QUADRENDER_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "quadrender/error.h"
#include "quadrender/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest side of an image held whole in memory (a qr_image, a GPU
 * renderer's image). */
#define QR_IMAGE_MAX_DIM 32768
/* The largest side of an image rendered in bands and streamed to a file
 * (qr_gpu_render_write; the CLI's render): only a band of rows exists at a
 * time. Pixel coordinates are int32 and pixel centres stay exact floats up
 * to 2^23; what sets this limit is time and disk (131072^2 is 48 GiB of RGB
 * before compression) and how far the tests reach. */
#define QR_IMAGE_BANDS_MAX_DIM 131072

typedef struct qr_image {
    int32_t width, height;
    float *rgba; /* width * height * 4 floats, row 0 = bottom */
} qr_image;

typedef enum qr_image_format {
    QR_FORMAT_UNKNOWN = 0,
    QR_FORMAT_PNG,
    QR_FORMAT_PPM,
    QR_FORMAT_PFM
} qr_image_format;

/* An image side given as text (quadrender/text.h): 1 to
 * QR_IMAGE_BANDS_MAX_DIM; else QR_ERR_INVALID, "<name>: expected an integer
 * from 1 to 131072, got '<text>'". */
qr_status qr_image_check_side(const char *name, const char *text, int32_t *out, qr_error *err);

/* Sides 1..QR_IMAGE_BANDS_MAX_DIM that `who` holds whole, at most max each
 * (QR_IMAGE_MAX_DIM for a qr_image); else QR_ERR_INVALID, "<name>: <who>
 * takes images up to <max> pixels a side (<w>x<h> asked); <streamer>
 * streams larger ones in bands". */
qr_status qr_image_check_whole(const char *name, const char *who, const char *streamer,
                               int32_t width, int32_t height, int32_t max, qr_error *err);

/* Whether a width x height image, and `extra` bytes a pixel more (a copy
 * the caller makes of it), fit in the host memory this process can still
 * take (qr_host_memory_available, quadrender/memory.h): QR_OK, else
 * QR_ERR_NOMEM, "a <w>x<h> image needs <bytes> bytes (<GiB>) of host
 * memory; this process can take <n> bytes (<GiB>)". For a front end that
 * refuses before it allocates. */
qr_status qr_image_check_fits(int32_t width, int32_t height, uint32_t extra, qr_error *err);

/* Allocates a width x height image (1..QR_IMAGE_MAX_DIM each); contents
 * undefined. An image of QR_IMAGE_CHECKED_BYTES or more is first checked
 * by qr_image_check_fits: what the process cannot take is QR_ERR_NOMEM
 * before any allocation (on Linux a large malloc succeeds and the kernel
 * kills the process when the pages are used). */
#define QR_IMAGE_CHECKED_BYTES ((size_t)64 << 20)
qr_status qr_image_create(int32_t width, int32_t height, qr_image **out, qr_error *err);
void qr_image_destroy(qr_image *img);

/* The background the reference clears to: white (1,1,1,1) for flat shading;
 * for snow, row j gets shade = 0.4 + 0.45 * (H - j) / H in R, G, B, alpha 1. */
void qr_image_clear(qr_image *img, qr_shading shading);

/* The format named by the file extension (case-insensitive), or UNKNOWN. */
qr_image_format qr_image_format_from_path(const char *path);

/* Writes by extension; an unknown extension is QR_ERR_INVALID. */
qr_status qr_image_write(const qr_image *img, const char *path, qr_error *err);
qr_status qr_image_write_png(const qr_image *img, const char *path, qr_error *err);
qr_status qr_image_write_ppm(const qr_image *img, const char *path, qr_error *err);
qr_status qr_image_write_pfm(const qr_image *img, const char *path, qr_error *err);

/* ---- options and the streaming writer -------------------------------------- */

/* zlib's levels: 0 stores, 1 is the fastest that compresses, 9 the smallest. */
#define QR_PNG_LEVEL_DEFAULT 1

/* Which deflate encoder makes a PNG's compressed data. The pixels are the
 * same; the bytes differ, and each is deterministic on its own:
 *   ZLIB      zlib at the level asked for (png_level), on the host's cores;
 *   PORTABLE  quadrender's own encoder (fixed Huffman codes, 32 KiB pieces,
 *             docs/images.md), which runs on the GPU and, with the same
 *             bytes, on the host; the level does not apply. A render on the
 *             GPU encodes on the GPU.
 *   AUTO      (jobs only) PORTABLE where the GPU renders a PNG at the
 *             default level, else ZLIB. */
typedef enum qr_png_deflate {
    QR_PNG_DEFLATE_AUTO = -1,
    QR_PNG_DEFLATE_ZLIB = 0,
    QR_PNG_DEFLATE_PORTABLE = 1
} qr_png_deflate;

/* A deflate encoder by name ("auto", "zlib", "portable"); else
 * QR_ERR_INVALID, "<name>: expected auto, zlib or portable, got '<text>'". */
qr_status qr_image_check_png_deflate(const char *name, const char *text, qr_png_deflate *out,
                                     qr_error *err);

/* A PNG level given as text (quadrender/text.h): 0 to 9; else
 * QR_ERR_INVALID, "<name>: expected a PNG level from 0 to 9, got '<text>'". */
qr_status qr_image_check_png_level(const char *name, const char *text, int *out, qr_error *err);
/* The widest and tallest image the streaming writer takes (PNG allows
 * 2^31 - 1; a row of this width is 48 MiB of RGB bytes). */
#define QR_IMAGE_WRITER_MAX_DIM (1 << 24)

/* A line of text a PNG carries about itself (a tEXt chunk, "Scene" =
 * "rand10k"). The key is 1 to 79 printable ASCII characters, without
 * leading, trailing or doubled spaces (PNG's rule for keywords); a value of
 * printable ASCII (and newlines) is written as tEXt, any other value as
 * iTXt, which holds UTF-8 (bytes that are not UTF-8 become U+FFFD). */
typedef struct qr_image_text {
    const char *key, *value;
} qr_image_text;

typedef struct qr_image_write_options {
    int png_level; /* 0..9, QR_PNG_LEVEL_DEFAULT */
    int threads;   /* threads that encode PNG and convert whole images;
                      0: one per online core. The bytes written do not
                      depend on it. */
    /* PNG only, ignored by PPM and PFM: text[0..ntext-1] in chunks after
     * IHDR, before the pixels, in this order; a bad key is QR_ERR_INVALID
     * before anything is written */
    const qr_image_text *text;
    int ntext;
    /* 1: the file keeps the image's alpha channel (PNG only: colour type 6,
     * pixels through qr_to_rgba8); PPM and PFM have none and refuse it with
     * QR_ERR_INVALID before anything is written. 0 (the default): RGB. */
    int alpha;
    /* PNG only: QR_PNG_DEFLATE_ZLIB (the default) or QR_PNG_DEFLATE_PORTABLE */
    qr_png_deflate deflate;
} qr_image_write_options;

static inline qr_image_write_options qr_image_write_options_default(void)
{
    qr_image_write_options o = {QR_PNG_LEVEL_DEFAULT, 0, NULL, 0, 0, QR_PNG_DEFLATE_ZLIB};
    return o;
}

/* Writes by extension with the given options (NULL: the defaults). */
qr_status qr_image_write_with(const qr_image *img, const char *path,
                              const qr_image_write_options *opts, qr_error *err);

/* Writes in `format` whatever the name says (a stream "-", a device, a
 * name without the extension), with the given options (NULL: defaults). */
qr_status qr_image_write_as(const qr_image *img, const char *path, qr_image_format format,
                            const qr_image_write_options *opts, qr_error *err);

/* The PNG file qr_image_write_with would write for img with these options
 * (NULL: the defaults), held in memory: *png, *len bytes, malloc'd (free it
 * with free()); the same bytes whatever opts->threads. For a PNG that goes
 * elsewhere than a file (a page, a socket). On failure *png is NULL, *len 0. */
qr_status qr_image_encode_png(const qr_image *img, const qr_image_write_options *opts,
                              unsigned char **png, size_t *len, qr_error *err);

/* The n file rows from file row `first` of img, as the file of `format`
 * stores them (PNG and PPM: 8-bit RGB through qr_to_byte, top row first;
 * with alpha, PNG only, 8-bit RGBA through qr_to_rgba8; PFM: float RGB,
 * bottom row first), into rows (n * width pixels of 3 or 4 bytes, or 3
 * floats): for rows rendered apart and written later, or elsewhere. alpha
 * other than 0 or 1, or 1 with PPM or PFM: QR_ERR_INVALID. */
qr_status qr_image_file_rows(const qr_image *img, qr_image_format format, int alpha,
                             int32_t first, int32_t n, void *rows, qr_error *err);

/* A file being written row band by row band:
 *
 *     qr_image_writer *w;
 *     qr_image_writer_open(path, QR_FORMAT_PNG, W, H, NULL, &w, &err);
 *     for each band: qr_image_writer_append_rgb8(w, rows, n, &err);
 *     qr_image_writer_close(w, &err);   // or qr_image_writer_abort(w)
 *
 * Rows go in the file's own order: top row first for PNG and PPM (8-bit
 * RGB rows of 3 * width bytes, qr_image_writer_append_rgb8; a PNG opened
 * with opts->alpha takes 8-bit RGBA rows of 4 * width bytes, straight
 * alpha, through the same call: qr_image_writer_pixel_bytes), bottom row
 * first for PFM (float RGB rows of 3 * width floats,
 * qr_image_writer_append_rgbf). A band may hold any number of rows; the
 * bytes written do not depend on how the rows were banded. The file
 * appears under `path` only when close succeeds with every row written;
 * after any failure, or after abort, no file and no temporary file is
 * left. After a failure, every further call answers the same error; close
 * or abort must still be called to free the writer. */
typedef struct qr_image_writer qr_image_writer;

qr_status qr_image_writer_open(const char *path, qr_image_format format, int32_t width,
                               int32_t height, const qr_image_write_options *opts,
                               qr_image_writer **out, qr_error *err);
qr_status qr_image_writer_append_rgb8(qr_image_writer *w, const unsigned char *rows,
                                      int32_t nrows, qr_error *err);
qr_status qr_image_writer_append_rgbf(qr_image_writer *w, const float *rows, int32_t nrows,
                                      qr_error *err);
/* Appends the rows of a float image (row 0 = bottom) that holds the next
 * rows of the file: its top row first for PNG and PPM, its bottom row first
 * for PFM, converted as qr_image_write does (qr_to_byte, alpha dropped; or
 * qr_to_rgba8 when the writer keeps alpha).
 * A band of a larger image is any width x n qr_image, made by hand when
 * wider than QR_IMAGE_MAX_DIM. */
qr_status qr_image_writer_append_image(qr_image_writer *w, const qr_image *rows, qr_error *err);
/* The format w writes. */
qr_image_format qr_image_writer_format(const qr_image_writer *w);
/* The bytes of a pixel in the rows w takes: 3 (RGB8), 4 (RGBA8: a PNG
 * with alpha) or 12 (float RGB: PFM). */
int qr_image_writer_pixel_bytes(const qr_image_writer *w);

/* Finishes the file and renames it into place; frees w whatever happens. */
qr_status qr_image_writer_close(qr_image_writer *w, qr_error *err);
/* Discards the file; frees w. Safe on NULL. */
void qr_image_writer_abort(qr_image_writer *w);

/* The 8-bit value a float channel is written as (the same function on the
 * GPU, which converts images before they come back). */
#if defined(__CUDACC__)
#define QR_HOST_DEVICE __host__ __device__
#else
#define QR_HOST_DEVICE
#endif
static inline QR_HOST_DEVICE unsigned char qr_to_byte(float v)
{
    float c = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    if (!(v == v)) c = 0.0f; /* NaN */
    return (unsigned char)(255.0f * c);
}

/* The 8-bit straight-alpha RGBA a pixel of premultiplied colour (r, g, b)
 * and alpha a is written as: A = qr_to_byte(a); where A is 0, R = G = B =
 * 0, else each channel is qr_to_byte(c / a) (a colour above its alpha, as
 * rounding leaves some, clamps to 255). The division rounds to nearest on
 * the host and on the GPU alike (__fdiv_rn), so both write the same bytes. */
static inline QR_HOST_DEVICE void qr_to_rgba8(float r, float g, float b, float a,
                                              unsigned char out[4])
{
    const unsigned char alpha = qr_to_byte(a);
    const float c[3] = {r, g, b};
    for (int k = 0; k < 3; k++)
#ifdef __CUDA_ARCH__
        out[k] = alpha ? qr_to_byte(__fdiv_rn(c[k], a)) : 0;
#else
        out[k] = alpha ? qr_to_byte(c[k] / a) : 0;
#endif
    out[3] = alpha;
}

#ifdef __cplusplus
}
#endif
#endif
