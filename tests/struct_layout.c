/* struct_layout.c — the layout of every C struct the Python binding copies
 * by hand (python/quadrender/_lib.py), as the C compiler lays it out, for
 * python/tests/test_struct_layout.py to compare with ctypes': one JSON
 * object, keyed by the Python class name, of the C name, sizeof, and each
 * field's name, offset and size in declaration order. Exits 1 (saying
 * which) when a struct holds bytes no listed field accounts for beyond
 * alignment padding: a field added here in C but not listed below. */
#include <stddef.h>
#include <stdio.h>

#include "quadrender/error.h"
#include "quadrender/gpu.h"
#include "quadrender/image.h"
#include "quadrender/index.h"
#include "quadrender/query.h"
#include "quadrender/scene.h"
#include "quadrender/stats.h"

typedef struct field {
    const char *name;
    size_t offset, size, align;
} field;

typedef struct layout {
    const char *py, *c;
    size_t size, align;
    const field *fields;
    size_t n;
} layout;

#define F(T, f) {#f, offsetof(T, f), sizeof(((T *)0)->f), __alignof__(((T *)0)->f)}
#define L(py, T, list) {py, #T, sizeof(T), __alignof__(T), list, sizeof list / sizeof list[0]}

static const field error_f[] = {F(qr_error, status), F(qr_error, msg)};
static const field scene_f[] = {
    F(qr_scene, n),     F(qr_scene, x),     F(qr_scene, y),     F(qr_scene, z),
    F(qr_scene, r),     F(qr_scene, red),   F(qr_scene, green), F(qr_scene, blue),
    F(qr_scene, vx),    F(qr_scene, vy),    F(qr_scene, vz),    F(qr_scene, x0),
    F(qr_scene, y0),    F(qr_scene, vx0),   F(qr_scene, vy0),   F(qr_scene, block),
    F(qr_scene, block_floats), F(qr_scene, shading), F(qr_scene, anim), F(qr_scene, steps),
    F(qr_scene, name),  F(qr_scene, alpha), F(qr_scene, background),
    F(qr_scene, antialias), F(qr_scene, transparent)};
static const field image_f[] = {F(qr_image, width), F(qr_image, height), F(qr_image, rgba)};
static const field params_f[] = {
    F(qr_index_params, capacity), F(qr_index_params, min_leaf),   F(qr_index_params, max_depth),
    F(qr_index_params, uniform),  F(qr_index_params, max_leaf),   F(qr_index_params, split_cost),
    F(qr_index_params, deep_leaf)};
static const field info_f[] = {
    F(qr_gpu_info, device),          F(qr_gpu_info, name),           F(qr_gpu_info, cc_major),
    F(qr_gpu_info, cc_minor),        F(qr_gpu_info, sm_count),       F(qr_gpu_info, mem_total),
    F(qr_gpu_info, mem_free),        F(qr_gpu_info, clock_khz),      F(qr_gpu_info, mem_clock_khz),
    F(qr_gpu_info, runtime_version), F(qr_gpu_info, driver_version), F(qr_gpu_info, mem_bus_bits)};
static const field stats_f[] = {
    F(qr_index_stats, root_size),       F(qr_index_stats, nodes),
    F(qr_index_stats, leaves),          F(qr_index_stats, max_depth),
    F(qr_index_stats, leaves_per_depth), F(qr_index_stats, leaves_per_side),
    F(qr_index_stats, clipped_leaves),  F(qr_index_stats, min_per_leaf),
    F(qr_index_stats, max_per_leaf),    F(qr_index_stats, p90_per_leaf),
    F(qr_index_stats, p99_per_leaf),    F(qr_index_stats, mean_per_leaf),
    F(qr_index_stats, median_per_leaf), F(qr_index_stats, empty_leaves),
    F(qr_index_stats, pairs),           F(qr_index_stats, visible),
    F(qr_index_stats, culled),          F(qr_index_stats, replication)};
static const field rect_f[] = {F(qr_rect, x0), F(qr_rect, y0), F(qr_rect, x1), F(qr_rect, y1)};
static const field leaf_f[] = {F(qr_leaf, rect), F(qr_leaf, depth), F(qr_leaf, count),
                               F(qr_leaf, offset)};
static const field index_f[] = {
    F(qr_index, width),     F(qr_index, height),     F(qr_index, region),
    F(qr_index, params),    F(qr_index, mode),       F(qr_index, root_size),
    F(qr_index, num_nodes), F(qr_index, num_leaves), F(qr_index, max_depth_reached),
    F(qr_index, visible),   F(qr_index, culled),     F(qr_index, num_pairs),
    F(qr_index, leaves),    F(qr_index, lists)};

static const field plan_f[] = {F(qr_plan, candidates), F(qr_plan, chosen), F(qr_plan, params),
                               F(qr_plan, median_ms), F(qr_plan, plan_ms)};

static const field wopts_f[] = {
    F(qr_image_write_options, png_level), F(qr_image_write_options, threads),
    F(qr_image_write_options, text), F(qr_image_write_options, ntext),
    F(qr_image_write_options, alpha), F(qr_image_write_options, deflate)};
static const field query_result_f[] = {
    F(qr_query_result, queries), F(qr_query_result, mode), F(qr_query_result, values),
    F(qr_query_result, offsets), F(qr_query_result, ids)};

static const layout layouts[] = {
    L("Error", qr_error, error_f),          L("Scene", qr_scene, scene_f),
    L("Image", qr_image, image_f),          L("IndexParams", qr_index_params, params_f),
    L("GpuInfo", qr_gpu_info, info_f),      L("IndexStats", qr_index_stats, stats_f),
    L("Rect", qr_rect, rect_f),             L("Leaf", qr_leaf, leaf_f),
    L("Index", qr_index, index_f),          L("Plan", qr_plan, plan_f),
    L("QueryResult", qr_query_result, query_result_f),
    L("ImageWriteOptions", qr_image_write_options, wopts_f)};

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* Whether the fields tile the struct: each starts where the one before
 * ends (rounded up to its alignment), the first at 0, and the struct ends
 * where the last does (rounded up to the struct's alignment). */
static int complete(const layout *l)
{
    size_t end = 0;
    for (size_t k = 0; k < l->n; k++) {
        if (l->fields[k].offset != align_up(end, l->fields[k].align)) return 0;
        end = l->fields[k].offset + l->fields[k].size;
    }
    return align_up(end, l->align) == l->size;
}

int main(void)
{
    const size_t count = sizeof layouts / sizeof layouts[0];
    int ok = 1;
    printf("{");
    for (size_t i = 0; i < count; i++) {
        const layout *l = &layouts[i];
        if (!complete(l)) {
            fprintf(stderr, "struct_layout: %s holds bytes its listed fields do not: a field missing here\n",
                    l->c);
            ok = 0;
        }
        printf("%s\n  \"%s\": {\"c\": \"%s\", \"size\": %zu, \"fields\": [", i ? "," : "", l->py,
               l->c, l->size);
        for (size_t k = 0; k < l->n; k++)
            printf("%s[\"%s\", %zu, %zu]", k ? ", " : "", l->fields[k].name, l->fields[k].offset,
                   l->fields[k].size);
        printf("]}");
    }
    printf("\n}\n");
    return ok ? 0 : 1;
}
