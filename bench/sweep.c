/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep.c — the packet-gossip paper's conjecture and beyond, checked by construction: every
 * 2-D torus 3 <= p1 <= p2 <= MAX, every 3-D torus with N <= MAX, every circulant G(N; s1, s2)
 * with N <= MAX (one per multiplier class: G(N; s1, s2) = G(N; u s1, u s2) for units u), each
 * with p packets: plan allgather (auto), verify, compare with the layered and degree bounds.
 * Output: one tab-separated line per graph, appended to OUT; graphs already in OUT are skipped,
 * so an interrupted sweep resumes where it stopped. Progress on stderr when it is a terminal.
 * Also `optcirc`: every optimal circulant optcirc:N, 5 <= N <= MAX (with the circulant paper's
 * Prop. 3 bound in the last column).
 * Usage: sweep tori2d|tori3d|circulants|optcirc MAX P OUT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gossip/gossip.h"
#include "gossip/algo.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t gcd(int64_t a, int64_t b) { return b ? gcd(b, a % b) : a; }

/* Canonical jump pair of a circulant: min over units u of the sorted pair of min(u s, N - u s). */
static bool canonical(int64_t N, int64_t s1, int64_t s2) {
    for (int64_t u = 2; u < N; u++) {
        if (gcd(u, N) != 1) continue;
        int64_t a = u * s1 % N, b = u * s2 % N;
        if (a > N - a) a = N - a;
        if (b > N - b) b = N - b;
        if (a > b) { int64_t c = a; a = b; b = c; }
        if (a < s1 || (a == s1 && b < s2)) return false;
    }
    return true;
}

static char **done_specs;
static size_t ndone, capdone;

static bool seen(const char *spec) {
    for (size_t i = 0; i < ndone; i++)
        if (!strcmp(done_specs[i], spec)) return true;
    return false;
}

static void run_one(const char *spec, int64_t p, FILE *out) {
    if (seen(spec)) return;
    gsp_topo_t t;
    gsp_distances_t d;
    gsp_plan_t plan;
    double t0 = now();
    if (gsp_topo_from_spec(&t, spec) || gsp_distances(&t, true, &d, NULL, NULL)) {
        fprintf(stderr, "sweep: %s: %s\n", spec, gsp_errmsg());
        exit(3);
    }
    gsp_model_t m = {p, false, false};
    gsp_plan_in_t in = {&t, &d, m, -1, 1, NULL, NULL, 0, 0};
    if (gsp_plan(&in, GSP_COLL_ALLGATHER, "auto", &plan)) {
        fprintf(stderr, "sweep: %s: %s\n", spec, gsp_errmsg());
        exit(3);
    }
    int64_t degree = 0, layered = 0, prop3 = 0;
    for (int i = 0; i < plan.bounds.count; i++) {
        if (!strcmp(plan.bounds.b[i].name, "degree")) degree = plan.bounds.b[i].value;
        if (!strcmp(plan.bounds.b[i].name, "layered")) layered = plan.bounds.b[i].value;
        if (!strcmp(plan.bounds.b[i].name, "circulant-prop3")) prop3 = plan.bounds.b[i].value;
    }
    fprintf(out, "%s\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%d\t%s\t%.4f\t%lld\n", spec, (long long)t.n, (long long)p,
            (long long)plan.sched.nrounds, (long long)plan.lower_bound, (long long)degree, (long long)layered,
            plan.optimal ? 1 : 0, plan.method->name, now() - t0, (long long)prop3);
    fflush(out);
    gsp_plan_destroy(&plan);
    gsp_distances_destroy(&d);
    gsp_topo_destroy(&t);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: sweep tori2d|tori3d|circulants|optcirc MAX P OUT\n");
        return 2;
    }
    const char *kind = argv[1], *outpath = argv[4];
    char *e1, *e2;
    int64_t max = strtoll(argv[2], &e1, 10), p = strtoll(argv[3], &e2, 10);
    if (*e1 || e1 == argv[2] || max < 3) {
        fprintf(stderr, "sweep: MAX must be an integer of at least 3, not '%s'\n", argv[2]);
        return 2;
    }
    if (*e2 || e2 == argv[3] || p < 1) {
        fprintf(stderr, "sweep: P (packets per arc per round) must be a positive integer, not '%s'\n", argv[3]);
        return 2;
    }
    if (strcmp(kind, "tori2d") && strcmp(kind, "tori3d") && strcmp(kind, "circulants") && strcmp(kind, "optcirc")) {
        fprintf(stderr, "sweep: unknown kind '%s' (tori2d, tori3d, circulants or optcirc)\n", kind);
        return 2;
    }
    FILE *prev = fopen(outpath, "r");
    if (prev) {
        char line[1024];
        while (fgets(line, sizeof line, prev)) {
            char *tab = strchr(line, '\t');
            if (!tab || line[0] == '#') continue;
            *tab = 0;
            if (ndone == capdone) done_specs = realloc(done_specs, (capdone = capdone ? 2 * capdone : 1024) * sizeof *done_specs);
            done_specs[ndone++] = strdup(line);
        }
        fclose(prev);
    }
    FILE *out = fopen(outpath, "a");
    if (!out) {
        fprintf(stderr, "sweep: cannot append to %s: %s\n", outpath, strerror(errno));
        return 2;
    }
    if (ndone == 0) fprintf(out, "# spec\tnodes\tp\trounds\tlower_bound\tdegree_bound\tlayered_bound\toptimal\tmethod\tseconds\tprop3_bound\n");
    bool tty = isatty(2);
    char spec[128];
    int64_t total = 0, k = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (!strcmp(kind, "tori2d")) {
            for (int64_t a = 3; a <= max; a++)
                for (int64_t b = a; b <= max; b++) {
                    if (!pass) { total++; continue; }
                    snprintf(spec, sizeof spec, "torus:%lldx%lld", (long long)a, (long long)b);
                    run_one(spec, p, out);
                    if (tty && ++k % 16 == 0) fprintf(stderr, "\r%s: %lld/%lld", kind, (long long)k, (long long)total);
                }
        } else if (!strcmp(kind, "tori3d")) {
            for (int64_t a = 3; a * a * a <= max; a++)
                for (int64_t b = a; a * b * b <= max; b++)
                    for (int64_t c = b; a * b * c <= max; c++) {
                        if (!pass) { total++; continue; }
                        snprintf(spec, sizeof spec, "torus:%lldx%lldx%lld", (long long)a, (long long)b, (long long)c);
                        run_one(spec, p, out);
                        if (tty && ++k % 16 == 0) fprintf(stderr, "\r%s: %lld/%lld", kind, (long long)k, (long long)total);
                    }
        } else if (!strcmp(kind, "optcirc")) {
            for (int64_t N = 5; N <= max; N++) {
                if (!pass) { total++; continue; }
                snprintf(spec, sizeof spec, "optcirc:%lld", (long long)N);
                run_one(spec, p, out);
                if (tty && ++k % 16 == 0) fprintf(stderr, "\r%s: %lld/%lld", kind, (long long)k, (long long)total);
            }
        } else if (!strcmp(kind, "circulants")) {
            for (int64_t N = 5; N <= max; N++)
                for (int64_t s1 = 1; s1 < (N + 1) / 2; s1++)
                    for (int64_t s2 = s1 + 1; s2 < (N + 1) / 2; s2++) {
                        /* Degree 4 and connected: no jump N/2, gcd(N, s1, s2) = 1. */
                        if (gcd(gcd(N, s1), s2) != 1 || !canonical(N, s1, s2)) continue;
                        if (!pass) { total++; continue; }
                        snprintf(spec, sizeof spec, "circulant:%lld:%lld,%lld", (long long)N, (long long)s1, (long long)s2);
                        run_one(spec, p, out);
                        if (tty && ++k % 64 == 0) fprintf(stderr, "\r%s: %lld/%lld", kind, (long long)k, (long long)total);
                    }
        } else {
            fprintf(stderr, "sweep: unknown kind '%s'\n", kind);
            return 2;
        }
    }
    if (tty) fputc('\n', stderr);
    fclose(out);
    return 0;
}
