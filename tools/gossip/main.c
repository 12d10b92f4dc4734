/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c — the gossip command: git-style subcommands, each in its own cmd_<name>.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command_t *const commands[] = {&cmd_info, &cmd_plan, &cmd_verify, &cmd_list, &cmd_export, &cmd_draw, &cmd_scatter, &cmd_revolve, &cmd_route};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
    fputs("usage: gossip [--version] [--help] COMMAND [ARGS]\n\n"
          "Plan, prove and simulate broadcast, gossip and global sum on interconnection "
          "networks.\n\ncommands:\n",
          f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fputs("\n'gossip help COMMAND' or 'gossip COMMAND --help' describes one command.\n"
          "Topology specs: torus:5x5 mesh:70x70 hypercube:6 star:5 circulant:13:1,5 optcirc:35 cycle:9\n"
          "  complete:6 cayley:Z4xZ6:(1,0),(0,1) perm:4:(1 0 2 3),(1 2 3 0)\n"
          "  product(cycle:5,complete:2) file:graph.txt\n"
          "Exit codes: 0 ok, 1 a negative answer, 2 usage or input error, 3 runtime error.\n"
          "Documents cited as docs/NAME.md are installed in share/doc/gossip/docs.\n"
          "\n"
          "  --version, -V   print the version\n"
          "  --help, -h      this text\n"
          "\n"
          "example:\n"
          "  $ gossip plan allgather torus:5x5\n",
          f);
}

static const cli_command_t *find(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i]->name, name)) return commands[i];
    return NULL;
}

/* An unknown command: one error line, with the nearest command when one is close. */
static int unknown(const char *name) {
    const char *names[NCOMMANDS + 2];
    for (size_t i = 0; i < NCOMMANDS; i++) names[i] = commands[i]->name;
    names[NCOMMANDS] = "help";
    names[NCOMMANDS + 1] = "version";
    const char *near = gsp_nearest(name, strlen(name), names, NCOMMANDS + 2);
    if (near) return cli_usage_error("unknown command '%s'; did you mean '%s'? (see 'gossip --help')", name, near);
    return cli_usage_error("unknown command '%s' (see 'gossip --help')", name);
}

/* What was printed on standard output reached it, or the exit status says not: a full disk or
 * a closed pipe is a runtime error (3) with the reason, unless the command failed already. The
 * reason is errno of the failed write: of this fflush, or of an earlier one (a writer's check)
 * when the stream's error flag is all that is left. */
static int finish(int rc) {
    int e = errno;
    if (fflush(stdout) != 0) e = errno;
    else if (!ferror(stdout)) return rc;
    if (rc >= EXIT_USAGE) return rc;
    return cli_runtime_error("cannot write standard output: %s", strerror(e ? e : EIO));
}

int main(int argc, char **argv) {
    /* A closed pipe is a write error reported like any other (EPIPE, exit 3), not a silent
     * death by SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) return cli_usage_error("missing COMMAND (see 'gossip --help')");
    const char *name = argv[1];
    if (cli_is_help(name)) {
        usage(stdout);
        return finish(EXIT_OK);
    }
    if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
        printf("gossip %s\n"
               "License %s: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
               "This is free software: you are free to change and redistribute it.\n"
               "There is NO WARRANTY, to the extent permitted by law.\n",
               gsp_version(), GSP_LICENSE);
        return finish(EXIT_OK);
    }
    if (!strcmp(name, "help")) {
        if (argc < 3 || !strcmp(argv[2], "help")) {
            usage(stdout);
            return finish(EXIT_OK);
        }
        const cli_command_t *c = find(argv[2]);
        if (!c) return unknown(argv[2]);
        return finish(cli_help(c));
    }
    const cli_command_t *c = find(name);
    if (!c) return unknown(name);
    /* The library reads the memory limit where it needs it and cannot say that it is malformed:
     * a limit the user set and that cannot be read is refused here, not silently replaced. */
    const char *limit = getenv("GOSSIP_MEMORY_LIMIT");
    uint64_t bytes;
    if (limit && *limit && gsp_parse_size("GOSSIP_MEMORY_LIMIT", limit, 1, INT64_MAX, &bytes)) return cli_usage_error("%s", gsp_errmsg());
    if (!cli_progress_env_ok()) return cli_usage_error("GOSSIP_PROGRESS='%s': expected 1 (progress lines even in a log) or 0 (none)", getenv("GOSSIP_PROGRESS"));
    cli_progress_start();
    /* Every command parses its arguments with getopt_long (--option=value included). */
    char **args = argv + 1;
    int n = argc - 1;
    return finish(c->run(n, args));
}
