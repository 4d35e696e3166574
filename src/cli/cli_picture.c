/* cli_picture.c — the picture's options of render and stats: each circle's
 * opacity (--alpha), the background colour (--background) and anti-aliased
 * edges (--antialias), checked and
 * set by the library's functions (quadrender/scene.h; see cli.h). */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadrender/npy.h"

/* Whether --alpha's text is a number (else it names a file). */
static int alpha_is_number(const char *text)
{
    char *end;
    (void)strtod(text, &end);
    return end != text && *end == '\0';
}

/* --alpha: a number is checked now (a file once the scene is loaded). */
static const char *set_alpha_text(const char *text, void *dest)
{
    qr_error err;
    float a;
    if (alpha_is_number(text) && qr_alpha_check(cli_setting(), text, &a, &err) != QR_OK)
        return cli_checked(QR_ERR_INVALID, &err);
    *(const char **)dest = text;
    return NULL;
}

static const char *set_background(const char *text, void *dest)
{
    cli_map_opts *m = dest;
    qr_error err;
    const char *why = cli_checked(qr_background_check(cli_setting(), text, m->background, &m->transparent, &err), &err);
    m->background_given = !why;
    return why;
}

void cli_picture_opts_init(cli_opt *opts, cli_map_opts *m)
{
    const cli_opt o[CLI_PICTURE_NOPTS] = {
        [CLI_PO_ALPHA] = {"--alpha", NULL, "A", set_alpha_text, &m->alpha,
                          "each circle's opacity: a number from 0 to 1 for all, or a .npy of "
                          "shape (N,), one a circle (default: 0.5, CS149's)"},
        [CLI_PO_BACKGROUND] = {"--background", NULL, "COLOR", set_background, m,
                               "the background: white (default), black, #RRGGBB, R,G,B "
                               "(numbers from 0 to 1), or none: transparent (PNG only)"},
        [CLI_PO_ANTIALIAS] = {"--antialias", NULL, NULL, NULL, &m->antialias,
                              "anti-aliased edges: each circle half a pixel larger, its edge's "
                              "pixels covered in part (default: hard edges, CS149's)"},
    };
    memcpy(opts, o, sizeof o);
}

qr_status cli_read_per_circle(const char *path, const char *noun, const qr_scene *scene,
                              float **out, int64_t *rows, qr_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "one %s a circle", noun);
    qr_status st = qr_npy_read_floats(path, 0, what, out, rows, err);
    if (st == QR_OK && *rows != scene->n)
        st = qr_fail(err, QR_ERR_PARSE, "%s: %lld %ss for the %lld circles of %s", path,
                     (long long)*rows, noun, (long long)scene->n, scene->name);
    return st;
}

/* --alpha's text: one number for every circle, else a .npy of one a circle. */
static qr_status set_alpha(const char *text, qr_scene *scene, qr_error *err)
{
    float a = 0.0f, *alpha = NULL;
    int64_t rows = 0;
    qr_status st = QR_OK;
    if (alpha_is_number(text)) {
        if ((st = qr_alpha_check("--alpha", text, &a, err)) != QR_OK) return st;
        rows = scene->n;
        if (!(alpha = malloc((size_t)(rows ? rows : 1) * sizeof *alpha)))
            return qr_fail(err, QR_ERR_NOMEM, "out of memory for %lld alphas", (long long)rows);
        for (int64_t i = 0; i < rows; i++) alpha[i] = a;
    } else {
        st = cli_read_per_circle(text, "alpha", scene, &alpha, &rows, err);
    }
    if (st == QR_OK) st = qr_scene_set_alpha(scene, alpha, "--alpha", err);
    free(alpha);
    return st;
}

qr_status cli_picture_apply(const cli_map_opts *m, qr_scene *scene, qr_error *err)
{
    qr_status st = m->alpha ? set_alpha(m->alpha, scene, err) : QR_OK;
    if (st == QR_OK && m->background_given)
        st = m->transparent ? qr_scene_set_transparent(scene, 1, "--background", err)
                            : qr_scene_set_background(scene, m->background, "--background", err);
    if (st == QR_OK && m->antialias) st = qr_scene_set_antialias(scene, 1, "--antialias", err);
    return st;
}
