/* report_bench.c — the data of `bench --report`'s page: bench's JSON
 * object as --json writes it, and per scene and size the floor (what any
 * index must do: quadrender/floor.h) with the rates that turn it into time.
 * Speedups, the best grid and the charts are the page's work. */
#include "cli/bench/report.h"
#include "quadrender/text.h"

static qr_status write_data(FILE *f, const void *arg, qr_error *err)
{
    const report_bench *rb = arg;
    fputs("{\"kind\": \"bench\", \"bench\": ", f);
    qr_status st = bench_write_json_to(f, rb->header_json, rb->rows, rb->nrows, 0, err);
    if (st != QR_OK)
        return st;
    fprintf(f, ", \"rates\": {\"bytes_per_s\": %.6g, \"flops\": %.6g, \"flops_per_blend\": %d},\n"
               "\"floors\": [",
            rb->bytes_per_s, rb->flops, REPORT_FLOPS_PER_BLEND);
    for (int i = 0; i < rb->nfloors; i++) {
        const report_floor *fl = &rb->floors[i];
        fputs(i ? ",\n{\"scene\": " : "{\"scene\": ", f);
        qr_json_write_string(f, fl->scene);
        fprintf(f, ", \"size\": %d, \"visible\": %d, \"box_tests\": %lld, \"covered\": %lld, "
                   "\"fast_blends\": %lld, \"bytes\": %.0f}",
                fl->size, fl->floor.visible, (long long)fl->floor.box_tests,
                (long long)fl->floor.covered, (long long)fl->floor.fast_blends, fl->floor.bytes);
    }
    fputs("]}", f);
    return QR_OK;
}

qr_status report_bench_write(const char *path, const report_bench *rb, qr_error *err)
{
    return report_write_page(path, write_data, rb, err);
}
