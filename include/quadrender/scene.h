/* quadrender/scene.h — scenes of semi-transparent circles.
 *
 * A scene is an ordered list of circles; index order is drawing order
 * (circle 0 is drawn first, i.e. farthest). Coordinates are normalized: the
 * image spans [0,1] x [0,1] and y = 0 is the bottom row.
 *
 * Sources of scenes:
 *   - the fourteen built-in CS149 scenes, reproduced exactly as
 *     docs/scene-definitions.md defines them, and six non-uniform ones of
 *     our own (clusters, spiral, powerlaw, hotspot, roads, ring;
 *     docs/scenes.md), all deterministic from a seed (qr_scene_builtin);
 *   - two sized families, `uniform:COUNT` and `clustered:COUNT`, and the
 *     zoo, `zoo:SEED`: a random non-uniform scene per seed, 100k-4M circles
 *     (qr_builtin_families);
 *   - `.circles` text files (docs/scene-format.md), read and written here;
 *   - CS149 particle dumps `.par` (rendered with snow shading);
 *   - NumPy `.npy` arrays of float32 rows x y z r R G B, read and written here.
 *
 * Arrays are structure-of-arrays, all carved from one allocation so a scene
 * can be uploaded to the GPU with one copy (qr_scene.block, block_floats).
 */
#ifndef QUADRENDER_SCENE_H
#define QUADRENDER_SCENE_H

#include <stddef.h>
#include <stdint.h>
#include "quadrender/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum qr_shading {
    QR_SHADE_FLAT = 0, /* alpha 0.5 and the circle's colour; white background */
    QR_SHADE_SNOW = 1  /* radial snowflake falloff; vertical grey gradient background */
} qr_shading;

typedef enum qr_anim {
    QR_ANIM_NONE = 0,
    QR_ANIM_HYPNOSIS,
    QR_ANIM_BOUNCE,
    QR_ANIM_FIREWORKS,
    QR_ANIM_SNOW
} qr_anim;

/* Largest circle count a scene may hold. */
#define QR_SCENE_MAX_CIRCLES 200000000

typedef struct qr_scene {
    int32_t n;                  /* number of circles */
    float *x, *y, *z, *r;       /* centre (normalized, y up), depth, radius */
    float *red, *green, *blue;  /* colour (may lie outside [0,1] for file scenes) */
    float *vx, *vy, *vz;        /* velocity: non-NULL only when anim != QR_ANIM_NONE */
    float *x0, *y0, *vx0, *vy0; /* fireworks only: a spark's start state, restored
                                   when it flies too far (kept so that the CPU and
                                   GPU steps use the very same float values) */
    float *block;               /* the one allocation all arrays above live in */
    size_t block_floats;        /* its length in floats */
    qr_shading shading;
    qr_anim anim;
    int64_t steps;              /* animation steps applied since generation */
    char name[64];              /* built-in name or file base name (cut to 63 bytes,
                                   never inside a UTF-8 character) */
    /* The picture's options (flat scenes; qr_scene_set_alpha,
     * qr_scene_set_background): */
    float *alpha;               /* each circle's opacity in [0, 1], its own allocation;
                                   NULL: 0.5 for every circle, the CS149 scenes' */
    float background[3];        /* the background's red, green, blue in [0, 1]; what
                                   qr_scene_create sets: white, the CS149 scenes' */
    int32_t antialias;          /* 1: anti-aliased edges (qr_scene_set_antialias); 0 */
    int32_t transparent;        /* 1: no background (qr_scene_set_transparent): the
                                   circles over black, with their coverage as alpha */
} qr_scene;

/* Allocates a scene of n circles, zero-filled. Velocity arrays exist when
 * anim != QR_ANIM_NONE, spark start arrays when anim == QR_ANIM_FIREWORKS.
 * Array order inside block: x y z r red green blue [vx vy vz] [x0 y0 vx0 vy0]. */
qr_status qr_scene_create(int32_t n, qr_anim anim, qr_scene **out, qr_error *err);
void qr_scene_destroy(qr_scene *scene);

/* A deep copy (same block layout, alpha, background and transparency included). */
qr_status qr_scene_clone(const qr_scene *src, qr_scene **out, qr_error *err);

/* A view of circles [first, first + count) of scene: *view is a copy of
 * the scene's header whose arrays (alpha included) point into the scene's
 * own, so it holds no memory of its own and is never destroyed; it is valid
 * while the scene is, and writing through it writes the scene. File order
 * is depth order: drawing a scene's views one after the other, each over
 * the image the ones before left (qr_render_cpu_over), draws the scene.
 * QR_ERR_INVALID when the circles are not the scene's. */
qr_status qr_scene_view(const qr_scene *scene, int32_t first, int32_t count, qr_scene *view,
                        qr_error *err);

/* ---- the picture's options: per-circle alpha, the background ------------ *
 * Flat scenes only (QR_ERR_INVALID, "<what>: flat scenes only; <name> is
 * snow-shaded"): snow's alpha and background are its shading's. Every
 * renderer (the reference, the fast CPU one, the GPU) draws them: a circle
 * blends as the reference blends, alpha a instead of 0.5 (C' = a c +
 * (1 - a) C; the alpha channel adds a), over the background colour instead
 * of white. With alpha NULL and a white background a scene draws as the
 * CS149 reference draws it. */

/* Copies n = scene->n opacities (each finite, from 0 to 1, else
 * QR_ERR_INVALID "<what>: circle I's alpha V is not between 0 and 1") into
 * the scene's own alpha array; alpha NULL frees it (every circle 0.5). */
qr_status qr_scene_set_alpha(qr_scene *scene, const float *alpha, const char *what, qr_error *err);

/* Sets the background colour: three finite numbers from 0 to 1, else
 * QR_ERR_INVALID "<what>: expected three numbers from 0 to 1, got R,G,B".
 * The scene is no longer transparent. */
qr_status qr_scene_set_background(qr_scene *scene, const float rgb[3], const char *what,
                                  qr_error *err);

/* No background (on 1): every renderer draws the circles over black and
 * writes, besides that colour (premultiplied by alpha), the pixel's
 * coverage as its alpha channel, blended as a colour channel whose value is
 * 1 on each circle and 0 behind them (A' = a + (1 - a) A; fast mode:
 * 1 - T). PNG files keep it (8-bit RGBA, straight alpha:
 * quadrender/image.h); PPM and PFM, which cannot, are refused. Off (0):
 * the white background again. */
qr_status qr_scene_set_transparent(qr_scene *scene, int on, const char *what, qr_error *err);

/* A background as a user writes it: "white", "black", "#RRGGBB" (hex
 * digits) or "R,G,B" (three numbers from 0 to 1, strtod's), or, where
 * transparent is not NULL, "none" (*transparent = 1, rgb black; else
 * *transparent = 0); else QR_ERR_INVALID "<name>: expected white, black,
 * #RRGGBB, R,G,B (numbers from 0 to 1) or none, got '<text>'" (without
 * "or none" where transparent is NULL). */
qr_status qr_background_check(const char *name, const char *text, float rgb[3], int *transparent,
                              qr_error *err);

/* One alpha as a user writes it: a number from 0 to 1 (strtod's, no
 * blanks); else QR_ERR_INVALID "<name>: expected a number from 0 to 1, got
 * '<text>'". */
qr_status qr_alpha_check(const char *name, const char *text, float *out, qr_error *err);

/* Anti-aliased edges (on 1) or the reference's hard ones (0): a circle
 * reaches half a pixel further and covers the pixels of its edge in part,
 * from the distance to it (common/circle_math.h, qr_aa_radius and
 * qr_aa_alpha: the same operations in every renderer). */
qr_status qr_scene_set_antialias(qr_scene *scene, int on, const char *what, qr_error *err);

/* Circle i's alpha: scene->alpha[i], or 0.5 without per-circle alpha. */
static inline float qr_scene_alpha(const qr_scene *scene, int32_t i)
{
    return scene->alpha ? scene->alpha[i] : 0.5f;
}

/* Whether the scene draws as the CS149 reference would: no per-circle alpha,
 * a white background, hard edges. */
static inline int qr_scene_is_plain(const qr_scene *scene)
{
    return !scene->alpha && scene->background[0] == 1.0f && scene->background[1] == 1.0f &&
           scene->background[2] == 1.0f && !scene->antialias && !scene->transparent;
}

/* ---- built-in scenes ---------------------------------------------------- */

typedef struct qr_builtin_info {
    const char *name;
    int32_t circles;
    int animated;
    const char *description;
} qr_builtin_info;

/* The table of built-in scenes (20 entries: the 14 CS149 scenes, then the
 * 6 non-uniform ones), in a stable order. */
const qr_builtin_info *qr_builtin_scenes(int *count);

/* A family of built-in scenes, named FAMILY:COUNT or zoo:SEED. COUNT is a
 * plain integer or one with a k (thousand) or M (million) suffix, 1 to
 * QR_SCENE_MAX_CIRCLES ("uniform:10k", "clustered:100M"); SEED is plain
 * digits, 0 to 2147483647 ("zoo:1000"). */
typedef struct qr_builtin_family {
    const char *name;
    const char *param; /* what follows the colon: "COUNT" or "SEED" */
    const char *description;
} qr_builtin_family;

/* The families (3 entries: uniform, clustered, zoo), in a stable order. */
const qr_builtin_family *qr_builtin_families(int *count);

/* The built-in name `name` stands for, ASCII case ignored ("Rand10k" is
 * "rand10k"): a table entry's name; for a family spelling with a valid
 * count or seed ("Uniform:10k", "ZOO:7") the family's name ("uniform",
 * "zoo"). NULL otherwise. */
const char *qr_builtin_find(const char *name);

/* The canonical name of the family scene FAMILY:COUNT, written into out
 * (size bytes): the family in lower case, then the count with an M suffix
 * when it is a whole number of millions, k when a whole number of
 * thousands, else in digits ("uniform:10000k" -> "uniform:10M",
 * "clustered:1500" -> "clustered:1500"); a zoo scene's seed in digits
 * ("zoo:007" -> "zoo:7"). QR_ERR_INVALID, with a one-line
 * message, when spec is not a family spelling or its count is bad. */
qr_status qr_builtin_family_name(const char *spec, char *out, size_t size, qr_error *err);

/* The built-in name closest to a mistyped `name` (at most one edit for names
 * of 3 to 5 bytes, two from 6 bytes on, a swap of two neighbours counting
 * one; case ignored), or NULL: what "did you mean" offers. */
const char *qr_builtin_suggest(const char *name);

/* Generates built-in scene `name` (any case, or a family spelling
 * FAMILY:COUNT or zoo:SEED) for `seed` (0 behaves as 1, like srand; a zoo
 * scene ignores it: its name's SEED is its identity); the scene is named as
 * the table names it, a family scene by its canonical name
 * (qr_builtin_family_name). */
qr_status qr_scene_builtin(const char *name, uint32_t seed, qr_scene **out, qr_error *err);

/* Loads `spec`: a built-in name (any case) or family spelling, or a path ending in .circles,
 * .par or .npy. An unknown name's message suggests the closest built-in.
 * `seed` only matters for built-ins. */
qr_status qr_scene_load(const char *spec, uint32_t seed, qr_scene **out, qr_error *err);

/* Whether qr_scene_load could start on `spec`, without loading it: a
 * built-in name or family spelling (with a valid count or seed), or an
 * existing readable file (not a directory) of a known extension; else the
 * error qr_scene_load would give (the file's contents are not read: a
 * malformed file still fails to load). For a program that checks all its
 * scenes before any work. */
qr_status qr_scene_check_spec(const char *spec, qr_error *err);

/* A built-in scene's seed given as text (quadrender/text.h): 0 to
 * 4294967295; else QR_ERR_INVALID, "<name>: expected an integer from 0 to
 * 4294967295, got '<text>'". */
qr_status qr_scene_check_seed(const char *name, const char *text, uint32_t *out, qr_error *err);

/* The last frame a user may ask for (a frame number is an int32 in files'
 * names and in the GPU's steps). */
#define QR_SCENE_MAX_FRAME INT64_C(2147483647)

/* A frame number given as text: 0 to QR_SCENE_MAX_FRAME; else
 * QR_ERR_INVALID, "<name>: expected a frame number from 0 to 2147483647,
 * got '<text>'". */
qr_status qr_scene_check_frame(const char *name, const char *text, int64_t *out, qr_error *err);

/* Whether every circle of `scene` is one the scene readers take: finite
 * numbers and a radius that is not negative. Else, for the first circle
 * that is not, QR_ERR_INVALID with the message the .npy reader gives
 * ("<where>: row 3: negative radius -0.5", "<where>: row 3: x: nan is not
 * a finite number"; `where` names the scene: a path, "circles"). For scenes
 * filled by a program rather than read from a file. */
qr_status qr_scene_check_circles(const qr_scene *scene, const char *where, qr_error *err);

/* ---- animation ----------------------------------------------------------- */

/* Applies one animation step (dt = 1/60); a no-op for static scenes.
 * Uses only + - * / and sqrtf so that the GPU step can match it bit for bit. */
void qr_scene_step(qr_scene *scene);

/* Steps until the scene is in the state frame `frame` is rendered from:
 * frame k is rendered after k+1 steps from generation. Fails if the scene has
 * already been stepped past that point. The state equals that many
 * qr_scene_step calls bit for bit, but is reached faster: static scenes
 * only count the steps; hypnosis, bouncing balls and fireworks, whose
 * circles move by their own state alone, skip whole cycles of it (a seek of
 * any length costs about as much as a few hundred steps); snow runs every
 * step, each circle's steps back to back, on all threads (qr_threads). */
qr_status qr_scene_seek_frame(qr_scene *scene, int64_t frame, qr_error *err);

/* Progress of a long operation: `done` of `total` units (steps of a seek). */
typedef void (*qr_progress_fn)(void *ctx, int64_t done, int64_t total);

/* qr_scene_seek_frame, calling progress(ctx, done, total) between chunks of
 * steps when the seek takes more than one (snow: about 2^24 circle-steps a
 * chunk); the last call has done == total. progress may be NULL. */
qr_status qr_scene_seek_frame_progress(qr_scene *scene, int64_t frame, qr_progress_fn progress,
                                       void *ctx, qr_error *err);

/* ---- files ---------------------------------------------------------------- */

/* Reads a .circles file (docs/scene-format.md). Errors read "file:line: what". */
qr_status qr_scene_read_circles(const char *path, qr_scene **out, qr_error *err);
/* Reads a CS149 .par particle dump (N, then N lines x y z vx vy vz r). */
qr_status qr_scene_read_par(const char *path, qr_scene **out, qr_error *err);
/* Writes the circles (not velocities) as a .circles file, atomically. */
qr_status qr_scene_write_circles(const qr_scene *scene, const char *path, qr_error *err);
/* Reads a NumPy .npy file: float32 '<f4', C order, shape (N, 7), rows
 * x y z r R G B (docs/scene-format.md). Errors read "file: what". */
qr_status qr_scene_read_npy(const char *path, qr_scene **out, qr_error *err);
/* ---- scenes read in chunks ------------------------------------------------ */

/* A .npy scene read chunk by chunk, never whole: the circles of a file
 * larger than memory, or than QR_SCENE_MAX_CIRCLES, in depth (file) order.
 * Each chunk is a scene of its own (qr_scene_view's rule: drawn one over
 * the other they draw the file). */
typedef struct qr_scene_stream qr_scene_stream;

/* Opens path (a .npy file, else QR_ERR_INVALID) and checks its header and
 * its length as qr_scene_read_npy does, with the same messages, but for
 * the limit on circles; no circle is read yet. */
qr_status qr_scene_stream_open(const char *path, qr_scene_stream **out, qr_error *err);

/* The file's circles (0 for NULL). */
int64_t qr_scene_stream_circles(const qr_scene_stream *stream);

/* The stream's picture: a scene of no circles, named as qr_scene_read_npy
 * names the file's scene, whose background, anti-aliased edges and
 * transparency (qr_scene_set_background, _set_antialias, _set_transparent)
 * every chunk read after takes; its per-circle alpha is not carried. Valid
 * until the stream is closed. */
qr_scene *qr_scene_stream_picture(qr_scene_stream *stream);

/* Reads circles [first, first + count) into a new scene (*out; destroy it)
 * of the picture's name and options, each row checked as qr_scene_read_npy checks it, rows counted from the
 * file's first in the message. A file cut shorter than its header says
 * since it was opened: QR_ERR_PARSE, "<path>: truncated: circle K of N is
 * missing ..."; a range outside the file: QR_ERR_INVALID. */
qr_status qr_scene_stream_read(qr_scene_stream *stream, int64_t first, int32_t count,
                               qr_scene **out, qr_error *err);

/* Reads circles [first, first + count) as the file's rows, 7 floats each
 * (x y z r R G B; '<f8' rounded to float32 as qr_scene_stream_read rounds
 * them), into a new buffer (*rows; free() it), unchecked: for a caller that
 * checks them itself (qr_gpu_scene_update_host) and reads them again with
 * qr_scene_stream_read for the message of a bad one. A read-ahead of the
 * same circles is taken as qr_scene_stream_read takes it; the same errors
 * for a range outside the file and a file cut short. */
qr_status qr_scene_stream_read_rows(qr_scene_stream *stream, int64_t first, int32_t count,
                                    float **rows, qr_error *err);

/* Starts reading circles [first, first + count) on a thread of its own,
 * while the caller works on the chunk before: a later qr_scene_stream_read
 * of exactly those circles takes its bytes (and its errors), any other
 * read drops them. A range outside the file, or no thread to be had: the
 * circles are read when asked. One read-ahead at a time; a stream is used
 * from one thread. */
void qr_scene_stream_prefetch(qr_scene_stream *stream, int64_t first, int32_t count);

/* Closes the file (NULL: nothing), a read-ahead waited for. */
void qr_scene_stream_close(qr_scene_stream *stream);

/* Writes the circles (not velocities) as a .npy file (format 1.0, '<f4',
 * shape (N, 7)), atomically. */
qr_status qr_scene_write_npy(const qr_scene *scene, const char *path, qr_error *err);

#ifdef __cplusplus
}
#endif
#endif
