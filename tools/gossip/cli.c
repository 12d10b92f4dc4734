/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli.c — helpers shared by the subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gossip/runtime.h"

const char *cli_program = "gossip";
bool cli_quiet;

/* One error line, whatever the input echoed in it: control characters are escaped. */
static void put_line(const char *msg) {
    if (cli_quiet) return;
    fprintf(stderr, "%s: error: ", cli_program);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
}

int cli_usage_error(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    put_line(msg);
    return EXIT_USAGE;
}

int cli_lib_error(gsp_err_t err) {
    cli_progress_done();
    put_line(gsp_errmsg());
    switch (err) {
    case GSP_ERR_NOMEM:
    case GSP_ERR_INTERNAL:
    case GSP_ERR_NUMERIC:
        return EXIT_RUNTIME;
    default:
        return EXIT_USAGE;
    }
}

int cli_write_error(gsp_err_t err) {
    if (err != GSP_ERR_IO) return cli_lib_error(err);
    cli_progress_done();
    put_line(gsp_errmsg());
    return EXIT_RUNTIME;
}

int cli_runtime_error(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_progress_done();
    put_line(msg);
    return EXIT_RUNTIME;
}

bool cli_output_is_stdout(const char *path) {
    struct stat a, b;
    if (!strcmp(path, "-")) return true;
    return stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Progress: drawn in place on a terminal; in plain lines when forced (--progress,
 * GOSSIP_PROGRESS=1) and stderr is a file or a pipe, as in a batch job's log; never with
 * GOSSIP_PROGRESS=0. */
static bool progress_shown;
static int progress_forced = -1; /* --progress: 1; -1: as GOSSIP_PROGRESS says */
static double progress_origin = -1, progress_last = -1, progress_last_fraction;
static char progress_what[128];

void cli_progress_force(void) { progress_forced = 1; }

bool cli_progress_env_ok(void) {
    const char *v = getenv("GOSSIP_PROGRESS");
    return !v || !*v || !strcmp(v, "0") || !strcmp(v, "1");
}

void cli_progress_start(void) { progress_origin = cli_now(); }

/* 0: none, 1: drawn in place (a terminal), 2: plain lines. */
static int progress_mode(void) {
    const char *v = getenv("GOSSIP_PROGRESS");
    int want = progress_forced > 0 ? 1 : v && !strcmp(v, "0") ? 0 : v && !strcmp(v, "1") ? 1 : -1;
    if (want == 0) return 0;
    if (isatty(STDERR_FILENO)) return 1;
    return want == 1 ? 2 : 0;
}

void cli_progress(void *ctx, const char *what, double fraction) {
    (void)ctx;
    int mode = progress_mode();
    if (mode == 0) return;
    if (fraction < 0) fraction = 0;
    if (fraction > 1) fraction = 1;
    if (mode == 1) {
        fprintf(stderr, "\r%s: %5.1f%%", what, 100 * fraction);
        fflush(stderr);
        progress_shown = true;
        return;
    }
    /* A line when a stage starts (a new what: "SAT solver: 7 rounds"), then when it has
     * advanced by 10 % or 10 s have passed; at most one a second within a stage, so that a
     * log stays readable however often the library reports. */
    double t = cli_now();
    if (progress_origin < 0) progress_origin = t;
    bool fresh = strncmp(what, progress_what, sizeof progress_what - 1) != 0;
    if (!fresh && (t - progress_last < 1 || (fraction - progress_last_fraction < 0.1 && t - progress_last < 10))) return;
    fprintf(stderr, "%s: progress %.1f s: %s: %.0f%%\n", cli_program, t - progress_origin, what, 100 * fraction);
    fflush(stderr);
    snprintf(progress_what, sizeof progress_what, "%s", what);
    progress_last = t;
    progress_last_fraction = fraction;
}

void cli_progress_done(void) {
    if (progress_shown) fputs("\r\033[K", stderr);
    progress_shown = false;
    progress_what[0] = 0; /* the next stage gets its line, even under the same name */
}

bool cli_is_help(const char *arg) { return !strcmp(arg, "-h") || !strcmp(arg, "--help"); }

bool cli_parse_int(const char *s, int64_t lo, int64_t hi, const char *what, int64_t *out) {
    char *end;
    if (!s) {
        cli_usage_error("%s needs a value (an integer)", what);
        return false;
    }
    if (!*s) {
        cli_usage_error("%s: expected an integer", what);
        return false;
    }
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || end == s) {
        cli_usage_error("%s: '%s' is not an integer", what, s);
        return false;
    }
    if (errno == ERANGE) { /* strtoll saturated: the number is too large, not the limit */
        cli_usage_error("%s: %s is too large (at most %lld)", what, s, (long long)hi);
        return false;
    }
    if (v < lo || v > hi) {
        cli_usage_error("%s: %lld is out of range %lld..%lld", what, v, (long long)lo, (long long)hi);
        return false;
    }
    *out = v;
    return true;
}

bool cli_parse_size(const char *s, int64_t lo, int64_t hi, const char *what, int64_t *out) {
    uint64_t v;
    if (!s) {
        cli_usage_error("%s needs a value (a size)", what);
        return false;
    }
    if (gsp_parse_size(what, s, (uint64_t)(lo < 0 ? 0 : lo), (uint64_t)hi, &v)) {
        cli_usage_error("%s", gsp_errmsg());
        return false;
    }
    *out = (int64_t)v;
    return true;
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_help(const cli_command_t *cmd) {
    fputs(cmd->usage, stdout);
    return EXIT_OK;
}

bool cli_parse_model(const char *opt, const char *val, gsp_model_t *m) {
    if (!strcmp(opt, "--packets")) {
        if (!strcmp(val, "inf")) {
            m->packets = GSP_PACKETS_INF;
            return true;
        }
        return cli_parse_int(val, 1, 1000000, "--packets", &m->packets);
    }
    if (!strcmp(opt, "--ports")) {
        if (!strcmp(val, "all")) m->one_port = false;
        else if (!strcmp(val, "1")) m->one_port = true;
        else return cli_usage_error("--ports must be all or 1, not '%s'", val), false;
        return true;
    }
    if (!strcmp(opt, "--duplex")) {
        if (!strcmp(val, "full")) m->half_duplex = false;
        else if (!strcmp(val, "half")) m->half_duplex = true;
        else return cli_usage_error("--duplex must be full or half, not '%s'", val), false;
        return true;
    }
    return false;
}

int cli_unknown_option(const char *cmd, const char *usage, const char *opt) {
    /* The options the command's help names: "--word" tokens, and "-o". */
    const char *names[64];
    char store[64][24];
    size_t n = 0;
    for (const char *p = usage; *p && n < 64; p++) {
        if (p[0] != '-' || p[1] != '-' || !(p[2] >= 'a' && p[2] <= 'z') || (p > usage && p[-1] != ' ' && p[-1] != '[' && p[-1] != '(' && p[-1] != '|'))
            continue;
        size_t k = 0;
        while (k < 23 && (p[k] == '-' || (p[k] >= 'a' && p[k] <= 'z'))) store[n][k] = p[k], k++;
        store[n][k] = 0;
        /* Not another command's option the help names ("gossip list --runtime"). */
        const char *b = p - 1;
        while (b > usage && b[-1] >= 'a' && b[-1] <= 'z') b--;
        if (b - usage >= 7 && b < p - 1 && !strncmp(b - 7, "gossip ", 7)) {
            p += k - 1;
            continue;
        }
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++) dup = !strcmp(names[j], store[n]);
        if (!dup) names[n] = store[n], n++;
        p += k - 1;
    }
    const char *near = gsp_nearest(opt, strlen(opt), names, n);
    if (near) return cli_usage_error("%s: unknown option '%s'; did you mean '%s'? (see '%s %s --help')", cmd, opt, near, cli_program, cmd);
    return cli_usage_error("%s: unknown option '%s' (see '%s %s --help')", cmd, opt, cli_program, cmd);
}

void cli_args_init(cli_args_t *p, const char *cmd, const char *usage, const cli_optdef_t *defs, int argc, char **argv) {
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->usage = usage;
    p->argc = argc;
    p->argv = argv;
    int k = 0;
    for (int i = 0; defs && defs[i].name && i < CLI_MAX_OPTS; i++) {
        bool shorto = !strcmp(defs[i].name, "o");
        snprintf(p->name[i], sizeof p->name[i], "%s%s", shorto ? "-" : "--", defs[i].name);
        p->lo[k++] = (struct option){shorto ? "output" : defs[i].name, defs[i].value ? required_argument : no_argument, NULL, 256 + i};
    }
    p->lo[k] = (struct option){"help", no_argument, NULL, 'h'};
}

int cli_args_next(cli_args_t *p, const char **opt, const char **val) {
    *opt = *val = NULL;
    if (!p->started) {
        optind = 0; /* a full reinitialisation of GNU getopt */
        p->started = true;
    }
    opterr = 0;
    /* "-": operands come back in order as 1; ":": a missing value is ':'. */
    int c = p->rest ? -1 : getopt_long(p->argc, p->argv, "-:ho:", p->lo, NULL);
    if (c == -1) {
        /* After "--": the rest are operands. */
        p->rest = true;
        if (optind < p->argc) {
            *val = p->argv[optind++];
            return 1;
        }
        return 0;
    }
    if (c == 1) {
        *val = optarg;
        return 1;
    }
    if (c == 'h') {
        *opt = "--help";
        return 1;
    }
    if (c == 'o') {
        for (int i = 0; i < CLI_MAX_OPTS && p->name[i][0]; i++)
            if (!strcmp(p->name[i], "-o")) {
                p->given[i] = true;
                *opt = "-o";
                *val = optarg;
                return 1;
            }
        c = '?';
    }
    if (c >= 256) {
        p->given[c - 256] = true;
        *opt = p->name[c - 256];
        *val = optarg;
        return 1;
    }
    /* The argument getopt stopped at, without any "=value". */
    char bad[64];
    const char *arg = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "?";
    if (optopt && optopt < 256 && !(arg[0] == '-' && arg[1] == '-')) snprintf(bad, sizeof bad, "-%c", optopt);
    else snprintf(bad, sizeof bad, "%.*s", (int)strcspn(arg, "="), arg);
    if (c == ':') {
        cli_usage_error("%s: %s needs a value", p->cmd, bad);
        return -1;
    }
    if (optopt >= 256) {
        cli_usage_error("%s: %s takes no value", p->cmd, p->name[optopt - 256]);
        return -1;
    }
    /* An abbreviation of several options: name them. */
    char list[256] = "";
    int hits = 0;
    size_t len = strlen(bad);
    for (int i = 0; bad[0] == '-' && bad[1] == '-' && p->lo[i].name; i++)
        if (!strncmp(p->lo[i].name, bad + 2, len - 2)) {
            size_t u = strlen(list);
            snprintf(list + u, sizeof list - u, "%s--%s", hits++ ? ", " : "", p->lo[i].name);
        }
    if (hits > 1) cli_usage_error("%s: %s is ambiguous (%s)", p->cmd, bad, list);
    else cli_unknown_option(p->cmd, p->usage, bad);
    return -1;
}

bool cli_args_given(const cli_args_t *p, const char *name) {
    for (int i = 0; i < CLI_MAX_OPTS && p->name[i][0]; i++)
        if (!strcmp(p->name[i], name)) return p->given[i];
    return false;
}

const char *cli_args_any(const cli_args_t *p, const char *const *names) {
    for (int i = 0; names[i]; i++)
        if (cli_args_given(p, names[i])) return names[i];
    return NULL;
}

bool cli_check_algorithm(const char *cmd, gsp_collective_t coll, const char *name) {
    const char *names[64], *all[64];
    char list[1024] = "";
    size_t n = 0, nall = 0, used = 0;
    bool known = false;
    if (!strcmp(name, "auto")) return true;
    for (int i = 0; i < gsp_rt_registry_size() && n < 64; i++) {
        gsp_rt_info_t e;
        gsp_rt_registry_entry(i, &e);
        all[nall++] = e.name;
        bool runs = e.collectives & (1u << coll);
        if (!strcmp(e.name, name)) {
            if (runs) return true;
            known = true;
        }
        if (runs) {
            names[n++] = e.name;
            used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s%s", used ? ", " : "", e.name);
        }
    }
    const char *cname = gsp_collective_name(coll);
    if (known) {
        cli_usage_error("%s: --algorithm %s does not run %s; the %s algorithms: auto, %s (gossip list --runtime)", cmd, name, cname, cname, list);
        return false;
    }
    const char *near = gsp_nearest(name, strlen(name), names, n);
    if (!near) near = gsp_nearest(name, strlen(name), all, nall);
    if (near)
        cli_usage_error("%s: --algorithm: no runtime algorithm '%s'; did you mean '%s'? The %s algorithms: auto, %s (gossip list --runtime)", cmd,
                        name, near, cname, list);
    else
        cli_usage_error("%s: --algorithm: no runtime algorithm '%s'; the %s algorithms: auto, %s (gossip list --runtime)", cmd, name, cname, list);
    return false;
}

bool cli_check_rt_method(const char *cmd, const char *method) {
    if (!strcmp(method, "auto") || gsp_method_find(method, GSP_COLL_ALLGATHER) || gsp_method_find(method, GSP_COLL_BROADCAST)) return true;
    for (int i = 0; i < gsp_rt_registry_size(); i++) {
        gsp_rt_info_t e;
        gsp_rt_registry_entry(i, &e);
        if (!strcmp(e.name, method)) {
            cli_usage_error("%s: --method names a construction method (gossip list); '%s' is a runtime algorithm: give --algorithm %s", cmd,
                            method, method);
            return false;
        }
    }
    cli_usage_error("%s: --method: no allgather or broadcast method '%s' (gossip list; runtime algorithms are chosen with --algorithm)", cmd, method);
    return false;
}

gsp_err_t cli_sched_topology(const gsp_sched_t *s, gsp_topo_t *t) {
    gsp_sched_graph_t check;
    gsp_err_t err = gsp_sched_topology(s, t, &check);
    if (!err && check.file_differs && !cli_quiet)
        fprintf(stderr,
                "%s: warning: %s is not the graph this schedule was planned on (file %s, schedule %s): checked on the "
                "schedule's own graph; plan again to use the file\n",
                cli_program, s->topology, check.file_hash, check.hash);
    return err;
}
