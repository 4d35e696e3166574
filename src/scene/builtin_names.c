/* builtin_names.c — the names of the built-in scenes and families: the
 * table `quadrender scenes` lists, FAMILY:COUNT spellings, lookup in any
 * case, and the suggestion for a mistyped name. The generators behind the
 * names are builtin.c's, builtin_clustered.c's and builtin_zoo.c's.
 */
#include "scene/scene_internal.h"
#include "quadrender/text.h"

#include <stdio.h>
#include <string.h>

static const qr_builtin_info qr_builtin_table[QR_B_COUNT] = {
    {"rgb", 3, 0, "three overlapping red, green and blue circles"},
    {"rgby", 4, 0, "red, green, blue and a small yellow circle on top"},
    {"rand10k", 10000, 0, "10,000 random circles of radius 0.02-0.08"},
    {"rand100k", 100000, 0, "100,000 random circles of radius 0.02-0.08"},
    {"rand1M", 1000000, 0, "1,000,000 random small circles of radius 0.009-0.014"},
    {"micro2M", 2000000, 0, "2,000,000 random tiny circles of radius 0.001"},
    {"biglittle", 10000, 0, "9,000 big circles (r 0.25), then 1,000 small ones top left"},
    {"littlebig", 10000, 0, "9,000 big circles (r 0.25), then 1,000 small ones bottom right"},
    {"pattern", 1217, 0, "two overlapping grids of red and yellow circles"},
    {"hypnosis", 25, 1, "animated: 25 concentric circles that grow and wrap around"},
    {"bouncingballs", 10, 1, "animated: 10 balls bouncing on the bottom edge"},
    {"fireworks", 315, 1, "animated: 15 fireworks of 20 sparks each"},
    {"snow", 100000, 1, "animated: 100,000 snowflakes falling in from above the image"},
    {"snowsingle", 100000, 0, "one still frame of snow, flakes spread over the whole sky"},
    {"clusters", 1000000, 0, "64 tight Gaussian clusters, Zipf-sized, over a thin uniform field"},
    {"spiral", 1000000, 0, "a spiral galaxy: a dense core, two sparse arms, a faint halo"},
    {"powerlaw", 300000, 0, "radii from a power law: a few huge circles over very many tiny ones"},
    {"hotspot", 1000000, 0, "99% of the circles in 0.77% of the image (two squares, a disc)"},
    {"roads", 500000, 0, "circles along 40 smooth random curves, like roads on a map"},
    {"ring", 1000000, 0, "density from a picture: a bright ring over a smooth gradient"},
};

const qr_builtin_info *qr_builtin_scenes(int *count)
{
    if (count)
        *count = QR_B_COUNT;
    return qr_builtin_table;
}

static const qr_builtin_family qr_family_table[QR_FAMILY_COUNT] = {
    {"uniform", "COUNT", "uniform random circles, radius shrinking as 1/sqrt(COUNT) (uniform:1M is rand1M)"},
    {"clustered", "COUNT", "the clusters scene at COUNT circles, radius shrinking as 1/sqrt(COUNT)"},
    {"zoo", "SEED", "a random non-uniform scene per SEED, 100k-4M circles (report on 1000-1049)"},
};

const qr_builtin_family *qr_builtin_families(int *count)
{
    if (count)
        *count = QR_FAMILY_COUNT;
    return qr_family_table;
}

/* ---- family spellings ------------------------------------------------------ */

static int qr_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* zoo:SEED, colon (NULL: none) after "zoo": plain digits, 0 to
 * QR_ZOO_MAX_SEED. As qr_builtin_family_parse. */
static int qr_zoo_parse(const char *spec, const char *colon, int32_t *seed, qr_error *err)
{
    if (!colon) {
        qr_fail(err, QR_ERR_INVALID, "'%s' is a family of scenes: give a seed, e.g. zoo:1000", spec);
        return -1;
    }
    uint64_t v = 0;
    const char *p = colon + 1;
    for (; *p >= '0' && *p <= '9'; ++p)
        if (v <= QR_ZOO_MAX_SEED)
            v = v * 10 + (uint64_t)(*p - '0');
    if (p == colon + 1 || *p) {
        qr_fail(err, QR_ERR_INVALID,
                "bad seed '%s' in '%s': give a non-negative integer, e.g. zoo:1000", colon + 1, spec);
        return -1;
    }
    if (v > QR_ZOO_MAX_SEED) {
        qr_fail(err, QR_ERR_INVALID, "seed '%s' in '%s' is out of range: give 0 to %d", colon + 1,
                spec, QR_ZOO_MAX_SEED);
        return -1;
    }
    *seed = (int32_t)v;
    return 1;
}

int qr_builtin_family_parse(const char *spec, int *family, int32_t *count, qr_error *err)
{
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    int f = -1;
    for (int k = 0; k < QR_FAMILY_COUNT; ++k) {
        const char *name = qr_family_table[k].name;
        if (strlen(name) != len)
            continue;
        size_t i = 0;
        while (i < len && qr_lower((unsigned char)spec[i]) == name[i])
            ++i;
        if (i == len)
            f = k;
    }
    if (f < 0)
        return 0;
    if (f == QR_FAMILY_ZOO) {
        *family = f;
        return qr_zoo_parse(spec, colon, count, err);
    }
    if (!colon) {
        qr_fail(err, QR_ERR_INVALID, "'%s' is a family of scenes: give a circle count, e.g. %s:1M",
                spec, qr_family_table[f].name);
        return -1;
    }
    /* digits, then at most one k or M (either case); no sign, no spaces.
     * v stops growing past the limit, so it cannot overflow. */
    const char *p = colon + 1;
    uint64_t v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; ++p, ++digits)
        if (v <= QR_SCENE_MAX_CIRCLES)
            v = v * 10 + (uint64_t)(*p - '0');
    uint64_t unit = 1;
    if (digits > 0 && (*p == 'k' || *p == 'K'))
        unit = 1000, ++p;
    else if (digits > 0 && (*p == 'm' || *p == 'M'))
        unit = 1000000, ++p;
    if (digits == 0 || *p) {
        qr_fail(err, QR_ERR_INVALID,
                "bad circle count '%s' in '%s': give digits with an optional k or M suffix, "
                "e.g. %s:10k or %s:1M",
                colon + 1, spec, qr_family_table[f].name, qr_family_table[f].name);
        return -1;
    }
    if (v * unit < 1 || v * unit > QR_SCENE_MAX_CIRCLES) {
        qr_fail(err, QR_ERR_INVALID, "circle count '%s' in '%s' is out of range: give 1 to 200M",
                colon + 1, spec);
        return -1;
    }
    *family = f;
    *count = (int32_t)(v * unit);
    return 1;
}

qr_status qr_builtin_family_name(const char *spec, char *out, size_t size, qr_error *err)
{
    int f;
    int32_t n;
    int parsed = qr_builtin_family_parse(spec, &f, &n, err);
    if (parsed == 0)
        return qr_fail(err, QR_ERR_INVALID, "'%s' is not a family scene (FAMILY:COUNT)", spec);
    if (parsed < 0)
        return QR_ERR_INVALID;
    if (f == QR_FAMILY_ZOO)
        snprintf(out, size, "%s:%d", qr_family_table[f].name, (int)n);
    else if (n % 1000000 == 0)
        snprintf(out, size, "%s:%dM", qr_family_table[f].name, (int)(n / 1000000));
    else if (n % 1000 == 0)
        snprintf(out, size, "%s:%dk", qr_family_table[f].name, (int)(n / 1000));
    else
        snprintf(out, size, "%s:%d", qr_family_table[f].name, (int)n);
    return QR_OK;
}

/* Whether a and b are equal but for ASCII case (built-in names are ASCII). */
static int qr_ascii_casecmp_eq(const char *a, const char *b)
{
    for (; *a && *b; ++a, ++b) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return 0;
    }
    return *a == *b;
}

const char *qr_builtin_find(const char *name)
{
    int count = 0;
    const qr_builtin_info *table = qr_builtin_scenes(&count);
    for (int i = 0; i < count; ++i)
        if (qr_ascii_casecmp_eq(name, table[i].name))
            return table[i].name;
    int family;
    int32_t n;
    if (qr_builtin_family_parse(name, &family, &n, NULL) > 0)
        return qr_builtin_families(NULL)[family].name;
    return NULL;
}

const char *qr_builtin_suggest(const char *name)
{
    /* a path is never a mistyped built-in name */
    if (strchr(name, '/'))
        return NULL;
    int count = 0;
    const qr_builtin_info *table = qr_builtin_scenes(&count);
    const char *names[QR_B_COUNT];
    for (int i = 0; i < count && i < QR_B_COUNT; ++i)
        names[i] = table[i].name;
    return qr_text_nearest(name, names, count < QR_B_COUNT ? count : QR_B_COUNT);
}
