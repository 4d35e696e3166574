/* render_ctx.c — one renderer's frames for `quadrender render`: where they
 * render (render_ctx_init picks the device, render_ctx_start sets the GPU
 * up), how the scene reaches a frame (render_seek), and how a frame becomes
 * a file (render_write_frame). cmd_render.c drives one of these over a
 * frame range; render_split.c drives several, one a GPU or a process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/render_ctx.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"

/* Resolves --device before any work is done, so that --device gpu fails
 * at once. Returns CLI_EXIT_OK, or prints why not and returns the exit code. */
int render_ctx_init(render_ctx *ctx, cli_device requested, qr_render_mode mode,
                    const qr_index_params *params)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->mode = mode;
    ctx->params = *params;
    return cli_choose_device(requested, "rendering", &ctx->dev);
}

qr_status render_ctx_init_device(render_ctx *ctx, int device, qr_error *err)
{
    qr_status st = qr_gpu_probe_device(device, &ctx->dev.info, err);
    if (st != QR_OK)
        return st;
    ctx->dev.gpu = true;
    snprintf(ctx->dev.where, sizeof ctx->dev.where, "GPU %d (%.200s)", device,
             ctx->dev.info.name);
    return QR_OK;
}

/* Once the scene is loaded: on the GPU, upload it (as generated, steps ==
 * scene->steps) and make the renderer; frames then never touch the host
 * scene. A renderer whose image streams out as `format` (stream) renders
 * whole when the image fits the GPU memory budget, else in bands. */
qr_status render_ctx_start(render_ctx *ctx, const qr_scene *scene, int32_t width,
                           int32_t height, bool stream, qr_image_format format,
                           qr_error *err)
{
    ctx->width = width;
    ctx->height = height;
    if (!ctx->dev.gpu)
        return QR_OK;
    double t0 = cli_now_ms();
    qr_status st = qr_gpu_scene_create(scene, &ctx->gs, err);
    if (st == QR_OK && stream)
        st = qr_gpu_renderer_create_budget(width, height, ctx->gs, format, ctx->gpu_memory,
                                           &ctx->params, &ctx->r, err);
    else if (st == QR_OK)
        st = qr_gpu_renderer_create(width, height, &ctx->r, err);
    if (st != QR_OK)
        return st;
    if (qr_gpu_renderer_band_rows(ctx->r) < height)
        ctx->band_rows = qr_gpu_renderer_band_rows(ctx->r);
    /* -v: the index build's stages too, at the cost of an event per stage */
    qr_gpu_renderer_set_timing(ctx->r, cli_verbose() ? QR_TIMING_STAGES : QR_TIMING_TOTALS);
    ctx->upload_ms = cli_now_ms() - t0;
    return QR_OK;
}

void render_ctx_free(render_ctx *ctx)
{
    cli_frame_pool_free(ctx->pool);
    qr_gpu_renderer_destroy(ctx->r);
    qr_gpu_scene_destroy(ctx->gs);
}

/* Brings the scene to the state frame k is rendered from: the host scene
 * on the CPU, the device scene on the GPU. */
qr_status render_seek(render_ctx *ctx, qr_scene *scene, int64_t k, qr_error *err)
{
    return cli_seek(scene, ctx->dev.gpu ? ctx->gs : NULL, k, err);
}

/* Renders the scene's current state on the device ctx chose into img.
 * Without one (stream) the image is rendered as render_write_frame writes it. */
qr_status render_frame(render_ctx *ctx, const qr_scene *scene, qr_image *img,
                       qr_error *err)
{
    if (!img)
        return QR_OK;
    if (ctx->dev.reference)
        return qr_render_cpu(scene, img, err);
    if (!ctx->dev.gpu)
        return qr_render_cpu_fast(scene, &ctx->params, ctx->mode, 0, img, &ctx->cpu, err);
    qr_status st = qr_gpu_render(ctx->r, ctx->gs, &ctx->params, ctx->mode, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_timing(ctx->r, &ctx->timing, err);
    if (st == QR_OK)
        st = qr_gpu_renderer_download(ctx->r, img, err);
    return st;
}


void render_png_meta(png_meta *m, const qr_scene *scene, bool builtin, uint32_t seed,
                   int64_t frame, int32_t width, int32_t height, const char *mode,
                   bool keep, qr_image_write_options *opts)
{
    int n = 0;
    m->text[n++] = (qr_image_text){"Scene", scene->name};
    if (builtin) {
        snprintf(m->seed, sizeof m->seed, "%u", seed);
        m->text[n++] = (qr_image_text){"Seed", m->seed};
    }
    snprintf(m->frame, sizeof m->frame, "%lld", (long long)frame);
    m->text[n++] = (qr_image_text){"Frame", m->frame};
    snprintf(m->size, sizeof m->size, "%dx%d", (int)width, (int)height);
    m->text[n++] = (qr_image_text){"Size", m->size};
    m->text[n++] = (qr_image_text){"Mode", mode};
    if (keep) /* what Size means: only the default is left unsaid */
        m->text[n++] = (qr_image_text){"Aspect", "keep"};
    m->text[n++] = (qr_image_text){"Software", "quadrender " QR_VERSION " (git " QR_GIT_REV ")"};
    opts->text = m->text;
    opts->ntext = n;
}

/* Bytes of float pixels a band of the CPU's streamed render holds. */
#define CPU_BAND_BYTES ((size_t)256 << 20)

/* The CPU's streamed render: bands of rows in the file's order, each
 * rendered into one band image (of CPU_BAND_BYTES, made by hand: wider
 * than QR_IMAGE_MAX_DIM is allowed) and appended to w. A band's rows equal
 * the whole image's (qr_render_cpu_fast_band). */
static qr_status write_cpu_bands(render_ctx *ctx, const qr_scene *scene, qr_image_writer *w,
                                 qr_error *err)
{
    const int32_t W = ctx->width, H = ctx->height;
    const bool pfm = qr_image_writer_format(w) == QR_FORMAT_PFM;
    size_t rows = CPU_BAND_BYTES / ((size_t)W * 4 * sizeof(float));
    if (rows < QR_REGION)
        rows = QR_REGION;
    if (rows > (size_t)H)
        rows = (size_t)H;
    qr_image band = {W, (int32_t)rows, malloc((size_t)W * rows * 4 * sizeof(float))};
    if (!band.rgba)
        return qr_fail(err, QR_ERR_NOMEM, "out of memory: a band of %zu rows of %d pixels", rows,
                       (int)W);
    qr_status st = QR_OK;
    qr_cpu_timing sum = {0, 0};
    for (int32_t done = 0; st == QR_OK && done < H; done += (int32_t)rows) {
        const int32_t n = H - done < (int32_t)rows ? H - done : (int32_t)rows;
        /* PNG and PPM from the top row down, PFM from the bottom up */
        const int32_t y0 = pfm ? done : H - done - n;
        band.height = n;
        if (ctx->dev.reference) {
            st = qr_render_cpu_band(scene, W, H, y0, y0 + n, &band, err);
        } else {
            st = qr_render_cpu_fast_band(scene, &ctx->params, ctx->mode, 0, W, H, y0, y0 + n,
                                         &band, &ctx->cpu, err);
            sum.build_ms += ctx->cpu.build_ms;
            sum.render_ms += ctx->cpu.render_ms;
        }
        if (st == QR_OK)
            st = qr_image_writer_append_image(w, &band, err);
    }
    ctx->cpu = sum;
    free(band.rgba);
    return st;
}

/* Writes the frame to `path` in `format` (--format, else the name's
 * extension, else PNG): from the GPU, rendered, converted there and
 * streamed in bands into the file's writer (stream = true); else the host
 * image rendered by render_frame. */
qr_status render_write_frame(render_ctx *ctx, const qr_scene *scene, const qr_image *img,
                      bool stream, const char *path,
                      qr_image_format format, const qr_image_write_options *opts,
                      qr_error *err)
{
    if (format == QR_FORMAT_UNKNOWN)
        format = qr_image_format_from_path(path);
    if (format == QR_FORMAT_UNKNOWN)
        format = QR_FORMAT_PNG;
    if (!stream)
        return qr_image_write_as(img, path, format, opts, err);
    if (ctx->pool) {
        /* a sequence: the file rows into a free buffer, written by the pool */
        void *rows = NULL;
        int slot = 0;
        qr_status st = cli_frame_pool_take(ctx->pool, &rows, &slot, err);
        if (st == QR_OK)
            st = qr_gpu_render(ctx->r, ctx->gs, &ctx->params, ctx->mode, err);
        if (st == QR_OK)
            st = qr_gpu_renderer_timing(ctx->r, &ctx->timing, err);
        if (st == QR_OK)
            st = qr_gpu_renderer_read_rows(ctx->r, format, rows, err);
        if (st == QR_OK)
            st = cli_frame_pool_submit(ctx->pool, slot, path, opts, err);
        return st;
    }
    qr_image_writer *w = NULL;
    qr_status st = qr_image_writer_open(path, format, ctx->width, ctx->height, opts, &w, err);
    if (st == QR_OK && !ctx->dev.gpu)
        st = write_cpu_bands(ctx, scene, w, err);
    else if (st == QR_OK)
        st = qr_gpu_render_write(ctx->r, ctx->gs, &ctx->params, ctx->mode, w, err);
    memset(&ctx->timing, 0, sizeof ctx->timing);
    if (st == QR_OK && ctx->dev.gpu && !ctx->band_rows)
        st = qr_gpu_renderer_timing(ctx->r, &ctx->timing, err);
    if (st == QR_OK)
        return qr_image_writer_close(w, err);
    qr_image_writer_abort(w);
    return st;
}
