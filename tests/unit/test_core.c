/* test_core.c — errors, allocation fault injection, RNG, bitsets, the JSON writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gossip/gossip.h"

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
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_names), cmocka_unit_test(test_alloc_fault),
        cmocka_unit_test(test_alloc_fault_every_step_of_topo), cmocka_unit_test(test_rng),
        cmocka_unit_test(test_bits), cmocka_unit_test(test_json_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
