/* cs_mpi_parts: multi-part messages (core/sched.h: cs_sched_sendv/recvv) through the executor's
 * MPI transport (core/exec.h), under mpirun.
 *
 * A ring: even ranks send one message of parts from their send, receive and scratch slots to
 * rank + 1 and receive one of parts into their receive and scratch slots (one of them a
 * strided MPI_Type_vector) from rank - 1; odd ranks send and receive the same six ints as
 * plain messages (at np 3 rank 2 sends multi-part to rank 0, which receives multi-part). The
 * schedule runs five times with new data each time: with buffers A (blocking), A again
 * (the struct datatypes must be reused: the part cache's build count does not move), buffers B
 * (rebuilt: one build per multi-part op), B again through cs_exec_progress (reused), and after
 * cs_sched_reset (which frees the datatypes) and a rebuild of the schedule, with A (built
 * anew). Every receive buffer must hold exactly the expected ints, -1 elsewhere. Leaked
 * datatypes: mpi_parts_valgrind_np3 runs this under memcheck. */
#include "core/exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECV_INTS 32
#define TAG       11

static int failures;

static void fail(int rank, int run, const char *what) {
    if (failures++ < 10) {
        fprintf(stderr, "rank %d run %d: FAIL %s\n", rank, run, what);
    }
}

/* Int k of the message rank q sends in run `run`: its send ints 0, 1, 5, 2, 3, 4. */
static int msg(int q, int run, int k) {
    static const int order[6] = {0, 1, 5, 2, 3, 4};
    return 1000 * run + 100 * q + order[k];
}

/* Rank r's schedule; `vec` is 2 ints 3 apart. Even ranks: round 1 copies send[5] to recv[10]
 * and send[2..4] to scratch[0..2]; round 2 sends {send[0..1], recv[10], scratch[0..2]} and
 * receives {recv[0], scratch[4..5], vec at recv[20] (ints 20, 23), recv[1]}; round 3 copies
 * scratch[4..5] to recv[2..3]. Odd ranks pack the six ints into scratch and send them plain,
 * and receive recv[0..5]. */
static int build(cs_sched_t *s, int r, int p, MPI_Datatype vec, const cs_type_t *ti) {
    int rc = CS_OK;
    int right = (r + 1) % p, left = (r + p - 1) % p;
    cs_ref_t send = cs_ref(CS_SLOT_SEND, 0), recv = cs_ref(CS_SLOT_RECV, 0), scratch;
    cs_sched_reset(s, MPI_OP_NULL);
    CS_CHECK(cs_sched_scratch(s, 6, ti, &scratch));
    if (r % 2 == 0) {
        const cs_part_t out[3] = {
            {send, 2, MPI_INT}, {cs_ref_at(recv, 10, ti), 1, MPI_INT}, {scratch, 3, MPI_INT}};
        const cs_part_t in[4] = {{recv, 1, MPI_INT},
                                 {cs_ref_at(scratch, 4, ti), 2, MPI_INT},
                                 {cs_ref_at(recv, 20, ti), 1, vec},
                                 {cs_ref_at(recv, 1, ti), 1, MPI_INT}};
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 5, ti), 1, ti, cs_ref_at(recv, 10, ti), 1, ti));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 2, ti), 3, ti, scratch, 3, ti));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_sendv(s, right, out, 3));
        CS_CHECK(cs_sched_recvv(s, left, in, 4));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(scratch, 4, ti), 2, ti, cs_ref_at(recv, 2, ti), 2, ti));
    } else {
        CS_CHECK(cs_sched_copy(s, send, 2, ti, scratch, 2, ti));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 5, ti), 1, ti, cs_ref_at(scratch, 2, ti), 1, ti));
        CS_CHECK(cs_sched_copy(s, cs_ref_at(send, 2, ti), 3, ti, cs_ref_at(scratch, 3, ti), 3, ti));
        CS_CHECK(cs_sched_round(s));
        CS_CHECK(cs_sched_send(s, right, scratch, 6, ti));
        CS_CHECK(cs_sched_recv(s, left, recv, 6, ti));
    }
    CS_CHECK(cs_sched_round(s));
out:
    return rc;
}

/* Checks rank r's receive buffer after run `run`. */
static void check(int r, int p, int run, const int *recv) {
    int left = (r + p - 1) % p;
    int want[RECV_INTS];
    for (int i = 0; i < RECV_INTS; i++) {
        want[i] = -1;
    }
    if (r % 2 == 0) {
        want[0] = msg(left, run, 0);
        want[2] = msg(left, run, 1);
        want[3] = msg(left, run, 2);
        want[20] = msg(left, run, 3);
        want[23] = msg(left, run, 4);
        want[1] = msg(left, run, 5);
        want[10] = 1000 * run + 100 * r + 5;
    } else {
        for (int k = 0; k < 6; k++) {
            want[k] = msg(left, run, k);
        }
    }
    for (int i = 0; i < RECV_INTS; i++) {
        if (recv[i] != want[i]) {
            char what[96];
            snprintf(what, sizeof(what), "recv[%d] = %d, expected %d", i, recv[i], want[i]);
            fail(r, run, what);
            return;
        }
    }
}

int main(int argc, char **argv) {
    int rank, p, all = 0, nmulti;
    int send[2][8], recv[2][RECV_INTS];
    MPI_Comm comm;
    MPI_Datatype vec;
    MPI_Request *reqs;
    cs_type_t ti;
    cs_sched_t s;
    cs_mpi_transport_t tr;
    void *scratch = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    memset(&s, 0, sizeof(s));
    if (cs_type_init(&ti, MPI_INT) != CS_OK || build(&s, rank, p, vec, &ti) != CS_OK ||
        posix_memalign(&scratch, 16, (size_t)s.scratch_bytes) != 0) {
        fprintf(stderr, "rank %d: building the schedule failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nmulti = rank % 2 == 0 ? 2 : 0;
    reqs = malloc((size_t)s.max_comm * sizeof(*reqs));
    tr = (cs_mpi_transport_t){comm, TAG, reqs, NULL, 0, MPI_WIN_NULL, NULL};
    /* buffers A, A, B, B (progress), A after reset and rebuild; builds after each run */
    for (int run = 0; run < 5; run++) {
        static const int which[5] = {0, 0, 1, 1, 0};
        static const int builds[5] = {1, 1, 2, 2, 3};
        int b = which[run], st;
        cs_exec_t e;
        if (run == 4) {
            cs_sched_reset(&s, MPI_OP_NULL);
            if (s.pcache != NULL && s.pcache->types_cap > 0 &&
                s.pcache->types[0].type != MPI_DATATYPE_NULL) {
                fail(rank, run, "reset kept a datatype");
            }
            if (build(&s, rank, p, vec, &ti) != CS_OK) {
                fail(rank, run, "rebuild");
            }
        }
        for (int i = 0; i < 8; i++) {
            send[b][i] = 1000 * run + 100 * rank + i;
        }
        for (int i = 0; i < RECV_INTS; i++) {
            recv[b][i] = -1;
        }
        cs_exec_start(&e, &s, send[b], recv[b], scratch, &cs_exec_mpi_transport, &tr);
        if (run == 3) {
            do {
                st = cs_exec_progress(&e);
            } while (st == CS_INPROGRESS);
        } else {
            st = cs_exec_run(&e);
        }
        if (st != CS_OK) {
            fail(rank, run, cs_status_name(st));
            continue;
        }
        check(rank, p, run, recv[b]);
        if ((s.pcache != NULL ? s.pcache->builds : 0) != builds[run] * nmulti) {
            char what[96];
            snprintf(what, sizeof(what), "%ld struct datatypes built so far, expected %d",
                     s.pcache != NULL ? s.pcache->builds : 0, builds[run] * nmulti);
            fail(rank, run, what);
        }
    }
    cs_sched_free(&s);
    free(reqs);
    free(scratch);
    MPI_Type_free(&vec);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) {
        printf("%s: multi-part messages at np %d, %d failure(s)\n", all == 0 ? "ok" : "FAIL", p,
               all);
    }
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
