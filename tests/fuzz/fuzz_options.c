/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_options.c — the command line's value parsers: integers with ranges, the model options,
 * the cost model's seconds and byte sizes. The input is "OPTION\nVALUE". */
#include "fuzz_common.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = fuzz_string(data, size);
    char *nl = strchr(s, '\n');
    const char *opt = s, *val = nl ? nl + 1 : "";
    if (nl) *nl = 0;
    int64_t v;
    double d;
    gsp_model_t m = gsp_model_default();
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w"); /* the parsers say what is wrong: not needed here */
    if (cli_parse_int(val, -5, 1000000, opt, &v) && (v < -5 || v > 1000000)) abort();
    cli_parse_model(opt, val, &m);
    if (m.packets < 1 && m.packets != GSP_PACKETS_INF) abort(); /* p >= 1 or inf, never 0 */
    if (gsp_cost_parse(opt, val, &d) == GSP_OK && !(d >= 0)) abort();
    int64_t b = gsp_parse_bytes(val);
    if (b == 0 || b < -1) abort();
    fclose(stderr);
    stderr = saved;
    free(s);
    return 0;
}
