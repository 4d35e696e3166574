/* files.h — scratch and source paths, and whole files read and written.
 *
 * Scratch files live under the build's test folder ($QR_TMP, set by CTest);
 * their names carry the test process id, so tests may run in parallel.
 * Functions returning a path return one of eight rotating static buffers
 * of their own: copy a path that must outlive the function's next eight
 * calls. Failures to create or
 * write a file are test failures (Criterion assertions). */
#ifndef QR_TEST_FILES_H
#define QR_TEST_FILES_H

#include <stdbool.h>
#include <stddef.h>

/* A scratch path "$QR_TMP/<pid>-<name>". */
const char *qr_test_tmp(const char *name);

/* A scratch folder qr_test_tmp(name), created if missing. */
const char *qr_test_tmp_dir(const char *name);

/* A file of the source tree ($QR_SOURCE_DIR), e.g. "scenes/three.circles". */
const char *qr_test_src(const char *rel);

/* "dir/name". */
const char *qr_test_join(const char *dir, const char *name);

/* The whole file, NUL-terminated (so text reads as a string), malloc'd;
 * *len (if not NULL) is its length without the NUL. Asserts it can be
 * read. */
char *qr_test_read_file(const char *path, size_t *len);

/* Creates or truncates path and writes the bytes; asserts it worked. */
void qr_test_write_file(const char *path, const void *data, size_t len);
void qr_test_write_text(const char *path, const char *text);

bool qr_test_exists(const char *path);

/* Whether two files hold the same bytes; asserts both can be read. */
bool qr_test_same_bytes(const char *a, const char *b);

/* Entries of dir whose name marks an atomic-write temporary (".tmp-"). */
int qr_test_count_temp_files(const char *dir);

/* Whether the file at path holds exactly data[0..len); asserts it can be
 * read. */
bool qr_test_holds(const char *path, const void *data, size_t len);

#endif
