/* main.c — `quadrender`: picks the command, and answers --help and --version.
 *
 * A command is one row in `commands` below; its options, help and work live
 * in its own cmd_*.c file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/gpu.h"
#include "quadrender/text.h"

static const cli_cmd *const commands[] = {
    &cli_cmd_render,
    &cli_cmd_check,
    &cli_cmd_stats,
    &cli_cmd_query,
    &cli_cmd_tiles,
    &cli_cmd_view,
    &cli_cmd_dump,
    &cli_cmd_scenes,
    &cli_cmd_bench,
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static void print_usage(FILE *out)
{
    fputs("Usage: quadrender COMMAND [OPTIONS]\n"
          "       quadrender --help | --version\n"
          "\n"
          "Renders scenes of semi-transparent circles through a quadtree index, on the\n"
          "GPU or on every CPU core (the serial reference renderer: --device cpu-reference).\n"
          "\n"
          "Commands:\n",
          out);
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-8s  %s\n", commands[i]->name, commands[i]->summary);
    fputs("\n"
          "Run 'quadrender COMMAND --help' for the options of a command.\n"
          "\n"
          "Exit codes: 0 success, 1 other failure, 2 bad command line, 3 bad input\n"
          "scene, 4 cannot write the output, 5 no usable GPU, 6 out of memory,\n"
          "7 CUDA error, 8 check failed. Details: docs/cli.md.\n",
          out);
}

/* "13.0" from 13000. */
static void print_cuda_version(const char *what, int v)
{
    printf("%s: %d.%d", what, v / 1000, v % 1000 / 10);
}

static int print_version(void)
{
    printf("quadrender %s (git %s)\n", QR_VERSION, QR_GIT_REV);
    int runtime, driver;
    qr_cuda_versions(&runtime, &driver);
    if (runtime == 0) {
        /* a CPU-only build (QR_CUDA=OFF) */
        printf("CUDA: %s\n", qr_gpu_compiled_archs());
    } else {
        print_cuda_version("CUDA runtime", runtime);
        if (driver)
            print_cuda_version(", driver", driver);
        else
            fputs(", driver: none", stdout);
        printf("\ncompiled GPU architectures: %s\n", qr_gpu_compiled_archs());
    }
    qr_gpu_info gpu;
    qr_error err;
    if (qr_gpu_probe(&gpu, &err) == QR_OK)
        printf("GPU: %s (sm_%d%d, %d SMs, %.1f GiB)\n", gpu.name, gpu.cc_major, gpu.cc_minor,
               gpu.sm_count, (double)gpu.mem_total / (1024.0 * 1024.0 * 1024.0));
    else
        printf("GPU: none usable: %s\n", err.msg);
    return CLI_EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0)
        return print_version();
    if (name[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", name);
    const char *names[NCOMMANDS];
    for (int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(name, commands[i]->name) == 0)
            return commands[i]->run(commands[i], argc - 1, argv + 1);
        names[i] = commands[i]->name;
    }
    const char *near = qr_text_nearest(name, names, NCOMMANDS);
    if (near)
        return cli_usage_error(NULL, "unknown command '%s': did you mean '%s'?", name, near);
    return cli_usage_error(NULL, "unknown command '%s'", name);
}

int main(int argc, char **argv)
{
    cli_install_signal_handlers();
    int rc = dispatch(argc, argv);
    /* stdout is buffered: a full disk or a closed pipe shows only here */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "quadrender: cannot write to standard output: %s\n", strerror(errno));
        if (rc == CLI_EXIT_OK)
            rc = CLI_EXIT_OUTPUT;
    }
    return rc;
}
