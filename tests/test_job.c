/* test_job.c — the job API (quadrender/job.h) on the CPU, against
 * oracles outside the job: a frame range's files equal the files of each
 * frame rendered alone; the images a callback receives equal
 * qr_render_cpu_fast of the scene stepped to each frame; progress counts up
 * to the total; a cancelled job stops, answers QR_ERR_CANCELLED and leaves
 * no partial or temporary file; bad params are refused in one line. The
 * GPU variants (several GPUs, one image and a range) compare with one GPU
 * and skip without one. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "quadrender/job.h"
#include "quadrender/memory.h"
#include "quadrender/render_cpu.h"
#include "quadrender/render_cpu_fast.h"
#include "test_util.h"

#define W 48
#define H 40

/* A CPU job of `scene` at W x H, frames first..last, to output. */
static qr_job_params cpu_job(const char *scene, int64_t first, int64_t last, const char *output)
{
    qr_job_params p;
    qr_job_params_init(&p);
    p.scene_name = scene;
    p.width = W;
    p.height = H;
    p.first = first;
    p.last = last;
    p.device = QR_JOB_CPU;
    p.output = output;
    return p;
}

static char *dup_path(const char *p)
{
    char *s = strdup(p);
    cr_assert(s);
    return s;
}

/* Every file of a range equals the file of its frame rendered alone, in
 * each format. */
Test(job, frames_to_files_equal_each_frame_alone)
{
    const char *ext[] = {"png", "ppm", "pfm"};
    for (int f = 0; f < 3; f++) {
        char name[64];
        snprintf(name, sizeof name, "job_range_%s", ext[f]);
        char *dir = dup_path(qr_test_tmp_dir(name));
        snprintf(name, sizeof name, "s_%%03d.%s", ext[f]);
        char *pattern = dup_path(qr_test_join(dir, name));
        qr_job_params p = cpu_job("snow", 2, 5, pattern);
        qr_job_result res;
        qr_error err;
        QR_CHECK(err, qr_job_run(&p, &res, &err));
        cr_expect_eq(res.frames, 4);
        for (int64_t k = 2; k <= 5; k++) {
            snprintf(name, sizeof name, "alone.%s", ext[f]);
            char *alone = dup_path(qr_test_join(dir, name));
            qr_job_params one = cpu_job("snow", k, k, alone);
            QR_CHECK(err, qr_job_run(&one, NULL, &err));
            snprintf(name, sizeof name, "s_%03d.%s", (int)k, ext[f]);
            cr_expect(qr_test_same_bytes(qr_test_join(dir, name), alone), "%s frame %d", ext[f],
                      (int)k);
            free(alone);
        }
        cr_expect_eq(qr_test_count_temp_files(dir), 0);
        free(pattern);
        free(dir);
    }
}

/* What a frame callback keeps. */
typedef struct frames_seen {
    int64_t frame[8];
    float *rgba[8];
    int n;
    int stop_after; /* cancel after this many (0: never) */
} frames_seen;

static int keep_frame(void *user, int64_t frame, const qr_image *img)
{
    frames_seen *s = user;
    const size_t bytes = (size_t)img->width * (size_t)img->height * 4 * sizeof(float);
    cr_assert(s->n < 8);
    s->frame[s->n] = frame;
    s->rgba[s->n] = malloc(bytes);
    cr_assert(s->rgba[s->n]);
    memcpy(s->rgba[s->n], img->rgba, bytes);
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

/* The callback gets frames in order, each equal to the scene stepped to
 * the frame and rendered by qr_render_cpu_fast. */
Test(job, callback_receives_the_same_images)
{
    frames_seen seen = {0};
    qr_job_params p = cpu_job("snow", 1, 4, NULL);
    p.on_frame = keep_frame;
    p.user = &seen;
    qr_error err;
    QR_CHECK(err, qr_job_run(&p, NULL, &err));
    cr_assert_eq(seen.n, 4);
    qr_scene *scene = NULL;
    qr_image *img = NULL;
    QR_CHECK(err, qr_scene_load("snow", 0, &scene, &err));
    QR_CHECK(err, qr_image_create(W, H, &img, &err));
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(seen.frame[i], 1 + i);
        QR_CHECK(err, qr_scene_seek_frame(scene, 1 + i, &err));
        QR_CHECK(err, qr_render_cpu_fast(scene, &p.index, p.mode, 0, img, NULL, &err));
        cr_expect(!memcmp(seen.rgba[i], img->rgba, (size_t)W * H * 4 * sizeof(float)),
                  "frame %d differs", 1 + i);
        free(seen.rgba[i]);
    }
    qr_image_destroy(img);
    qr_scene_destroy(scene);
}

/* What the progress callback saw. */
typedef struct progress_log {
    int starts, frames;
    int64_t last_done, total;
    bool monotonic, start_first;
    int64_t cancel_at; /* answer nonzero once done reaches it (0: never; -1: at START) */
} progress_log;

static int log_progress(void *user, const qr_job_progress *p)
{
    progress_log *l = user;
    if (p->event == QR_JOB_START) {
        l->starts++;
        l->start_first = l->frames == 0;
        cr_expect(p->scene && p->where && p->note, "the plan is told");
        return l->cancel_at < 0;
    }
    l->frames += p->event == QR_JOB_FRAME;
    l->monotonic = l->monotonic && p->done >= l->last_done && p->done <= p->total;
    l->last_done = p->done;
    l->total = p->total;
    return l->cancel_at > 0 && p->done >= l->cancel_at;
}

Test(job, progress_counts_up_to_the_total)
{
    const char *dir = qr_test_tmp_dir("job_progress");
    char *pattern = dup_path(qr_test_join(dir, "p_%d.ppm"));
    progress_log log = {.monotonic = true};
    qr_job_params p = cpu_job("hypnosis", 0, 6, pattern);
    p.on_progress = log_progress;
    p.user = &log;
    qr_error err;
    QR_CHECK(err, qr_job_run(&p, NULL, &err));
    cr_expect_eq(log.starts, 1);
    cr_expect(log.start_first, "START comes before the frames");
    cr_expect_eq(log.frames, 7);
    cr_expect(log.monotonic, "done never goes back, never passes total");
    cr_expect_eq(log.last_done, 7);
    cr_expect_eq(log.total, 7);
    free(pattern);
}

/* Cancelled after two frames: QR_ERR_CANCELLED, the two files whole,
 * nothing more, no temporary file. Cancelled before the one image: no
 * file at all. */
Test(job, cancel_from_progress_stops_and_leaves_no_file)
{
    const char *dir = qr_test_tmp_dir("job_cancel");
    char *pattern = dup_path(qr_test_join(dir, "c_%d.png"));
    progress_log log = {.monotonic = true, .cancel_at = 2};
    qr_job_params p = cpu_job("snow", 0, 9, pattern);
    p.on_progress = log_progress;
    p.user = &log;
    qr_error err;
    qr_job_result res;
    cr_assert_eq(qr_job_run(&p, &res, &err), QR_ERR_CANCELLED, "%s", err.msg);
    cr_expect_eq(log.frames, 2, "no frame after the cancel");
    cr_expect(qr_test_exists(qr_test_join(dir, "c_0.png")) &&
              qr_test_exists(qr_test_join(dir, "c_1.png")));
    cr_expect(!qr_test_exists(qr_test_join(dir, "c_2.png")));
    cr_expect_eq(qr_test_count_temp_files(dir), 0);
    /* the frames written are the frames alone */
    char *alone = dup_path(qr_test_join(dir, "alone.png"));
    qr_job_params one = cpu_job("snow", 1, 1, alone);
    QR_CHECK(err, qr_job_run(&one, NULL, &err));
    cr_expect(qr_test_same_bytes(qr_test_join(dir, "c_1.png"), alone));

    const char *dir2 = qr_test_tmp_dir("job_cancel_one");
    char *image = dup_path(qr_test_join(dir2, "one.png"));
    progress_log at_start = {.monotonic = true, .cancel_at = -1};
    qr_job_params q = cpu_job("rand10k", 0, 0, image);
    q.on_progress = log_progress;
    q.user = &at_start;
    cr_assert_eq(qr_job_run(&q, NULL, &err), QR_ERR_CANCELLED);
    cr_expect_eq(at_start.frames, 0);
    cr_expect(!qr_test_exists(image), "no file");
    cr_expect_eq(qr_test_count_temp_files(dir2), 0);
    free(pattern);
    free(alone);
    free(image);
}

/* A frame callback's nonzero answer cancels too. */
Test(job, cancel_from_frame_callback)
{
    frames_seen seen = {.stop_after = 2};
    qr_job_params p = cpu_job("snow", 0, 5, NULL);
    p.on_frame = keep_frame;
    p.user = &seen;
    qr_error err;
    cr_assert_eq(qr_job_run(&p, NULL, &err), QR_ERR_CANCELLED);
    cr_expect_eq(seen.n, 2);
    for (int i = 0; i < seen.n; i++)
        free(seen.rgba[i]);
}

/* Bad params: QR_ERR_INVALID at the params stage, one line, no file. */
Test(job, invalid_params_give_one_line_errors)
{
    const char *dir = qr_test_tmp_dir("job_invalid");
    char *out = dup_path(qr_test_join(dir, "x_%d.png"));
    char *ppm = dup_path(qr_test_join(dir, "x_%d.ppm"));
    for (int c = 0; c < 15; c++) {
        qr_job_params p = cpu_job("rgb", 0, 2, out);
        switch (c) {
        case 0: p.width = 0; break;
        case 1: p.first = 3; break;                /* last < first */
        case 2: p.output = NULL; break;            /* neither files nor a callback */
        case 3: p.on_frame = keep_frame; break;    /* both */
        case 4: p.output = "a%s.png"; break;       /* not a frame pattern */
        case 5: p.ngpus = 2; break;                /* several GPUs on the CPU */
        case 6: p.png_level = 10; break;
        case 7: p.scene_name = NULL; break;
        case 8: p.output = ppm, p.png_level = 9; break; /* a PNG level, not PNG */
        case 9: p.plan_trials = 65; break;
        case 10: p.plan_trials = -1; break;
        case 11: p.chunk_circles = -1; break;
        case 12: p.chunk_circles = QR_SCENE_MAX_CIRCLES + 1; break;
        case 13: p.chunk_circles = 2, p.ngpus = 2, p.device = QR_JOB_GPU; break; /* one device */
        case 14: p.chunk_circles = 2, p.ngpus = 2, p.device = QR_JOB_AUTO; break;
        }
        qr_error err;
        qr_job_result res;
        cr_expect_eq(qr_job_run(&p, &res, &err), QR_ERR_INVALID, "case %d: %s", c, err.msg);
        cr_expect_eq(res.stage, QR_JOB_STAGE_PARAMS, "case %d", c);
        cr_expect(err.msg[0] && !strchr(err.msg, '\n'), "case %d: one line: %s", c, err.msg);
    }
    /* a scene that is not there fails at the input stage */
    qr_job_params p = cpu_job("no-such-scene", 0, 0, out);
    qr_error err;
    qr_job_result res;
    cr_expect_neq(qr_job_run(&p, &res, &err), QR_OK);
    cr_expect_eq(res.stage, QR_JOB_STAGE_INPUT, "%s", err.msg);
    cr_expect_eq(qr_test_count_temp_files(dir), 0);
    free(out);
    free(ppm);
}

/* Two lanes on GPUs (the same one where there is one): one image and a
 * frame range equal the one-GPU files. */
Test(job, gpus_equal_one_gpu, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("job_gpus");
    char *one = dup_path(qr_test_join(dir, "one_%d.png"));
    char *two = dup_path(qr_test_join(dir, "two_%d.png"));
    for (int range = 0; range < 2; range++) {
        qr_job_params p = cpu_job("biglittle", 0, range ? 3 : 0, one);
        p.width = 700;
        p.height = 500;
        p.device = QR_JOB_GPU;
        qr_error err;
        QR_CHECK(err, qr_job_run(&p, NULL, &err));
        p.output = two;
        p.ngpus = 2;
        p.gpus[0] = p.gpus[1] = 0;
        QR_CHECK(err, qr_job_run(&p, NULL, &err));
        for (int k = 0; k <= (range ? 3 : 0); k++) {
            char a[32], b[32];
            snprintf(a, sizeof a, "one_%d.png", k);
            snprintf(b, sizeof b, "two_%d.png", k);
            char *pa = dup_path(qr_test_join(dir, a));
            cr_expect(qr_test_same_bytes(pa, qr_test_join(dir, b)), "frame %d", k);
            free(pa);
        }
    }
    free(one);
    free(two);
}

/* plan_trials: on the CPU ignored (no plan, the same images); on one GPU a
 * plan of valid settings runs before the first frame, and in exact mode
 * every frame's bytes equal those of the job without it. */
static void plan_job(bool gpu)
{
    qr_error err;
    frames_seen a = {0}, b = {0};
    qr_job_params p = cpu_job("snow", 1, 3, NULL);
    p.width = 160;
    p.height = 128;
    p.mode = QR_RENDER_EXACT;
    p.device = gpu ? QR_JOB_GPU : QR_JOB_CPU;
    p.on_frame = keep_frame;
    p.user = &a;
    qr_job_result res;
    QR_CHECK(err, qr_job_run(&p, &res, &err));
    cr_assert(!res.planned);
    p.plan_trials = 2;
    p.user = &b;
    QR_CHECK(err, qr_job_run(&p, &res, &err));
    cr_assert_eq(res.frames, 3);
    cr_assert_eq(res.planned, gpu, "planned on the %s", gpu ? "GPU" : "CPU");
    if (gpu) {
        cr_assert(res.plan_ms > 0 && res.plan_frame_ms > 0);
        cr_assert_eq(qr_index_params_check(&res.plan_chosen, &err), QR_OK, "%s", err.msg);
    }
    cr_assert_eq(a.n, 3);
    cr_assert_eq(b.n, 3);
    for (int i = 0; i < 3; i++) {
        cr_expect(!memcmp(a.rgba[i], b.rgba[i], (size_t)p.width * p.height * 4 * sizeof(float)),
                  "%s frame %d differs with the plan", gpu ? "GPU" : "CPU", 1 + i);
        free(a.rgba[i]);
        free(b.rgba[i]);
    }
}

Test(job, plan_is_ignored_on_the_cpu) { plan_job(false); }

Test(job, plan_on_one_gpu_keeps_the_bytes, .timeout = 300)
{
    QR_REQUIRE_GPU();
    plan_job(true);
}

/* ---- depth-ordered chunks ------------------------------------------------------------ */

/* The images a job hands over (one frame), into *out (freed by the caller). */
static float *job_image(qr_job_params *p)
{
    frames_seen seen = {0};
    p->output = NULL;
    p->on_frame = keep_frame;
    p->user = &seen;
    qr_error err;
    QR_CHECK(err, qr_job_run(p, NULL, &err));
    cr_assert_eq(seen.n, 1);
    return seen.rgba[0];
}

/* The reference renderer's image of the scene `name` at frame k, W x H. */
static float *reference_image(const char *name, int64_t k, const float *background)
{
    qr_scene *scene = NULL;
    qr_image *img = NULL;
    qr_error err;
    QR_CHECK(err, qr_scene_load(name, 0, &scene, &err));
    if (background) QR_CHECK(err, qr_scene_set_background(scene, background, "bg", &err));
    QR_CHECK(err, qr_scene_seek_frame(scene, k, &err));
    QR_CHECK(err, qr_image_create(W, H, &img, &err));
    QR_CHECK(err, qr_render_cpu(scene, img, &err));
    float *rgba = img->rgba;
    img->rgba = NULL;
    qr_image_destroy(img);
    qr_scene_destroy(scene);
    return rgba;
}

/* A scene drawn in chunks, exact mode, on the fast renderer and the
 * reference: the reference's image of the whole scene, byte for byte;
 * chunks of a loaded scene (views, an animated one at frame 3) and of a
 * .npy read chunk by chunk (a stream, its picture's background carried). */
Test(job, chunks_give_the_whole_scenes_image, .timeout = 120)
{
    const size_t bytes = (size_t)W * H * 4 * sizeof(float);
    const qr_job_device devices[] = {QR_JOB_CPU, QR_JOB_CPU_REFERENCE};
    const char *names[] = {"rand10k", "snow"};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 2; k++) {
            qr_job_params p = cpu_job(names[k], 3, 3, NULL);
            p.device = devices[d];
            p.mode = QR_RENDER_EXACT;
            p.chunk_circles = 777;
            float *got = job_image(&p), *want = reference_image(names[k], 3, NULL);
            cr_expect(!memcmp(got, want, bytes), "%s in chunks (device %d)", names[k], d);
            free(got);
            free(want);
        }
    /* fast mode in chunks: the whole scene's fast image, byte for byte (front
     * to back where it stops early: snow, rand10k at this size; else back to
     * front) */
    for (int k = 0; k < 2; k++) {
        qr_job_params p = cpu_job(names[k], 3, 3, NULL);
        p.chunk_circles = 1001;
        float *got = job_image(&p);
        qr_scene *whole = NULL;
        qr_image *img = NULL;
        qr_error e;
        QR_CHECK(e, qr_scene_load(names[k], 0, &whole, &e));
        QR_CHECK(e, qr_scene_seek_frame(whole, 3, &e));
        QR_CHECK(e, qr_image_create(W, H, &img, &e));
        QR_CHECK(e, qr_render_cpu_fast(whole, &p.index, QR_RENDER_FAST, 0, img, NULL, &e));
        cr_expect(!memcmp(got, img->rgba, bytes), "%s in chunks, fast mode", names[k]);
        free(got);
        qr_image_destroy(img);
        qr_scene_destroy(whole);
    }
    /* the same scene written as a .npy and streamed, with a background */
    qr_scene *scene = NULL;
    qr_error err;
    QR_CHECK(err, qr_scene_load("rand10k", 0, &scene, &err));
    const char *path = qr_test_tmp("job_stream.npy");
    QR_CHECK(err, qr_scene_write_npy(scene, path, &err));
    qr_scene_destroy(scene);
    const float bg[3] = {0.1f, 0.2f, 0.3f};
    float *want = reference_image("rand10k", 0, bg);
    for (int d = 0; d < 2; d++) {
        qr_scene_stream *sm = NULL;
        QR_CHECK(err, qr_scene_stream_open(path, &sm, &err));
        QR_CHECK(err, qr_scene_set_background(qr_scene_stream_picture(sm), bg, "bg", &err));
        qr_job_params p = cpu_job(NULL, 0, 0, NULL);
        p.stream = sm;
        p.device = devices[d];
        p.mode = QR_RENDER_EXACT;
        p.chunk_circles = 3000;
        float *got = job_image(&p);
        cr_expect(!memcmp(got, want, bytes), "the stream in chunks (device %d)", d);
        free(got);
        /* a stream without chunks is refused */
        p.chunk_circles = 0;
        p.on_frame = NULL;
        p.output = qr_test_tmp("job_stream.png");
        cr_expect_eq(qr_job_run(&p, NULL, &err), QR_ERR_INVALID);
        cr_expect(strstr(err.msg, "set chunk_circles"), "%s", err.msg);
        qr_scene_stream_close(sm);
    }
    free(want);
}

/* The report says how the scene is cut; AUTO without a GPU and with one
 * renders chunks on the CPU. */
static int keep_start(void *user, const qr_job_progress *p)
{
    if (p->event == QR_JOB_START) *(qr_job_progress *)user = *p;
    return 0;
}

Test(job, chunks_report_their_size)
{
    qr_job_params p = cpu_job("rand10k", 0, 0, qr_test_tmp("job_chunks.png"));
    p.device = QR_JOB_AUTO;
    p.chunk_circles = 4096;
    qr_job_progress start;
    memset(&start, 0, sizeof start);
    p.on_progress = keep_start;
    p.user = &start;
    qr_error err;
    QR_CHECK(err, qr_job_run(&p, NULL, &err));
    cr_expect_eq(start.circles, 10000);
    cr_expect_eq(start.chunk_circles, 4096);
    /* AUTO: the GPU where there is one, as without chunks */
    qr_error why;
    cr_expect_eq(start.gpu, qr_gpu_probe(NULL, &why) == QR_OK);
}

/* Both callbacks' worth: the START report and the frames. */
typedef struct start_and_frames {
    qr_job_progress *start;
    frames_seen *seen;
} start_and_frames;

static int keep_start_seen(void *user, const qr_job_progress *p)
{
    if (p->event == QR_JOB_START) *((start_and_frames *)user)->start = *p;
    return 0;
}

static int keep_frame_seen(void *user, int64_t frame, const qr_image *img)
{
    return keep_frame(((start_and_frames *)user)->seen, frame, img);
}

/* A .npy drawn in chunks unasked only when it cannot be held whole. */
Test(job, auto_chunk_only_where_the_scene_does_not_fit)
{
    qr_scene *scene = NULL;
    qr_error err;
    QR_CHECK(err, qr_scene_load("rand100k", 0, &scene, &err));
    const char *path = qr_test_tmp("job_auto.npy");
    QR_CHECK(err, qr_scene_write_npy(scene, path, &err));
    qr_scene_destroy(scene);
    int32_t chunk = -1;
    QR_CHECK(err, qr_job_auto_chunk(path, 512, 512, &chunk, &err));
    cr_expect_eq(chunk, 0, "100k circles fit");
    QR_CHECK(err, qr_job_auto_chunk("rand1M", 512, 512, &chunk, &err));
    cr_expect_eq(chunk, 0, "a built-in is loaded whole");
    /* no room at all: the smallest chunk */
    qr_host_memory_set_budget(1);
    QR_CHECK(err, qr_job_auto_chunk(path, 256, 256, &chunk, &err));
    cr_expect_eq(chunk, 65536);
    /* 20 MB more than this process holds resident: about 10 MB for the
     * scene and its 1 MB image, chunks of about (10M - 1M) / 128 */
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0, resident = 0;
    cr_assert(f && fscanf(f, "%llu %llu", &pages, &resident) == 2);
    fclose(f);
    qr_host_memory_set_budget(resident * (unsigned long long)sysconf(_SC_PAGESIZE) + 20000000ull);
    QR_CHECK(err, qr_job_auto_chunk(path, 256, 256, &chunk, &err));
    const double want = (qr_host_memory_available() / 2.0 - 256 * 256 * 16) / QR_JOB_CIRCLE_BYTES;
    qr_host_memory_set_budget(0);
    cr_expect(chunk > 0.9 * want && chunk < 1.1 * want, "chunk %d, about %.0f", (int)chunk, want);
    cr_expect(chunk > 65536 && chunk < 100000, "chunk %d", (int)chunk);
    cr_expect_neq(qr_job_auto_chunk(qr_test_tmp("job_none.npy"), 8, 8, &chunk, &err), QR_OK);
    cr_expect_eq(chunk, 0);

    /* a job that loads the file itself chunks it under that budget too: the
     * report says so, the image is the whole scene's */
    float *whole = NULL, *parts = NULL;
    for (int k = 0; k < 2; k++) {
        qr_job_params p = cpu_job(path, 0, 0, NULL);
        p.device = QR_JOB_AUTO;
        p.mode = QR_RENDER_EXACT;
        qr_job_progress start;
        memset(&start, 0, sizeof start);
        frames_seen seen = {0};
        p.on_frame = keep_frame_seen;
        p.on_progress = keep_start_seen;
        p.user = &(start_and_frames){&start, &seen};
        p.output = NULL;
        if (k) qr_host_memory_set_budget(resident * (unsigned long long)sysconf(_SC_PAGESIZE) + 20000000ull);
        const qr_status st = qr_job_run(&p, NULL, &err);
        qr_host_memory_set_budget(0);
        QR_CHECK(err, st);
        cr_expect_eq(start.chunk_circles > 0, k == 1, "chunks %d", (int)start.chunk_circles);
        cr_assert_eq(seen.n, 1);
        *(k ? &parts : &whole) = seen.rgba[0];
    }
    cr_expect(!memcmp(whole, parts, (size_t)W * H * 4 * sizeof(float)), "chunked unasked: another image");
    free(whole);
    free(parts);
}

/* A job on one GPU, PPM (no text: the bytes are the pixels'), start kept. */
static qr_status gpu_job_run(const char *scene, int32_t w, int32_t h, qr_render_mode mode,
                             int32_t chunk, size_t gpu_memory, const char *out,
                             qr_job_progress *start, qr_error *err)
{
    qr_job_params p = cpu_job(scene, 2, 2, out);
    p.width = w;
    p.height = h;
    p.device = QR_JOB_GPU;
    p.mode = mode;
    p.chunk_circles = chunk;
    p.gpu_memory = gpu_memory;
    p.on_progress = keep_start;
    p.user = start;
    memset(start, 0, sizeof *start);
    return qr_job_run(&p, NULL, err);
}

/* Chunks on the GPU: the one pass's file in both modes, whatever the chunk
 * (deep scenes whose one pass takes exact mode's windows or fast mode's
 * early stop, snow at a later frame, a shallow scene). */
Test(job, gpu_chunks_equal_one_pass, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("job_gpu_chunks");
    char *one = dup_path(qr_test_join(dir, "one.ppm"));
    char *parts = dup_path(qr_test_join(dir, "parts.ppm"));
    const char *scenes[] = {"rand100k", "snow", "pattern", "micro2M"};
    const int32_t chunks[] = {7777, 1000, 65536, 300000};
    qr_job_progress start;
    qr_error err;
    for (int i = 0; i < 4; i++)
        for (int m = 0; m < 2; m++) {
            const qr_render_mode mode = m ? QR_RENDER_FAST : QR_RENDER_EXACT;
            QR_CHECK(err, gpu_job_run(scenes[i], 640, 480, mode, 0, 0, one, &start, &err));
            cr_assert_eq(start.chunk_circles, 0);
            QR_CHECK(err, gpu_job_run(scenes[i], 640, 480, mode, chunks[i], 0, parts, &start, &err));
            cr_assert(start.gpu && start.chunk_circles == chunks[i], "%s", scenes[i]);
            cr_expect(qr_test_same_bytes(one, parts), "%s %s: chunks of %d", scenes[i],
                      m ? "fast" : "exact", (int)chunks[i]);
        }
    free(one);
    free(parts);
}

/* A scene the GPU memory budget cannot hold whole with its index is drawn
 * in chunks unasked, each in parts that fit (halved where one does not):
 * the one pass's bytes. One circle that cannot fit: QR_ERR_GPU_NOMEM, named,
 * and no file. */
Test(job, gpu_budget_draws_in_chunks, .timeout = 300)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("job_gpu_budget");
    char *one = dup_path(qr_test_join(dir, "one.ppm"));
    char *parts = dup_path(qr_test_join(dir, "parts.ppm"));
    const int32_t w = 512, h = 384;
    const size_t image = (size_t)w * h * 16;
    qr_job_progress start;
    qr_error err;
    QR_CHECK(err, gpu_job_run("rand1M", w, h, QR_RENDER_EXACT, 0, 0, one, &start, &err));
    QR_CHECK(err, gpu_job_run("rand1M", w, h, QR_RENDER_EXACT, 0, image + ((size_t)24 << 20), parts,
                              &start, &err));
    cr_assert(start.chunk_circles > 0 && start.chunk_circles < 1000000, "%d",
              (int)start.chunk_circles);
    cr_expect(qr_test_same_bytes(one, parts), "the budget's chunks are not the one pass");
    unlink(parts);
    cr_assert_eq(gpu_job_run("rand1M", w, h, QR_RENDER_EXACT, 100, image + 2048, parts, &start,
                             &err),
                 QR_ERR_GPU_NOMEM);
    cr_expect(strstr(err.msg, "alone does not fit"), "%s", err.msg);
    cr_expect(!qr_test_exists(parts), "a partial file was left");
    cr_assert_eq(gpu_job_run("rand1M", w, h, QR_RENDER_EXACT, 100, image / 2, parts, &start, &err),
                 QR_ERR_GPU_NOMEM);
    cr_expect(strstr(err.msg, "held whole"), "%s", err.msg);
    free(one);
    free(parts);
}
