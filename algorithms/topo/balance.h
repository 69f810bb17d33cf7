/* Tree balancing of neighbourhood collectives: no MPI.
 *
 * Hoefler and Schneider, "Optimization Principles for Collective Neighborhood Communications",
 * section II-B1 ("Tree Transformations"). A process with many more outgoing messages than its
 * neighbours hands some of them to a lightly loaded neighbour, which forwards them; repeated, this
 * grows forwarding trees (figure 4: a scatter from a hot spot becomes a scatter tree). The gain
 * is the per-message overhead o spread over several processes (alltoall, small blocks only: a
 * forwarded block travels twice) and better use of bandwidth (allgather: the forwarder already
 * receives the block, so the volume does not grow).
 *
 * Model (simplified LogGP, paper and Alexandrov et al.): a k-byte message costs its sender
 * o + (k - 1) G, consecutive sends of a process start at least g apart, it arrives L after the
 * sender is done and costs the receiver o. All four in one unit of time (collsel measures them
 * in microseconds); k is the block size in bytes, the same on every edge (the paper's "globally
 * fixed uniform message size"). Self-loops are local copies: they cost nothing and never move.
 *
 * A plan: messages, each from a sender to a receiver carrying a payload of graph edges (their
 * blocks), and for every edge of the graph its route, the messages that carry its block from its
 * sender to its receiver (one message: sent directly). The direct plan (cs_balance_direct) has
 * one message per edge, i.e. the graph itself. The balancing loop (cs_balance_build), per step:
 *   1. p_m: the process that sends the most messages, m of them (ties: lowest rank);
 *   2. p_s: among p_m's graph out-neighbours that still receive a message from p_m, the one
 *      that sends the fewest, s (ties: lowest rank). The paper takes the globally least loaded
 *      process; taking a neighbour keeps the message p_m -> p_s on an existing edge, which is
 *      what makes forwarding pay (the paper's condition for allgather's volume);
 *   3. if m - s <= t, stop; otherwise move x messages of p_m to p_s, with
 *        alltoall:  x = floor((m + s) / 2) - s - ceil(L / o)
 *        allgather: x = floor((m - s) / 2) - ceil(L / (o + (k - 1) G))
 *      (the paper's formulas: p_m keeps sending for ceil(L / ...) messages while the first
 *      forwarded block is in flight); stop when x <= 0 or no message can move;
 *   4. the result is the plan, among those the loop passes through (the direct one included),
 *      with the lowest predicted time (cs_balance_cost; the latest on ties, so the loop's own
 * result stands unless an earlier plan is predicted to be strictly faster). This is collsel's
 *      convergence test (the paper: "stops when a convergence criteria is met"; "the resulting
 *      tree may not be optimal in the LogGP model"): the loop looks at message counts only and
 *      on some random graphs its last plan predicts a slower collective than the direct one
 *      (about one case in eight of the unit tests' random graphs, p <= 64), so balancing never
 *      predicts a slower plan than the graph itself.
 * Moving a message p_m -> d with payload S: S joins the payload of p_m's message to p_s (the
 * first one, "A") and the message becomes p_s -> d, sent once S has arrived. p_m sends one
 * message fewer, p_s one more. Candidates are p_m's messages other than self-loops and those to
 * p_s, fewest blocks first, then in message order. A message does not move when p_s is already on
 * the route of one of its blocks (routes stay simple paths), when the move would make a message
 * wait for itself (combined messages wait for all of their payload: the dependency graph must
 * stay acyclic), or, for allgather, when A does not already carry the blocks of every sender in
 * S (so no message grows: the paper's "does not increase the total communication volume").
 * Every move lowers the sum of squared message counts (x < m - s), so the loop ends.
 *
 * Rounds: a message whose payload all starts at its sender is in round 0; otherwise in one round
 * after the latest message that brings it a block of its payload. The schedule builders send a
 * round's messages once the previous rounds' receives have completed. Messages are numbered by
 * (round, sender, receiver, creation), payloads list edges in increasing order.
 *
 * Invariants (checked by the unit tests): every edge's route starts at its sender, ends at its
 * receiver, visits no process twice, and each message on it carries the edge; each forwarder on a
 * route is a graph out-neighbour of a process before it on the route; rounds increase along
 * every route; for allgather every message carries one sender's block, as in the direct plan;
 * the predicted time is at most the direct plan's.
 *
 * Cost: each step is O(messages + hops) plus costing the plan (a sort per round); the loop runs
 * once per communicator (and block size, which enters x and the cost). */
#ifndef CS_BALANCE_H
#define CS_BALANCE_H

#include "graph.h"

typedef struct cs_loggp {
    double L; /* latency */
    double o; /* overhead per message, at the sender and at the receiver (> 0) */
    double g; /* gap between two sends of one process */
    double G; /* time per byte */
} cs_loggp_t;

typedef enum cs_balance_kind {
    CS_BALANCE_ALLTOALL,  /* a block per edge */
    CS_BALANCE_ALLGATHER, /* one block per sender, the same on all its edges */
} cs_balance_kind_t;

typedef struct cs_balance {
    int p, nedges; /* of the graph */
    int nmsgs;
    int nrounds;    /* 1 + the largest msg_round; 0 without messages */
    int moves;      /* messages moved by the balancing loop */
    int *msg_src;   /* [nmsgs] sender */
    int *msg_dst;   /* [nmsgs] receiver */
    int *msg_round; /* [nmsgs] */
    /* payload of message k: edges msg_edge[msg_start[k] .. msg_start[k+1]), increasing */
    int *msg_start; /* [nmsgs + 1] */
    int *msg_edge;
    /* route of edge e: messages route_msg[route_start[e] .. route_start[e+1]), sender first */
    int *route_start; /* [nedges + 1] */
    int *route_msg;
} cs_balance_t;

/* The direct plan of g: message e carries edge e, all in round 0 (what `linear` sends). The
 * arrays are allocated here; free with cs_balance_free. CS_ERR_NOMEM; *plan empty on failure. */
int cs_balance_direct(const cs_graph_t *g, cs_balance_t *plan) CS_MUST_CHECK;

/* The balanced plan of g (see above, steps 1-4) for blocks of `block_bytes` bytes (k) under
 * `model` with threshold t (the paper uses t = 2); plan->moves counts the moves behind it.
 * Allocation and failure as cs_balance_direct; CS_ERR_ARG for t < 0, block_bytes < 0, o <= 0 or
 * another parameter negative or not finite. */
int cs_balance_build(const cs_graph_t *g, cs_balance_kind_t kind, const cs_loggp_t *model,
                     double block_bytes, int t, cs_balance_t *plan) CS_MUST_CHECK;

/* Frees the arrays of plan (not plan); plan is then empty. NULL: nothing. */
void cs_balance_free(cs_balance_t *plan);

/* Blocks that message k carries: alltoall, its payload's edges; allgather, the distinct senders
 * of its payload's edges (one block each). */
int cs_balance_msg_blocks(const cs_graph_t *g, const cs_balance_t *plan, cs_balance_kind_t kind,
                          int k);

/* Predicted time of `plan` in the model above (the paper's cost function, made a schedule
 * simulation): round by round, every process starts its sends of the round in message order as
 * soon as their payload is there (start >= previous start + g, the sender busy for
 * o + (bytes - 1) G, bytes = blocks * block_bytes, at least 1), each message arrives L after its
 * sender is done, and every receiver then takes the round's messages in order of arrival, o each.
 * *time is when the last process is done (0 for no messages). `work` holds
 * cs_balance_cost_work(plan) bytes. CS_ERR_ARG for bad parameters, as cs_balance_build. */
long cs_balance_cost_work(const cs_balance_t *plan);
int cs_balance_cost(const cs_graph_t *g, const cs_balance_t *plan, cs_balance_kind_t kind,
                    const cs_loggp_t *model, double block_bytes, void *work,
                    double *time) CS_MUST_CHECK;

#endif
