/* test_cli_check.c — `quadrender check`, run as a user runs it
 * (support/cli_run.h): without a GPU it says it needs one (exit 5); on a
 * GPU it compares both render modes with the CPU and passes. */
#include "cli_expect.h"
#include "cli_run.h"
#include "test_util.h"

Test(cli, check_without_gpu)
{
    qr_error err;
    if (qr_gpu_probe(NULL, &err) == QR_OK)
        cr_skip_test("this machine has a GPU");
    cr_expect_eq(RUN("check", "rand10k", "-s", "64", "--threads", "2"), 0, "%s", R.err);
    cr_expect(strstr(R.err, "no usable GPU") && strstr(R.err, err.msg), "%s", R.err);
    cr_expect_eq(cli_count_lines(R.out), 5, "title, header, two rows, verdict:\n%s", R.out);
    cr_expect(strstr(R.out, "\nCPU exact ") && strstr(R.out, "bit-identical  PASS") &&
                  strstr(R.out, "\nCPU fast ") && strstr(R.out, "\nPASS\n"),
              "%s", R.out);
    cr_expect(!strstr(R.out, "GPU exact"), "%s", R.out);
    /* a bad command line is still a bad command line */
    cr_expect_eq(RUN("check"), 2, "%s", R.err);
}

Test(cli, gpu_check, .timeout = 300)
{
    QR_REQUIRE_GPU();
    cr_assert_eq(RUN("check", "rand10k", "-s", "256"), 0, "%s%s", R.out, R.err);
    cr_expect_eq(cli_count_lines(R.out), 7, "title, header, four rows, verdict:\n%s", R.out);
    cr_expect(strstr(R.out, "\nGPU exact ") && strstr(R.out, "\nGPU fast ") &&
                  strstr(R.out, "\nCPU exact ") && strstr(R.out, "\nCPU fast ") &&
                  strstr(R.out, "\nPASS\n"),
              "%s", R.out);
    cr_expect(strstr(R.out, "bit-identical  PASS"), "%s", R.out);
    cr_assert_eq(RUN("check", "snow", "-s", "256", "--frame", "3"), 0, "%s%s", R.out, R.err);
    cr_assert_eq(RUN("check", "rgb", "--width", "333", "--height", "77", "--capacity", "1",
                     "--min-leaf", "16"),
                 0, "%s%s", R.out, R.err);
}
