/* test_frame_pool.c — the pool that writes a frame sequence's files
 * (src/job/frame_pool.c): every file equals the one a lone writer makes, whatever
 * the number of workers and buffers; a failed write is reported once, stops
 * the rest, and leaves no temporary file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/frame_pool.h"
#include "files.h"
#include "test_util.h"

/* Rows of frame k: a pattern that differs from frame to frame. */
static void fill(unsigned char *rows, int w, int h, int k)
{
    for (size_t i = 0; i < (size_t)w * h * 3; i++)
        rows[i] = (unsigned char)((i * 7 + (size_t)k * 13 + i / 97) & 0xff);
}

Test(frame_pool, files_equal_a_lone_writer)
{
    const int w = 61, h = 37, frames = 12;
    const qr_image_text text[] = {{"Scene", "pool"}, {"Frame", "k"}};
    qr_image_write_options o = qr_image_write_options_default();
    o.text = text;
    o.ntext = 2;
    const char *dir = qr_test_tmp_dir("frame-pool");
    const int shapes[][2] = {{1, 2}, {3, 4}, {8, 3}}; /* workers, buffers */
    for (int s = 0; s < 3; s++) {
        qr_error err;
        job_frame_pool *p = NULL;
        const size_t frame = (size_t)w * h * 3;
        QR_CHECK(err, job_frame_pool_start(QR_FORMAT_PNG, false, w, h, 1, QR_PNG_DEFLATE_ZLIB, shapes[s][0],
                                           frame * (size_t)shapes[s][1], &p, &err));
        for (int k = 0; k < frames; k++) {
            void *rows;
            int slot;
            QR_CHECK(err, job_frame_pool_take(p, &rows, &slot, &err));
            fill(rows, w, h, k);
            char name[64];
            snprintf(name, sizeof name, "p%d_%02d.png", s, k);
            QR_CHECK(err, job_frame_pool_submit(p, slot, qr_test_join(dir, name), &o, &err));
        }
        QR_CHECK(err, job_frame_pool_finish(p, &err));
        job_frame_pool_free(p);
        unsigned char *rows = malloc((size_t)w * h * 3);
        for (int k = 0; k < frames; k++) {
            fill(rows, w, h, k);
            char name[64], lone[4096];
            snprintf(lone, sizeof lone, "%s", qr_test_join(dir, "lone.png"));
            qr_image_writer *wr = NULL;
            QR_CHECK(err, qr_image_writer_open(lone, QR_FORMAT_PNG, w, h, &o, &wr, &err));
            QR_CHECK(err, qr_image_writer_append_rgb8(wr, rows, h, &err));
            QR_CHECK(err, qr_image_writer_close(wr, &err));
            snprintf(name, sizeof name, "p%d_%02d.png", s, k);
            cr_assert(qr_test_same_bytes(qr_test_join(dir, name), lone),
                      "%d workers, frame %d differs from a lone writer's", shapes[s][0], k);
        }
        free(rows);
    }
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
}

/* A frame whose file cannot be written (its directory is missing): finish
 * and the next take report it, with the path; no temporary file stays. */
Test(frame_pool, a_failed_write_is_reported)
{
    const int w = 16, h = 16;
    const char *dir = qr_test_tmp_dir("frame-pool-fail");
    qr_error err;
    job_frame_pool *p = NULL;
    QR_CHECK(err, job_frame_pool_start(QR_FORMAT_PPM, false, w, h, 1, QR_PNG_DEFLATE_ZLIB, 2, (size_t)1 << 20, &p, &err));
    void *rows;
    int slot;
    QR_CHECK(err, job_frame_pool_take(p, &rows, &slot, &err));
    fill(rows, w, h, 0);
    char bad[4096];
    snprintf(bad, sizeof bad, "%s", qr_test_join(dir, "missing/f.ppm"));
    job_frame_pool_submit(p, slot, bad, NULL, &err);
    cr_assert_neq(job_frame_pool_finish(p, &err), QR_OK);
    cr_assert(strstr(err.msg, "missing") != NULL, "%s", err.msg);
    cr_assert_neq(job_frame_pool_take(p, &rows, &slot, &err), QR_OK, "a take after a failure fails");
    job_frame_pool_free(p);
    cr_assert_eq(qr_test_count_temp_files(dir), 0);
    /* too large for two buffers: refused */
    cr_assert_eq(job_frame_pool_start(QR_FORMAT_PNG, false, 1000, 1000, 1, QR_PNG_DEFLATE_ZLIB, 4, (size_t)1 << 20, &p, &err),
                 QR_ERR_NOMEM);
    cr_assert_null(p);
}
