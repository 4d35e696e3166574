/* cli.h — what the `quadrender` commands share: exit codes, the option
 * parser, messages and timing.
 *
 * The CLI is the only part of quadrender that prints. Every command is a
 * cli_cmd (name, help text, run function) listed in main.c; each one
 * describes its options as a cli_opt table and hands it to cli_parse, so
 * that parsing, error messages and the option list in --help all come from
 * the same table and cannot drift apart.
 */
#ifndef QR_CLI_H
#define QR_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "quadrender/error.h"
#include "quadrender/gpu.h"
#include "quadrender/index.h"
#include "quadrender/job.h"
#include "quadrender/scene.h"

/* The version and git revision the build stamps in (CMake), for --version
 * and the files quadrender writes. */
#ifndef QR_VERSION
#define QR_VERSION "unknown"
#endif
#ifndef QR_GIT_REV
#define QR_GIT_REV "unknown"
#endif

/* Exit codes: a contract with scripts, documented in docs/cli.md. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1, /* anything not listed below */
    CLI_EXIT_USAGE = 2,   /* bad command line */
    CLI_EXIT_INPUT = 3,   /* scene not found, unreadable or malformed */
    CLI_EXIT_OUTPUT = 4,  /* cannot write the output */
    CLI_EXIT_NO_GPU = 5,  /* --device gpu and no usable GPU */
    CLI_EXIT_NOMEM = 6,   /* out of host or GPU memory */
    CLI_EXIT_CUDA = 7,    /* CUDA runtime error */
    CLI_EXIT_CHECK = 8    /* GPU and CPU images differ beyond tolerance */
};

/* What a command was doing when a library call failed: the same status
 * means a bad input while reading the scene and a bad output while writing. */
typedef enum cli_phase {
    CLI_PHASE_INPUT,  /* loading or reading the scene */
    CLI_PHASE_OUTPUT, /* writing a file */
    CLI_PHASE_RUN     /* anything else (stepping, rendering) */
} cli_phase;

/* Seeks the device scene gs, or the host scene when gs is NULL, to the
 * state of `frame`; a seek long enough to report progress (snow) shows it
 * on stderr when stderr is a terminal, on one line erased at the end. */
qr_status cli_seek(qr_scene *scene, qr_gpu_scene *gs, int64_t frame, qr_error *err);
/* That display, a qr_progress_fn whose ctx is a cli_seek_display (shown
 * starts at -1), for a seek another part runs (a render job's). */
typedef struct cli_seek_display {
    int64_t frame; /* the frame sought */
    int shown;     /* the last percentage shown; -1 before the first */
} cli_seek_display;
void cli_seek_show(void *ctx, int64_t done, int64_t total);

/* The exit code for a library status (the one place that maps them). */
int cli_exit_code(qr_status status, cli_phase phase);

/* Messages to stderr quote user content (file names, lines of a file,
 * arguments) that may hold control bytes: every message goes through one
 * escaper (qr_escape_terminal, quadrender/text.h), which writes control bytes
 * and bytes that are not UTF-8 as \xHH, so a file cannot clear the screen
 * or retitle the terminal of whoever reads the message. */

/* Prints "quadrender: <message>" and a newline to stderr, escaped. */
void cli_message(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* s escaped for a terminal into buf (size bytes); returns buf. For user
 * content in a table on stdout. */
const char *cli_esc(const char *s, char *buf, size_t size);

/* Prefixes this thread's messages, after "quadrender: ", with tag ("rank 1: ",
 * "GPU 1: "; NULL or "": none): the lanes of a split render. */
void cli_set_message_tag(const char *tag);

/* Prints "quadrender: <err->msg>" (escaped) to stderr and returns
 * cli_exit_code(). */
int cli_fail(const qr_error *err, cli_phase phase);

/* ---- commands ------------------------------------------------------------ */

typedef struct cli_cmd {
    const char *name;    /* "render" */
    const char *summary; /* one line for `quadrender --help` */
    const char *args;    /* what follows the name in the usage line */
    const char *about;   /* printed between the usage line and the options */
    const char *notes;   /* printed after the options; may be NULL */
    /* argv[0] is the command name; returns the exit code. */
    int (*run)(const struct cli_cmd *cmd, int argc, char **argv);
    /* the largest image side its scene options take (0: QR_IMAGE_MAX_DIM) */
    int32_t max_side;
} cli_cmd;

extern const cli_cmd cli_cmd_render;
extern const cli_cmd cli_cmd_dump;
extern const cli_cmd cli_cmd_scenes;
extern const cli_cmd cli_cmd_check;
extern const cli_cmd cli_cmd_stats;
extern const cli_cmd cli_cmd_bench;
extern const cli_cmd cli_cmd_query;
extern const cli_cmd cli_cmd_tiles;
extern const cli_cmd cli_cmd_view;

/* ---- options --------------------------------------------------------------- */

/* Parses `text` into *dest. Returns NULL on success, else what was expected
 * ("an integer from 1 to 32768"), which cli_parse turns into
 * "quadrender: --width: expected <that>, got 'abc'" (qr_text_refuse), or
 * cli_checked's answer. */
typedef const char *(*cli_setter)(const char *text, void *dest);

/* For the setters whose values the library checks (qr_image_check_side,
 * qr_scene_check_seed, qr_threads_check, qr_index_check_*: the checks
 * Python makes too): the option being set, as typed ("--width", "-s"), to
 * name in the library's message, and a setter's answer from the library's
 * status: NULL for QR_OK, else the library's whole message, which cli_parse
 * prints as it is. */
const char *cli_setting(void);
const char *cli_checked(qr_status status, const qr_error *err);

typedef struct cli_opt {
    const char *name;    /* long form, "--width" */
    const char *alias;   /* short form, "-s", or NULL */
    const char *metavar; /* value placeholder for --help ("W"); NULL for a flag */
    cli_setter set;      /* NULL for a flag: dest is an int set to 1 */
    void *dest;
    const char *help;    /* one line for --help */
    int given;           /* set by cli_parse: how many times it appeared */
} cli_opt;

/* cli_parse's answers besides an exit code. */
#define CLI_PARSE_OK 0
#define CLI_PARSE_HELP (-1)

/* Every command also takes the common options, which cli_parse applies
 * itself and lists in every --help: --threads N (CPU threads of every
 * parallel part, 0 = all cores; qr_set_threads), --gpu-device N (the CUDA
 * device; qr_gpu_select, so that the next qr_gpu_probe makes it current)
 * and -v/--verbose (cli_verbose()).
 *
 * Parses argv[1..argc-1] of command `cmd` against opts[0..nopts-1] with
 * getopt_long's conventions: "--name VALUE", "--name=VALUE", "-s VALUE",
 * "-sVALUE", flags grouped ("-nv"), "--" ends the options, options and
 * arguments in any order. Long names are matched whole, never by an
 * abbreviation (so that a new option cannot change what an old command line
 * means); "-s=16" is refused with a hint, where getopt would read the value
 * "=16". Collects up to max_pos positional arguments in pos[], their count in
 * *npos. -h/--help prints the command's help to stdout and answers
 * CLI_PARSE_HELP. On a bad command line it prints the error and answers
 * CLI_EXIT_USAGE. A later occurrence of an option overrides an earlier one. */
int cli_parse(const cli_cmd *cmd, cli_opt *opts, int nopts, int argc, char **argv,
              char **pos, int max_pos, int *npos);

/* Prints "quadrender: <message>" (escaped) and "Try 'quadrender CMD
 * --help'." to stderr; returns CLI_EXIT_USAGE. cmd may be NULL (top-level usage). */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The help of one command: usage line, about, options table, notes. */
void cli_print_help(FILE *out, const cli_cmd *cmd, const cli_opt *opts, int nopts);

/* Standard setters; those of a value the library checks (the
 * qr_*_check_* functions) give its message (cli_checked). */
typedef struct cli_range {
    int64_t first, last; /* inclusive, first <= last */
} cli_range;

const char *cli_set_string(const char *text, void *dest); /* const char ** */
const char *cli_set_dim(const char *text, void *dest);    /* int32_t, 1..QR_IMAGE_BANDS_MAX_DIM */
const char *cli_set_bytes(const char *text, void *dest);  /* size_t: N, NK, NM, NG (2^10 ...) */
const char *cli_set_seed(const char *text, void *dest);   /* uint32_t */
const char *cli_set_frame(const char *text, void *dest);  /* int64_t, 0..QR_SCENE_MAX_FRAME */
const char *cli_set_frames(const char *text, void *dest); /* cli_range, "A:B" */
const char *cli_set_device(const char *text, void *dest); /* qr_job_device */
const char *cli_set_png_level(const char *text, void *dest); /* int, 0..9 */
const char *cli_set_deflate(const char *text, void *dest);   /* qr_png_deflate */
const char *cli_set_threads(const char *text, void *dest); /* int, 0..QR_MAX_THREADS */
const char *cli_set_plan(const char *text, void *dest);    /* int, 0..QR_PLAN_TRIALS_MAX */
const char *cli_set_chunk(const char *text, void *dest);   /* int32_t, 1..QR_SCENE_MAX_CIRCLES */
const char *cli_set_gpu_device(const char *text, void *dest); /* int, 0..1023 */
/* --gpus all|LIST into an int[QR_JOB_MAX_GPUS + 1]: the count (-1: all),
 * then the devices */
const char *cli_set_gpus(const char *text, void *dest);

/* -v/--verbose was given (and not -q). */
bool cli_verbose(void);

/* -q/--quiet was given: stderr holds errors only. */
bool cli_quiet(void);

/* cli_message for what is not an error: nothing under -q. */
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A progress bar on stderr for work that takes over a second: drawn only
 * when stderr is a terminal and -q was not given, first after a second,
 * then at most ten times a second; cli_progress_end erases it. Pipes and
 * CI logs never see it. */
typedef struct cli_progress {
    const char *what;
    int64_t total;
    double start_ms, drawn_ms;
    bool on, shown;
} cli_progress;
void cli_progress_begin(cli_progress *p, const char *what, int64_t total);
void cli_progress_step(cli_progress *p, int64_t done);
void cli_progress_end(cli_progress *p);

/* Strict unsigned decimal: digits only (no sign, no spaces), value <= max. */
bool cli_parse_u64(const char *text, uint64_t max, uint64_t *out);

/* ---- what several commands share (cli_shared.c) ------------------------------ */

/* The scene options of render, check and stats: -s/--size, --width,
 * --height, --seed, --frame, in that order. */
typedef struct cli_scene_opts {
    int32_t size, width, height;
    uint32_t seed;
    int64_t frame;
} cli_scene_opts;
/* Their places in the table, from the first. */
enum { CLI_SO_SIZE, CLI_SO_WIDTH, CLI_SO_HEIGHT, CLI_SO_SEED, CLI_SO_FRAME, CLI_SCENE_NOPTS };

/* Sets the defaults (1024 x 1024, seed 0, frame 0) and fills
 * opts[0..CLI_SCENE_NOPTS-1] to parse into *s. */
void cli_scene_opts_init(cli_opt *opts, cli_scene_opts *s);
/* After cli_parse: -s gives both sides, and cannot be combined with
 * --width/--height (usage error, CLI_EXIT_USAGE). */
int cli_scene_opts_finish(const cli_cmd *cmd, const cli_opt *opts, cli_scene_opts *s);

/* The index options: --capacity, --min-leaf, --max-depth, --index, --tile,
 * --max-leaf, --split-cost, in that order, parsed into *p, which starts from qr_index_params_default
 * (shown in the help). After cli_parse, cli_index_opts_finish turns
 * `--index grid --tile N` into a uniform index of N-pixel leaves and rejects
 * combinations that mean nothing (CLI_EXIT_USAGE). */
#define CLI_INDEX_NOPTS 8
void cli_index_opts_init(cli_opt *opts, qr_index_params *p);
int cli_index_opts_finish(const cli_cmd *cmd, const cli_opt *opts, qr_index_params *p);

const char *cli_set_capacity(const char *text, void *dest);  /* int32_t, 1..2^30 */
const char *cli_set_min_leaf(const char *text, void *dest);  /* int32_t, 2^2..2^15 */
const char *cli_set_tile(const char *text, void *dest);      /* int32_t, 2^4..2^15 */
const char *cli_set_deep_leaf(const char *text, void *dest); /* int32_t, 0 or 2^2..2^15 */
const char *cli_set_max_depth(const char *text, void *dest); /* int32_t, 0..15 */
const char *cli_set_max_leaf(const char *text, void *dest);  /* int32_t, 0 or 2^4..2^15 */
const char *cli_set_split_cost(const char *text, void *dest); /* int32_t, 0..1000 */

/* Parses a command taking one SCENE with the scene options at opts[o_scene]
 * and the index options at opts[o_index]: fills in both option groups (bound
 * to so and params), runs cli_parse, requires the SCENE, and finishes both
 * groups. Answers
 * CLI_PARSE_OK (and *scene), CLI_PARSE_HELP, or an exit code. */
int cli_parse_scene_command(const cli_cmd *cmd, cli_opt *opts, int nopts, int o_scene, int o_index,
                            int argc, char **argv, cli_scene_opts *so, qr_index_params *params,
                            const char **scene);

/* Parses a command taking one SCENE, the index options at opts[o_index]
 * and the --exact and --fast flags (bound to *exact and *fast): runs
 * cli_parse, finishes the index options, requires the SCENE and refuses
 * --exact with --fast. Answers CLI_PARSE_OK (and *scene, *mode),
 * CLI_PARSE_HELP, or an exit code. */
int cli_parse_index_command(const cli_cmd *cmd, cli_opt *opts, int nopts, int o_index, int argc,
                            char **argv, qr_index_params *params, const int *exact, const int *fast,
                            const char **scene, qr_render_mode *mode);

/* The data options of render, stats and dump (cli_map.c): --extent,
 * --data-aspect, --color-by, --cmap, --norm, --vmin, --vmax, in that order;
 * each value checked by the library (quadrender/scene_map.h), as Python's
 * arguments. */
typedef struct cli_map_opts {
    double extent[4];
    int extent_auto;     /* --extent auto */
    int aspect;          /* qr_aspect */
    const char *color_by; /* the values' .npy file, or NULL */
    int cmap;            /* a QR_COLORMAP_* */
    int norm;            /* qr_norm */
    double vmin, vmax;   /* NaN: from the values */
    int extent_given;    /* set by cli_map_opts_finish */
    /* the picture's options (quadrender/scene.h): */
    const char *alpha;   /* --alpha: a number for every circle, or a .npy of one a circle; NULL */
    float background[3]; /* --background */
    int background_given;
    int transparent;     /* --background none */
    int antialias;       /* --antialias */
} cli_map_opts;
enum { CLI_MO_EXTENT, CLI_MO_ASPECT, CLI_MO_COLOR_BY, CLI_MO_CMAP, CLI_MO_NORM, CLI_MO_VMIN,
       CLI_MO_VMAX, CLI_MAP_NOPTS };
/* The picture's options of render and stats (cli_picture.c): --alpha,
 * --background, --antialias, into the same cli_map_opts (dump writes scene files, which
 * hold neither); cli_map_apply applies them with the data options. */
enum { CLI_PO_ALPHA, CLI_PO_BACKGROUND, CLI_PO_ANTIALIAS, CLI_PICTURE_NOPTS };
void cli_picture_opts_init(cli_opt *opts, cli_map_opts *m);
/* A .npy of one <noun> a circle of the scene (--color-by's values,
 * --alpha's alphas): *out (malloc'd, freed by the caller also on failure)
 * and *rows; another count is the input's fault (QR_ERR_PARSE, "<path>: N
 * <noun>s for the M circles of <scene>"). */
qr_status cli_read_per_circle(const char *path, const char *noun, const qr_scene *scene,
                              float **out, int64_t *rows, qr_error *err);
/* Sets the scene's alpha and background from m (a no-op without them). */
qr_status cli_picture_apply(const cli_map_opts *m, qr_scene *scene, qr_error *err);
/* Sets the defaults (no extent, equal, no values, viridis, linear, the
 * values' range) and fills opts[0..CLI_MAP_NOPTS-1] to parse into *m. */
void cli_map_opts_init(cli_opt *opts, cli_map_opts *m);
/* After cli_parse: --data-aspect needs --extent, --cmap/--norm/--vmin/--vmax
 * need --color-by (CLI_EXIT_USAGE). */
int cli_map_opts_finish(const cli_cmd *cmd, const cli_opt *opts, cli_map_opts *m);
/* The colour scale --color-by applied, for a colour bar: the colormap and
 * norm (their names), the range used (the values' own where --vmin or
 * --vmax was not given) and CLI_SCALE_TICKS labels, each a position t in
 * [0, 1] along the colormap and the value coloured there (for eq_hist, the
 * value at that rank: quantiles of the clamped values, from at most 65536
 * of them taken at an even stride). */
#define CLI_SCALE_TICKS 5
typedef struct cli_color_scale {
    int on; /* 0: no --color-by */
    const char *cmap, *norm;
    const float *rgb; /* the colormap's QR_COLORMAP_ENTRIES RGB triples */
    double vmin, vmax;
    double t[CLI_SCALE_TICKS], value[CLI_SCALE_TICKS];
} cli_color_scale;
/* Applies them to a loaded scene: the values read (qr_npy_read_floats, one
 * per circle: a wrong count is the input's fault, exit 3), the colours
 * set, the extent fitted; an animated scene is refused (its steps move
 * circles in the unit square). Prints the error; returns an exit code.
 * scale (may be NULL): the colour scale, when values colour the scene. */
int cli_map_apply(const cli_map_opts *m, qr_scene *scene, cli_color_scale *scale);

/* Where a command runs, decided from --device before any work is done
 * (quadrender/job.h). */
typedef qr_device_choice cli_device_choice;

/* Probes the GPU for `auto` and `gpu`; cpu and cpu-reference never touch
 * it. `doing` is what the command does
 * there ("rendering"). auto falls back to the CPU, saying why in the note;
 * gpu without a usable GPU prints "quadrender: --device gpu: <why>" and
 * answers CLI_EXIT_NO_GPU. Otherwise CLI_EXIT_OK. */
int cli_choose_device(qr_job_device requested, const char *doing, cli_device_choice *c);

/* Sorts v[0..n-1] ascending. */
void cli_sort_doubles(double *v, int n);
/* Quantile q (0..1) of sorted v[0..n-1], n >= 1, linear between neighbours
 * (q 0.5: the median, the mean of the two middle values for even n). */
double cli_quantile(const double *v, int n, double q);
/* The median of v[0..n-1], n >= 1 (sorts v). */
double cli_median(double *v, int n);

/* ---- misc ---------------------------------------------------------------------- */

/* Milliseconds on the monotonic clock, for the per-stage times. */
double cli_now_ms(void);

/* ---- output (cli_output.c) -------------------------------------------------------- */

/* Fails early, before minutes of rendering, when `path` cannot be written
 * for a reason visible now (qr_file_check: a missing, unwritable or
 * non-directory directory, a directory in the way, an existing file under
 * --no-clobber): prints the error and returns CLI_EXIT_OUTPUT, or returns
 * CLI_EXIT_OK. The writer still reports everything else. */
int cli_check_output_path(const char *path);

/* Whether path ends in `ending` (".svg", ".html"): the checks of the
 * options whose file's format its name says. */
bool cli_ends_with(const char *path, const char *ending);

/* -n/--no-clobber: from now on no existing file is replaced (process-wide). */
void cli_set_no_clobber(bool on);

/* Whether path is written as a stream ("-", a FIFO, a device, /dev/stdout)
 * rather than a file replaced whole. */
bool cli_output_is_stream(const char *path);

/* The files of `render -o OUT`. A single frame goes to OUT itself. With
 * --frames A:B, OUT.EXT gives OUT_%0Dd.EXT with D the digits of B, at least
 * 4; a user's OUT holding %d or %0Nd is a pattern (%% for a '%'); a stream
 * gets every frame. */
typedef struct cli_frame_names {
    char prefix[4096], suffix[4096];
    int width; /* digits, zero-padded; 0: as many as needed */
    bool one;  /* every frame goes to prefix (a single frame, or a stream) */
} cli_frame_names;

/* frames: the --frames range, or NULL for a single frame; user_pattern: OUT
 * came from the user (a default name is never a pattern). Returns NULL, or
 * what a pattern must look like. */
const char *cli_frame_names_init(cli_frame_names *fn, const char *out, const cli_range *frames,
                                 bool user_pattern);
void cli_frame_name(const cli_frame_names *fn, int64_t frame, char *buf, size_t size);

/* ---- NumPy output (cli_npy.c) ----------------------------------------------------------- */

/* A 1-D array to write: n values of itemsize bytes (4 or 8, integers of
 * NumPy's dtype descr, "<i4" or "<i8") in host order at data. */
typedef struct cli_array {
    const char *name; /* its name in a .npz ("ids": member ids.npy) */
    const char *descr;
    int itemsize;
    int64_t n;
    const void *data;
} cli_array;

/* The array as a .npy file (format 1.0, as numpy.save writes it), written
 * whole or not at all (quadrender/file.h; "-" is standard output).
 * QR_ERR_IO naming path when it cannot be written. */
qr_status cli_write_npy(const char *path, const cli_array *a, qr_error *err);

/* arrays[0..n) (1 to 8) as a .npz file, as numpy.savez writes one: an
 * uncompressed ZIP of NAME.npy members, ZIP64's records only where a size
 * or an offset of 4 GiB or more needs them (force_zip64: everywhere, for
 * tests). Written as cli_write_npy writes. */
qr_status cli_write_npz(const char *path, const cli_array *arrays, int n, bool force_zip64,
                        qr_error *err);

/* SIGINT, SIGTERM and SIGHUP remove the temporary files of the outputs being
 * written, then end the process by the same signal (exit status 130, 143,
 * 129 in a shell). Signals ignored at start stay ignored. */
void cli_install_signal_handlers(void);

#endif
