/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_core.c — errors, allocation fault injection, RNG, bitsets, the JSON writer, outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gossip/gossip.h"
#include "core/core_int.h"

static void test_error_names(void **state) {
    (void)state;
    assert_string_equal(gsp_strerror_name(GSP_ERR_PARSE), "GSP_ERR_PARSE");
    assert_string_equal(gsp_strerror(GSP_ERR_NOMEM), "out of memory");
    assert_int_equal(gsp_error(GSP_ERR_RANGE, "x=%d", 5), GSP_ERR_RANGE);
    assert_string_equal(gsp_errmsg(), "x=5");
    /* Prefixing the last error with itself as an argument: formatted aside, then stored (a
     * vsnprintf into its own argument garbled "5040 nodes" into "spectral: spectral: 40 nodes"). */
    gsp_error(GSP_ERR_TOOBIG, "%d nodes is above the limit of %d", 5040, 4000);
    assert_int_equal(gsp_error(GSP_ERR_NOTAPPLIC, "spectral: %s", gsp_errmsg()), GSP_ERR_NOTAPPLIC);
    assert_string_equal(gsp_errmsg(), "spectral: 5040 nodes is above the limit of 4000");
    gsp_error(GSP_ERR_NOTAPPLIC, "%s; again: %s", gsp_errmsg(), gsp_errmsg());
    assert_string_equal(gsp_errmsg(), "spectral: 5040 nodes is above the limit of 4000; again: spectral: 5040 nodes is above the limit of 4000");
    /* A message longer than the buffer is cut, still terminated, also when it prefixes itself. */
    char longer[2000];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    gsp_error(GSP_ERR_PARSE, "%s", longer);
    size_t cap = strlen(gsp_errmsg());
    assert_true(cap > 100 && cap < sizeof longer - 1);
    gsp_error(GSP_ERR_PARSE, "p: %s", gsp_errmsg());
    assert_int_equal(strlen(gsp_errmsg()), cap);
    assert_memory_equal(gsp_errmsg(), "p: xxx", 6);
    gsp_error_clear();
    assert_string_equal(gsp_errmsg(), "no detail");
    /* Values are part of the ABI: never renumbered. */
    assert_int_equal(GSP_ERR_TOOBIG, 6);
    assert_int_equal(GSP_ERR_LIMIT, 12);
}

static void test_alloc_fault(void **state) {
    (void)state;
    gsp_alloc_fail_after(2);
    void *a = gsp_malloc(8);
    void *b = gsp_malloc(8);
    void *c = gsp_malloc(8);
    assert_non_null(a);
    assert_null(b);
    assert_non_null(c);
    gsp_free(a);
    gsp_free(c);
    void *p;
    assert_int_equal(gsp_alloc_array(&p, INT64_MAX / 2, 8, false), GSP_ERR_OVERFLOW);
}

static void test_alloc_fault_every_step_of_topo(void **state) {
    (void)state;
    /* Every allocation of building a product topology may fail; each failure must come back
     * as GSP_ERR_NOMEM with nothing leaked (ASan checks the leak). */
    for (int k = 1; k < 200; k++) {
        gsp_topo_t t;
        gsp_alloc_fail_after(k);
        gsp_err_t err = gsp_topo_from_spec(&t, "product(torus:3x4,star:3)");
        gsp_alloc_fail_after(0);
        if (err == GSP_OK) {
            gsp_topo_destroy(&t);
            return;
        }
        assert_int_equal(err, GSP_ERR_NOMEM);
    }
    fail_msg("never succeeded");
}

static void test_rng(void **state) {
    (void)state;
    gsp_rng_t a, b;
    gsp_rng_seed(&a, 42);
    gsp_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++) assert_true(gsp_rng_next(&a) == gsp_rng_next(&b));
    /* Uniformity of gsp_rng_below over 7 buckets: chi-square with 6 dof below 30. */
    int64_t cnt[7] = {0};
    int n = 70000;
    for (int i = 0; i < n; i++) cnt[gsp_rng_below(&a, 7)]++;
    double chi = 0;
    for (int i = 0; i < 7; i++) chi += (cnt[i] - n / 7.0) * (cnt[i] - n / 7.0) / (n / 7.0);
    assert_true(chi < 30);
    for (int i = 0; i < 1000; i++) {
        double x = gsp_rng_double(&a);
        assert_true(x >= 0 && x < 1);
    }
}

static void test_bits(void **state) {
    (void)state;
    gsp_word_t b[3] = {0};
    gsp_bit_set(b, 0);
    gsp_bit_set(b, 63);
    gsp_bit_set(b, 64);
    gsp_bit_set(b, 130);
    assert_true(gsp_bit_get(b, 63));
    assert_false(gsp_bit_get(b, 62));
    assert_int_equal(gsp_bits_count(b, 130), 3);
    assert_int_equal(gsp_bits_count(b, 131), 4);
    gsp_bit_clear(b, 64);
    assert_int_equal(gsp_bits_count(b, 192), 3);
}

static void test_json_writer(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    gsp_jw_t w;
    gsp_jw_init(&w, f);
    gsp_jw_obj_begin(&w);
    gsp_jw_key(&w, "a\"b");
    gsp_jw_arr_begin(&w);
    gsp_jw_int(&w, -3);
    gsp_jw_num(&w, 0.5);
    gsp_jw_num(&w, 2.0);
    gsp_jw_bool(&w, true);
    gsp_jw_null(&w);
    gsp_jw_str(&w, "x\ny");
    gsp_jw_arr_end(&w);
    gsp_jw_key(&w, "e");
    gsp_jw_obj_begin(&w);
    gsp_jw_obj_end(&w);
    gsp_jw_obj_end(&w);
    assert_int_equal(gsp_jw_finish(&w), GSP_OK);
    fclose(f);
    assert_string_equal(buf, "{\"a\\\"b\":[-3,0.5,2,true,null,\"x\\ny\"],\"e\":{}}");
    free(buf);
    /* UTF-8: well-formed sequences pass, anything else becomes U+FFFD (valid JSON always). */
    f = open_memstream(&buf, &len);
    gsp_jw_init(&w, f);
    gsp_jw_str(&w, "n\xc3\xb6" "de \xe2\x82\xac \xf0\x9f\x98\x80|\xff|\xc3|\xe0\x80\x80|\xed\xa0\x80|\xc0\xaf");
    assert_int_equal(gsp_jw_finish(&w), GSP_OK);
    fclose(f);
    assert_string_equal(buf, "\"n\xc3\xb6" "de \xe2\x82\xac \xf0\x9f\x98\x80|\\ufffd|\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"");
    free(buf);
}

static void test_memory_limit(void **state) {
    (void)state;
    assert_int_equal(gsp_parse_bytes("4096"), 4096);
    assert_int_equal(gsp_parse_bytes("1.5K"), 1536);
    assert_int_equal(gsp_parse_bytes("2G"), (int64_t)2 << 30);
    assert_int_equal(gsp_parse_bytes("512MB"), (int64_t)512 << 20);
    assert_int_equal(gsp_parse_bytes(""), -1);
    assert_int_equal(gsp_parse_bytes("-1"), -1);
    assert_int_equal(gsp_parse_bytes("1X"), -1);
    assert_int_equal(gsp_parse_bytes("1e30"), -1);
    assert_true(gsp_memory_limit() > 0);
    /* A graph above the limit is refused before it is built; below it, built. */
    gsp_set_memory_limit(1 << 20);
    gsp_topo_t t;
    assert_int_equal(gsp_topo_from_spec(&t, "torus:300x300"), GSP_ERR_TOOBIG);
    assert_int_equal(gsp_topo_from_spec(&t, "product(torus:300x300,cycle:3)"), GSP_ERR_TOOBIG);
    assert_int_equal(gsp_topo_from_spec(&t, "torus:10x10"), GSP_OK);
    gsp_topo_destroy(&t);
    gsp_set_memory_limit(0);
    assert_int_equal(gsp_topo_from_spec(&t, "torus:300x300"), GSP_OK);
    gsp_topo_destroy(&t);
}

/* One size: want the value of text in [min, max], or the error (0: accepted) and a word of its
 * message. */
static void size_is(const char *text, uint64_t min, uint64_t max, uint64_t want) {
    uint64_t v = 12345;
    gsp_err_t err = gsp_parse_size("--x", text, min, max, &v);
    if (err) fail_msg("'%s': %s", text, gsp_errmsg());
    if (v != want) fail_msg("'%s': %llu, want %llu", text, (unsigned long long)v, (unsigned long long)want);
}

static void size_refused(const char *text, uint64_t max, gsp_err_t want, const char *word) {
    uint64_t v = 12345;
    gsp_err_t err = gsp_parse_size("--x", text, 0, max, &v);
    if (err != want) fail_msg("'%s': error %d, want %d (%s)", text, (int)err, (int)want, err ? gsp_errmsg() : "accepted");
    assert_int_equal(v, 12345); /* untouched */
    assert_non_null(strstr(gsp_errmsg(), "--x: "));
    if (!strstr(gsp_errmsg(), word)) fail_msg("'%s': message '%s' lacks '%s'", text, gsp_errmsg(), word);
}

static void test_parse_size(void **state) {
    (void)state;
    const uint64_t M = UINT64_MAX;
    /* Plain integers, and the units: powers of 1024 whatever the case or the B/iB that follows. */
    size_is("0", 0, M, 0);
    size_is("-0", 0, M, 0);
    size_is("4096", 0, M, 4096);
    size_is("007", 0, M, 7);
    size_is("64K", 0, M, 65536);
    size_is("64k", 0, M, 65536);
    size_is("1KiB", 0, M, 1024);
    size_is("1KB", 0, M, 1024);
    size_is("1kB", 0, M, 1024);
    size_is("1Ki", 0, M, 1024);
    size_is("1M", 0, M, 1048576);
    size_is("1MiB", 0, M, 1048576);
    size_is("512MB", 0, M, 536870912);
    size_is("2G", 0, M, 2147483648u);
    size_is("3T", 0, M, 3298534883328u);
    size_is("100B", 0, M, 100);
    /* Fractions and exponents: only whole values. 1.5K = 1536; 0.125K = 128; 1e6; 2.5e1 = 25;
     * 1.50K = 1536; 1e0 = 1; 100e-2 = 1; 0.5M = 524288; 1.0 = 1; .5K = 512. */
    size_is("1.5K", 0, M, 1536);
    size_is("0.125K", 0, M, 128);
    size_is("1e6", 0, M, 1000000);
    size_is("1E6", 0, M, 1000000);
    size_is("1e+6", 0, M, 1000000);
    size_is("2.5e1", 0, M, 25);
    size_is("1.50K", 0, M, 1536);
    size_is("1e0", 0, M, 1);
    size_is("100e-2", 0, M, 1);
    size_is("0.5M", 0, M, 524288);
    size_is("1.0", 0, M, 1);
    size_is(".5K", 0, M, 512);
    size_is("0e999", 0, M, 0);
    size_is("1e6K", 0, M, 1024000000);
    /* 2^-10 K = 1 (5^10 = 9765625); 2^-40 T = 1 too, but 5^40 has 28 digits: more than a
     * uint64 holds, refused as such rather than rounded. */
    size_is("0.0009765625K", 0, M, 1);
    size_is("0.0009765625KiB", 0, M, 1);
    size_refused("0.0000000000009094947017729282379150390625T", M, GSP_ERR_PARSE, "digits");
    /* The edges of uint64: 2^64 - 1 fits, 2^64 does not; 16E... in units: 16777215T + 1023G fits
     * below 2^64 (2^64 - 2^30 = 18446744072635809792). */
    size_is("18446744073709551615", 0, M, M);
    size_is("1.8446744073709551615e19", 0, M, M);
    size_is("184467440737095516150e-1", 0, M, M); /* the 21st digit is a zero: exact */
    size_is("16777215T", 0, M, 18446742974197923840u);
    size_is("17179869183G", 0, M, 18446744072635809792u);
    size_refused("18446744073709551616", M, GSP_ERR_RANGE, "too large");
    size_refused("18446744073709551615.5", M, GSP_ERR_RANGE, "too large");
    size_refused("1844674407370955161.55", M, GSP_ERR_PARSE, "digits");
    size_refused("16777216T", M, GSP_ERR_RANGE, "too large");
    size_refused("17179869184G", M, GSP_ERR_RANGE, "too large");
    size_refused("1e20", M, GSP_ERR_RANGE, "too large");
    size_refused("1e99999999999", M, GSP_ERR_RANGE, "too large");
    size_refused("99999999999999999999999999", M, GSP_ERR_RANGE, "too large");
    /* A range of the caller: int's 2^31 - 1 and 2^32 + 1 beyond it. */
    size_is("2147483647", 0, 2147483647, 2147483647);
    size_refused("4294967297", 2147483647, GSP_ERR_RANGE, "at most 2147483647");
    size_refused("2G", 2147483647, GSP_ERR_RANGE, "too large");
    size_is("2G", 0, 2147483648u, 2147483648u);
    uint64_t v = 0;
    assert_int_equal(gsp_parse_size("--x", "0", 1, M, &v), GSP_ERR_RANGE);
    assert_non_null(strstr(gsp_errmsg(), "at least 1"));
    /* Not whole, negative, malformed. */
    size_refused("0.5", M, GSP_ERR_PARSE, "not a whole number");
    size_refused("1.3K", M, GSP_ERR_PARSE, "not a whole number"); /* 1331.2 */
    size_refused("1e-3", M, GSP_ERR_PARSE, "not a whole number");
    size_refused("1e-3K", M, GSP_ERR_PARSE, "not a whole number"); /* 1.024 */
    size_refused("1e-99999999", M, GSP_ERR_PARSE, "not a whole number");
    size_refused("-1", M, GSP_ERR_RANGE, "negative");
    size_refused("-1K", M, GSP_ERR_RANGE, "negative");
    size_refused("", M, GSP_ERR_PARSE, "expected a size");
    size_refused("K", M, GSP_ERR_PARSE, "not a size");
    size_refused("1X", M, GSP_ERR_PARSE, "not a size");
    size_refused("1 K", M, GSP_ERR_PARSE, "not a size");
    size_refused(" 1", M, GSP_ERR_PARSE, "not a size");
    size_refused("1KK", M, GSP_ERR_PARSE, "not a size");
    size_refused("1iB", M, GSP_ERR_PARSE, "not a size");
    size_refused("1e", M, GSP_ERR_PARSE, "not a size");
    size_refused("0x10", M, GSP_ERR_PARSE, "not a size");
    size_refused("+1", M, GSP_ERR_PARSE, "not a size");
    size_refused("inf", M, GSP_ERR_PARSE, "not a size");
    size_refused("nan", M, GSP_ERR_PARSE, "not a size");
    assert_int_equal(gsp_parse_size("--x", NULL, 0, M, &v), GSP_ERR_PARSE);
    /* The memory limit's reader: positive, at most INT64_MAX; no error detail set. */
    gsp_error(GSP_ERR_IO, "kept");
    assert_int_equal(gsp_parse_bytes("8E"), -1);
    assert_int_equal(gsp_parse_bytes("1.3"), -1);
    assert_int_equal(gsp_parse_bytes("9223372036854775807"), INT64_MAX);
    assert_int_equal(gsp_parse_bytes("9223372036854775808"), -1);
    assert_string_equal(gsp_errmsg(), "kept");
}

/* The directed flag of an explicit graph: symmetric multisets of in- and out-neighbours. */
static void test_directed_flag(void **state) {
    (void)state;
    gsp_topo_t t;
    int64_t star[2 * 999];
    for (int64_t i = 0; i < 999; i++) star[2 * i] = 0, star[2 * i + 1] = i + 1;
    assert_int_equal(gsp_topo_from_edges(&t, 1000, star, 999, false, "star"), GSP_OK);
    assert_false(t.directed);
    gsp_topo_destroy(&t);
    assert_int_equal(gsp_topo_from_edges(&t, 1000, star, 999, true, "out-star"), GSP_OK);
    assert_true(t.directed);
    gsp_topo_destroy(&t);
    int64_t both[] = {0, 1, 1, 0, 1, 2, 2, 1, 2, 0};
    assert_int_equal(gsp_topo_from_edges(&t, 3, both, 5, true, "almost"), GSP_OK);
    assert_true(t.directed); /* 2 -> 0 without 0 -> 2 */
    gsp_topo_destroy(&t);
    int64_t sym[] = {0, 1, 1, 0, 1, 2, 2, 1, 2, 0, 0, 2};
    assert_int_equal(gsp_topo_from_edges(&t, 3, sym, 6, true, "sym"), GSP_OK);
    assert_false(t.directed);
    gsp_topo_destroy(&t);
}

/* ---- outputs (src/core/output.c) ---- */

static char outdir[64];

static int out_setup(void **state) {
    strcpy(outdir, "/tmp/gossip-out-XXXXXX");
    return mkdtemp(outdir) ? 0 : -1;
}

static int out_teardown(void **state) {
    DIR *d = opendir(outdir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", outdir, e->d_name);
            unlink(p);
        }
    if (d) closedir(d);
    return rmdir(outdir);
}

/* Entries of the test directory (temporary files left behind show here). */
static int entries(void) {
    DIR *d = opendir(outdir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static void slurp(const char *path, char *buf, size_t n) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = 0;
    fclose(f);
}

static void spit(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static gsp_err_t write_text(const char *path, const char *text, gsp_err_t verdict) {
    gsp_out_t o;
    gsp_err_t err = gsp_out_open(&o, path);
    if (err) return err;
    fputs(text, o.f);
    return gsp_out_close(&o, verdict);
}

/* A regular file is replaced atomically: the whole text, no temporary file left, its mode kept;
 * a writer's failure leaves it as it was. */
static void test_out_regular(void **state) {
    char p[256], buf[64];
    snprintf(p, sizeof p, "%s/a.txt", outdir);
    assert_false(gsp_out_in_place(p));
    assert_int_equal(write_text(p, "first\n", GSP_OK), GSP_OK);
    slurp(p, buf, sizeof buf);
    assert_string_equal(buf, "first\n");
    assert_int_equal(chmod(p, 0640), 0);
    assert_int_equal(write_text(p, "second\n", GSP_OK), GSP_OK);
    slurp(p, buf, sizeof buf);
    assert_string_equal(buf, "second\n");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_int_equal(write_text(p, "third\n", GSP_ERR_TOOBIG), GSP_ERR_TOOBIG);
    slurp(p, buf, sizeof buf);
    assert_string_equal(buf, "second\n");
    assert_int_equal(entries(), 1);
}

/* A symbolic link stays a link: the file it points to is replaced, also when it does not exist
 * yet (a dangling link creates its target). */
static void test_out_symlink(void **state) {
    char p[256], l[256], buf[64];
    struct stat st;
    snprintf(p, sizeof p, "%s/target.txt", outdir);
    snprintf(l, sizeof l, "%s/link.txt", outdir);
    spit(p, "old\n");
    assert_int_equal(symlink("target.txt", l), 0);
    assert_int_equal(write_text(l, "new\n", GSP_OK), GSP_OK);
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    slurp(p, buf, sizeof buf);
    assert_string_equal(buf, "new\n");
    assert_int_equal(unlink(p), 0);
    assert_int_equal(write_text(l, "created\n", GSP_OK), GSP_OK);
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    slurp(p, buf, sizeof buf);
    assert_string_equal(buf, "created\n");
    assert_int_equal(entries(), 2);
}

/* A FIFO is written in place (renaming over it would make it a file). */
static void test_out_fifo(void **state) {
    char p[256], buf[64];
    struct stat st;
    snprintf(p, sizeof p, "%s/fifo", outdir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_true(gsp_out_in_place(p));
    int rd = open(p, O_RDONLY | O_NONBLOCK); /* a reader, so that opening for writing returns */
    assert_true(rd >= 0);
    assert_int_equal(write_text(p, "through\n", GSP_OK), GSP_OK);
    ssize_t n = read(rd, buf, sizeof buf - 1);
    close(rd);
    assert_int_equal(n, 8);
    buf[n] = 0;
    assert_string_equal(buf, "through\n");
    assert_int_equal(stat(p, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(entries(), 1);
}

/* A device is written in place, and a failed write is an error with the path and the reason:
 * /dev/full stays a device. Skipped where there is no /dev/full; never attempted unless the
 * helper says it writes there in place (a wrong answer must not replace the device). */
static void test_out_device_full(void **state) {
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) skip();
    char l[256];
    assert_true(gsp_out_in_place("/dev/full"));
    snprintf(l, sizeof l, "%s/full", outdir);
    assert_int_equal(symlink("/dev/full", l), 0);
    assert_true(gsp_out_in_place(l));
    assert_int_equal(write_text("/dev/full", "x\n", GSP_OK), GSP_ERR_IO);
    assert_non_null(strstr(gsp_errmsg(), "'/dev/full'"));
    assert_non_null(strstr(gsp_errmsg(), strerror(ENOSPC)));
    assert_int_equal(write_text(l, "x\n", GSP_OK), GSP_ERR_IO);
    assert_non_null(strstr(gsp_errmsg(), strerror(ENOSPC)));
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(lstat(l, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_true(gsp_out_in_place("-"));
    assert_true(gsp_out_in_place("/dev/stdout"));
}

/* What cannot be created is GSP_ERR_IO with the path and the reason; nothing is left behind. */
static void test_out_cannot_create(void **state) {
    char p[256];
    snprintf(p, sizeof p, "%s/no/such/dir.txt", outdir);
    assert_int_equal(write_text(p, "x", GSP_OK), GSP_ERR_IO);
    assert_non_null(strstr(gsp_errmsg(), p));
    assert_non_null(strstr(gsp_errmsg(), strerror(ENOENT)));
    assert_int_equal(write_text(outdir, "x", GSP_OK), GSP_ERR_IO);
    assert_non_null(strstr(gsp_errmsg(), strerror(EISDIR)));
    assert_int_equal(entries(), 0);
}

/* The allocation helpers and the growable vector: contents survive growth, a zeroed vector is
 * empty and valid, destroy zeroes it. */
static void test_vec_and_strings(void **state) {
    (void)state;
    gsp_vec_t v;
    memset(&v, 0, sizeof v);
    assert_int_equal(gsp_vec_reserve(&v, 10), GSP_OK);
    assert_true(v.cap >= 10);
    assert_int_equal(v.len, 0);
    for (int64_t k = 0; k < 1000; k++) assert_int_equal(gsp_vec_push(&v, k * k), GSP_OK);
    assert_int_equal(v.len, 1000);
    for (int64_t k = 0; k < 1000; k++) assert_int_equal(v.v[k], k * k);
    gsp_vec_destroy(&v);
    assert_null(v.v);
    assert_int_equal(v.len + v.cap, 0);
    gsp_vec_destroy(&v);
    char *s = gsp_strdup("torus:4x4");
    assert_string_equal(s, "torus:4x4");
    char *r = gsp_realloc(s, 64);
    assert_non_null(r);
    assert_string_equal(r, "torus:4x4"); /* kept across the resize */
    gsp_free(r);
    int64_t *z = gsp_realloc(NULL, 8 * sizeof *z); /* NULL: allocates */
    assert_non_null(z);
    gsp_free(z);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_limit), cmocka_unit_test(test_parse_size), cmocka_unit_test(test_directed_flag),
        cmocka_unit_test(test_error_names), cmocka_unit_test(test_alloc_fault),
        cmocka_unit_test(test_alloc_fault_every_step_of_topo), cmocka_unit_test(test_rng),
        cmocka_unit_test(test_bits), cmocka_unit_test(test_json_writer), cmocka_unit_test(test_vec_and_strings),
    };
    const struct CMUnitTest out_tests[] = {
        cmocka_unit_test_setup_teardown(test_out_regular, out_setup, out_teardown),
        cmocka_unit_test_setup_teardown(test_out_symlink, out_setup, out_teardown),
        cmocka_unit_test_setup_teardown(test_out_fifo, out_setup, out_teardown),
        cmocka_unit_test_setup_teardown(test_out_device_full, out_setup, out_teardown),
        cmocka_unit_test_setup_teardown(test_out_cannot_create, out_setup, out_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return failed + cmocka_run_group_tests(out_tests, NULL, NULL);
}
