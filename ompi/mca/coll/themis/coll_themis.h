/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * coll/themis: Open MPI 4.1/5.0 glue around the planners and the engine.
 *
 * Life of a communicator:
 *   comm_query   intracommunicators of size >= 2 that are not our own
 *                private communicators get a module (also when this
 *                process's parameters are invalid: see below).
 *   enable       saves the previous module's allreduce, reduce_scatter,
 *                reduce_scatter_block and allgather and their nonblocking
 *                forms (retained); every fallback goes through these saved
 *                pointers.  Nonblocking calls: coll_themis_nbc.c.
 *   first call   of any of the four collectives, whatever its size, runs
 *                the lazy setup (coll_themis_module.c): local shape ->
 *                ONE agreement allreduce -> private p2p communicator ->
 *                optional probe.  Every rank calls the same collective
 *                first (MPI ordering), so every rank takes part in setup.
 *                On disagreement or error every rank steps aside for good.
 *   later calls  eligible ones run a cached program on the engine; the
 *                others go to the saved previous functions (counted).
 *   disable/destruct  releases the saved modules, the private
 *                communicator, cached programs and engine scratch.
 *
 * Invalid parameters: the process keeps its module
 * so that it still joins the agreement allreduce of every communicator and
 * makes all ranks step aside together.  Returning no module instead would
 * leave ranks with a differing parameter out of the agreement and
 * mismatch the collectives of the others.
 *
 * Messages: errors are rendered from help-mpi-coll-themis.txt with
 * opal_show_help_vstring and written with opal_output by one process:
 * decisions about a communicator by its rank 0, invalid parameters by the
 * lowest failing rank (the agreement tells who).  opal_show_help itself is
 * not used: ORTE 4.1 loses help messages relayed to mpirun while MPI_Init
 * opens the frameworks, and garbles concurrent ones from several ranks.
 * The component adds its install directory ($pkgdatadir) and its source
 * directory to the help search path at open, so the text is found
 * installed or from a build tree.  Setup decisions are logged with
 * opal_output_verbose on the component stream (coll_themis_verbose).
 */
#ifndef MCA_COLL_THEMIS_H
#define MCA_COLL_THEMIS_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stdint.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/request/request.h"

#include "coll_themis_compat.h"

#include "algorithm.h"
#include "chunking.h"
#include "defaults.h"
#include "hash.h"
#include "coll_themis_engine.h"
#include "plan.h"
#include "program_runs.h"
#include "rules.h"
#include "scheduler.h"
#include "simulator.h"
#include "topology.h"

BEGIN_C_DECLS

#define MCA_COLL_THEMIS_HELP_FILE "help-mpi-coll-themis.txt"

/* Info key that marks the private communicators of this component. */
#define MCA_COLL_THEMIS_PRIVATE_INFO_KEY "ompi_comm_coll_themis_private"

/* The four collectives, their nonblocking and their persistent forms,
 * for the saved previous functions, counters and log messages. */
typedef enum {
    MCA_COLL_THEMIS_ALLREDUCE = 0,
    MCA_COLL_THEMIS_REDUCE_SCATTER = 1,
    MCA_COLL_THEMIS_REDUCE_SCATTER_BLOCK = 2,
    MCA_COLL_THEMIS_ALLGATHER = 3,
    MCA_COLL_THEMIS_IALLREDUCE = 4,
    MCA_COLL_THEMIS_IREDUCE_SCATTER = 5,
    MCA_COLL_THEMIS_IREDUCE_SCATTER_BLOCK = 6,
    MCA_COLL_THEMIS_IALLGATHER = 7,
    MCA_COLL_THEMIS_PALLREDUCE = 8,     /* MPI_Allreduce_init ... */
    MCA_COLL_THEMIS_PREDUCE_SCATTER = 9,
    MCA_COLL_THEMIS_PREDUCE_SCATTER_BLOCK = 10,
    MCA_COLL_THEMIS_PALLGATHER = 11,
    MCA_COLL_THEMIS_NCOLLS = 12
} mca_coll_themis_coll_id_t;

/* Blocking collectives come first; I<coll> is <coll> + this, P<coll>
 * <coll> + twice this. */
#define MCA_COLL_THEMIS_NBLOCKING 4

/* The blocking collective of a (nonblocking) one. */
static inline mca_coll_themis_coll_id_t mca_coll_themis_blocking_id(mca_coll_themis_coll_id_t id)
{
    return (mca_coll_themis_coll_id_t) (id % MCA_COLL_THEMIS_NBLOCKING);
}

/* The planner collectives (themis_coll_t) that have a
 * coll_themis_<coll>_algorithm parameter; reduce_scatter_block shares
 * reduce_scatter's. */
#define MCA_COLL_THEMIS_NALGO_COLLS THEMIS_NCOLLS

/* Kind of link a dimension crosses; selects default rates. */
typedef enum {
    MCA_COLL_THEMIS_LEVEL_SOCKET = 0,   /* same NUMA domain or socket */
    MCA_COLL_THEMIS_LEVEL_NODE = 1,     /* same node, across sockets */
    MCA_COLL_THEMIS_LEVEL_NETWORK = 2   /* between nodes */
} mca_coll_themis_level_t;

/* Parsed and validated MCA parameters: identical on every rank that was
 * given the same parameters, and hashed for the agreement. */
/* A shape declared for communicators of one size (coll_themis_dims,
 * coll_themis_torus, or a rules file's "shapes"). */
#define MCA_COLL_THEMIS_MAX_SHAPES 16
typedef struct {
    uint64_t comm_size;
    int ndims;
    uint32_t dims[THEMIS_MAX_DIMS];     /* innermost first */
} mca_coll_themis_shape_decl_t;

typedef struct {
    /* Declared shapes, at most one per communicator size; a communicator
     * of another size gets an automatic shape. */
    int nshapes;
    mca_coll_themis_shape_decl_t shapes[MCA_COLL_THEMIS_MAX_SHAPES];
    int nbw;                            /* 0 = defaults, 1 = all dims, else per dim */
    uint64_t bw_bps[THEMIS_MAX_DIMS];
    int nlat;
    themis_time_t lat_ps[THEMIS_MAX_DIMS];
    int nkinds;
    themis_dim_kind_t kinds[THEMIS_MAX_DIMS];
    uint32_t chunks;                    /* most chunks per call */
    uint64_t min_chunk_bytes;           /* 0 = automatic (see the module's) */
    themis_sched_kind_t scheduler;
    themis_order_policy_t order;
    themis_latency_mode_t latency;      /* coll_themis_latency_model */
    uint32_t chunks_in_flight;
    /* coll_themis_nbc_chunks_in_flight by themis_coll_t (reduce_scatter
     * covers reduce_scatter_block); 0: as chunks_in_flight */
    uint32_t nbc_chunks_in_flight[THEMIS_NCOLLS];
    int64_t min_bytes;                  /* -1 = automatic (see the module's) */
    /* coll_themis_<coll>_algorithm by themis_coll_t: a row of the
     * algorithm table (algorithm.h) or THEMIS_ALGO_AUTO */
    int algorithm[MCA_COLL_THEMIS_NALGO_COLLS];
    bool probe;
    uint32_t direct_max;
    uint64_t scratch_max;               /* bytes, 0 = unbounded */
    /* coll_themis_torus: rows x cols, 0 = not given; when given, the shape
     * {cols, rows} is declared for rows x cols ranks and, unless
     * coll_themis_dim_kinds says otherwise, its kinds are biring
     * (torus_kinds: they apply to that shape only). */
    uint32_t torus_rows, torus_cols;
    bool torus_kinds;
    uint64_t rules_hash;                /* of coll_themis_rules_filename's bytes, 0 = none */
    /* coll_themis_<coll>_schedule given: that collective runs the
     * `schedule` row under `auto`; its hash (of the loaded schedule, or of
     * the path and error when it did not load) joins the agreement. */
    bool schedule_set[MCA_COLL_THEMIS_NALGO_COLLS];
    uint64_t schedule_hash[MCA_COLL_THEMIS_NALGO_COLLS];
    uint64_t graph_hash;                /* of coll_themis_graph, 0 = none */
    uint64_t host_map_hash;             /* of coll_themis_host_map, 0 = none */
} mca_coll_themis_config_t;

typedef struct mca_coll_themis_component_t {
    mca_coll_base_component_t super;

    /* MCA parameter storage (owned by the MCA variable system) */
    int priority;
    char *dims_param;
    char *rules_param;
    char *bandwidths_param;
    char *latencies_param;
    char *kinds_param;
    int chunks_param;
    size_t min_chunk_bytes_param;
    size_t scratch_max_param;
    char *scheduler_param;
    char *intra_order_param;
    char *latency_model_param;
    int chunks_in_flight_param;
    char *nbc_chunks_in_flight_param;
    long min_bytes_param;
    char *algorithm_param[MCA_COLL_THEMIS_NALGO_COLLS];
    int verbose;
    bool probe_param;
    int direct_max_param;
    char *torus_param;
    char *trace_param;                  /* local: not part of the agreement */

    int output;                         /* verbose stream */
    bool config_ok;                     /* all parameters valid */
    bool config_reported;               /* invalid ones were shown */
    char config_errors[1024];           /* one line per invalid parameter */
    mca_coll_themis_config_t config;
    uint64_t config_hash;
    themis_rules_t rules;               /* coll_themis_rules_filename, parsed */
    /* coll_themis_<coll>_schedule: the file, its text until first needed,
     * its <algo> name and ngpus (0: its start tag did not say), the checked
     * schedule (nxfers 0 when it did not load) and why it did not:
     * mca_coll_themis_schedule_get */
    char *schedule_param[MCA_COLL_THEMIS_NALGO_COLLS];
    char *schedule_text[MCA_COLL_THEMIS_NALGO_COLLS];
    char schedule_name[MCA_COLL_THEMIS_NALGO_COLLS][64];
    uint32_t schedule_ngpus[MCA_COLL_THEMIS_NALGO_COLLS];
    themis_xfer_sched_t schedule[MCA_COLL_THEMIS_NALGO_COLLS];
    char schedule_error[MCA_COLL_THEMIS_NALGO_COLLS][256];
    char *host_map_param;               /* coll_themis_host_map (tests) */
    char *graph_param;                  /* coll_themis_graph */
    themis_graph_t graph;               /* parsed; nnodes 0 = none */
} mca_coll_themis_component_t;

OMPI_DECLSPEC extern mca_coll_themis_component_t mca_coll_themis_component;


/* Shape of a communicator: rank = sum_i coord_i * place[i]. */
typedef struct {
    bool valid;                         /* false: no usable shape (reason says why) */
    bool declared;                      /* declared for this size, not automatic */
    int ndims;
    uint32_t size[THEMIS_MAX_DIMS];
    int place[THEMIS_MAX_DIMS];
    mca_coll_themis_level_t level[THEMIS_MAX_DIMS];
    mca_coll_themis_level_t farthest;   /* farthest peer of this rank */
    mca_coll_themis_level_t node_level; /* farthest peer on this rank's node */
    int local_ranks;                    /* ranks of the comm on this node */
    bool from_graph;                    /* dims from coll_themis_graph's hosts */
    char reason[200];
} mca_coll_themis_shape_t;

/* What a cached program runs, for the counters, the trace and the
 * tiny-messages warning. */
typedef struct {
    int algo;           /* row of the algorithm table */
    bool substituted;   /* the requested row cannot run on this shape */
    /* The call's chunk count (planners/core/chunking.h); rings and torus2d split
     * each of their four quarters into max(1, nchunks / 4). */
    uint32_t nchunks;
    uint64_t messages;        /* transfers this rank sends and receives */
    uint64_t message_bytes;   /* their bytes */
    /* Why no row serves the call (a refusal): the plan-cache entry's text,
     * valid until the next miss on the module; NULL otherwise. */
    const char *why_refused;
} mca_coll_themis_plan_choice_t;

/* Most tag lanes, hence most calls in flight on a communicator before a
 * new one waits for the lane's previous call (coll_themis_nbc.c). */
#define MCA_COLL_THEMIS_MAX_LANES 256

/* coll_themis_nbc_chunks_in_flight: its default per collective (measured
 * on the test bed, benchmarks/README.md: reduce_scatter's communication
 * time grows with a wider window, the others' overlap needs one) and the
 * largest value. */
#define MCA_COLL_THEMIS_NBC_CHUNKS_IN_FLIGHT "allreduce:8,reduce_scatter:4,allgather:8"
#define MCA_COLL_THEMIS_MAX_NBC_CHUNKS_IN_FLIGHT 1024

/* Plan cache: a small fixed table per communicator with least recently
 * used replacement.  An application cycles through few message sizes per
 * communicator; 16 programs bound the memory (each is O(steps) of one
 * rank) while covering typical size sweeps.  Refusals are cached too. */
#define MCA_COLL_THEMIS_PLAN_CACHE_SIZE 16

struct mca_coll_themis_plan_pin_t;

typedef struct {
    bool used;
    bool refused;                       /* the planners refused: fall back */
    char why[1024];                     /* why, when refused */
    /* Outstanding nonblocking calls run prog: freeing the entry hands its
     * arrays to the pin (mca_coll_themis_plan_pin_adopt), NULL when none. */
    struct mca_coll_themis_plan_pin_t *pin;
    themis_coll_t coll;
    uint64_t count;                     /* AR: elements; AG: per rank; RS: total */
    uint64_t *recvcounts;               /* RS only: [comm size] */
    size_t elem_size;
    uint64_t last_use;
    mca_coll_themis_plan_choice_t choice;   /* what the program runs */
    themis_program_t prog;
    mca_coll_themis_engine_layout_t layout; /* prog checked and laid out once */
} mca_coll_themis_plan_entry_t;

typedef struct {
    mca_coll_themis_plan_entry_t entries[MCA_COLL_THEMIS_PLAN_CACHE_SIZE];
    uint64_t clock;
} mca_coll_themis_plan_cache_t;

typedef enum {
    MCA_COLL_THEMIS_STATE_NEW = 0,      /* setup not run yet */
    MCA_COLL_THEMIS_STATE_READY = 1,    /* themis path available */
    MCA_COLL_THEMIS_STATE_ASIDE = 2,    /* stepped aside for good */
    MCA_COLL_THEMIS_STATE_PENDING = 3   /* nonblocking setup under way */
} mca_coll_themis_state_t;

struct mca_coll_themis_setup_t;
struct mca_coll_themis_request_t;

/* A previous component's function, whichever collective it serves (as
 * coll/xhc indexes its saved functions). */
typedef union {
    void *any;
    mca_coll_base_module_allreduce_fn_t allreduce;
    mca_coll_base_module_reduce_scatter_fn_t reduce_scatter;
    mca_coll_base_module_reduce_scatter_block_fn_t reduce_scatter_block;
    mca_coll_base_module_allgather_fn_t allgather;
    mca_coll_base_module_iallreduce_fn_t iallreduce;
    mca_coll_base_module_ireduce_scatter_fn_t ireduce_scatter;
    mca_coll_base_module_ireduce_scatter_block_fn_t ireduce_scatter_block;
    mca_coll_base_module_iallgather_fn_t iallgather;
    mca_coll_base_module_allreduce_init_fn_t allreduce_init;
    mca_coll_base_module_reduce_scatter_init_fn_t reduce_scatter_init;
    mca_coll_base_module_reduce_scatter_block_init_fn_t reduce_scatter_block_init;
    mca_coll_base_module_allgather_init_fn_t allgather_init;
} mca_coll_themis_fn_t;

typedef struct {
    mca_coll_themis_fn_t fn;
    mca_coll_base_module_t *module;
} mca_coll_themis_prev_t;

typedef struct mca_coll_themis_module_t {
    mca_coll_base_module_t super;

    /* The functions and modules that were in place before us, by
     * collective (saved at enable, retained, released at disable). */
    mca_coll_themis_prev_t prev[MCA_COLL_THEMIS_NCOLLS];

    mca_coll_themis_state_t state;
    bool in_setup;                      /* re-entrancy guard of the blocking setup */
    /* The nonblocking setup under way (state PENDING), and the calls made
     * meanwhile, in call order: they wait for it and are then started in
     * that order (coll_themis_nbc.c).  Under the request list's lock. */
    struct mca_coll_themis_setup_t *setup;
    struct mca_coll_themis_request_t *defer_head, *defer_tail;
    bool draining;                      /* deferred calls being started */
    /* Id agreements, in call order; the first one runs. */
    struct mca_coll_themis_request_t *cid_head, *cid_tail;
    struct mca_coll_themis_module_t *next_pending;   /* modules whose setup runs */

    /* Private communicator for the engine's point-to-point. */
    ompi_communicator_t *p2p_comm;
    uint32_t p2p_cid;
    int tag_ub;

    themis_topology_t topo;
    themis_dim_algo_t dim_algo[THEMIS_MAX_DIMS];
    int *coord_to_rank;                 /* NULL = identity */
    /* coll_themis_graph with its rank nodes renumbered as the runtime
     * placed this communicator's ranks on its hosts (rank node i = rank
     * i); NULL: the component's graph as given (coll_themis_placement.c). */
    themis_graph_t *graph;
    /* Per-shape state of the algorithm table's rows (e.g. the rings'
     * Hamiltonian cycles), built once, freed with each row's state_free. */
    void *algo_state[THEMIS_MAX_ALGORITHMS];
    /* Every row's predicted times by message-size class, per collective:
     * built on the first call that ranks rows, then a lookup per size. */
    themis_algo_table_t algo_table[MCA_COLL_THEMIS_NALGO_COLLS];
    uint64_t min_bytes;                 /* resolved at setup, the same on every rank */
    uint64_t min_chunk_bytes;           /* resolved at setup, the same on every rank */
    bool spans_nodes;                   /* agreed at setup: ranks on more than one node */

    mca_coll_themis_plan_cache_t cache;
    mca_coll_themis_scratch_t scratch;   /* of blocking calls */
    /* Scratch of finished nonblocking calls, for the next ones; under
     * coll_themis_nbc.c's lock. */
    mca_coll_themis_scratch_pool_t nbc_scratch;

    /* Tag lanes of the engine (coll_themis_nbc.c): every themis-path call,
     * blocking or not, runs in lane seq mod nlanes; calls start in the same
     * order on every rank, so seq is equal across ranks. */
    uint32_t seq;
    uint32_t nlanes;                     /* 0 until the first call */
    uint8_t lane_busy[MCA_COLL_THEMIS_MAX_LANES];
} mca_coll_themis_module_t;

OBJ_CLASS_DECLARATION(mca_coll_themis_module_t);

/* component / module */
int mca_coll_themis_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_themis_comm_query(struct ompi_communicator_t *comm,
                                                   int *priority);
int mca_coll_themis_lazy_setup(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm);
/* A duplicate of comm for the engine's point-to-point, named after name,
 * that coll/themis stays off; its index and MPI_TAG_UB.  Collective over
 * comm.  Free with mca_coll_themis_private_comm_free. */
int mca_coll_themis_private_comm(ompi_communicator_t *comm, const char *name,
                                 ompi_communicator_t **dup, uint32_t *index, int *tag_ub);
void mca_coll_themis_private_comm_free(ompi_communicator_t **dup, uint32_t index);
/* The setup without blocking (coll_themis_module.c): start makes the
 * module PENDING (or steps aside on error); test finishes it once its
 * requests completed, never driving progress itself (*done: not PENDING
 * any more; returns the setup's error, if any). */
int mca_coll_themis_setup_start(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm);
int mca_coll_themis_setup_test(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                               bool *done);

/* parameters */
int mca_coll_themis_params_register(void);
/* Parses the registered values into mca_coll_themis_component.config and
 * reports bad values; returns true when all are valid. */
bool mca_coll_themis_params_parse(void);
/* coll_themis_<coll>_schedule for a communicator of nranks ranks: parsed
 * and checked when the first communicator of the file's ngpus needs it
 * (once per process; a file that fails is said then).  NULL when none,
 * unusable, or for another number of ranks (decided by its start tag
 * alone, why says so; why is "" otherwise). */
const themis_xfer_sched_t *mca_coll_themis_schedule_get(themis_coll_t coll, int nranks,
                                                        char *why, size_t len);
/* Shows the invalid parameters, once per process. */
void mca_coll_themis_params_report(void);
/* Renders a topic of the help file and writes it to stderr. */
void mca_coll_themis_show_help(const char *topic, ...);
/* A row's name, or "auto" for THEMIS_ALGO_AUTO. */
const char *mca_coll_themis_algorithm_name(int index);
const char *mca_coll_themis_level_name(mca_coll_themis_level_t level);


/* performance variables */
int mca_coll_themis_pvars_register(void);
void mca_coll_themis_count_call(mca_coll_themis_coll_id_t coll);
void mca_coll_themis_count_fallback(mca_coll_themis_coll_id_t coll);
/* coll_themis_tiny_message_calls: a call whose program makes too many
 * small messages (coll_themis_colls.c). */
void mca_coll_themis_count_tiny(void);
/* coll_themis_cid_agreements (coll_themis_colls.c). */
void mca_coll_themis_count_cid(void);
/* After a themis-path call: coll_themis_<coll>_<algorithm>_calls and
 * coll_themis_<coll>_substitutions. */
void mca_coll_themis_count_algorithm(mca_coll_themis_coll_id_t coll,
                                     const mca_coll_themis_plan_choice_t *choice);
const char *mca_coll_themis_coll_name(mca_coll_themis_coll_id_t coll);

/* dimensions */
/* The declared shape for communicators of comm_size: the rules file's,
 * then coll_themis_dims' / coll_themis_torus'; NULL when none. */
const mca_coll_themis_shape_decl_t *mca_coll_themis_declared_shape(uint64_t comm_size);
void mca_coll_themis_dims_local(struct ompi_communicator_t *comm,
                                const mca_coll_themis_config_t *cfg,
                                mca_coll_themis_shape_t *shape);
uint64_t mca_coll_themis_shape_hash(const mca_coll_themis_shape_t *shape);
void mca_coll_themis_dims_single(mca_coll_themis_shape_t *shape, int comm_size,
                                 mca_coll_themis_level_t level);
/* Default rates of a dimension crossing `level`; `sharing` ranks share the
 * node's network interface. */
void mca_coll_themis_dims_default_rates(mca_coll_themis_level_t level, int sharing,
                                        uint64_t *bw_bps, themis_time_t *lat_ps);
/* Ping-pong probe of every dimension on p2p_comm (through m->coord_to_rank), agreed on all ranks by
 * one allreduce through the previous module.  Overwrites bw/lat. */
int mca_coll_themis_dims_probe(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                               const mca_coll_themis_shape_t *shape, uint64_t *bw_bps,
                               themis_time_t *lat_ps);

/* placement (coll_themis_placement.c) */
/* coll_themis_host_map ("0,0,1,1": the host of each MPI_COMM_WORLD rank,
 * for tests) parsed; *hash 0 when empty.  false with why when malformed. */
bool mca_coll_themis_host_map_parse(const char *text, uint64_t *hash, char *why, size_t len);
void mca_coll_themis_host_map_free(void);
/* Whether coll_themis_host_map puts comm rank q on another host than this
 * rank (false without a map). */
bool mca_coll_themis_host_map_apart(struct ompi_communicator_t *comm, int q);
/* The lowest comm rank on this rank's host (from the runtime's locality,
 * coll_themis_host_map applied): this rank's entry of the placement the
 * setup agreement gathers (coll_themis_dims.c). */
int mca_coll_themis_placement_host(struct ompi_communicator_t *comm);
/* After the agreement: host[r] = 1 + the lowest rank on rank r's host,
 * equal on every rank.  Logs the placement (verbose 10); maps the ranks
 * onto coll_themis_graph's hosts (m->graph) or says once why not; dims
 * taken from the graph then follow the runtime's hosts (place values and
 * levels; *order, malloc'd, maps coordinate index -> rank where place
 * values cannot say it, else stays NULL).  OMPI_ERR_OUT_OF_RESOURCE is
 * the only error. */
int mca_coll_themis_placement_apply(mca_coll_themis_module_t *m,
                                    struct ompi_communicator_t *comm, const uint64_t *host,
                                    mca_coll_themis_level_t node_level,
                                    mca_coll_themis_shape_t *shape, int **order);

static inline const themis_graph_t *mca_coll_themis_graph_of(const mca_coll_themis_module_t *m)
{
    return NULL != m->graph ? m->graph : &mca_coll_themis_component.graph;
}

/* What runs a call (coll_themis_decide.c). */
typedef struct {
    uint64_t min_bytes;                 /* below: the previous component */
    int algorithm;                      /* a row of algorithm.h or THEMIS_ALGO_AUTO */
    uint32_t max_chunks;                /* before the chunk floors */
    uint32_t chunks_in_flight;                  /* chunks in flight per dimension */
    const themis_rule_t *rule;          /* the rules file's rule, NULL: parameters */
} mca_coll_themis_decision_t;

void mca_coll_themis_decide(const mca_coll_themis_module_t *m, int comm_size,
                            themis_coll_t coll, uint64_t bytes,
                            mca_coll_themis_decision_t *d);

/* plan cache */
void mca_coll_themis_plan_cache_init(mca_coll_themis_plan_cache_t *cache);
void mca_coll_themis_plan_cache_clear(mca_coll_themis_plan_cache_t *cache);
/* Finds or builds this rank's program; the pointer is valid until the next
 * call on the same module.  OMPI_ERR_NOT_SUPPORTED: the planners refused
 * the request (same on every rank, so the caller may fall back).  *choice
 * (may be NULL) tells which algorithm the program runs, with how many
 * chunks and messages. */
int mca_coll_themis_plan_get(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                             themis_coll_t coll, uint64_t count, const uint64_t *recvcounts,
                             size_t elem_size, const themis_program_t **prog,
                             const mca_coll_themis_engine_layout_t **layout,
                             mca_coll_themis_plan_choice_t *choice);

/* The block geometry of a call, for mca_coll_themis_run_blocks. */
typedef struct {
    themis_coll_t coll;
    const uint64_t *counts;         /* reduce-scatter: elements per rank */
    uint64_t count;                 /* allgather: elements per rank; allreduce: all */
    size_t elem_size;               /* bytes of an element (the plan key) */
    size_t extent;                  /* bytes from one element to the next */
} mca_coll_themis_blocks_t;

/* Runs `whole` (the engine arguments of the whole call's program), or,
 * when its scratch would exceed coll_themis_scratch_max, the call as
 * segments that fit (coll_themis_segment.c; they record no op times).
 * Returns the engine's status; *segments says how many ran. */
int mca_coll_themis_run_blocks(mca_coll_themis_module_t *m, struct ompi_communicator_t *comm,
                               const mca_coll_themis_blocks_t *call,
                               const mca_coll_themis_engine_args_t *whole,
                               uint64_t *segments);

/* A call that runs as consecutive segments (coll_themis_segment.c). */
typedef struct mca_coll_themis_segments_t mca_coll_themis_segments_t;
/* In the caller's thread: *segs NULL when `whole` runs as one program,
 * else every segment's program resolved from the plan cache and pinned. */
int mca_coll_themis_segments_prepare(mca_coll_themis_module_t *m,
                                     struct ompi_communicator_t *comm,
                                     const mca_coll_themis_blocks_t *call,
                                     const mca_coll_themis_engine_args_t *whole,
                                     mca_coll_themis_segments_t **segs);
/* The next segment's engine arguments in *args (*more false after the
 * last).  The first call keeps *args's call-wide fields (lane, scratch,
 * communicator) for all segments.  No plan cache: safe in progress. */
int mca_coll_themis_segments_next(mca_coll_themis_segments_t *segs,
                                  mca_coll_themis_engine_args_t *args, bool *more);
uint64_t mca_coll_themis_segments_count(const mca_coll_themis_segments_t *segs);
/* After the last segment (or an error rc): puts a reduce-scatter's block
 * collected aside in place, frees segs (NULL allowed); returns rc. */
int mca_coll_themis_segments_finish(mca_coll_themis_segments_t *segs, int rc);
void mca_coll_themis_segments_free(mca_coll_themis_segments_t *segs);

/* Sets choice->messages and message_bytes from the transfers of prog
 * (elements of elem_size bytes); at plan time, for the tiny-messages
 * check of every call. */
void mca_coll_themis_plan_messages(const themis_program_t *prog, size_t elem_size,
                                   mca_coll_themis_plan_choice_t *choice);

/* trace (coll_themis_trace.c): JSON lines, one per themis-path call and
 * per fallback, to the file coll_themis_trace names (docs/coll_themis.md) */
typedef struct {
    ompi_communicator_t *comm;
    mca_coll_themis_coll_id_t coll;
    uint64_t bytes;                     /* full vector */
    size_t dtype_size;                  /* the user's datatype */
    size_t elem_size;                   /* the engine's element */
    const mca_coll_themis_module_t *module;
    const themis_program_t *prog;       /* NULL: a call of 0 bytes */
    const mca_coll_themis_plan_choice_t *choice;
    uint64_t start_ns;                  /* CLOCK_MONOTONIC when the engine started */
    uint64_t end_ns;                    /* ... and when it returned */
    const uint64_t *op_ns;              /* the engine's op times (engine args) */
} mca_coll_themis_trace_call_t;

/* Whether to trace: coll_themis_trace is set and its file is open (the
 * first use opens it; a failure is shown once and turns tracing off). */
bool mca_coll_themis_trace_on(void);
void mca_coll_themis_trace_call(const mca_coll_themis_trace_call_t *call);
void mca_coll_themis_trace_fallback(ompi_communicator_t *comm, mca_coll_themis_coll_id_t coll,
                                    uint64_t bytes, const char *why);
/* At component close. */
void mca_coll_themis_trace_close(void);

/* ------------------------------------------------------- nonblocking */

/* What a themis-path call does once its engine is done
 * (mca_coll_themis_call_finish): the result out of staging, the trace
 * record, counters and the verbose line.  Blocking calls keep it on the
 * stack, nonblocking ones in their request. */
typedef enum {
    MCA_COLL_THEMIS_UNSTAGE_NONE = 0,
    MCA_COLL_THEMIS_UNSTAGE_COPY = 1,   /* a reduction's staged span back (same type) */
    MCA_COLL_THEMIS_UNSTAGE_UNPACK = 2  /* packed data unpacked into the user's buffer */
} mca_coll_themis_unstage_t;

typedef struct {
    mca_coll_themis_module_t *module;
    ompi_communicator_t *comm;
    mca_coll_themis_coll_id_t coll;
    uint64_t bytes;
    size_t dtype_size;
    mca_coll_themis_plan_choice_t choice;
    themis_program_t prog;              /* a copy of the struct, for the trace */
    bool trace;
    mca_coll_themis_trace_call_t t;
    uint64_t *op_ns;
    mca_coll_themis_unstage_t unstage;
    ompi_datatype_t *dtype;             /* the user's type of out */
    void *out;
    uint64_t count;                     /* user elements at out */
    char *buf;                          /* the staged result */
    size_t nbytes;                      /* UNPACK: bytes at buf */
    char *stage[2];                     /* freed at finish */
} mca_coll_themis_finish_t;

/* Returns the call's result (rc, or a failure to unstage). */
int mca_coll_themis_call_finish(mca_coll_themis_finish_t *f, int rc);

/* ------------------------------------------------- the shared call path */

/* How a reduction's data reaches the engine (coll_themis_colls.c). */
typedef enum {
    MCA_COLL_THEMIS_STAGE_NONE = 0,
    MCA_COLL_THEMIS_STAGE_PACK = 1,
    MCA_COLL_THEMIS_STAGE_LAYOUT = 2
} mca_coll_themis_stage_t;

typedef struct {
    ompi_datatype_t *dtype;     /* what the engine works with */
    uint64_t factor;            /* engine elements per user element */
    size_t elem_size;           /* bytes of one engine element */
    ptrdiff_t shift;            /* data offset from the user's pointer */
    mca_coll_themis_stage_t stage;
} mca_coll_themis_elems_t;

/* A call as the shared path sees it: the arguments of whichever
 * collective, indexed by the collective. */
typedef struct {
    mca_coll_themis_coll_id_t id;       /* blocking, nonblocking or persistent */
    themis_coll_t coll;
    const void *sbuf;
    void *rbuf;
    ompi_datatype_t *dtype;             /* allgather: the receive type */
    ompi_op_t *op;                      /* allgather: NULL */
    int count;                          /* allreduce count, allgather rcount */
    const int *rcounts;                 /* reduce_scatter; NULL: every rank rcount */
    int rcount;                         /* reduce_scatter_block */
    int scount;                         /* allgather */
    ompi_datatype_t *sdtype;            /* allgather */
    /* Nonblocking and persistent: where the request goes; else NULL. */
    ompi_request_t **request;
    /* A start of a persistent request: the request that runs it. */
    struct mca_coll_themis_request_t *persist;
    bool resumed;                       /* nonblocking: deferred behind the setup, now started */
    /* MPI_Iallreduce: the entry point's return address, which tells the
     * user's calls (through MPI's binding) from Open MPI's own. */
    const void *caller;
} mca_coll_themis_call_t;

/* A call decided and planned (mca_coll_themis_call): everything a run
 * needs besides the contents of the buffers. */
typedef struct {
    bool empty;                         /* 0 bytes: nothing to run */
    uint64_t total;                     /* elements of the full vector, user's type */
    uint64_t bytes;
    const themis_program_t *prog;       /* a plan cache entry's, or a pinned copy */
    const mca_coll_themis_engine_layout_t *layout;
    mca_coll_themis_plan_choice_t choice;
    mca_coll_themis_elems_t el;         /* reductions */
    mca_coll_themis_blocks_t blocks;
    uint64_t *counts;                   /* reduce-scatter: [comm size], owned */
} mca_coll_themis_planned_t;

/*
 * The path every collective shares: setup on the first call (blocking
 * for a blocking call or persistent init; a nonblocking call starts the
 * nonblocking setup and is deferred behind it, then resumed by
 * mca_coll_themis_call_resume), then the decision and plan, then the run
 * - or, for a persistent init, the request
 * (mca_coll_themis_persistent_create).  Communicator-id agreements run
 * by mca_coll_themis_cid_start.
 * Returns the call's result, or sets *fallback (logged and counted) when
 * the previous component is to serve it.
 */
int mca_coll_themis_call(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                         const mca_coll_themis_call_t *c, bool *fallback);

/* An entry point's body: while setup runs its own collectives
 * (re-entrancy) or when the shared path declines, the saved previous
 * function serves the call. */
#define MCA_COLL_THEMIS_ENTRY(m, comm, call, prev_call)                       \
    do {                                                                      \
        bool fallback_ = (m)->in_setup;                                       \
        int rc_ = OMPI_SUCCESS;                                               \
        if (!fallback_) {                                                     \
            rc_ = mca_coll_themis_call((m), (comm), &(call), &fallback_);     \
        }                                                                     \
        return fallback_ ? (prev_call) : rc_;                                 \
    } while (0)

/* The persistent request of a planned init (coll_themis_persistent.c):
 * takes *p; the request goes to *c->request. */
int mca_coll_themis_persistent_create(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                                      const mca_coll_themis_call_t *c,
                                      mca_coll_themis_planned_t *p);

/* Runs (blocking), starts (nonblocking) or starts again (c->persist) a
 * planned call on the buffers of c. */
int mca_coll_themis_call_run(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                             const mca_coll_themis_call_t *c, const mca_coll_themis_planned_t *p);
void mca_coll_themis_planned_free(mca_coll_themis_planned_t *p);

/* A nonblocking call on the themis path (coll_themis_nbc.c); a persistent
 * request (coll_themis_persistent.c) is one that is started again. */
typedef struct mca_coll_themis_request_t {
    ompi_coll_base_nbc_request_t super;
    struct mca_coll_themis_request_t *next;   /* outstanding calls */
    mca_coll_themis_module_t *module;
    ompi_communicator_t *comm;          /* retained until freed */
    mca_coll_themis_engine_t *engine;
    mca_coll_themis_scratch_t scratch;  /* the call's own */
    struct mca_coll_themis_plan_pin_t *pin;
    /* A call larger than coll_themis_scratch_max: its segments, the
     * running one's engine in `engine`; NULL for one program. */
    mca_coll_themis_segments_t *segs;
    ompi_datatype_t *dtypes[2];         /* retained: engine's and user's */
    ompi_op_t *op;                      /* retained, or NULL */
    uint32_t lane;
    /* Persistent: scratch and pin stay from start to start, messages go
     * over the request's own private communicator (no lane). */
    bool persistent;
    ompi_communicator_t *p2p_comm;      /* persistent: its own, else NULL */
    uint32_t p2p_index;
    int tag_ub;
    /* A call made while its communicator's setup ran (deferred): its
     * arguments (coll_themis_colls.c's), the next deferred call, and once
     * started, the request that runs it (a themis request, or the
     * previous component's on the private communicator). */
    void *call;
    struct mca_coll_themis_request_t *defer_next;
    ompi_request_t *inner;
    /* A communicator-id agreement (mca_coll_themis_cid_start). */
    bool is_cid;
    struct {
        int *out;
        int val, in;
        bool max;                       /* MPI_MAX, else MPI_MIN */
        bool active;                    /* its rounds started */
        uint32_t dist;                  /* this round's distance */
        ompi_request_t *sreq, *rreq;
        struct mca_coll_themis_request_t *next;   /* the module's queue */
    } cid;
    bool done;                          /* completed (under the list lock) */
    bool freed;                         /* MPI_Request_free while active */
    mca_coll_themis_finish_t fin;
} mca_coll_themis_request_t;

OBJ_CLASS_DECLARATION(mca_coll_themis_request_t);

/* A request for a call on comm, not started.  NULL without memory. */
mca_coll_themis_request_t *mca_coll_themis_request_new(mca_coll_themis_module_t *m,
                                                       ompi_communicator_t *comm);
/* The same for an object of a subclass, allocated by the caller. */
void mca_coll_themis_request_init(mca_coll_themis_request_t *req, mca_coll_themis_module_t *m,
                                  ompi_communicator_t *comm);
/* Starts req's engine on args (its scratch and lane are the request's;
 * args->prog and layout must come from mca_coll_themis_plan_get) and hands
 * it to progress.  blocks (or NULL): the call's, so that one larger than
 * coll_themis_scratch_max runs in segments.  On error (nothing was sent)
 * req is released. */
int mca_coll_themis_request_start(mca_coll_themis_request_t *req,
                                  const mca_coll_themis_engine_args_t *args,
                                  const mca_coll_themis_blocks_t *blocks);
/* The two halves of a start: what req holds for the call (its types and
 * op retained, the plan pinned; args->prog is the plan cache's), done once
 * for a persistent request; and the launch (lane unless persistent,
 * engine, progress list), each start.  Launch does not release req on
 * error. */
int mca_coll_themis_request_hold(mca_coll_themis_request_t *req,
                                 const mca_coll_themis_engine_args_t *args);
int mca_coll_themis_request_launch(mca_coll_themis_request_t *req,
                                   const mca_coll_themis_engine_args_t *args,
                                   const mca_coll_themis_blocks_t *blocks);
/* A request complete at once with rc (a call without messages). */
void mca_coll_themis_request_complete_now(mca_coll_themis_request_t *req, int rc);
/* Releases a request that was never started. */
void mca_coll_themis_request_release(mca_coll_themis_request_t *req);

/* The tag lane of the next call on m: waits (driving progress) while the
 * lane's previous call is in flight. */
uint32_t mca_coll_themis_lane_acquire(mca_coll_themis_module_t *m);
void mca_coll_themis_lane_release(mca_coll_themis_module_t *m, uint32_t lane);

/* A plan cache entry is freed: if outstanding calls pin it (*pin), the
 * pin takes prog and layout and true is returned (the entry must not free
 * them). */
/* Pins the program of a plan cache entry (from mca_coll_themis_plan_get):
 * its arrays live until the pin is put.  NULL without memory. */
struct mca_coll_themis_plan_pin_t *mca_coll_themis_plan_pin(const themis_program_t *prog);
void mca_coll_themis_plan_unpin(struct mca_coll_themis_plan_pin_t *pin);
bool mca_coll_themis_plan_pin_adopt(struct mca_coll_themis_plan_pin_t **pin,
                                    themis_program_t *prog,
                                    mca_coll_themis_engine_layout_t *layout);
/* At component close. */
void mca_coll_themis_nbc_fini(void);

/* Deferral while a nonblocking setup runs (coll_themis_nbc.c).  Whether
 * calls on m must wait for its setup (PENDING, or deferred calls not yet
 * started): a lock-free check that may say yes needlessly, never no. */
bool mca_coll_themis_setup_busy(mca_coll_themis_module_t *m);
/* Queues req (its call saved) behind the setup, in call order, and
 * returns true; false when the setup is over and nothing waits (start
 * the call now).  */
bool mca_coll_themis_defer(mca_coll_themis_module_t *m, mca_coll_themis_request_t *req);
/* MPI_Iallreduce of one MPI_INT with MPI_MAX or MPI_MIN (Open MPI's
 * communicator-id agreement) by point-to-point on comm with a tag of its
 * own, one at a time per communicator in call order. */
int mca_coll_themis_cid_start(mca_coll_themis_module_t *m, ompi_communicator_t *comm,
                              const void *sbuf, void *rbuf, ompi_op_t *op,
                              ompi_request_t **request);
/* A blocking call waits (driving progress) until no call waits for the
 * setup. */
void mca_coll_themis_setup_wait(mca_coll_themis_module_t *m);
/* Starts a deferred call once the setup is over (coll_themis_colls.c):
 * sets req->inner, or returns an error. */
int mca_coll_themis_call_resume(mca_coll_themis_request_t *req);

/* Whether a call of these blocks would run in segments
 * (coll_themis_scratch_max; coll_themis_segment.c). */
bool mca_coll_themis_blocks_segmented(const mca_coll_themis_blocks_t *call,
                                      const themis_program_t *prog, int nranks);

/* collectives */
int mca_coll_themis_allreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm,
                              mca_coll_base_module_t *module);
int mca_coll_themis_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm,
                                   mca_coll_base_module_t *module);
int mca_coll_themis_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                         struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                         struct ompi_communicator_t *comm,
                                         mca_coll_base_module_t *module);
int mca_coll_themis_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                              void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                              struct ompi_communicator_t *comm,
                              mca_coll_base_module_t *module);
int mca_coll_themis_iallreduce(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_themis_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                    struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                    struct ompi_communicator_t *comm,
                                    ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_themis_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                          struct ompi_datatype_t *dtype,
                                          struct ompi_op_t *op,
                                          struct ompi_communicator_t *comm,
                                          ompi_request_t **request,
                                          mca_coll_base_module_t *module);
int mca_coll_themis_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                               void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);

/* persistent collectives (coll_themis_persistent.c) */
int mca_coll_themis_allreduce_init(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_themis_reduce_scatter_init(const void *sbuf, void *rbuf, const int *rcounts,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        struct ompi_info_t *info, ompi_request_t **request,
                                        mca_coll_base_module_t *module);
int mca_coll_themis_reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount,
                                              struct ompi_datatype_t *dtype,
                                              struct ompi_op_t *op,
                                              struct ompi_communicator_t *comm,
                                              struct ompi_info_t *info,
                                              ompi_request_t **request,
                                              mca_coll_base_module_t *module);
int mca_coll_themis_allgather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                   void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                   struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                   ompi_request_t **request, mca_coll_base_module_t *module);

END_C_DECLS

#endif
