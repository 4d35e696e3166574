/* bench_e2e.c — `quadrender bench --e2e`: the whole path of a render, scene
 * in to file out, stage by stage (bench.h). */
#include "cli/bench/bench.h"
#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first frame as `render` runs it: what a user waits for. */
typedef struct e2e_row {
    char scene[64];
    int size;
    long long circles;
    double load_ms, load_mb;     /* file bytes read (0: generated) */
    double upload_ms, upload_mb; /* scene bytes sent */
    double gpu_ms;               /* index build + render, CUDA events */
    double out_ms, out_mb;       /* convert, download, encode and write: raw RGB bytes */
    double file_mb;
    double total_ms;
    double rss_mb, gpu_mb;
    int32_t chunk;               /* drawn in chunks of this many circles (0: whole) */
} e2e_row;

static double rate(double mb, double ms)
{
    return ms > 0 ? mb / ms * 1000.0 : 0.0;
}

/* The job's reports that e2e_chunks reads: the START's chunk, the frame's
 * times. */
typedef struct chunk_reports {
    int32_t chunk;
    qr_job_progress frame;
} chunk_reports;

/* Keeps them (a qr_job_progress_fn). */
static int keep_reports(void *user, const qr_job_progress *p)
{
    chunk_reports *kept = user;
    if (p->event == QR_JOB_FRAME)
        kept->frame = *p;
    if (p->event == QR_JOB_START)
        kept->chunk = p->chunk_circles;
    return 0;
}

/* A .npy too large to hold whole: the job `render` runs, its chunks read
 * from the file, uploaded, indexed and rendered in turn over the image on
 * the GPU; load = reading the chunks, upload = sending them, GPU = their
 * index and render (CUDA events, summed), out = writing the file. */
static qr_status e2e_chunks(const char *name, int size, int32_t chunk, const qr_index_params *qp,
                            qr_render_mode mode, const char *path, e2e_row *row, qr_error *err)
{
    qr_job_params p;
    qr_job_params_init(&p);
    qr_status st = qr_scene_stream_open(name, &p.stream, err);
    if (st != QR_OK)
        return st;
    chunk_reports kept;
    memset(&kept, 0, sizeof kept);
    const qr_job_progress *frame = &kept.frame;
    p.width = p.height = size;
    p.mode = mode;
    p.index = *qp;
    p.device = QR_JOB_GPU;
    p.output = path;
    p.chunk_circles = chunk;
    p.on_progress = keep_reports;
    p.user = &kept;
    const double t0 = cli_now_ms();
    st = qr_job_run(&p, NULL, err);
    row->total_ms = cli_now_ms() - t0;
    struct stat sb;
    row->load_mb = stat(name, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
    row->circles = qr_scene_stream_circles(p.stream);
    snprintf(row->scene, sizeof row->scene, "%.63s", qr_scene_stream_picture(p.stream)->name);
    qr_scene_stream_close(p.stream);
    if (st != QR_OK)
        return st;
    row->file_mb = stat(path, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
    unlink(path);
    row->load_ms = frame->chunk_read_ms;
    row->upload_ms = frame->chunk_upload_ms;
    row->upload_mb = (double)row->circles * 7 * sizeof(float) / 1e6;
    row->gpu_ms = frame->gpu_timing.frame_ms;
    row->out_ms = frame->write_ms;
    row->out_mb = 3.0 * size * (double)size / 1e6;
    row->chunk = kept.chunk;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    row->rss_mb = (double)ru.ru_maxrss / 1024.0;
    return QR_OK;
}

static qr_status e2e_one(const char *name, int size, uint32_t seed, const qr_index_params *qp,
                         qr_render_mode mode, const char *dir, e2e_row *row, qr_error *err)
{
    memset(row, 0, sizeof *row);
    row->size = size;
    qr_scene *scene = NULL;
    qr_gpu_scene *gs = NULL;
    qr_gpu_renderer *r = NULL;
    qr_image_writer *w = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/quadrender-e2e-%ld.png", dir, (long)getpid());
    int32_t chunk = 0;
    qr_status cst = qr_job_auto_chunk(name, size, size, &chunk, err);
    if (cst != QR_OK)
        return cst;
    if (chunk)
        return e2e_chunks(name, size, chunk, qp, mode, path, row, err);
    const double t0 = cli_now_ms();
    qr_status st = qr_scene_load(name, seed, &scene, err);
    const double t1 = cli_now_ms();
    if (st == QR_OK) {
        struct stat sb;
        row->load_mb = stat(name, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
        snprintf(row->scene, sizeof row->scene, "%.63s", scene->name);
        row->circles = scene->n;
        row->upload_mb = (double)scene->block_floats * sizeof(float) / 1e6;
        st = qr_gpu_scene_create(scene, &gs, err);
    }
    const double t2 = cli_now_ms();
    if (st == QR_OK) st = qr_gpu_renderer_create(size, size, &r, err);
    if (st == QR_OK) {
        qr_gpu_renderer_set_timing(r, QR_TIMING_FRAME);
        st = qr_gpu_render(r, gs, qp, mode, err);
    }
    qr_frame_timing ft;
    if (st == QR_OK) st = qr_gpu_renderer_timing(r, &ft, err);
    const double t3 = cli_now_ms();
    if (st == QR_OK) st = qr_image_writer_open(path, QR_FORMAT_PNG, size, size, NULL, &w, err);
    if (st == QR_OK) st = qr_gpu_renderer_write(r, w, err);
    if (st == QR_OK) {
        st = qr_image_writer_close(w, err);
        w = NULL;
    }
    const double t4 = cli_now_ms();
    if (st == QR_OK) {
        struct stat sb;
        row->file_mb = stat(path, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
        unlink(path);
        row->load_ms = t1 - t0;
        row->upload_ms = t2 - t1;
        row->gpu_ms = ft.frame_ms;
        row->out_ms = t4 - t3;
        row->out_mb = 3.0 * size * (double)size / 1e6;
        row->total_ms = t4 - t0;
        row->gpu_mb = (double)(qr_gpu_renderer_device_bytes(r) + row->upload_mb * 1e6 * 2) / 1e6;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        row->rss_mb = (double)ru.ru_maxrss / 1024.0;
    }
    qr_image_writer_abort(w);
    qr_gpu_renderer_destroy(r);
    qr_gpu_scene_destroy(gs);
    qr_scene_destroy(scene);
    return st;
}

qr_status bench_e2e(FILE *out, const char *const *scenes, int nscenes, const int *sizes,
                    int nsizes, int exact, uint32_t seed, const qr_index_params *qp, qr_error *err)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    fprintf(out, "# quadrender bench --e2e: the first frame as `render SCENE -s SIZE -o x.png` "
                 "runs it (%s mode, PNG level %d, %d threads); out = GPU conversion, download, "
                 "PNG encoding and write, overlapped (MB/s of raw RGB); RSS: this process's peak "
                 "so far; a .npy too large to hold whole is drawn in chunks (its load, upload and "
                 "GPU times summed over them; GPU MB not kept)\n",
            exact ? "exact" : "fast", QR_PNG_LEVEL_DEFAULT, qr_threads());
    fprintf(out, "%-12s %6s %10s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n", "scene", "size",
            "circles", "load ms", "MB/s", "upload ms", "GB/s", "GPU ms", "out ms", "MB/s",
            "total ms", "RSS MB", "GPU MB");
    for (int i = 0; i < nscenes; i++)
        for (int k = 0; k < nsizes; k++) {
            e2e_row row;
            qr_status st = e2e_one(scenes[i], sizes[k], seed, qp,
                                   exact ? QR_RENDER_EXACT : QR_RENDER_FAST, dir, &row, err);
            if (st) return st;
            if (row.chunk)
                fprintf(out, "# %s: in chunks of %ld circles (load: the waits for reads that "
                             "overlap the upload and the GPU)\n",
                        row.scene, (long)row.chunk);
            fprintf(out,
                    "%-12s %6d %10lld %9.1f %9.0f %9.1f %9.2f %9.3f %9.1f %9.0f %9.1f %8.0f %8.0f\n",
                    row.scene, row.size, row.circles, row.load_ms, rate(row.load_mb, row.load_ms),
                    row.upload_ms, rate(row.upload_mb, row.upload_ms) / 1000.0, row.gpu_ms,
                    row.out_ms, rate(row.out_mb, row.out_ms), row.total_ms, row.rss_mb, row.gpu_mb);
        }
    return QR_OK;
}
