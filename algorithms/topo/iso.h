/* Isomorphic message combining: neighbourhoods on a torus and their schedules, no MPI.
 *
 * Träff, Carpen-Amarie, Hunold and Rougier, "Message-Combining Algorithms for Isomorphic,
 * Sparse Collective Communication" (shared/papers/message-combining-traff-et-al.txt).
 *
 * Neighbourhood (cs_iso_nbh_t). p processes on a d-dimensional torus dims[0..d-1], ranks in
 * row-major order (the last dimension varies fastest, as MPI_Cart_create numbers them). Every
 * process has the same list of s relative offset vectors C^0 .. C^{s-1} (offsets[i * d + j] is
 * c^i_j): process R sends block i to R + C^i and receives block i from R - C^i (torus
 * addition, coordinates mod dims[j]). Repeated offsets, the zero offset and offsets larger than
 * the torus (which wrap, possibly onto R itself) are all allowed, as in the paper's section 2.
 *
 * Schedule (cs_iso_sched_t). What one process does, the same on every process (so it is
 * computed locally, without communication, and is deadlock free). Round r: send one message to
 * R + offset[r] and receive one message from R - offset[r], where offset[r] is the d-vector at
 * offset[r * d]. The message consists of parts part_start[r] .. part_start[r + 1] - 1; part k is
 * the block send[k] on the sending side and the block recv[k] on the receiving side (the k-th
 * block the sender R - offset[r] sends is the k-th block R receives, because both follow the
 * same schedule). A block is {buf, index}: block `index` of the send buffer (alltoall: index <
 * s; allgather: always 0), of the receive buffer (index < s) or of the intermediate buffer
 * (index < inter_blocks). All blocks of one call have one size (regular) or, for the irregular
 * forms later, the size of the neighbour they belong to. After the last round, the `ncopies`
 * local copies copy_src[c] -> copy_dst[c] complete the receive buffer (the zero offset's block,
 * and allgather's repeated offsets, which cannot all be received by one message part).
 * Within a round no part is received into a block that a part of the same round sends, and
 * every block is written at most once per round, so an executor may post the send and the
 * receive together, zero-copy (a struct datatype per round over the three buffers) or packed
 * (copy the parts into a contiguous buffer and out again). D = nrounds; V = the number of
 * parts, the blocks a process sends (and receives) in total.
 *
 * Mapping onto the schedule engine (core/sched.h): a round of cs_iso_sched_t is a round of
 * cs_sched_t with one SEND to the rank of R + offset and one RECV from the rank of R - offset
 * (cs_iso_shift); the intermediate buffer is scratch; the copies are COPY operations of the last
 * round. The packed form adds COPY rounds around each message. That executor, the public
 * collsel_iso_* API, selection and tuning are later steps (docs/message-combining.md).
 *
 * The three kinds (docs/message-combining.md has the formulas and step tables):
 *   - CS_ISO_STRAIGHTFORWARD (listing 4): round i sends block i to R + C^i. D = V = s.
 *   - CS_ISO_TORUS (section 3, propositions 1 and 2): dimension-wise routing over immediate
 *     torus neighbours, dimension 0 first, within a dimension the + direction before the -
 *     direction; one round per hop, every block that still has to travel that hop in that
 *     dimension and direction combined into the message. D = sum over j of (max_i max(c^i_j, 0)
 *     + max_i max(-c^i_j, 0)). Alltoall: V = sum over i of |C^i|_1, blocks alternate between the
 *     intermediate and the receive buffer so that each ends in its receive block (algorithm
 *     1; inter_blocks = s). Allgather: the prefix trie of the offsets over dimensions 0 .. d-1
 *     (figure 1); the block of a trie node at level j travels in dimension j as far as its
 *     farthest child in each direction and is dropped at every child on the way (the block
 *     received after h hops is the child with value h, when there is one): V = sum over the
 *     nodes at level j, over j, of (largest positive child value + largest negative child
 *     magnitude). Every block a process receives is a different one, so V is at most the
 *     number of different relative origins (on a Moore neighbourhood V = s).
 *   - CS_ISO_DIRECT (section 5, "torus direct"): dimension-wise, but a block moves along a
 *     dimension in one message directly to R + c e_j: one round per different non-zero value c
 *     of dimension j (increasing), D = sum over j of that number. Alltoall: V = sum over i of
 *     the number of non-zero coordinates of C^i. Allgather: the same trie, V = the number of
 *     its edges with a non-zero value.
 *
 * Buffers in the zero-copy form: alltoall's intermediate buffer has s blocks (block i's), the
 * allgather's one block for every trie node or torus transit that is not itself a receive
 * block (a block whose offset, padded with zeros, is a neighbour is received straight into
 * that neighbour's receive block). Counts of rounds and parts are ints: a neighbourhood whose
 * schedule would need more is refused (CS_ERR_ARG). */
#ifndef CS_ISO_H
#define CS_ISO_H

#include "core/status.h"

typedef enum cs_iso_coll { CS_ISO_ALLTOALL, CS_ISO_ALLGATHER } cs_iso_coll_t;

typedef enum cs_iso_kind { CS_ISO_STRAIGHTFORWARD, CS_ISO_TORUS, CS_ISO_DIRECT } cs_iso_kind_t;

typedef enum cs_iso_buf { CS_ISO_BUF_SEND, CS_ISO_BUF_RECV, CS_ISO_BUF_INTER } cs_iso_buf_t;

/* An isomorphic neighbourhood on a torus (see above). */
typedef struct cs_iso_nbh {
    int d;        /* dimensions, >= 1 */
    int *dims;    /* [d], each >= 1 */
    int p;        /* product of dims */
    int s;        /* neighbours, >= 0 */
    int *offsets; /* [s * d]: offsets[i * d + j] = c^i_j */
} cs_iso_nbh_t;

/* One block of a message: block `index` of buffer `buf` (cs_iso_buf_t). */
typedef struct cs_iso_block {
    int buf;
    int index;
} cs_iso_block_t;

/* A schedule (see above). */
typedef struct cs_iso_sched {
    cs_iso_coll_t coll;
    cs_iso_kind_t kind;
    int d, s;
    int nrounds;          /* D */
    int *offset;          /* [nrounds * d]: send to R + offset, receive from R - offset */
    int *part_start;      /* [nrounds + 1] */
    cs_iso_block_t *send; /* [part_start[nrounds]]: what part k sends */
    cs_iso_block_t *recv; /* [part_start[nrounds]]: where part k is received */
    int ncopies;          /* local copies after the last round */
    cs_iso_block_t *copy_src, *copy_dst; /* [ncopies] */
    int inter_blocks;                    /* blocks of the intermediate buffer */
} cs_iso_sched_t;

/* Fills *n (declared and owned by the caller; release with cs_iso_nbh_free) with copies of
 * dims[0..d-1] and offsets[0..s*d-1]. CS_ERR_ARG for d < 1, a dimension < 1, p above INT_MAX,
 * s < 0, an offset of magnitude above CS_ISO_MAX_OFFSET or offsets NULL with s > 0;
 * CS_ERR_NOMEM. On failure *n is empty (safe to free). */
#define CS_ISO_MAX_OFFSET (1 << 16)
int cs_iso_nbh_init(cs_iso_nbh_t *n, int d, const int *dims, int s,
                    const int *offsets) CS_MUST_CHECK;

/* The Moore neighbourhood of radius r >= 0 (the paper's section 4): every offset in [-r, r]^d
 * but the zero one, s = (2r + 1)^d - 1, in row order (lexicographic, dimension 0 most
 * significant, -r first). Errors as cs_iso_nbh_init, and CS_ERR_ARG for r < 0 or s above
 * INT_MAX. */
int cs_iso_nbh_moore(cs_iso_nbh_t *n, int d, const int *dims, int r) CS_MUST_CHECK;

/* Frees the arrays of n (not n); n is then empty. NULL or an empty n: nothing. */
void cs_iso_nbh_free(cs_iso_nbh_t *n);

/* The rank of R + sign * vec on n's torus (sign +1 or -1; vec has d entries, any values),
 * for 0 <= rank < n->p. */
int cs_iso_shift(const cs_iso_nbh_t *n, int rank, const int *vec, int sign);

/* Builds the `kind` schedule of `coll` for n into *out (declared and owned by the caller;
 * release with cs_iso_sched_free). The schedule depends on the offsets only, not on dims.
 * CS_ERR_ARG for an unknown coll or kind, or a schedule with more than INT_MAX parts;
 * CS_ERR_NOMEM. On failure *out is empty (safe to free). */
int cs_iso_build(const cs_iso_nbh_t *n, cs_iso_coll_t coll, cs_iso_kind_t kind,
                 cs_iso_sched_t *out) CS_MUST_CHECK;

/* Frees the arrays of s (not s); s is then empty. NULL or an empty s: nothing. */
void cs_iso_sched_free(cs_iso_sched_t *s);

/* D: the communication rounds of s. */
int cs_iso_rounds(const cs_iso_sched_t *s);

/* V: the blocks one process sends (and receives) over all rounds of s. */
long cs_iso_volume(const cs_iso_sched_t *s);

#endif
