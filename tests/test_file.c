/* test_file.c — the public atomic file writer (quadrender/file.h): a
 * committed file holds exactly what was written and no temporary stays
 * behind; an aborted one leaves the previous target as it was; no-clobber
 * refuses an existing file before and at open; check refuses a missing
 * directory. */
#include "quadrender/file.h"
#include "test_util.h"

/* path holds exactly text, and dir no temporary file. */
static void expect_file(const char *dir, const char *path, const char *text)
{
    size_t len;
    char *got = qr_test_read_file(path, &len);
    cr_expect_eq(len, strlen(text));
    cr_expect_str_eq(got, text);
    free(got);
    cr_expect_eq(qr_test_count_temp_files(dir), 0);
}

/* Opens path and writes text into it. */
static qr_file *open_with(const char *path, const char *text)
{
    qr_error err;
    qr_file *f;
    QR_CHECK(err, qr_file_open(path, &f, &err));
    cr_assert_not_null(qr_file_stream(f));
    fputs(text, qr_file_stream(f));
    return f;
}

Test(file, commit_writes_the_whole_file)
{
    const char *dir = qr_test_tmp_dir("file_commit");
    const char *path = qr_test_join(dir, "out.txt");
    qr_file *f = open_with(path, "hello\n");
    cr_expect_not(qr_test_exists(path), "the target appears only at commit");
    qr_error err;
    QR_CHECK(err, qr_file_commit(f, &err));
    expect_file(dir, path, "hello\n");
}

Test(file, abort_keeps_the_previous_file)
{
    const char *dir = qr_test_tmp_dir("file_abort");
    const char *path = qr_test_join(dir, "out.txt");
    qr_test_write_text(path, "old\n");
    qr_file_abort(open_with(path, "new and longer\n"));
    qr_file_abort(NULL);
    expect_file(dir, path, "old\n");
}

Test(file, no_clobber_refuses_an_existing_file)
{
    const char *dir = qr_test_tmp_dir("file_no_clobber");
    const char *path = qr_test_join(dir, "out.txt");
    qr_test_write_text(path, "old\n");
    qr_error err;
    qr_file *f = NULL;
    qr_file_set_no_clobber(1);
    cr_expect_eq(qr_file_check(path, &err), QR_ERR_IO);
    cr_expect_eq(qr_file_open(path, &f, &err), QR_ERR_IO);
    cr_expect_null(f);
    qr_file_set_no_clobber(0);
    QR_CHECK(err, qr_file_check(path, &err));
}

Test(file, check_refuses_a_missing_directory)
{
    const char *dir = qr_test_tmp_dir("file_missing");
    qr_error err;
    cr_expect_eq(qr_file_check(qr_test_join(dir, "no/such/dir/out.txt"), &err), QR_ERR_IO);
    cr_expect_neq(strstr(err.msg, "no/such/dir"), NULL, "%s", err.msg);
    cr_expect(qr_file_is_direct("-"));
    cr_expect_not(qr_file_is_direct(qr_test_join(dir, "out.txt")));
}
