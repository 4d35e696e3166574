/* scene_gpu.cu — uploading a scene to the GPU and reading it back. */
#include "scene/gpu/scene_gpu.h"
#include "scene/animate_step.h"
#include "scene/scene_seek.h"
#include "scene/scene_background.h"
#include "gpu/cuda_check.h"
#include "gpu/tuning.h"
#include "quadrender/threads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* pos = (x, y, z, r), col = (red, green, blue, alpha): what the renderer
 * gathers (alpha NULL: 0.5 each). */
__global__ void k_pack(int32_t n, const float *x, const float *y, const float *z, const float *r,
                       const float *red, const float *green, const float *blue,
                       const float *alpha, float4 *pos, float4 *col)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        pos[i] = make_float4(x[i], y[i], z[i], r[i]);
        if (col) col[i] = make_float4(red[i], green[i], blue[i], alpha ? alpha[i] : 0.5f);
    }
}

/* One animation step of every circle (animate_step.h), then re-pack. */
__global__ void k_step(int32_t n, qr_anim anim, qr_step_arrays a, int64_t step, float4 *pos)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        qr_step_circle(anim, a, i, step);
        pos[i] = make_float4(a.x[i], a.y[i], a.z[i], a.r[i]);
    }
}

/* `count` steps of every circle from time `step` (animate_step.h
 * qr_run_circle: one thread runs one circle's steps back to back), then
 * re-pack. */
__global__ void k_run(int32_t n, qr_anim anim, qr_step_arrays a, int64_t step, int64_t count,
                      float4 *pos)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        qr_run_circle(anim, a, i, step, count);
        pos[i] = make_float4(a.x[i], a.y[i], a.z[i], a.r[i]);
    }
}

/* The per-circle loops index in int32: a circle index plus one grid stride
 * (at most 4096 x 256) stays below 2^31 for every scene we accept. */
static_assert((long long)QR_SCENE_MAX_CIRCLES + 4096LL * 256 < INT32_MAX,
              "the per-circle loops' int32 indices could wrap");

static int grid_for(int32_t n)
{
    int b = (int)((n + 255) / 256);
    return b < 1 ? 1 : (b > 4096 ? 4096 : b);
}

/* See qr_gpu_scene.color_span, color_lo, color_hi, colors_finite, fma_blend, depth and
 * radius. */
/* What color_range learns from a run of circles; runs of a fixed length,
 * combined in order, so the result does not depend on the thread count. */
#define RANGE_RUN 65536
struct range_part {
    float lo, hi;
    int finite, tiny;
    int64_t zeros[3];
    double area, radii;
};

struct range_job {
    const qr_scene *s;
    range_part *parts;
};

/* Products and sums of the depth and radius totals, never fused into a
 * multiply-add on the device: the device scene made from device memory
 * (qr_gpu_scene_create_device) must reach the host's bits. */
#ifdef __CUDA_ARCH__
#define RANGE_MUL(a, b) __dmul_rn(a, b)
#define RANGE_ADD(a, b) __dadd_rn(a, b)
#else
#define RANGE_MUL(a, b) ((a) * (b))
#define RANGE_ADD(a, b) ((a) + (b))
#endif

/* What a run of no circles learns. */
__host__ __device__ static range_part range_empty(void)
{
    range_part p;
    p.lo = INFINITY;
    p.hi = -INFINITY;
    p.finite = 1;
    p.tiny = 0;
    p.zeros[0] = p.zeros[1] = p.zeros[2] = 0;
    p.area = p.radii = 0.0;
    return p;
}

/* Adds a circle's colour to p (flat scenes). */
__host__ __device__ static void range_colour(range_part *p, float red, float green, float blue)
{
    const float c[3] = {red, green, blue};
    for (int k = 0; k < 3; k++) {
        p->finite &= isfinite(c[k]) != 0;
        p->lo = c[k] < p->lo ? c[k] : p->lo;
        p->hi = c[k] > p->hi ? c[k] : p->hi;
        p->zeros[k] += c[k] == 0.0f;
        p->tiny |= c[k] != 0.0f && fabsf(c[k]) < 0x1p-60f;
    }
}

/* Folds the colours of `later`, a part of the circles that follow p's, into
 * p. The lowest and highest colours come out as one pass over the circles
 * finds them (the first of equal values stays; NaN never wins a
 * comparison), so parts combine in order, in any grouping, to one pass's
 * result. */
__host__ __device__ static void range_merge_colours(range_part *p, const range_part *later)
{
    p->lo = later->lo < p->lo ? later->lo : p->lo;
    p->hi = later->hi > p->hi ? later->hi : p->hi;
    p->finite &= later->finite;
    p->tiny |= later->tiny;
    for (int k = 0; k < 3; k++) p->zeros[k] += later->zeros[k];
}

/* A circle's terms of the depth and radius sums: its box inside the unit
 * square times pi/4, and |r|. */
__host__ __device__ static void range_terms(float x, float y, float r, double *area, double *radius)
{
    const double ri = fabs((double)r);
    const double w = fmin(RANGE_ADD((double)x, ri), 1.0) - fmax((double)x - ri, 0.0);
    const double h = fmin(RANGE_ADD((double)y, ri), 1.0) - fmax((double)y - ri, 0.0);
    *area = w > 0 && h > 0 ? RANGE_MUL(RANGE_MUL(0.7853981633974483, w), h) : 0.0;
    *radius = ri;
}

/* Adds a circle's terms to p's sums; the sums run in circle order (floating
 * point addition does not regroup). */
__host__ __device__ static void range_sum(range_part *p, double area, double radius)
{
    p->area = RANGE_ADD(p->area, area);
    p->radii = RANGE_ADD(p->radii, radius);
}

/* What color_range learns from circles [first, last) (column arrays). */
static void range_of(const float *x, const float *y, const float *r, const float *red,
                     const float *green, const float *blue, int flat, int32_t first, int32_t last,
                     range_part *p)
{
    *p = range_empty();
    if (flat)
        for (int32_t i = first; i < last; i++) range_colour(p, red[i], green[i], blue[i]);
    for (int32_t i = first; i < last; i++) {
        double area, radius;
        range_terms(x[i], y[i], r[i], &area, &radius);
        range_sum(p, area, radius);
    }
}

static void range_run(void *ctx, int task)
{
    const range_job *job = (const range_job *)ctx;
    const qr_scene *s = job->s;
    const int32_t first = task * RANGE_RUN;
    const int32_t last = s->n - first < RANGE_RUN ? s->n : first + RANGE_RUN;
    range_of(s->x, s->y, s->r, s->red, s->green, s->blue, s->shading == QR_SHADE_FLAT, first, last,
             &job->parts[task]);
}

/* ---- a scene's numbers, chunk by chunk (qr_gpu_numbers) ---- */

extern "C" void qr_gpu_numbers_init(qr_gpu_numbers *n, const qr_scene *picture)
{
    memset(n, 0, sizeof *n);
    n->finite = 1;
    n->snow = picture->shading == QR_SHADE_SNOW;
    qr_background_range(picture, &n->lo, &n->hi);
}

/* Pieces of a chunk: the runs of RANGE_RUN circles counted from the whole
 * scene's first (as color_range cuts the whole scene), the first one going
 * on with the run the chunks before left open. */
struct numbers_job {
    const qr_scene *s;
    int32_t head;      /* circles that close (or extend) the open run */
    range_part *parts; /* part 0: the head, continuing `open`; then one a run */
    double open;
};

static void numbers_run(void *ctx, int task)
{
    const numbers_job *job = (const numbers_job *)ctx;
    const qr_scene *s = job->s;
    const int32_t first = task ? job->head + (task - 1) * RANGE_RUN : 0;
    const int32_t last = task ? (s->n - first < RANGE_RUN ? s->n : first + RANGE_RUN) : job->head;
    range_part *p = &job->parts[task];
    range_of(s->x, s->y, s->r, s->red, s->green, s->blue, s->shading == QR_SHADE_FLAT, first, last, p);
    if (task == 0) {
        /* the open run's sum goes on circle by circle */
        p->area = job->open;
        for (int32_t i = first; i < last; i++) {
            double area, radius;
            range_terms(s->x[i], s->y[i], s->r[i], &area, &radius);
            p->area = RANGE_ADD(p->area, area);
        }
    }
}

extern "C" qr_status qr_gpu_numbers_add(qr_gpu_numbers *n, const qr_scene *chunk, qr_error *err)
{
    const int32_t into = (int32_t)(n->circles % RANGE_RUN);
    const int32_t head = into ? (chunk->n < RANGE_RUN - into ? chunk->n : RANGE_RUN - into) : 0;
    const int runs = (int)((chunk->n - head + (int64_t)RANGE_RUN - 1) / RANGE_RUN);
    range_part *parts = (range_part *)calloc((size_t)runs + 1, sizeof *parts);
    if (!parts) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    numbers_job job = {chunk, head, parts, n->open};
    qr_parallel_for(runs + 1, 0, numbers_run, &job);
    range_part all = range_empty();
    all.lo = n->lo;
    all.hi = n->hi;
    all.finite = n->finite;
    for (int k = 0; k <= runs; k++) range_merge_colours(&all, &parts[k]);
    n->lo = all.lo;
    n->hi = all.hi;
    n->finite = all.finite;
    /* runs close in order, as color_range adds them: the open one (if the
     * head completes it), then each full run; the last may stay open */
    double open = n->open;
    if (head) {
        open = parts[0].area;
        if (into + head == RANGE_RUN) {
            n->area = RANGE_ADD(n->area, open);
            open = 0.0;
        }
    }
    for (int k = 1; k <= runs; k++) {
        const int32_t start = head + (k - 1) * RANGE_RUN;
        if (chunk->n - start >= RANGE_RUN) {
            n->area = RANGE_ADD(n->area, parts[k].area);
        } else {
            open = parts[k].area;
        }
    }
    n->open = open;
    n->circles += chunk->n;
    free(parts);
    return QR_OK;
}

/* p as lane (this lane + by) holds it (this lane's own where there is none). */
__device__ static range_part range_shfl_down(const range_part &p, int by)
{
    range_part q;
    q.lo = __shfl_down_sync(0xffffffffu, p.lo, by);
    q.hi = __shfl_down_sync(0xffffffffu, p.hi, by);
    q.finite = __shfl_down_sync(0xffffffffu, p.finite, by);
    q.tiny = __shfl_down_sync(0xffffffffu, p.tiny, by);
    for (int k = 0; k < 3; k++)
        q.zeros[k] = __shfl_down_sync(0xffffffffu, (long long)p.zeros[k], by);
    q.area = q.radii = 0.0;
    return q;
}

/* Groups of 32 circles a warp of k_range reads at once, so that their loads
 * wait on memory together. */
#define RANGE_GROUPS 4

/* range_of on the device (flat scenes): a warp per run, the host's runs. Its
 * lanes read circles side by side, 32 to a group; a group's colours fold
 * over a tree of neighbouring lanes, in circle order (range_merge_colours),
 * and the group's terms join the run's sums one circle after another, as
 * in the host's loop, so the run's part is the host's to the bit. Launched
 * with one warp a block, one block a run. */
__global__ void k_range(int32_t n, const float *x, const float *y, const float *r, const float *red,
                        const float *green, const float *blue, range_part *parts)
{
    const int lane = threadIdx.x;
    const int32_t first = blockIdx.x * RANGE_RUN;
    const int32_t last = n - first < RANGE_RUN ? n : first + RANGE_RUN;
    range_part run = range_empty(); /* complete in lane 0 */
    for (int32_t at = first; at < last; at += 32 * RANGE_GROUPS) {
        range_part c[RANGE_GROUPS];
        double area[RANGE_GROUPS], radius[RANGE_GROUPS];
#pragma unroll
        for (int g = 0; g < RANGE_GROUPS; g++) {
            const int32_t i = at + 32 * g + lane;
            c[g] = range_empty();
            area[g] = radius[g] = 0.0;
            if (i < last) {
                range_colour(&c[g], red[i], green[i], blue[i]);
                range_terms(x[i], y[i], r[i], &area[g], &radius[g]);
            }
        }
#pragma unroll
        for (int g = 0; g < RANGE_GROUPS; g++) {
            /* lane k (k a multiple of 2 by) gathers circles k to k + 2 by - 1 */
            for (int by = 1; by < 32; by *= 2) {
                const range_part later = range_shfl_down(c[g], by);
                range_merge_colours(&c[g], &later);
            }
            range_merge_colours(&run, &c[g]);
            const int32_t left = last - (at + 32 * g);
            for (int j = 0; j < (left < 32 ? left : 32); j++)
                range_sum(&run, __shfl_sync(0xffffffffu, area[g], j),
                          __shfl_sync(0xffffffffu, radius[g], j));
        }
    }
    if (lane == 0) parts[blockIdx.x] = run;
}

/* The scene's colour range, depth and mean radius from its runs' parts,
 * combined in run order. */
static void combine_ranges(const range_part *parts, int runs, int32_t n, qr_shading shading,
                           qr_gpu_scene *g)
{
    /* the background's values (g->background; snow: ramp colours lie in
     * [0.8, 1], the background in [0.4, 0.85], and parts of snow scenes
     * hold no colours) */
    range_part all = range_empty();
    qr_scene bg;
    bg.shading = shading;
    bg.transparent = g->transparent;
    memcpy(bg.background, g->background, sizeof bg.background);
    qr_background_range(&bg, &all.lo, &all.hi);
    double area = 0.0, radii = 0.0;
    for (int k = 0; k < runs; k++) {
        range_merge_colours(&all, &parts[k]);
        area += parts[k].area;
        radii += parts[k].radii;
    }
    const float lo = all.lo, hi = all.hi;
    const int finite = all.finite;
    /* Every colour value an exact flat walk or a window's run computes
     * starts at the background 1, at 0 or above every colour (renderer.cu)
     * and is fl(h + fl(0.5 c)), h = fl(0.5 colour). With every channel >= 0
     * it stays >= 0; a blend with a nonzero channel leaves it >= that h >=
     * 2^-61 (round to nearest is monotone), and only circles whose channel is
     * 0 halve it, at most 60 of them. So it is 0 or at least 2^-121, 0.5 c is
     * exact, and fl(h + fl(0.5 c)) = fma(0.5, c, h) to the bit. */
    g->fma_blend = shading == QR_SHADE_FLAT && finite && lo >= 0.0f && !all.tiny &&
                   all.zeros[0] <= 60 && all.zeros[1] <= 60 && all.zeros[2] <= 60 && g->plain;
    g->depth = (float)area;
    g->radius = n ? (float)(radii / n) : 0.0f;
    g->color_span = hi - lo;
    g->color_lo = lo;
    g->color_hi = hi;
    g->colors_finite = finite;
}

static qr_status color_range(const qr_scene *s, qr_gpu_scene *g, qr_error *err)
{
    const int runs = (int)((s->n + (int64_t)RANGE_RUN - 1) / RANGE_RUN);
    range_part *parts = (range_part *)calloc(runs ? runs : 1, sizeof *parts);
    if (!parts) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    range_job job = {s, parts};
    qr_parallel_for(runs, 0, range_run, &job);
    combine_ranges(parts, runs, s->n, s->shading, g);
    free(parts);
    return QR_OK;
}

/* Device twin of a host array: same offset inside the block. */
static float *twin(const qr_scene *s, float *dev_block, const float *host_ptr)
{
    return host_ptr ? dev_block + (host_ptr - s->block) : NULL;
}

/* Host to device through two pinned staging buffers: a pageable copy runs
 * at a fraction of the bus's speed (the driver stages it page by page),
 * while here the copy into one buffer (on all cores) overlaps the transfer
 * of the other.
 * Small copies go straight. */
#define STAGE_BYTES ((size_t)16 << 20)
#define STAGE_PIECE ((size_t)1 << 20) /* a thread's share of a buffer's fill */

struct stage_fill {
    char *dst;
    const char *src;
    size_t bytes;
};

static void fill_piece(void *ctx, int task)
{
    const stage_fill *f = (const stage_fill *)ctx;
    const size_t at = (size_t)task * STAGE_PIECE;
    memcpy(f->dst + at, f->src + at, f->bytes - at < STAGE_PIECE ? f->bytes - at : STAGE_PIECE);
}

/* Uploads `parts` host ranges, part p's bytes[p] from host[p] to dev[p]. */
static cudaError_t upload_staged(int parts, void *const *dev, const void *const *host,
                                 const size_t *bytes)
{
    size_t total = 0;
    for (int p = 0; p < parts; p++) total += bytes[p];
    if (total <= 2 * STAGE_BYTES) {
        cudaError_t e = cudaSuccess;
        for (int p = 0; p < parts && e == cudaSuccess; p++)
            e = cudaMemcpy(dev[p], host[p], bytes[p], cudaMemcpyHostToDevice);
        return e;
    }
    void *stage[2] = {NULL, NULL};
    cudaEvent_t done[2] = {NULL, NULL};
    cudaStream_t st = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    for (int k = 0; k < 2 && e == cudaSuccess; k++) {
        e = cudaHostAlloc(&stage[k], STAGE_BYTES, cudaHostAllocWriteCombined);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming);
    }
    size_t k = 0;
    for (int p = 0; p < parts && e == cudaSuccess; p++)
        for (size_t at = 0; e == cudaSuccess && at < bytes[p]; at += STAGE_BYTES, k++) {
            const size_t n = bytes[p] - at < STAGE_BYTES ? bytes[p] - at : STAGE_BYTES;
            if (k >= 2) e = cudaEventSynchronize(done[k & 1]); /* its last transfer is over */
            if (e != cudaSuccess) break;
            stage_fill f = {(char *)stage[k & 1], (const char *)host[p] + at, n};
            qr_parallel_for((int)((n + STAGE_PIECE - 1) / STAGE_PIECE), 0, fill_piece, &f);
            e = cudaMemcpyAsync((char *)dev[p] + at, stage[k & 1], n, cudaMemcpyHostToDevice, st);
            if (e == cudaSuccess) e = cudaEventRecord(done[k & 1], st);
        }
    if (st) {
        const cudaError_t e2 = cudaStreamSynchronize(st);
        if (e == cudaSuccess) e = e2;
        cudaStreamDestroy(st);
    }
    for (int j = 0; j < 2; j++) {
        if (done[j]) cudaEventDestroy(done[j]);
        cudaFreeHost(stage[j]);
    }
    return e;
}

extern "C" qr_status qr_gpu_scene_create(const qr_scene *s, qr_gpu_scene **out, qr_error *err)
{
    *out = NULL;
    qr_gpu_scene *g = (qr_gpu_scene *)calloc(1, sizeof *g);
    if (!g) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    g->n = s->n;
    g->shading = s->shading;
    g->anim = s->anim;
    g->steps = s->steps;
    g->block_floats = s->block_floats;
    memcpy(g->background, s->background, sizeof g->background);
    g->antialias = s->shading == QR_SHADE_FLAT && s->antialias;
    g->transparent = s->shading == QR_SHADE_FLAT && s->transparent;
    g->plain = qr_scene_is_plain(s);
    /* the host arrays and their device twins; a view (qr_scene_view) has
     * no block of its own: its arrays go one after another into the
     * device block, else the block goes whole */
    float *const host[] = {s->x,  s->y,  s->z,  s->r,  s->red, s->green, s->blue,
                           s->vx, s->vy, s->vz, s->x0, s->y0,  s->vx0,   s->vy0};
    float **const dev[] = {&g->x,  &g->y,  &g->z,  &g->r,  &g->red, &g->green, &g->blue,
                           &g->vx, &g->vy, &g->vz, &g->x0, &g->y0,  &g->vx0,   &g->vy0};
    enum { ARRAYS = sizeof host / sizeof host[0] };
    const bool view = !s->block;
    int present = 0;
    for (int k = 0; k < ARRAYS; k++) present += host[k] != NULL;
    g->block_floats = view ? (size_t)present * (size_t)s->n : s->block_floats;
    size_t bytes = g->block_floats * sizeof(float);
    cudaError_t e = cudaMalloc((void **)&g->block, bytes ? bytes : sizeof(float));
    if (e != cudaSuccess) {
        cudaGetLastError();
        free(g);
        return qr_fail(err, qr_cuda_status(e), "uploading %d circles needs %zu bytes of GPU memory: %s",
                       s->n, bytes, cudaGetErrorString(e));
    }
    void *to[ARRAYS];
    const void *from[ARRAYS];
    size_t part[ARRAYS];
    int parts = 0;
    for (int k = 0; k < ARRAYS; k++) {
        *dev[k] = !host[k] ? NULL : view ? g->block + (size_t)parts * (size_t)s->n
                                         : twin(s, g->block, host[k]);
        if (view && host[k]) {
            to[parts] = *dev[k];
            from[parts] = host[k];
            part[parts++] = (size_t)s->n * sizeof(float);
        }
    }
    if (!view) {
        to[0] = g->block;
        from[0] = s->block;
        part[0] = bytes;
        parts = 1;
    }
    e = upload_staged(parts, to, from, part);
    if (e != cudaSuccess) {
        cudaGetLastError();
        cudaFree(g->block);
        free(g);
        return qr_fail(err, qr_cuda_status(e), "uploading the scene: %s", cudaGetErrorString(e));
    }
    qr_status cst = color_range(s, g, err);
    if (cst) {
        qr_gpu_scene_destroy(g);
        return cst;
    }
    size_t n = s->n ? (size_t)s->n : 1;
    if (s->alpha && s->n > 0) {
        e = cudaMalloc((void **)&g->alpha, (size_t)s->n * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemcpy(g->alpha, s->alpha, (size_t)s->n * sizeof(float), cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            cudaGetLastError();
            qr_gpu_scene_destroy(g);
            return qr_fail(err, qr_cuda_status(e), "uploading %d alphas: %s", s->n,
                           cudaGetErrorString(e));
        }
    }
    e = cudaMalloc((void **)&g->pos, 2 * n * sizeof(float4));
    if (e != cudaSuccess) {
        cudaGetLastError();
        qr_gpu_scene_destroy(g);
        return qr_fail(err, qr_cuda_status(e), "packing %d circles needs %zu bytes of GPU memory: %s",
                       s->n, 2 * n * sizeof(float4), cudaGetErrorString(e));
    }
    g->col = g->pos + n;
    if (s->n > 0) {
        k_pack<<<grid_for(s->n), 256, 0, cudaStreamLegacy>>>(s->n, g->x, g->y, g->z, g->r, g->red,
                                                             g->green, g->blue, g->alpha, g->pos,
                                                             g->col);
        e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            qr_gpu_scene_destroy(g);
            return qr_fail(err, qr_cuda_status(e), "packing the scene on the GPU: %s",
                           cudaGetErrorString(e));
        }
    }
    *out = g;
    return QR_OK;
}

/* Rows of x y z r R G B to the scene's column arrays and packed copies. */
__global__ void k_unpack_rows(int32_t n, const float *__restrict__ rows, float *x, float *y, float *z,
                              float *r, float *red, float *green, float *blue, float4 *pos, float4 *col)
{
    for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float *v = rows + (size_t)i * 7;
        x[i] = v[0];
        y[i] = v[1];
        z[i] = v[2];
        r[i] = v[3];
        red[i] = v[4];
        green[i] = v[5];
        blue[i] = v[6];
        pos[i] = make_float4(v[0], v[1], v[2], v[3]);
        col[i] = make_float4(v[4], v[5], v[6], 0.5f);
    }
}

/* Frees g's device memory and leaves it a scene of no circles. */
static void scene_release(qr_gpu_scene *g)
{
    cudaFree(g->pos);
    cudaFree(g->block);
    cudaFree(g->dparts);
    cudaFree(g->alpha);
    g->alpha = NULL;
    g->pos = g->col = NULL;
    g->block = g->x = g->y = g->z = g->r = g->red = g->green = g->blue = NULL;
    g->dparts = NULL;
    g->cap = 0;
    g->n = 0;
    g->block_floats = 0;
}

/* qr_gpu_scene_create_device and qr_gpu_scene_update_device: makes g (new
 * and zeroed, or one to refill) the static flat scene of n device rows, in
 * g's device memory when it holds n circles, else in new memory. */
static qr_status scene_from_rows(qr_gpu_scene *g, const float *rows, int32_t n, qr_error *err)
{
    if (n < 0 || n > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_INVALID, "%d circles: from 0 to %d", n, QR_SCENE_MAX_CIRCLES);
    if (n > 0 && !rows) return qr_fail(err, QR_ERR_INVALID, "no device rows for %d circles", n);
    /* the rows may still be being written by other work on the device, and
     * a render of g's last circles may still be reading its memory */
    QR_CUDA_TRY(err, cudaDeviceSynchronize());
    const int32_t nn = n ? n : 1; /* every buffer holds a circle at least */
    const int runs = (int)((n + (int64_t)RANGE_RUN - 1) / RANGE_RUN);
    range_part *parts = (range_part *)calloc(runs ? runs : 1, sizeof *parts);
    if (!parts) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    g->shading = QR_SHADE_FLAT;
    g->anim = QR_ANIM_NONE;
    g->steps = 0;
    /* rows carry no alpha: 0.5 each, over white */
    cudaFree(g->alpha);
    g->alpha = NULL;
    g->background[0] = g->background[1] = g->background[2] = 1.0f;
    g->antialias = 0;
    g->transparent = 0;
    g->plain = 1;
    g->vx = g->vy = g->vz = g->x0 = g->y0 = g->vx0 = g->vy0 = NULL;
    cudaError_t e = cudaSuccess;
    if (nn > g->cap) {
        scene_release(g);
        const size_t cap_runs = ((size_t)nn + RANGE_RUN - 1) / RANGE_RUN;
        e = cudaMalloc((void **)&g->block, 7 * (size_t)nn * sizeof(float));
        if (e == cudaSuccess) e = cudaMalloc((void **)&g->pos, 2 * (size_t)nn * sizeof(float4));
        if (e == cudaSuccess) e = cudaMalloc((void **)&g->dparts, cap_runs * sizeof *g->dparts);
        if (e == cudaSuccess) g->cap = nn;
    }
    if (e == cudaSuccess) {
        g->block_floats = 7 * (size_t)n;
        g->x = g->block;
        g->y = g->x + nn;
        g->z = g->y + nn;
        g->r = g->z + nn;
        g->red = g->r + nn;
        g->green = g->red + nn;
        g->blue = g->green + nn;
        g->col = g->pos + nn;
        if (n > 0) {
            k_unpack_rows<<<grid_for(n), 256, 0, cudaStreamLegacy>>>(n, rows, g->x, g->y, g->z, g->r,
                                                                     g->red, g->green, g->blue, g->pos,
                                                                     g->col);
            e = cudaGetLastError();
            if (e == cudaSuccess)
                k_range<<<runs, 32, 0, cudaStreamLegacy>>>(n, g->x, g->y, g->r, g->red, g->green,
                                                           g->blue, g->dparts);
            if (e == cudaSuccess) e = cudaGetLastError();
            /* the renderer chooses its kernels on the host from the ranges */
            if (e == cudaSuccess)
                e = cudaMemcpy(parts, g->dparts, runs * sizeof *parts, cudaMemcpyDeviceToHost);
        }
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        free(parts);
        scene_release(g);
        return qr_fail(err, qr_cuda_status(e), "making a scene of %d circles on the GPU: %s", n,
                       cudaGetErrorString(e));
    }
    g->n = n;
    combine_ranges(parts, runs, n, QR_SHADE_FLAT, g);
    free(parts);
    return QR_OK;
}

extern "C" qr_status qr_gpu_scene_create_device(const float *rows, int32_t n, qr_gpu_scene **out,
                                                qr_error *err)
{
    *out = NULL;
    qr_gpu_scene *g = (qr_gpu_scene *)calloc(1, sizeof *g);
    if (!g) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    const qr_status st = scene_from_rows(g, rows, n, err);
    if (st != QR_OK) {
        qr_gpu_scene_destroy(g);
        return st;
    }
    *out = g;
    return QR_OK;
}

extern "C" qr_status qr_gpu_scene_update_device(qr_gpu_scene *gs, const float *rows, int32_t n,
                                                qr_error *err)
{
    if (!gs) return qr_fail(err, QR_ERR_INVALID, "no device scene to update");
    return scene_from_rows(gs, rows, n, err);
}

/* ---- the scene from host rows (qr_gpu_scene_update_host) ---------------------
 * The rows are copied into the scene's pinned buffer a piece a task, each
 * piece checked before it is copied and its transfer queued by the task that
 * copied it, so that the first pieces cross the bus while later ones are
 * still being copied; the scene is then made from the device rows as from
 * any (scene_from_rows, the device path's kernels). */
#define HOST_PIECE_ROWS 32768 /* rows a task checks, copies and queues (896 KiB) */

/* Frees the staging buffers of the host rows. */
static void staging_release(qr_gpu_scene *g)
{
    cudaFreeHost(g->host_rows);
    cudaFree(g->dev_rows);
    g->host_rows = g->dev_rows = NULL;
    g->staged_cap = 0;
}

/* Staging for n rows: the kept buffers when they hold n, else new ones. */
static qr_status staging_reserve(qr_gpu_scene *g, int32_t n, qr_error *err)
{
    if (n <= g->staged_cap) return QR_OK;
    staging_release(g); /* every update waits for its copies: none is in flight */
    const size_t bytes = 7 * (size_t)n * sizeof(float);
    cudaError_t e = cudaHostAlloc((void **)&g->host_rows, bytes, cudaHostAllocWriteCombined);
    if (e == cudaSuccess) e = cudaMalloc((void **)&g->dev_rows, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        staging_release(g);
        return qr_fail(err, qr_cuda_status(e),
                       "staging %d circles needs %zu bytes of pinned host memory and as many of "
                       "GPU memory: %s",
                       n, bytes, cudaGetErrorString(e));
    }
    g->staged_cap = n;
    return QR_OK;
}

/* Whether a row is a circle qr_scene_check_circles takes: finite numbers, a
 * radius that is not negative. */
static int row_ok(const float *v)
{
    int ok = 1;
    for (int k = 0; k < 7; k++) ok &= isfinite(v[k]) != 0;
    return ok && !(v[3] < 0.0f);
}

struct host_fill {
    const float *rows; /* the caller's */
    float *pinned, *dev;
    int32_t n;
    int device;      /* the caller's current device, each worker's too */
    int32_t *bad;    /* per piece: its first bad row, or -1 */
    cudaError_t *e;  /* per piece: queuing its transfer */
};

/* Piece `task`: checked, copied into the pinned rows and queued for the
 * device (on the legacy stream, ahead of the unpacking); a piece with a bad
 * row is neither copied nor queued. */
static void fill_piece_rows(void *ctx, int task)
{
    const host_fill *f = (const host_fill *)ctx;
    const int32_t first = task * HOST_PIECE_ROWS;
    const int32_t rows = f->n - first < HOST_PIECE_ROWS ? f->n - first : HOST_PIECE_ROWS;
    const size_t at = 7 * (size_t)first, bytes = 7 * (size_t)rows * sizeof(float);
    f->bad[task] = -1;
    f->e[task] = cudaSuccess;
    for (int32_t i = 0; i < rows; i++)
        if (!row_ok(f->rows + at + 7 * (size_t)i)) {
            f->bad[task] = first + i;
            return;
        }
    memcpy(f->pinned + at, f->rows + at, bytes);
    /* a worker thread's current device is its own: make it the caller's */
    cudaError_t e = cudaSetDevice(f->device);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(f->dev + at, f->pinned + at, bytes, cudaMemcpyHostToDevice,
                            cudaStreamLegacy);
    f->e[task] = e;
}

/* qr_scene_check_circles' message for row `bad` of rows, the first bad one:
 * the check of a scene whose circles before it are zeros (good circles) and
 * whose last circle is that row. */
static qr_status bad_row(const float *rows, int32_t bad, qr_error *err)
{
    qr_scene *s = NULL;
    qr_status st = qr_scene_create(bad + 1, QR_ANIM_NONE, &s, err);
    if (st != QR_OK) return st;
    float *const cols[7] = {s->x, s->y, s->z, s->r, s->red, s->green, s->blue};
    for (int k = 0; k < 7; k++) cols[k][bad] = rows[7 * (size_t)bad + k];
    st = qr_scene_check_circles(s, "circles", err);
    qr_scene_destroy(s);
    return st;
}

/* Checks n host rows and copies them into g's device rows, through its
 * pinned rows, on `threads` threads (0: qr_threads()). */
static qr_status stage_rows(qr_gpu_scene *g, const float *rows, int32_t n, int threads,
                            qr_error *err)
{
    const int pieces = (int)((n + (int64_t)HOST_PIECE_ROWS - 1) / HOST_PIECE_ROWS);
    if (pieces == 0) return QR_OK;
    host_fill f = {rows, g->host_rows, g->dev_rows, n, 0, NULL, NULL};
    QR_CUDA_TRY(err, cudaGetDevice(&f.device));
    f.bad = (int32_t *)malloc(pieces * sizeof *f.bad);
    f.e = (cudaError_t *)malloc(pieces * sizeof *f.e);
    if (!f.bad || !f.e) {
        free(f.bad);
        free(f.e);
        return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    }
    qr_parallel_for(pieces, threads, fill_piece_rows, &f);
    /* the transfers are over before the pinned rows can be written again */
    cudaError_t e = cudaStreamSynchronize(cudaStreamLegacy);
    for (int k = 0; k < pieces && e == cudaSuccess; k++) e = f.e[k];
    int32_t bad = -1;
    for (int k = 0; k < pieces && bad < 0; k++) bad = f.bad[k]; /* pieces in row order */
    free(f.bad);
    free(f.e);
    if (bad >= 0) return bad_row(rows, bad, err);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return qr_fail(err, qr_cuda_status(e), "uploading %d circles: %s", n,
                       cudaGetErrorString(e));
    }
    return QR_OK;
}

extern "C" qr_status qr_gpu_scene_update_host(qr_gpu_scene *gs, const float *rows, int32_t n,
                                              int threads, qr_error *err)
{
    if (!gs) return qr_fail(err, QR_ERR_INVALID, "no device scene to update");
    if (n < 0 || n > QR_SCENE_MAX_CIRCLES)
        return qr_fail(err, QR_ERR_INVALID, "%d circles: from 0 to %d", n, QR_SCENE_MAX_CIRCLES);
    if (n > 0 && !rows) return qr_fail(err, QR_ERR_INVALID, "no host rows for %d circles", n);
    qr_status st = staging_reserve(gs, n, err);
    if (st == QR_OK) st = stage_rows(gs, rows, n, threads, err);
    if (st == QR_OK) st = scene_from_rows(gs, gs->dev_rows, n, err);
    return st;
}

extern "C" qr_status qr_gpu_scene_create_host(const float *rows, int32_t n, int threads,
                                              qr_gpu_scene **out, qr_error *err)
{
    *out = NULL;
    qr_gpu_scene *g = (qr_gpu_scene *)calloc(1, sizeof *g);
    if (!g) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    const qr_status st = qr_gpu_scene_update_host(g, rows, n, threads, err);
    if (st != QR_OK) {
        qr_gpu_scene_destroy(g);
        return st;
    }
    *out = g;
    return QR_OK;
}

static qr_step_arrays step_arrays_of(const qr_gpu_scene *g)
{
    qr_step_arrays a;
    a.x = g->x;
    a.y = g->y;
    a.z = g->z;
    a.r = g->r;
    a.vx = g->vx;
    a.vy = g->vy;
    a.x0 = g->x0;
    a.y0 = g->y0;
    a.vx0 = g->vx0;
    a.vy0 = g->vy0;
    return a;
}

extern "C" qr_status qr_gpu_scene_step(qr_gpu_scene *g, qr_error *err)
{
    if (g->anim != QR_ANIM_NONE && g->n > 0) {
        /* the legacy stream: a step orders itself with every frame queued before it */
        k_step<<<grid_for(g->n), 256, 0, cudaStreamLegacy>>>(g->n, g->anim, step_arrays_of(g),
                                                              g->steps, g->pos);
        QR_CUDA_TRY(err, cudaGetLastError());
    }
    g->steps++;
    return QR_OK;
}

extern "C" qr_status qr_gpu_scene_seek_frame_progress(qr_gpu_scene *g, int64_t frame,
                                                      qr_progress_fn progress, void *ctx,
                                                      qr_error *err)
{
    int64_t count;
    qr_status st = qr_seek_count(g->steps, frame, NULL, &count, err);
    if (st != QR_OK) return st;
    if (g->anim == QR_ANIM_NONE || g->n <= 0) {
        g->steps += count; /* nothing moves: only count the steps */
        return QR_OK;
    }
    const int64_t chunk = qr_seek_chunk(g->anim, g->n, QR_SEEK_GPU_WORK);
    const qr_step_arrays a = step_arrays_of(g);
    for (int64_t done = 0; done < count;) {
        const int64_t c = count - done < chunk ? count - done : chunk;
        /* the legacy stream, as a step */
        k_run<<<grid_for(g->n), 256, 0, cudaStreamLegacy>>>(g->n, g->anim, a, g->steps, c, g->pos);
        QR_CUDA_TRY(err, cudaGetLastError());
        g->steps += c;
        done += c;
        if (progress && chunk < count) {
            QR_CUDA_TRY(err, cudaStreamSynchronize(cudaStreamLegacy));
            progress(ctx, done, count);
        }
    }
    return QR_OK;
}

extern "C" qr_status qr_gpu_scene_seek_frame(qr_gpu_scene *g, int64_t frame, qr_error *err)
{
    return qr_gpu_scene_seek_frame_progress(g, frame, NULL, NULL, err);
}

extern "C" void qr_gpu_scene_destroy(qr_gpu_scene *g)
{
    if (!g) return;
    scene_release(g);
    staging_release(g);
    free(g);
}

extern "C" void qr_gpu_scene_get_ranges(const qr_gpu_scene *g, qr_gpu_scene_ranges *out)
{
    memset(out, 0, sizeof *out);
    out->color_span = g->color_span;
    out->color_lo = g->color_lo;
    out->color_hi = g->color_hi;
    out->colors_finite = g->colors_finite;
    out->fma_blend = g->fma_blend;
    out->depth = g->depth;
    out->radius = g->radius;
}

extern "C" int32_t qr_gpu_scene_count(const qr_gpu_scene *g)
{
    return g->n;
}

extern "C" size_t qr_gpu_scene_device_bytes(const qr_gpu_scene *g)
{
    if (!g) return 0;
    /* a scene made from rows holds cap circles' buffers, and its staged rows */
    const size_t circles = g->cap > g->n ? (size_t)g->cap : (size_t)g->n;
    const size_t block = g->cap ? 7 * circles * sizeof(float) : g->block_floats * sizeof(float);
    return block + 2 * circles * sizeof(float4) + 7 * (size_t)g->staged_cap * sizeof(float);
}

extern "C" qr_status qr_gpu_scene_set_picture(qr_gpu_scene *g, const qr_scene *picture,
                                              qr_error *err)
{
    if (!g || !g->cap)
        return qr_fail(err, QR_ERR_INVALID, "a picture goes on a scene made from rows");
    if (picture->shading != QR_SHADE_FLAT || picture->alpha)
        return qr_fail(err, QR_ERR_INVALID,
                       "a scene made from rows takes a flat picture without per-circle alpha");
    memcpy(g->background, picture->background, sizeof g->background);
    g->antialias = picture->antialias;
    g->transparent = picture->transparent;
    g->plain = qr_scene_is_plain(picture);
    /* the colour range with this background: the runs' parts again */
    const int runs = (int)((g->n + (int64_t)RANGE_RUN - 1) / RANGE_RUN);
    range_part *parts = (range_part *)calloc(runs ? runs : 1, sizeof *parts);
    if (!parts) return qr_fail(err, QR_ERR_NOMEM, "out of host memory");
    cudaError_t e = runs ? cudaMemcpy(parts, g->dparts, runs * sizeof *parts, cudaMemcpyDeviceToHost)
                         : cudaSuccess;
    if (e != cudaSuccess) {
        cudaGetLastError();
        free(parts);
        return qr_fail(err, qr_cuda_status(e), "reading the scene's colour range: %s",
                       cudaGetErrorString(e));
    }
    combine_ranges(parts, runs, g->n, QR_SHADE_FLAT, g);
    free(parts);
    return QR_OK;
}

extern "C" qr_status qr_gpu_scene_download(const qr_gpu_scene *g, qr_scene *s, qr_error *err)
{
    if (s->n != g->n || s->block_floats != g->block_floats || s->anim != g->anim)
        return qr_fail(err, QR_ERR_INVALID, "scene download: host scene does not match the device scene");
    QR_CUDA_TRY(err, cudaMemcpy(s->block, g->block, g->block_floats * sizeof(float),
                                cudaMemcpyDeviceToHost));
    s->steps = g->steps;
    return QR_OK;
}
