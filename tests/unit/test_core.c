/* test_core.c — errors, allocation fault injection, RNG, bitsets, the JSON writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"
#include "core/core_int.h"

static void test_error_names(void **state) {
    (void)state;
    assert_string_equal(gsp_strerror_name(GSP_ERR_PARSE), "GSP_ERR_PARSE");
    assert_string_equal(gsp_strerror(GSP_ERR_NOMEM), "out of memory");
    assert_int_equal(gsp_error(GSP_ERR_RANGE, "x=%d", 5), GSP_ERR_RANGE);
    assert_string_equal(gsp_errmsg(), "x=5");
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_limit), cmocka_unit_test(test_directed_flag),
        cmocka_unit_test(test_error_names), cmocka_unit_test(test_alloc_fault),
        cmocka_unit_test(test_alloc_fault_every_step_of_topo), cmocka_unit_test(test_rng),
        cmocka_unit_test(test_bits), cmocka_unit_test(test_json_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
