/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmd_scatter.c — `gossip scatter N`: random scattering (the probabilistic-scattering paper):
 * exact distribution, Monte-Carlo simulation, asymptotics side by side, and a plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/core_int.h"

static const char usage_text[] =
    "usage: gossip scatter N [--rounds J] (--exact | --simulate --trials T --seed S) [--variant V] [--json] [--progress]\n"
    "       gossip scatter --plot OUT.svg [--sizes N1,N2,...] [--trials T] [--seed S]\n"
    "\n"
    "Random scattering: every node sends, each step, one message to a random other node; the\n"
    "color spreads from one node. --exact gives p(j, N), the probability that all N nodes are\n"
    "colored after j steps (Theorem 1, N <= 10000), and the mean E[T]; --simulate runs T trials\n"
    "of variant V: push (the paper's model: a node sends what it held at the start of the step),\n"
    "push-async (Theorem 3: forwards what it received earlier in the same step), pull,\n"
    "push-pull. Both print the asymptotics beside: the mean-field T_N(alpha) of eq. (3.2),\n"
    "(1 + ln 2) log2 N (Theorem 2) and 2 ln 2 log2 N (Theorem 3).\n"
    "\n"
    "  --exact      the exact distribution p(j, N) and E[T] (N <= 10000)\n"
    "  --simulate   T trials of the random process (with --trials and --seed)\n"
    "  --trials T   trials to simulate (a count: 1e6, 64K); with --plot, per size (default 2000)\n"
    "  --seed S     the PRNG seed of the simulation (default 1): the same seed, the same result\n"
    "  --variant V  push (default), push-async, pull or push-pull\n"
    "  --rounds J   stop the exact distribution at step J (default: when p > 1 - 1e-12)\n"
    "  --progress   progress on stderr even when it is not a terminal: plain lines, one when a\n"
    "               stage starts and then every 10 % or 10 s (GOSSIP_PROGRESS=1; 0 silences it)\n"
    "  --json       with --exact: n, p (list of p(j, n)), mean; with --simulate: n, trials,\n"
    "               seed, variant, mean, stderr, quantiles, p (empirical), sends_per_second\n"
    "  --plot OUT   SVG of p(j, N) against j: exact curves, simulated points (default sizes\n"
    "               8,64,512,4096; 2000 trials each). OUT is written whole or not at all (a\n"
    "               temporary file renamed over it); '-' is standard output, a device or a\n"
    "               FIFO is written in place\n"
    "  --sizes L    with --plot: the sizes N drawn, a comma-separated list (at most 16)\n"
    "\n"
    "example:\n"
    "  $ gossip scatter 4 --exact --rounds 4\n"
    "  n 4: exact p(j, n) for j = 0..4\n"
    "    j=0 0.000000  j=1 0.000000  j=2 0.222222  j=3 0.716049  j=4 0.909922\n"
    "  mean steps E[T]      3.190789 (exact)\n";

static int cmp_i64(const void *p, const void *q) {
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return (a > b) - (a < b);
}

static void asymptotics(int64_t n, gsp_jw_t *w) {
    int64_t mf = gsp_scatter_meanfield(n, 0.5);
    double t2 = gsp_scatter_theorem2(n), t3 = gsp_scatter_theorem3(n);
    if (w) {
        gsp_jw_key(w, "asymptotics");
        gsp_jw_obj_begin(w);
        gsp_jw_key(w, "meanfield_T_alpha_0.5"); gsp_jw_int(w, mf);
        gsp_jw_key(w, "theorem2"); gsp_jw_num(w, t2);
        gsp_jw_key(w, "theorem3"); gsp_jw_num(w, t3);
        gsp_jw_obj_end(w);
    } else {
        printf("mean-field T_n(0.5)  %lld steps (eq. 3.2; Lemma 3: P(all colored) >= 0.5 then)\n", (long long)mf);
        printf("Theorem 2            (1 + ln 2) log2 n = %.3f\n", t2);
        printf("Theorem 3            2 ln 2 log2 n     = %.3f (asynchronous forwarding)\n", t3);
    }
}

static int plot(const char *outpath, const char *sizes, int64_t trials, int64_t seed) {
    int64_t ns[16], nn = 0;
    const char *p = sizes;
    while (*p && nn < 16) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 2 || v > GSP_SCATTER_EXACT_MAX) return cli_usage_error("scatter: bad --sizes entry at '%s'", p);
        ns[nn++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return cli_usage_error("scatter: --sizes is a comma-separated list");
    }
    if (nn == 0) return cli_usage_error("scatter: --sizes is empty (give sizes like 8,64,512)");
    if (*p) return cli_usage_error("scatter: --sizes takes at most 16 sizes");
    gsp_out_t out;
    gsp_err_t err = gsp_out_open(&out, outpath);
    if (err) return cli_lib_error(err);
    FILE *f = out.f;
    static const char *col[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"};
    double W = 720, H = 440, L = 60, R = 150, T = 40, Bm = 50;
    int64_t jmax = 0;
    double *ex[16] = {0};
    int64_t len[16];
    for (int64_t i = 0; i < nn; i++) {
        double mean;
        if ((err = gsp_scatter_exact(ns[i], 0, &ex[i], &len[i], &mean, cli_progress, NULL))) {
            for (int64_t k = 0; k < i; k++) gsp_free(ex[k]);
            return cli_lib_error(gsp_out_close(&out, err));
        }
        for (int64_t j = 0; j < len[i]; j++)
            if (ex[i][j] < 0.9999 && j + 2 > jmax) jmax = j + 2;
    }
    cli_progress_done();
#define PX(j) (L + (W - L - R) * (double)(j) / (double)jmax)
#define PY(v) (T + (H - T - Bm) * (1 - (v)))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%.0f\" y=\"24\" font-size=\"14\">p(j, n) = P(all n colored after j steps): lines exact, dots simulated (%lld trials)</text>\n",
            W, H, L - 40, (long long)trials);
    for (int k = 0; k <= 10; k++) {
        double v = k / 10.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n",
                L, PY(v), W - R, PY(v), L - 6, PY(v) + 4, v);
    }
    for (int64_t j = 0; j <= jmax; j += jmax > 30 ? 5 : 2)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>\n", PX(j), H - Bm + 18, (long long)j);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step j</text>\n", (L + W - R) / 2, H - 12);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
            L, PY(0), W - R, PY(0), L, PY(0), L, PY(1));
    for (int64_t i = 0; i < nn; i++) {
        const char *c = col[i % 6];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
        for (int64_t j = 0; j < len[i] && j <= jmax; j++) fprintf(f, "%.1f,%.1f ", PX(j), PY(ex[i][j]));
        fputs("\"/>\n", f);
        int64_t *steps = malloc(sizeof *steps * (size_t)trials), sends;
        err = steps ? gsp_scatter_simulate(ns[i], GSP_SCATTER_PUSH, trials, (uint64_t)seed, steps, &sends, NULL, NULL)
                    : gsp_error(GSP_ERR_NOMEM, "out of memory");
        if (err) {
            free(steps);
            for (int64_t k = i; k < nn; k++) gsp_free(ex[k]);
            return cli_lib_error(gsp_out_close(&out, err));
        }
        for (int64_t j = 0; j <= jmax; j++) {
            int64_t c2 = 0;
            for (int64_t t = 0; t < trials; t++) c2 += steps[t] <= j;
            double v = (double)c2 / trials;
            if (v > 0.0005 && v < 0.9995)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", PX(j), PY(v), c);
        }
        free(steps);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">n = %lld</text>\n",
                W - R + 15, T + 20 + 20.0 * i, W - R + 40, T + 20 + 20.0 * i, c, W - R + 46, T + 24 + 20.0 * i, (long long)ns[i]);
        gsp_free(ex[i]);
    }
    fputs("</svg>\n", f);
#undef PX
#undef PY
    if ((err = gsp_out_close(&out, GSP_OK))) return cli_write_error(err);
    return EXIT_OK;
}

static int run(int argc, char **argv) {
    int64_t n = -1, rounds = 0, trials = 0, seed = 1;
    bool exact = false, sim = false, json = false, have_seed = false;
    const char *plotpath = NULL, *sizes = "8,64,512,4096";
    gsp_scatter_variant_t var = GSP_SCATTER_PUSH;
    static const cli_optdef_t defs[] = {{"exact", false}, {"simulate", false}, {"json", false}, {"rounds", true}, {"trials", true},
                                        {"seed", true},   {"variant", true},   {"plot", true},  {"sizes", true},  {"progress", false}, {NULL, false}};
    cli_args_t ps;
    cli_args_init(&ps, "scatter", usage_text, defs, argc, argv);
    const char *a, *v;
    int r;
    while ((r = cli_args_next(&ps, &a, &v)) > 0) {
        if (!a) {
            if (n >= 0) return cli_usage_error("scatter: unexpected argument '%s'", v);
            if (!cli_parse_int(v, 2, 1000000000, "N", &n)) return EXIT_USAGE;
        } else if (!strcmp(a, "--help")) return cli_help(&cmd_scatter);
        else if (!strcmp(a, "--exact")) exact = true;
        else if (!strcmp(a, "--simulate")) sim = true;
        else if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--progress")) cli_progress_force();
        else {
            if (!strcmp(a, "--rounds")) {
                if (!cli_parse_int(v, 0, 100000, "--rounds", &rounds)) return EXIT_USAGE;
            } else if (!strcmp(a, "--trials")) {
                if (!cli_parse_size(v, 1, 100000000, "--trials", &trials)) return EXIT_USAGE;
            } else if (!strcmp(a, "--seed")) {
                if (!cli_parse_int(v, 0, INT64_MAX, "--seed", &seed)) return EXIT_USAGE;
                have_seed = true;
            } else if (!strcmp(a, "--variant")) {
                if (!gsp_scatter_variant_parse(v, &var))
                    return cli_usage_error("scatter: unknown variant '%s' (push, push-async, pull, push-pull)", v);
            } else if (!strcmp(a, "--plot")) plotpath = v;
            else sizes = v; /* --sizes */
        }
    }
    if (r < 0) return EXIT_USAGE;
    if (plotpath) {
        static const char *const not_plot[] = {"--exact", "--simulate", "--rounds", "--variant", "--json", NULL};
        const char *given = cli_args_any(&ps, not_plot);
        if (given) return cli_usage_error("scatter: %s does not apply with --plot (exact curves and simulated push points)", given);
        if (n >= 0) return cli_usage_error("scatter: --plot takes the sizes from --sizes, not N");
    } else if (cli_args_given(&ps, "--sizes"))
        return cli_usage_error("scatter: --sizes applies with --plot only");
    if (plotpath) return plot(plotpath, sizes, trials ? trials : 2000, seed);
    if (n < 0) return cli_usage_error("scatter: missing N (see 'gossip scatter --help')");
    if (exact == sim) return cli_usage_error("scatter: give exactly one of --exact and --simulate");
    if (exact && var != GSP_SCATTER_PUSH)
        return cli_usage_error("scatter: --exact is the paper's push model; --variant %s needs --simulate", gsp_scatter_variant_name(var));
    if (exact && (cli_args_given(&ps, "--trials") || cli_args_given(&ps, "--seed")))
        return cli_usage_error("scatter: %s applies with --simulate (--exact computes the distribution)", cli_args_given(&ps, "--trials") ? "--trials" : "--seed");
    if (sim && (!trials || !have_seed)) return cli_usage_error("scatter: --simulate needs --trials T and --seed S");
    if (exact && n > GSP_SCATTER_EXACT_MAX)
        return cli_usage_error("scatter: --exact is limited to N <= %d (use --simulate)", GSP_SCATTER_EXACT_MAX);
    gsp_jw_t w;
    if (json) {
        gsp_jw_init(&w, stdout);
        gsp_jw_obj_begin(&w);
        gsp_jw_key(&w, "n"); gsp_jw_int(&w, n);
    }
    if (exact) {
        double *p, mean;
        int64_t len;
        gsp_err_t err = gsp_scatter_exact(n, rounds, &p, &len, &mean, cli_progress, NULL);
        cli_progress_done();
        if (err) return cli_lib_error(err);
        if (json) {
            gsp_jw_key(&w, "p");
            gsp_jw_arr_begin(&w);
            for (int64_t j = 0; j < len; j++) gsp_jw_num(&w, p[j]);
            gsp_jw_arr_end(&w);
            gsp_jw_key(&w, "mean"); gsp_jw_num(&w, mean);
            asymptotics(n, &w);
        } else {
            printf("n %lld: exact p(j, n) for j = 0..%lld\n", (long long)n, (long long)len - 1);
            for (int64_t j = 0; j < len; j++)
                /* Small probabilities in scientific notation: 0.000000 would say "impossible". */
                if (p[j] != 0 && p[j] < 1e-4)
                    printf("%s  j=%lld %.3e%s", j % 5 == 0 ? "  " : "", (long long)j, p[j], j % 5 == 4 || j + 1 == len ? "\n" : "");
                else
                    printf("%s  j=%lld %.6f%s", j % 5 == 0 ? "  " : "", (long long)j, p[j], j % 5 == 4 || j + 1 == len ? "\n" : "");
            printf("mean steps E[T]      %.6f (exact)\n", mean);
            if (!rounds) asymptotics(n, NULL);
        }
        gsp_free(p);
    } else {
        int64_t *steps = NULL, sends;
        gsp_err_t err;
        if ((err = gsp_alloc_array((void **)&steps, trials, sizeof *steps, false))) return cli_lib_error(err);
        double t0 = cli_now();
        err = gsp_scatter_simulate(n, var, trials, (uint64_t)seed, steps, &sends, cli_progress, NULL);
        double secs = cli_now() - t0;
        cli_progress_done();
        if (err) {
            gsp_free(steps);
            return cli_lib_error(err);
        }
        double mean = 0, var2 = 0;
        for (int64_t t = 0; t < trials; t++) mean += (double)steps[t];
        mean /= trials;
        for (int64_t t = 0; t < trials; t++) var2 += ((double)steps[t] - mean) * ((double)steps[t] - mean);
        double se = trials > 1 ? sqrt(var2 / (trials - 1) / trials) : 0;
        qsort(steps, (size_t)trials, sizeof *steps, cmp_i64);
        static const double qs[] = {0.01, 0.1, 0.5, 0.9, 0.99};
        int64_t maxj = steps[trials - 1];
        if (json) {
            gsp_jw_key(&w, "variant"); gsp_jw_str(&w, gsp_scatter_variant_name(var));
            gsp_jw_key(&w, "trials"); gsp_jw_int(&w, trials);
            gsp_jw_key(&w, "seed"); gsp_jw_int(&w, seed);
            gsp_jw_key(&w, "mean"); gsp_jw_num(&w, mean);
            gsp_jw_key(&w, "stderr"); gsp_jw_num(&w, se);
            gsp_jw_key(&w, "quantiles");
            gsp_jw_obj_begin(&w);
            for (int q = 0; q < 5; q++) {
                char k[16];
                snprintf(k, sizeof k, "%g", qs[q]);
                gsp_jw_key(&w, k);
                gsp_jw_int(&w, steps[(int64_t)(qs[q] * (trials - 1))]);
            }
            gsp_jw_obj_end(&w);
            gsp_jw_key(&w, "p");
            gsp_jw_arr_begin(&w);
            int64_t c = 0, idx = 0;
            for (int64_t j = 0; j <= (rounds ? rounds : maxj); j++) {
                while (idx < trials && steps[idx] <= j) idx++, c++;
                gsp_jw_num(&w, (double)c / trials);
            }
            gsp_jw_arr_end(&w);
            gsp_jw_key(&w, "sends_per_second"); gsp_jw_num(&w, secs > 0 ? (double)sends / secs : 0);
            asymptotics(n, &w);
        } else {
            printf("n %lld, variant %s: %lld trials (seed %lld)\n", (long long)n, gsp_scatter_variant_name(var),
                   (long long)trials, (long long)seed);
            printf("mean steps           %.4f +- %.4f (standard error)\n", mean, se);
            printf("quantiles            ");
            for (int q = 0; q < 5; q++) printf("%s%g: %lld", q ? ", " : "", qs[q], (long long)steps[(int64_t)(qs[q] * (trials - 1))]);
            printf("\nsends               %lld in %.3f s (%.3g per second)\n", (long long)sends, secs, secs > 0 ? sends / secs : 0);
            asymptotics(n, NULL);
        }
        gsp_free(steps);
    }
    if (json) {
        gsp_jw_obj_end(&w);
        fputc('\n', stdout);
        gsp_jw_finish(&w);
    }
    return EXIT_OK;
}

const cli_command_t cmd_scatter = {"scatter", "random scattering: exact distribution, simulation, asymptotics", run, usage_text};
