/* test_cli_dump.c — `quadrender dump`, run as a user runs it
 * (support/cli_run.h): a dumped scene renders as the built-in does, and
 * without --frame the dump is the generated state. */
#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

/* dump, then render the dump: the same image as rendering the built-in. */
static void expect_dump_roundtrip(const char *scene, const char *frame)
{
    const char *dir = qr_test_tmp_dir("dump");
    const char *file = qr_test_join(dir, "scene.circles");
    const char *a = qr_test_join(dir, "from_file.ppm"), *b = qr_test_join(dir, "builtin.ppm");
    if (frame)
        cr_assert_eq(RUN("dump", scene, "--frame", frame, "-o", file), 0, "%s", R.err);
    else
        cr_assert_eq(RUN("dump", scene, "-o", file), 0, "%s", R.err);
    cr_assert_eq(RUN("render", file, "-s", "64", "-o", a), 0, "%s", R.err);
    cr_assert_eq(RUN("render", scene, "-s", "64", "--frame", frame ? frame : "0", "-o", b), 0,
                 "%s", R.err);
    cr_expect(qr_test_same_bytes(a, b), "%s (frame %s): the dump renders differently", scene,
              frame ? frame : "-");
}

Test(cli, dump_roundtrip)
{
    expect_dump_roundtrip("rgb", NULL);
    expect_dump_roundtrip("pattern", NULL);
    expect_dump_roundtrip("hypnosis", "3");
}

Test(cli, dump_default_is_generated_state)
{
    const char *gen = qr_test_tmp("gen.circles"), *f0 = qr_test_tmp("f0.circles");
    cr_assert_eq(RUN("dump", "hypnosis", "-o", gen), 0, "%s", R.err);
    cr_assert_eq(RUN("dump", "hypnosis", "--frame", "0", "-o", f0), 0, "%s", R.err);
    /* frame 0 is one step past generation: hypnosis has grown */
    cr_expect(!qr_test_same_bytes(gen, f0));
    char *text = qr_test_read_file(gen, NULL);
    cr_expect_eq(strncmp(text, "circles 25\n", 11), 0, "%.40s", text);
    free(text);
}

/* The last frame --frame accepts: an animated scene that seeks by cycles
 * gets there and writes its 25 circles (test_scenes.c checks the library's
 * seek against single steps); a snow seek long enough to report progress
 * prints none when stderr is not a terminal. */
Test(cli, dump_seeks_far_and_quietly, .timeout = 120)
{
    const char *far = qr_test_tmp("far.circles"), *snow = qr_test_tmp("snow.circles");
    cr_assert_eq(RUN("dump", "hypnosis", "--frame", "2147483647", "-o", far), 0, "%s", R.err);
    char *text = qr_test_read_file(far, NULL);
    cr_expect_eq(strncmp(text, "circles 25\n", 11), 0, "%.40s", text);
    free(text);
    cr_assert_eq(RUN("dump", "snow", "--frame", "400", "-o", snow), 0, "%s", R.err);
    cr_expect_null(strchr(R.err, '\r'), "progress on a pipe: %s", R.err);
    cr_expect_null(strstr(R.err, "seeking"), "progress on a pipe: %s", R.err);
}
