/* test_core: block layouts (core/blocks.h). */
#include "core/blocks.h"
#include "test_core.h"

/* ---- block layouts ------------------------------------------------------------------------ */

START_TEST(test_blocks_uniform_layout) {
    cs_type_t ti = type_of(MPI_INT);
    cs_blocks_t b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &ti, 3, 10, 0);
    ck_assert_int_eq(cs_blocks_start(&b, 0), 0);
    ck_assert_int_eq(cs_blocks_start(&b, 1), 3);
    ck_assert_int_eq(cs_blocks_start(&b, 3), 9);
    ck_assert_int_eq(cs_blocks_start(&b, 4), 10); /* clamped */
    ck_assert_int_eq(cs_blocks_start(&b, 7), 10);
    ck_assert_int_eq(cs_blocks_count(&b, 0, 4), 10);
    ck_assert_int_eq(cs_blocks_count(&b, 1, 3), 6);
    ck_assert_int_eq(cs_blocks_count(&b, 3, 5), 1);
    ck_assert_int_eq(cs_blocks_count(&b, 4, 6), 0);
    ck_assert_int_eq(cs_blocks_count(&b, 2, 2), 0);
    /* unit 0 (count 0 calls): every block is empty */
    b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &ti, 0, 0, 0);
    ck_assert_int_eq(cs_blocks_start(&b, 5), 0);
    ck_assert_int_eq(cs_blocks_count(&b, 0, 5), 0);
}
END_TEST

START_TEST(test_blocks_indexed_layout) {
    static const int counts[4] = {2, 0, 3, 1};
    static const int displs[4] = {5, 0, 8, 2};
    cs_type_t ti = type_of(MPI_INT);
    cs_blocks_t b = cs_blocks_indexed(cs_ref(CS_SLOT_RECV, 0), &ti, counts, displs);
    ck_assert_int_eq(cs_blocks_count(&b, 0, 4), 6);
    ck_assert_int_eq(cs_blocks_count(&b, 1, 3), 3);
    ck_assert_int_eq(cs_blocks_count(&b, 1, 2), 0);
}
END_TEST

START_TEST(test_blocks_send_uniform) {
    cs_type_t td = type_of(odd_type);
    cs_blocks_t b = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 40), &td, 3, 10, 0);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_blocks_send(&s, 4, &b, 0, 4), CS_OK); /* all blocks: one message */
    ck_assert_int_eq(s.nops, 1);
    ck_assert_int_eq(s.ops[0].kind, CS_OP_SEND);
    ck_assert_int_eq(s.ops[0].peer, 4);
    ck_assert_int_eq(s.ops[0].buf.slot, CS_SLOT_RECV);
    ck_assert_int_eq(s.ops[0].buf.off, 40);
    ck_assert_int_eq(s.ops[0].count, 10);
    ck_assert(s.ops[0].type == odd_type);

    ck_assert_int_eq(cs_blocks_send(&s, 2, &b, 2, 4), CS_OK); /* elements 6..9 */
    ck_assert_int_eq(s.nops, 2);
    ck_assert_int_eq(s.ops[1].buf.off, 40 + 6 * 20);
    ck_assert_int_eq(s.ops[1].count, 4);

    ck_assert_int_eq(cs_blocks_recv(&s, 1, &b, 1, 2), CS_OK);
    ck_assert_int_eq(s.nops, 3);
    ck_assert_int_eq(s.ops[2].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[2].peer, 1);
    ck_assert_int_eq(s.ops[2].buf.off, 40 + 3 * 20);
    ck_assert_int_eq(s.ops[2].count, 3);

    ck_assert_int_eq(cs_blocks_send(&s, 2, &b, 4, 6), CS_OK); /* past the end: 0 elements */
    ck_assert_int_eq(s.nops, 4);
    ck_assert_int_eq(s.ops[3].count, 0);

    ck_assert_int_eq(cs_blocks_send(&s, 2, &b, 2, 2), CS_OK); /* empty range: nothing */
    ck_assert_int_eq(cs_blocks_recv(&s, 2, &b, 3, 1), CS_OK);
    ck_assert_int_eq(s.nops, 4);

    /* A scratch buffer holding blocks [2, ...) only: base addresses block 2. */
    b = cs_blocks_uniform(cs_ref(CS_SLOT_SCRATCH, -8), &td, 3, 10, 2);
    ck_assert_int_eq(cs_blocks_send(&s, 0, &b, 2, 3), CS_OK);
    ck_assert_int_eq(s.ops[4].buf.slot, CS_SLOT_SCRATCH);
    ck_assert_int_eq(s.ops[4].buf.off, -8);
    ck_assert_int_eq(s.ops[4].count, 3);
    ck_assert_int_eq(cs_blocks_send(&s, 0, &b, 3, 4), CS_OK);
    ck_assert_int_eq(s.ops[5].buf.off, -8 + 3 * 20);
    ck_assert_int_eq(s.ops[5].count, 1);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_blocks_send_indexed) {
    static const int counts[4] = {2, 0, 3, 1};
    static const int displs[4] = {5, 0, 8, 2};
    cs_type_t td = type_of(odd_type);
    cs_blocks_t b = cs_blocks_indexed(cs_ref(CS_SLOT_RECV, 16), &td, counts, displs);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_blocks_send(&s, 3, &b, 0, 4), CS_OK); /* one message per block */
    ck_assert_int_eq(s.nops, 4);
    for (int j = 0; j < 4; j++) {
        ck_assert_int_eq(s.ops[j].kind, CS_OP_SEND);
        ck_assert_int_eq(s.ops[j].peer, 3);
        ck_assert_int_eq(s.ops[j].buf.slot, CS_SLOT_RECV);
        ck_assert_int_eq(s.ops[j].buf.off, 16 + displs[j] * 20);
        ck_assert_int_eq(s.ops[j].count, counts[j]);
    }
    ck_assert_int_eq(cs_blocks_recv(&s, 1, &b, 1, 3), CS_OK);
    ck_assert_int_eq(s.nops, 6);
    ck_assert_int_eq(s.ops[4].kind, CS_OP_RECV);
    ck_assert_int_eq(s.ops[4].count, 0);
    ck_assert_int_eq(s.ops[5].buf.off, 16 + 8 * 20);
    ck_assert_int_eq(s.ops[5].count, 3);
    ck_assert_int_eq(cs_blocks_send(&s, 3, &b, 2, 2), CS_OK);
    ck_assert_int_eq(s.nops, 6);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_blocks_copy) {
    static const int counts[4] = {2, 0, 3, 1};
    static const int displs[4] = {5, 0, 8, 2};
    cs_type_t ti = type_of(MPI_INT);
    cs_blocks_t u = cs_blocks_uniform(cs_ref(CS_SLOT_SEND, 0), &ti, 2, 8, 0);
    cs_blocks_t v = cs_blocks_uniform(cs_ref(CS_SLOT_RECV, 0), &ti, 2, 8, 0);
    cs_blocks_t x = cs_blocks_indexed(cs_ref(CS_SLOT_RECV, 0), &ti, counts, displs);
    cs_sched_t s;
    sched_init(&s, MPI_OP_NULL);

    ck_assert_int_eq(cs_blocks_copy(&s, &u, &v, 1, 4), CS_OK); /* uniform: one copy */
    ck_assert_int_eq(s.nops, 1);
    ck_assert_int_eq(s.ops[0].kind, CS_OP_COPY);
    ck_assert_int_eq(s.ops[0].buf.off, 2 * 4);
    ck_assert_int_eq(s.ops[0].dst.off, 2 * 4);
    ck_assert_int_eq(s.ops[0].count, 6);

    /* indexed: one copy per non-empty block (empty copies are skipped) */
    ck_assert_int_eq(cs_blocks_copy(&s, &x, &x, 0, 4), CS_OK);
    ck_assert_int_eq(s.nops, 4);
    ck_assert_int_eq(s.ops[1].count, 2);
    ck_assert_int_eq(s.ops[2].count, 3);
    ck_assert_int_eq(s.ops[3].count, 1);
    ck_assert_int_eq(s.ops[3].dst.off, 2 * 4);
    cs_sched_free(&s);
}
END_TEST

TCase *core_tcase_blocks(void) {
    TCase *tc = tcase_create("blocks");
    tcase_add_test(tc, test_blocks_uniform_layout);
    tcase_add_test(tc, test_blocks_indexed_layout);
    tcase_add_test(tc, test_blocks_send_uniform);
    tcase_add_test(tc, test_blocks_send_indexed);
    tcase_add_test(tc, test_blocks_copy);
    return tc;
}
