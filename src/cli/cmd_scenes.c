/* cmd_scenes.c — `quadrender scenes`: the built-in scenes as a table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "quadrender/scene.h"

static int run_scenes(const cli_cmd *cmd, int argc, char **argv)
{
    char *pos[1];
    int npos;
    int rc = cli_parse(cmd, NULL, 0, argc, argv, pos, 0, &npos);
    if (rc == CLI_PARSE_HELP)
        return CLI_EXIT_OK;
    if (rc != CLI_PARSE_OK)
        return rc;

    int count;
    const qr_builtin_info *scenes = qr_builtin_scenes(&count);
    /* columns as wide as their widest entry, so the table lines up whatever
     * names and counts the library reports */
    int name_w = (int)strlen("NAME"), count_w = (int)strlen("CIRCLES");
    for (int i = 0; i < count; i++) {
        int w = (int)strlen(scenes[i].name);
        if (w > name_w)
            name_w = w;
        w = snprintf(NULL, 0, "%d", (int)scenes[i].circles);
        if (w > count_w)
            count_w = w;
    }
    printf("%-*s  %*s  %-8s  %s\n", name_w, "NAME", count_w, "CIRCLES", "ANIMATED", "DESCRIPTION");
    for (int i = 0; i < count; i++)
        printf("%-*s  %*d  %-8s  %s\n", name_w, scenes[i].name, count_w, (int)scenes[i].circles,
               scenes[i].animated ? "yes" : "no", scenes[i].description);

    int nfam;
    const qr_builtin_family *fam = qr_builtin_families(&nfam);
    printf("\nFamilies, named FAMILY:COUNT (COUNT 1 to 200M, digits with an optional k or M\n"
           "suffix, e.g. uniform:10k, clustered:100M) or zoo:SEED (SEED 0 to 2147483647):\n");
    for (int i = 0; i < nfam; i++)
        printf("%-*s  %*s  %-8s  %s\n", name_w, fam[i].name, count_w, fam[i].param, "no",
               fam[i].description);
    return CLI_EXIT_OK;
}

const cli_cmd cli_cmd_scenes = {
    .name = "scenes",
    .summary = "list the built-in scenes and families",
    .args = "",
    .about = "Lists the built-in scenes: name, circle count, whether they are animated,\n"
             "and what they show; then the families of scenes of any size, named\n"
             "FAMILY:COUNT (uniform:10k, clustered:1M), and the zoo of random non-uniform\n"
             "scenes, zoo:SEED (zoo:1000). Any of the names can be given\n"
             "wherever a scene is read ('render', 'dump', 'bench', ...).\n",
    .notes = "Exit codes: 0 success, 2 bad command line.\n",
    .run = run_scenes,
};
