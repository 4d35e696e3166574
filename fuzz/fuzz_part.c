/* fuzz_part.c — libFuzzer harness of the image writer's part reader
 * (qr_image_writer_append_part): parts come from other processes, so
 * their bytes are read with care. The input is a part; its CRC is set
 * right before use (else nearly every mutation stops at the checksum), and
 * the writer is opened for the image the header names (small sizes only),
 * its rows before the part's first given as pixels. The checks: no memory
 * error (the sanitizers), a refused part gets a message and leaves no
 * file, an accepted one lets the rest of the rows follow and the file
 * close. The checksum guards parts against damage on the way, not against
 * forgery: a forged part with a right checksum may carry deflate data that
 * does not inflate, so the PNG is decoded only for parts the harness did
 * not have to re-checksum (the seeds). */
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz_input.h"
#include "image/image_part_bytes.h"
#include "image/image_parts.h"
#include "quadrender/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the PNG at path decodes, whole, to w x h. */
static int png_decodes(const char *path, int32_t w, int32_t h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path))
        return 0;
    img.format = PNG_FORMAT_RGB;
    void *buf = malloc(PNG_IMAGE_SIZE(img));
    const int ok = buf && png_image_finish_read(&img, NULL, buf, 0, NULL) &&
                   (int32_t)img.width == w && (int32_t)img.height == h;
    free(buf);
    png_image_free(&img);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < QR_PART_HEADER || size > (1u << 20))
        return 0;
    uint8_t *part = malloc(size);
    if (!part)
        return 0;
    memcpy(part, data, size);
    const uint32_t given_crc = get32(part + QR_PART_HEADER - 4);
    /* the checksum the reader expects: the header's other bytes and the body */
    uLong crc = crc32(0L, part, QR_PART_HEADER - 4);
    crc = crc32(crc, part + QR_PART_HEADER, (uInt)(size - QR_PART_HEADER));
    for (int k = 0; k < 4; k++)
        part[QR_PART_HEADER - 4 + k] = (uint8_t)(crc >> (8 * k));

    const uint32_t fmt = get32(part + 12), w = get32(part + 16), h = get32(part + 20),
                   row0 = get32(part + 24), level = get32(part + 32),
                   pixel_bytes = get32(part + 8 + 4 * 13);
    const qr_image_format format = fmt == QR_FORMAT_PNG   ? QR_FORMAT_PNG
                                   : fmt == QR_FORMAT_PPM ? QR_FORMAT_PPM
                                   : fmt == QR_FORMAT_PFM ? QR_FORMAT_PFM
                                                          : QR_FORMAT_UNKNOWN;
    if (format == QR_FORMAT_UNKNOWN || w < 1 || w > 256 || h < 1 || h > 256 || row0 >= h ||
        level > 9) {
        free(part);
        return 0;
    }
    const char *ext = format == QR_FORMAT_PNG ? ".png" : format == QR_FORMAT_PPM ? ".ppm" : ".pfm";
    char path[4096];
    snprintf(path, sizeof path, "%s", fuzz_file(0, ext, NULL, 0));
    unlink(path);
    qr_image_write_options o = qr_image_write_options_default();
    o.png_level = (int)level;
    o.threads = 1;
    o.alpha = format == QR_FORMAT_PNG && pixel_bytes == 4; /* a part of RGBA rows */
    qr_image_writer *wr = NULL;
    qr_error err;
    fuzz_check(qr_image_writer_open(path, format, (int32_t)w, (int32_t)h, &o, &wr, &err) == QR_OK,
               "a small image's writer does not open");
    const size_t row_bytes = (size_t)w * (size_t)qr_image_writer_pixel_bytes(wr);
    void *zeros = calloc((size_t)h, row_bytes);
    fuzz_check(zeros != NULL, "out of memory");
    /* the rows before the part, where the file's grid allows them */
    qr_status st = QR_OK;
    const int32_t grid = qr_image_part_grid(format, (int32_t)w, (int32_t)h);
    if (row0 > 0 && (grid < 1 || row0 % (uint32_t)grid)) {
        /* no pixel rows can end off the grid before a part: not a case */
        qr_image_writer_abort(wr);
        free(zeros);
        free(part);
        return 0;
    }
    if (row0 > 0)
        st = format == QR_FORMAT_PFM
                 ? qr_image_writer_append_rgbf(wr, zeros, (int32_t)row0, &err)
                 : qr_image_writer_append_rgb8(wr, zeros, (int32_t)row0, &err);
    if (st == QR_OK)
        st = qr_image_writer_append_part(wr, part, size, &err);
    if (st == QR_OK) {
        /* accepted: the rest as pixels, and the file must be whole */
        const uint32_t row1 = get32(part + 28);
        fuzz_check(row1 > row0 && row1 <= h, "an accepted part's rows are out of the image");
        if (row1 < h)
            st = format == QR_FORMAT_PFM
                     ? qr_image_writer_append_rgbf(wr, zeros, (int32_t)(h - row1), &err)
                     : qr_image_writer_append_rgb8(wr, zeros, (int32_t)(h - row1), &err);
        fuzz_check(st == QR_OK, "the rows after an accepted part are refused");
        fuzz_check(qr_image_writer_close(wr, &err) == QR_OK, "a file of an accepted part does not close");
        fuzz_check(format != QR_FORMAT_PNG || (uint32_t)crc != given_crc ||
                       png_decodes(path, (int32_t)w, (int32_t)h),
                   "a PNG of an accepted, undamaged part does not decode");
        unlink(path);
    } else {
        fuzz_check(err.msg[0] != '\0', "a refused part has no message");
        qr_image_writer_abort(wr);
        fuzz_check(access(path, F_OK) != 0, "a refused part left a file");
    }
    free(zeros);
    free(part);
    return 0;
}
