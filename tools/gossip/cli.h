/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli.h — what the subcommands share: error reporting with the contract's exit codes,
 * progress on stderr when it is a terminal, and small argument helpers. */
#ifndef GOSSIP_CLI_H
#define GOSSIP_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"
#include "gossip/sched.h"

enum { EXIT_OK = 0, EXIT_NO = 1, EXIT_USAGE = 2, EXIT_RUNTIME = 3 };

/** The program named in messages: "gossip" (the default) or "gossip-mpi", which shares these
 * helpers and sets it. */
extern const char *cli_program;
/** When true, error lines are not printed (gossip-mpi's ranks other than 0: rank 0 says them). */
extern bool cli_quiet;

typedef struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    const char *usage; /* full --help text */
} cli_command_t;

/** Prints "gossip: error: ..." and returns 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Reports a library error with its detail; returns 2 for input errors, 3 for runtime ones. */
int cli_lib_error(gsp_err_t err);
/** Reports a failure to write an output (gsp_out_close, or a writer on standard output): 3 for
 * an I/O error (a full disk, a closed pipe), else as cli_lib_error (a refused export is 2). */
int cli_write_error(gsp_err_t err);
/** Reports a runtime error (one line) and returns 3. */
int cli_runtime_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** True when writing path writes standard output: "-", or the file standard output is
 * (/dev/stdout, or the same file by device and inode): a command's report then goes to stderr. */
bool cli_output_is_stdout(const char *path);
/** Progress callback: draws a line in place on stderr when stderr is a terminal; prints plain
 * lines (rate-limited) when progress is forced (cli_progress_force, GOSSIP_PROGRESS=1) and
 * stderr is not a terminal; nothing with GOSSIP_PROGRESS=0 or otherwise. */
void cli_progress(void *ctx, const char *what, double fraction);
void cli_progress_done(void);
/** --progress: progress lines even when stderr is not a terminal (over GOSSIP_PROGRESS). */
void cli_progress_force(void);
/** The origin of the times progress lines print (the program's start). */
void cli_progress_start(void);
/** False when GOSSIP_PROGRESS is set to something other than 0 or 1. */
bool cli_progress_env_ok(void);
/** True when arg is -h or --help. */
bool cli_is_help(const char *arg);
/** Parses a whole decimal int64 in [lo, hi]; prints an error naming what and returns false. */
bool cli_parse_int(const char *s, int64_t lo, int64_t hi, const char *what, int64_t *out);
/** Parses a size or count (gsp_parse_size: 4096, 64K, 1MiB, 1e6) in [lo, hi] (lo >= 0); prints
 * the error naming what and returns false. Every option that takes bytes or a count uses it. */
bool cli_parse_size(const char *s, int64_t lo, int64_t hi, const char *what, int64_t *out);
/** The topology schedule s [in] was planned on into t [out] (gsp_sched_topology): its embedded
 * graph when it has one, with one warning line on stderr when the file its spec names holds
 * another graph; else its spec. */
gsp_err_t cli_sched_topology(const gsp_sched_t *s, gsp_topo_t *t);
/** Seconds since an arbitrary origin, monotonic. */
double cli_now(void);
/** Prints a command's usage text to stdout (for --help) and returns 0. */
int cli_help(const cli_command_t *cmd);

extern const cli_command_t cmd_info;
extern const cli_command_t cmd_plan;
extern const cli_command_t cmd_verify;
extern const cli_command_t cmd_list;
extern const cli_command_t cmd_export;
extern const cli_command_t cmd_draw;
extern const cli_command_t cmd_scatter;
extern const cli_command_t cmd_revolve;
extern const cli_command_t cmd_route;
/** An unknown option of cmd: one error line, with the nearest option of its usage text. */
int cli_unknown_option(const char *cmd, const char *usage, const char *opt);
/** A command's option for getopt_long: its long name (without "--"), and whether it takes a
 * value. The name "o" is the short option -o (and --output). */
typedef struct {
    const char *name;
    bool value;
} cli_optdef_t;

#define CLI_MAX_OPTS 48

/** getopt_long over a command's arguments (GNU conventions: --opt value, --opt=value,
 * unambiguous prefixes, options and operands in any order, "--" ends the options). */
typedef struct {
    const char *cmd, *usage;
    int argc;
    char **argv;
    struct option lo[CLI_MAX_OPTS + 2];
    char name[CLI_MAX_OPTS][40];
    bool started, rest; /* rest: after "--", only operands */
    bool given[CLI_MAX_OPTS]; /* which options the user gave, whatever their values */
} cli_args_t;

/** Prepares p for cmd's arguments argv[1..argc) (argv[0]: the command name), options defs[]
 * (terminated by a NULL name), -h/--help always. */
void cli_args_init(cli_args_t *p, const char *cmd, const char *usage, const cli_optdef_t *defs, int argc, char **argv);
/** The next argument: 1 with *opt the option ("--name", "-o" or "--help") and *val its value
 * (NULL for a flag), or *opt NULL and *val an operand; 0 at the end; -1 after printing one error
 * line (an unknown option, with the nearest one; a missing value). */
int cli_args_next(cli_args_t *p, const char **opt, const char **val);

/** True when the user gave option name ("--alpha", "-o") — its presence, not its value: an
 * option that does not apply is refused when given, even with its default value. */
bool cli_args_given(const cli_args_t *p, const char *name);
/** The first of names[] (NULL-terminated, as "--alpha") the user gave, or NULL. */
const char *cli_args_any(const cli_args_t *p, const char *const *names);

/** Checks a runtime algorithm's name (--algorithm) for collective coll: "auto" or a registry
 * entry that runs coll. Otherwise prints one line (cmd: ...) that lists the valid names, with
 * the nearest one, and returns false. */
bool cli_check_algorithm(const char *cmd, gsp_collective_t coll, const char *name);
/** Checks --method for the runtime (a construction method: an allgather or broadcast method,
 * or auto). A runtime algorithm's name is refused with a line pointing to --algorithm. */
bool cli_check_rt_method(const char *cmd, const char *method);

/** Parses --packets/--ports/--duplex VALUE into m; prints the error and returns false. */
bool cli_parse_model(const char *opt, const char *val, gsp_model_t *m);

#endif
