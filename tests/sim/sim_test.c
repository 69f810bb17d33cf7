/* cs_sim: every registered schedule builder, run for all p virtual ranks inside one process.
 *
 * For each algorithm of cs_registry that has a `build`, each p in {1, 2, 3, 4, 5, 6, 7, 8, 11,
 * 12, 16, 24, 31, 32, 64} and each variant the algorithm lists for p (cs_algo_variants: every
 * grid layout of p for the orthogonal algorithms, none at a prime p) the test builds the call of
 * every virtual rank (cs_call_normalize, as the constructors in core/call.c do), builds its
 * schedule for the variant and runs all of them with the real
 * executor over the simulator's mailbox (sim.h). Results are compared bit for bit with a serial
 * reference: every byte of every send and receive buffer, including the bytes around it and the
 * gaps inside derived datatypes (which must stay untouched), plus guard bytes around scratch.
 *
 * Data: MPI_INT; a 2x2 integer matrix (contiguous 4 ints) with a non-commutative product mod
 * 1009; a derived type with a non-zero lower bound (2 ints at byte displacements 8 and 16,
 * resized to lb 4, extent 20) for data movement and, with a non-commutative affine composition,
 * for reductions; a dense type shifted by lb 8 (one int at byte 8: the executor's memcpy path);
 * mixed send/receive types with equal signatures (hidx>int, int>hidx).
 * Calls: all roots for p <= 8, roots {0, 1, p/2, p-1} above; MPI_IN_PLACE where MPI allows
 * it; counts 0, 1, 2, p-1, p, p+1, 2p+1; allgatherv with irregular counts (zeros included) at
 * non-monotone displacements with gaps, and packed in rank order; gatherv and scatterv with the
 * same patterns at every root (a non-root's count arrays NULL), alltoallv with such patterns per
 * pair of ranks (different in the two directions, symmetric in place), one side's blocks
 * scattered and the other's packed; gatherv's and scatterv's counts agreed as cs_comm_agree
 * does (cs_call_agree_pair, cs_call_agreed), so the binomial algorithms run wherever the
 * ranks' block types have one size and are not applicable on every rank otherwise (in place
 * with mixed types). Insignificant buffers are NULL (gather and reduce non-roots' recvbuf,
 * scatter non-roots' sendbuf).
 *
 * Algorithms that work on nodes (CS_REQ_NODES: DPML) run on one node of p and on emulated nodes
 * of 2, 3 and 4 consecutive ranks (the last one smaller where p does not divide): their state
 * holds the layout (cs_nodes_t) and the ranks of each node share one window buffer, whose
 * guard bytes are checked like scratch. They also run consecutive calls on one communicator
 * (cs_sim_run_seq, the same layouts, p in {1, ..., 8, 12, 16}): sequences of two and three calls
 * whose counts (1, 2p+1, 300) go up, down and both ways, with int/sum, the matrix and affine
 * non-commutative ops and a layout that changes from call to call, in place or not; each call
 * has its own buffers, every node keeps one window sized for the largest call, and every call's
 * results and the race checker over the whole sequence must be clean.
 *
 * Self-tests first prove the checks can fail: hand-built schedules that deadlock, lose a send,
 * mismatch sizes, race within a round or use a NULL buffer (with plain and with multi-part
 * messages, which also run a ring for p = 2 to 8 against plain ones), schedules whose
 * shared-window accesses race (a SYNC or the barrier missing, a region rewritten while another
 * rank reads it), and deliberately wrong algorithms (results in the wrong place, reduction in the
 * wrong order, barriers that let a rank leave before every rank has entered) must all be
 * reported; the same window schedules with their synchronisation must
 * pass. Two-call sequences must report a window region rewritten by call 2 while call 1 may still
 * read it, a barrier or a message of one call matched in the other, a deadlock in call 2 and a
 * window that moves between calls; with a barrier at the start of call 2, and with one message
 * per call, they must pass.
 *
 * Runs as an MPI singleton (no mpirun); MPI provides datatypes, MPI_Pack/Unpack and
 * MPI_Reduce_local only, never point-to-point between processes.
 * Usage: cs_sim [-v] [-a <coll>/<alg>] [-p <nprocs>] [-s K/N]: -v prints every failing case, -a
 * runs one algorithm, -p one communicator size (any, not only those of the list), -s shard K of N
 * (0 <= K < N): the (algorithm, p, variant) units numbered in order, unit u in shard hash(u) mod N,
 * the self-tests in shard 0; the N shards together run exactly what one run without -s does (ctest
 * runs the shards as separate tests so that they can run in parallel).
 * Prints one line per failing (algorithm, p), one line per algorithm and "N passed, N failed"
 * (N counts self-tests and (algorithm, p) pairs); exits 1 on any failure.
 *
 * Files: this runner; sim_harness.[ch] (data, buffers, one case, the self-tests' report); one
 * file per suite, run in this order: test_sim_sched.c (mailbox checks, group collectives),
 * test_sim_parts.c (multi-part messages), test_sim_window.c (window race checker), test_sim_calls.c
 * (consecutive calls), test_sim_reference.c (wrong algorithms, dpml's inter), test_sim_registry.c
 * (the registry). */
#include "sim_harness.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rc = CS_OK;
    int passed = 0, failed = 0, only_p = 0, ran = 0;
    const char *only = NULL;
    /* Open MPI's own algorithms (<coll>/ompi) list variants only with dynamic rules on at
     * MPI_Init: their one-COLL schedules are simulated like any other. */
    setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 0);
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "-a") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            only_p = atoi(argv[++i]);
            if (only_p < 1) {
                fprintf(stderr, "cs_sim: -p wants a communicator size >= 1, not '%s'\n", argv[i]);
                rc = CS_ERR_ARG;
                goto out;
            }
        } else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            char tail = 0;
            if (sscanf(argv[++i], "%d/%d%c", &shard_k, &shard_n, &tail) != 2 || shard_n < 1 ||
                shard_k < 0 || shard_k >= shard_n) {
                fprintf(stderr, "cs_sim: -s wants K/N with 0 <= K < N (shard K of N), not '%s'\n",
                        argv[i]);
                rc = CS_ERR_ARG;
                goto out;
            }
        } else {
            fprintf(stderr, "usage: %s [-v] [-a <coll>/<alg>] [-p <nprocs>] [-s K/N]\n", argv[0]);
            rc = CS_ERR_ARG;
            goto out;
        }
    }
    CS_CHECK(setup_types());
    if (shard_k == 0) {
        CS_CHECK(selftest_sched(&passed, &failed));
        CS_CHECK(selftest_coll(&passed, &failed));
        CS_CHECK(selftest_parts(&passed, &failed));
        CS_CHECK(selftest_window(&passed, &failed));
        CS_CHECK(selftest_calls(&passed, &failed));
        CS_CHECK(selftest_reference(&passed, &failed));
        CS_CHECK(selftest_dpml_inter(&passed, &failed));
    }
    CS_CHECK(test_registry(only, only_p, &ran, &passed, &failed));
    CS_CHECK(test_neighbor(only, only_p, &ran, &passed, &failed));
    if (only != NULL && ran == 0) {
        fprintf(stderr, "cs_sim: no schedule builder named '%s' in the registry\n", only);
        rc = CS_ERR_NOT_FOUND;
        goto out;
    }
    printf("%d passed, %d failed\n", passed, failed);
out:
    if (rc < 0 && rc != CS_ERR_ARG && rc != CS_ERR_NOT_FOUND) {
        fprintf(stderr, "cs_sim: the test itself failed: %s\n", cs_status_name(rc));
    }
    free_types();
    MPI_Finalize();
    return rc < 0 ? 2 : failed > 0 ? 1 : 0;
}
