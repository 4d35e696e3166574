/* test_cli_split.c — `quadrender render` split over several lanes
 * (render_split.c), run as a user runs it: over MPI processes
 * (`mpiexec -n N quadrender render ...`, the CPU path; skipped when the
 * build has no MPI, $QR_MPIEXEC unset) and over GPUs (--gpus; needs a
 * GPU, two lanes may share one). The oracle is the one-process render of
 * the same command: the same files, byte for byte, for band splits (odd
 * stripe counts, uneven last stripes, every format) and frame splits. A
 * failing lane fails the job with its message and leaves no file and no
 * temporary file behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"
#include "quadrender/gpu.h"
#include "files.h"
#include "test_util.h"

/* The MPI launcher the build found, or NULL. */
static const char *mpiexec(void)
{
    const char *m = getenv("QR_MPIEXEC");
    return m && *m ? m : NULL;
}

#define REQUIRE_MPI()                                                                        \
    do {                                                                                     \
        if (!mpiexec())                                                                      \
            cr_skip_test("built without MPI (configure with -DQR_MPI=ON)");                  \
    } while (0)

/* Runs `mpiexec -n n $QR_CLI args...` (args NULL-terminated, at most 48). */
static int run_mpi(int n, const char *const *args)
{
    const char *argv[64];
    char count[16];
    snprintf(count, sizeof count, "%d", n);
    int k = 0;
    argv[k++] = "-n";
    argv[k++] = count;
    argv[k++] = getenv("QR_CLI");
    for (int i = 0; args[i] && k < 63; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    qr_cli_opts o = {.program = mpiexec()};
    return qr_cli_run(&o, argv, &R);
}
#define RUN_MPI(n, ...) run_mpi(n, QR_ARGS(__VA_ARGS__))

/* Entries of dir other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert(d, "cannot list %s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static char *dup_path(const char *p)
{
    char *s = strdup(p);
    cr_assert(s);
    return s;
}

/* One image over 2 and 3 processes, in every format, sizes whose stripes
 * come out uneven, both modes and the reference: the one-process file. */
Test(split, mpi_bands_equal_one_process, .timeout = 600)
{
    REQUIRE_MPI();
    const char *ext[] = {"png", "ppm", "pfm"};
    const char *sizes[][2] = {{"300", "301"}, {"97", "1000"}};
    const char *modes[] = {"--fast", "--exact", "--reference"};
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 2; s++)
            for (int m = 0; m < 3; m++) {
                char name[64];
                snprintf(name, sizeof name, "split_one_%d%d%d.%s", f, s, m, ext[f]);
                char *one = dup_path(qr_test_tmp(name));
                const char *dev = m == 2 ? "cpu-reference" : "cpu";
                cr_assert_eq(RUN("render", "snow", "--width", sizes[s][0], "--height", sizes[s][1],
                                 "--frame", "3", modes[m], "--device", dev, "-o", one),
                             0, "%s", R.err);
                for (int n = 2; n <= 3; n++) {
                    snprintf(name, sizeof name, "split_%d_%d%d%d.%s", n, f, s, m, ext[f]);
                    char *many = dup_path(qr_test_tmp(name));
                    cr_assert_eq(RUN_MPI(n, "render", "snow", "--width", sizes[s][0], "--height",
                                         sizes[s][1], "--frame", "3", modes[m], "--device", dev,
                                         "-o", many),
                                 0, "%s", R.err);
                    cr_expect(strstr(R.err, "stripes of"), "%s", R.err);
                    cr_expect(qr_test_same_bytes(one, many), "%s: %d processes, %s %s", ext[f], n,
                              sizes[s][0], modes[m]);
                    free(many);
                }
                free(one);
            }
}

/* Frames dealt over 2 and 3 processes: every frame's file is the one
 * process's. */
Test(split, mpi_frames_equal_one_process, .timeout = 600)
{
    REQUIRE_MPI();
    const char *one_dir = qr_test_tmp_dir("split_frames_one");
    char *one = dup_path(qr_test_join(one_dir, "h.png"));
    cr_assert_eq(RUN("render", "hypnosis", "-s", "96", "--frames", "2:8", "--device", "cpu", "-o",
                     one),
                 0, "%s", R.err);
    for (int n = 2; n <= 3; n++) {
        char dname[32];
        snprintf(dname, sizeof dname, "split_frames_%d", n);
        const char *dir = qr_test_tmp_dir(dname);
        char *many = dup_path(qr_test_join(dir, "h.png"));
        cr_assert_eq(RUN_MPI(n, "render", "hypnosis", "-s", "96", "--frames", "2:8", "--device",
                             "cpu", "-o", many),
                     0, "%s", R.err);
        cr_expect_eq(entries(dir), 7, "%d processes: 7 files", n);
        for (int k = 2; k <= 8; k++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "h_%04d.png", k);
            snprintf(b, sizeof b, "h_%04d.png", k);
            char *pa = dup_path(qr_test_join(one_dir, a));
            cr_expect(qr_test_same_bytes(pa, qr_test_join(dir, b)), "frame %d, %d processes", k,
                      n);
            free(pa);
        }
        free(many);
    }
    free(one);
}

/* A scene without a background over MPI processes: one image's RGBA
 * stripes (parts with 4-byte pixels) and a sequence's frames, each file
 * the one process's bytes. */
Test(split, mpi_transparent_equals_one_process, .timeout = 600)
{
    REQUIRE_MPI();
    const char *one_dir = qr_test_tmp_dir("split_clear_one");
    char *one = dup_path(qr_test_join(one_dir, "r.png"));
    cr_assert_eq(RUN("render", "rand10k", "--width", "300", "--height", "301", "--exact",
                     "--device", "cpu", "--background", "none", "-o", one),
                 0, "%s", R.err);
    char *frames_one = dup_path(qr_test_join(one_dir, "h.png"));
    cr_assert_eq(RUN("render", "hypnosis", "-s", "64", "--frames", "0:4", "--device", "cpu",
                     "--background", "none", "-o", frames_one),
                 0, "%s", R.err);
    const char *dir = qr_test_tmp_dir("split_clear_many");
    char *many = dup_path(qr_test_join(dir, "r.png"));
    cr_assert_eq(RUN_MPI(2, "render", "rand10k", "--width", "300", "--height", "301", "--exact",
                         "--device", "cpu", "--background", "none", "-o", many),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "stripes of"), "%s", R.err);
    cr_expect(qr_test_same_bytes(one, many), "one image over 2 processes");
    char *frames_many = dup_path(qr_test_join(dir, "h.png"));
    cr_assert_eq(RUN_MPI(2, "render", "hypnosis", "-s", "64", "--frames", "0:4", "--device",
                         "cpu", "--background", "none", "-o", frames_many),
                 0, "%s", R.err);
    for (int k = 0; k <= 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "h_%04d.png", k);
        char *a = dup_path(qr_test_join(one_dir, name));
        cr_expect(qr_test_same_bytes(a, qr_test_join(dir, name)), "frame %d over 2 processes", k);
        free(a);
    }
    free(frames_many);
    free(many);
    free(frames_one);
    free(one);
}

/* Runs an n-process job (n <= 4) whose rank k starts in dirs[k] (its
 * working directory) with CUDA_VISIBLE_DEVICES=k, through the launcher's
 * MPMD form: ranks as separate machines run them, each with its own disk
 * and its own GPU. */
static int run_mpi_nodes(int n, const char *const *dirs, const char *const *args)
{
    const char *argv[256];
    char script[4][512];
    int k = 0;
    for (int rank = 0; rank < n; rank++) {
        snprintf(script[rank], sizeof script[rank],
                 "cd '%s' && CUDA_VISIBLE_DEVICES=%d exec \"$0\" \"$@\"", dirs[rank], rank);
        if (rank)
            argv[k++] = ":";
        argv[k++] = "-n";
        argv[k++] = "1";
        argv[k++] = "sh";
        argv[k++] = "-c";
        argv[k++] = script[rank];
        argv[k++] = getenv("QR_CLI");
        for (int i = 0; args[i] && k < 250; i++)
            argv[k++] = args[i];
    }
    argv[k] = NULL;
    qr_cli_opts o = {.program = mpiexec()};
    return qr_cli_run(&o, argv, &R);
}

/* Ranks as separate machines would run them (run_mpi_nodes): each reads
 * the scene from its own directory, by the same relative path, and writes
 * there alone (the CPU path). One image: the writer's directory holds the
 * file, the one-process bytes, and the other ranks' directories stay
 * empty, with no output folder at all (only compressed parts leave them).
 * Frames: each rank's directory holds the frames that rank rendered, the
 * one-process files, and all of them together make the sequence. A rank
 * that cannot write its frames (no folder, or with -n a file there) fails
 * the job before any work. */
Test(split, mpi_separate_nodes, .timeout = 300)
{
    REQUIRE_MPI();
    const char *dirs[3];
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "split_node%d", k);
        dirs[k] = dup_path(qr_test_tmp_dir(name));
        char *scene = dup_path(qr_test_join(dirs[k], "scene.npy"));
        cr_assert_eq(RUN("dump", "rand10k", "-o", scene), 0, "%s", R.err);
        free(scene);
    }
    char *one = dup_path(qr_test_tmp("split_nodes_one.png"));
    char *scene0 = dup_path(qr_test_join(dirs[0], "scene.npy"));
    cr_assert_eq(RUN("render", scene0, "-s", "300", "--device", "cpu", "-o", one), 0, "%s", R.err);
    free(scene0);
    char *out = dup_path(qr_test_tmp_dir("split_node0/out"));
    cr_assert_eq(run_mpi_nodes(3, dirs,
                               QR_ARGS("render", "scene.npy", "-s", "300", "--device", "cpu", "-o",
                                       "out/one.png")),
                 0, "%s", R.err);
    cr_expect(qr_test_same_bytes(one, qr_test_join(out, "one.png")), "the writer's file");
    cr_expect_eq(entries(out), 1, "the writer's directory: the file alone");
    for (int k = 1; k < 3; k++)
        cr_expect_eq(entries(dirs[k]), 1, "node %d: its scene alone", k);

    /* frames: every node writes its own, into its own out/ */
    const char *one_dir = qr_test_tmp_dir("split_nodes_frames");
    char *seq = dup_path(qr_test_join(one_dir, "h.png"));
    cr_assert_eq(RUN("render", "hypnosis", "-s", "64", "--frames", "0:6", "--device", "cpu", "-o",
                     seq),
                 0, "%s", R.err);
    char *outs[3];
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "split_node%d/frames", k);
        outs[k] = dup_path(qr_test_tmp_dir(name));
    }
    cr_assert_eq(run_mpi_nodes(3, dirs,
                               QR_ARGS("render", "hypnosis", "-s", "64", "--frames", "0:6",
                                       "--device", "cpu", "-o", "frames/h.png")),
                 0, "%s", R.err);
    for (int f = 0; f <= 6; f++) {
        char name[32];
        snprintf(name, sizeof name, "h_%04d.png", f);
        char *want = dup_path(qr_test_join(one_dir, name));
        for (int k = 0; k < 3; k++) {
            const char *got = qr_test_join(outs[k], name);
            if (k == f % 3)
                cr_expect(qr_test_exists(got) && qr_test_same_bytes(want, got), "frame %d on node %d", f, k);
            else
                cr_expect(!qr_test_exists(got), "frame %d also on node %d", f, k);
        }
        free(want);
    }
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(qr_test_count_temp_files(outs[k]), 0, "node %d: no temporary file", k);
        free(outs[k]);
    }

    /* node 1 has no folder for its frames: the job fails before any work,
     * rank 1 saying why, and no node is left a file */
    char *lacking[2] = {dup_path(qr_test_tmp_dir("split_node0/lacking")),
                        dup_path(qr_test_tmp_dir("split_node2/lacking"))};
    const int rc = run_mpi_nodes(3, dirs,
                                 QR_ARGS("render", "hypnosis", "-s", "64", "--frames", "0:6",
                                         "--device", "cpu", "-o", "lacking/h.png"));
    cr_expect_eq(rc, 4, "exit %d: %s", rc, R.err);
    cr_expect(strstr(R.err, "rank 1: lacking/h_0001.png: cannot write into"), "%s", R.err);
    for (int k = 0; k < 2; k++) {
        cr_expect_eq(entries(lacking[k]), 0, "%s: nothing written", lacking[k]);
        free(lacking[k]);
    }

    /* -n: a later frame of rank 1's that exists on its node fails the job
     * before any work, as one process's render would */
    char *kept[3];
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "split_node%d/kept", k);
        kept[k] = dup_path(qr_test_tmp_dir(name));
    }
    qr_test_write_text(qr_test_join(kept[1], "h_0004.png"), "an earlier run's frame");
    const int rc_n = run_mpi_nodes(3, dirs,
                                   QR_ARGS("render", "hypnosis", "-s", "64", "--frames", "0:6",
                                           "--device", "cpu", "-n", "-o", "kept/h.png"));
    cr_expect_eq(rc_n, 4, "exit %d: %s", rc_n, R.err);
    cr_expect(strstr(R.err, "rank 1: kept/h_0004.png: already exists"), "%s", R.err);
    for (int k = 0; k < 3; k++) {
        cr_expect_eq(entries(kept[k]), k == 1, "node %d: nothing written", k);
        free(kept[k]);
    }
    for (int k = 0; k < 3; k++)
        free((char *)dirs[k]);
    free(seq);
    free(out);
    free(one);
}

/* Runs rank 0 as is and rank 1 (of 2) under a shell's `limit` (ulimit
 * arguments), through the launcher's MPMD form: one lane fails for real.
 * (A file size limit below a few MB stops MPI's own start.) */
static int run_mpi_limited(const char *limit, int limited_rank, const char *const *args)
{
    const char *argv[128];
    char script[128];
    snprintf(script, sizeof script, "trap '' XFSZ; ulimit %s && exec \"$0\" \"$@\"", limit);
    int k = 0;
    for (int rank = 0; rank < 2; rank++) {
        if (rank)
            argv[k++] = ":";
        argv[k++] = "-n";
        argv[k++] = "1";
        if (rank == limited_rank) {
            argv[k++] = "sh";
            argv[k++] = "-c";
            argv[k++] = script;
        }
        argv[k++] = getenv("QR_CLI");
        for (int i = 0; args[i] && k < 120; i++)
            argv[k++] = args[i];
    }
    argv[k] = NULL;
    qr_cli_opts o = {.program = mpiexec()};
    return qr_cli_run(&o, argv, &R);
}

/* Renders args... -o DIR/file (a fresh directory) as a job whose rank
 * `rank` runs under `limit`; expects exit `code` and `needle` in the
 * messages. Answers the directory, for the caller to look into. */
static const char *expect_job_fails(const char *dirname, const char *file, const char *limit,
                                    int rank, int code, const char *needle,
                                    const char *const *args)
{
    const char *dir = qr_test_tmp_dir(dirname);
    char *out = dup_path(qr_test_join(dir, file));
    const char *argv[48];
    int k = 0;
    for (; args[k] && k < 45; k++)
        argv[k] = args[k];
    argv[k++] = "-o";
    argv[k++] = out;
    argv[k] = NULL;
    int rc = run_mpi_limited(limit, rank, argv);
    cr_expect_eq(rc, code, "exit %d: %s", rc, R.err);
    cr_expect(strstr(R.err, needle), "the message says '%s': %s", needle, R.err);
    free(out);
    return dir;
}

/* Process 0, the writer, cannot write the file (a file size limit): the
 * job exits 4 with the message, and leaves nothing in the directory. */
Test(split, mpi_writer_fails_leaves_nothing, .timeout = 300)
{
    REQUIRE_MPI();
    const char *dir = expect_job_fails("split_fail_writer", "big.ppm", "-f 10000", 0, 4, "big.ppm",
                                       QR_ARGS("render", "rand10k", "-s", "2100", "--device", "cpu"));
    cr_expect_eq(entries(dir), 0, "no file, no temporary file");
}

/* Process 1 runs out of memory setting up (an address-space limit): the
 * job exits 6 with its message, tagged with its rank; no file is left. */
Test(split, mpi_lane_fails_leaves_nothing, .timeout = 300)
{
    REQUIRE_MPI();
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer's shadow memory does not fit under an address-space limit");
#endif
    const char *dir = expect_job_fails("split_fail_lane", "big.png", "-v 400000", 1, 6, "rank 1: ",
                                       QR_ARGS("render", "rand10k", "-s", "20000", "--device", "cpu"));
    cr_expect_eq(entries(dir), 0, "no file, no temporary file");
}

/* A frame split whose process 1 cannot write its frames: every process
 * stops within a round, exit 4, rank 1's message; the frames written
 * are whole files and no temporary file is left. */
Test(split, mpi_frames_lane_fails, .timeout = 300)
{
    REQUIRE_MPI();
    const char *dir =
        expect_job_fails("split_fail_frames", "f.ppm", "-f 10000", 1, 4, "rank 1: ",
                         QR_ARGS("render", "hypnosis", "-s", "2000", "--frames", "0:40",
                                 "--device", "cpu"));
    /* rank 0's frame 0 and perhaps frame 2, never more than a round late */
    const int n = entries(dir);
    cr_expect(n >= 1 && n <= 2, "%d files", n);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        cr_expect(e->d_name[0] == '.' ? !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")
                                      : !strcmp(e->d_name, "f_0000.ppm") ||
                                            !strcmp(e->d_name, "f_0002.ppm"),
                  "left behind: %s", e->d_name);
    if (d)
        closedir(d);
}

/* Two lanes on GPUs (the same one where there is one): one image and a
 * frame sequence equal the one-GPU files. */
Test(split, gpus_equal_one_gpu, .timeout = 600)
{
    QR_REQUIRE_GPU();
    const char *lanes = "0,0";
    const char *ext[] = {"png", "pfm"};
    for (int f = 0; f < 2; f++)
        for (int exact = 0; exact < 2; exact++) {
            char name[64];
            snprintf(name, sizeof name, "gsplit_one_%d%d.%s", f, exact, ext[f]);
            char *one = dup_path(qr_test_tmp(name));
            snprintf(name, sizeof name, "gsplit_two_%d%d.%s", f, exact, ext[f]);
            char *two = dup_path(qr_test_tmp(name));
            const char *mode = exact ? "--exact" : "--fast";
            cr_assert_eq(RUN("render", "biglittle", "--width", "1500", "--height", "1333", mode,
                             "--gpu-memory", "300M", "-o", one),
                         0, "%s", R.err);
            cr_assert_eq(RUN("render", "biglittle", "--width", "1500", "--height", "1333", mode,
                             "--gpu-memory", "300M", "--gpus", lanes, "-o", two),
                         0, "%s", R.err);
            cr_expect(strstr(R.err, "on 2 GPUs"), "%s", R.err);
            cr_expect(qr_test_same_bytes(one, two), "%s %s", ext[f], mode);
            free(one);
            free(two);
        }
    const char *d1 = qr_test_tmp_dir("gsplit_frames_one"), *d2 = qr_test_tmp_dir("gsplit_frames_two");
    char *o1 = dup_path(qr_test_join(d1, "s.png")), *o2 = dup_path(qr_test_join(d2, "s.png"));
    cr_assert_eq(RUN("render", "snow", "-s", "200", "--frames", "0:6", "-o", o1), 0, "%s", R.err);
    cr_assert_eq(RUN("render", "snow", "-s", "200", "--frames", "0:6", "--gpus", lanes, "-o", o2),
                 0, "%s", R.err);
    cr_expect_eq(entries(d2), 7);
    for (int k = 0; k <= 6; k++) {
        char n[32];
        snprintf(n, sizeof n, "s_%04d.png", k);
        char *a = dup_path(qr_test_join(d1, n));
        cr_expect(qr_test_same_bytes(a, qr_test_join(d2, n)), "frame %d", k);
        free(a);
    }
    free(o1);
    free(o2);
}

/* A GPU that is not there fails the job (exit 5, tagged with the GPU)
 * before anything is written. */
Test(split, gpus_missing_device_fails, .timeout = 120)
{
    QR_REQUIRE_GPU();
    const char *dir = qr_test_tmp_dir("gsplit_fail");
    char *out = dup_path(qr_test_join(dir, "x.png"));
    int rc = RUN("render", "rand10k", "-s", "500", "--gpus", "0,1023", "-o", out);
    cr_expect_eq(rc, 5, "exit %d: %s", rc, R.err);
    cr_expect(strstr(R.err, "GPU 1023: "), "%s", R.err);
    cr_expect_eq(entries(dir), 0, "no file, no temporary file");
    free(out);
}

/* --gpus takes all or a list of device numbers; not with the CPU. */
Test(split, gpus_option_errors)
{
    cr_expect_eq(RUN("render", "rgb", "--gpus", "0,x"), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--gpus", ""), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--gpus", "0,,1"), 2, "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "--gpus", "0,1", "--device", "cpu"), 2, "%s", R.err);
    cr_expect(strstr(R.err, "--gpus"), "%s", R.err);
}

/* Without a GPU, --gpus renders in the one process on the CPU (the same
 * files as without it), and with --device gpu fails as --device gpu does. */
Test(split, gpus_without_a_gpu)
{
    qr_error e;
    if (qr_gpu_probe(NULL, &e) == QR_OK)
        cr_skip_test("this machine has a GPU");
    const char *d1 = qr_test_tmp_dir("gsplit_nogpu_one"), *d2 = qr_test_tmp_dir("gsplit_nogpu_two");
    char *o1 = dup_path(qr_test_join(d1, "h.png")), *o2 = dup_path(qr_test_join(d2, "h.png"));
    cr_assert_eq(RUN("render", "hypnosis", "-s", "64", "--frames", "0:3", "-o", o1), 0, "%s",
                 R.err);
    cr_assert_eq(RUN("render", "hypnosis", "-s", "64", "--frames", "0:3", "--gpus", "0,1", "-o",
                     o2),
                 0, "%s", R.err);
    cr_expect(strstr(R.err, "no usable GPU"), "%s", R.err);
    for (int k = 0; k <= 3; k++) {
        char n[32];
        snprintf(n, sizeof n, "h_%04d.png", k);
        char *a = dup_path(qr_test_join(d1, n));
        cr_expect(qr_test_same_bytes(a, qr_test_join(d2, n)), "frame %d", k);
        free(a);
    }
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "--gpus", "all", "--device", "gpu", "-o", o2), 5,
                 "%s", R.err);
    cr_expect_eq(RUN("render", "rgb", "-s", "16", "--gpus", "0,1", "--device", "gpu", "-o", o2), 5,
                 "%s", R.err);
    free(o1);
    free(o2);
}

/* What a split cannot do is refused before any work, by every process:
 * a stream output, --aspect keep on a non-square image. */
Test(split, mpi_refuses_streams_and_crops, .timeout = 120)
{
    REQUIRE_MPI();
    cr_expect_eq(RUN_MPI(2, "render", "rgb", "-s", "16", "--device", "cpu", "-o", "-"), 2, "%s",
                 R.err);
    cr_expect(strstr(R.err, "files only"), "%s", R.err);
    const char *out = qr_test_tmp("split_keep.png");
    cr_expect_eq(RUN_MPI(2, "render", "rgb", "--width", "32", "--height", "16", "--aspect", "keep",
                         "--device", "cpu", "-o", out),
                 2, "%s", R.err);
    cr_expect(strstr(R.err, "--aspect keep"), "%s", R.err);
    cr_expect(!qr_test_exists(out), "nothing written");
}

/* A scene in chunks (--chunk) over 2 and 3 processes, each rendering its
 * stripes chunk by chunk on its CPU (a .npy read chunk by chunk by each;
 * a built-in cut into views): the one process's file of the whole scene,
 * in both modes and the reference. Frames in chunks over processes are
 * refused. */
Test(split, mpi_chunks_equal_one_process, .timeout = 600)
{
    REQUIRE_MPI();
    char *npy = dup_path(qr_test_tmp("split_chunks.npy"));
    cr_assert_eq(RUN("dump", "rand100k", "-o", npy), 0, "%s", R.err);
    const char *scenes[] = {npy, "snow"};
    const char *modes[] = {"--fast", "--exact", "--reference"};
    for (int s = 0; s < 2; s++)
        for (int m = 0; m < 3; m++) {
            char *one = dup_path(qr_test_tmp("split_chunks_one.png"));
            char *many = dup_path(qr_test_tmp("split_chunks_many.png"));
            const char *dev = m == 2 ? "cpu-reference" : "cpu";
            cr_assert_eq(RUN("render", scenes[s], "--width", "97", "--height", "301", "--frame",
                             "2", modes[m], "--device", dev, "-o", one),
                         0, "%s", R.err);
            for (int n = 2; n <= 3; n++) {
                cr_assert_eq(RUN_MPI(n, "render", scenes[s], "--width", "97", "--height", "301",
                                     "--frame", "2", modes[m], "--device", dev, "--chunk",
                                     "30000", "-o", many),
                             0, "%s", R.err);
                cr_expect(strstr(R.err, "in chunks of 30000) 97x301 frame 2 in"), "%s", R.err);
                cr_expect(qr_test_same_bytes(one, many), "%s %s, %d processes", scenes[s],
                          modes[m], n);
            }
            free(one);
            free(many);
        }
    cr_expect_eq(RUN_MPI(2, "render", npy, "--frames", "0:1", "--chunk", "10", "-o",
                         qr_test_tmp("split_chunks_%d.png")),
                 2, "%s", R.err);
    free(npy);
}
