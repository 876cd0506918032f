/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * MSCCL-XML (the format MSCCL, TACCL and TE-CCL emit and MSCCL's runtime
 * reads) to and from transfer schedules (transfer.h), read with libxml2.
 *
 * Import.  <algo ngpus coll nchunksperloop inplace ...> holds one <gpu id
 * i_chunks o_chunks s_chunks> per rank with <copy i_off o_off [cnt]>
 * elements (an input -> output copy before anything else on the gpu) and
 * <tb id send recv chan> thread blocks of <step s type srcbuf srcoff dstbuf
 * dstoff cnt depid deps> (or <op step ...>, the newer spelling).
 *   Units: one unit is one MSCCL chunk, nunits = nchunksperloop (default
 *   max(i_chunks, o_chunks)).  MSCCL sizes chunks by the whole vector
 *   (allreduce: i_chunks = nchunksperloop; allgather: o_chunks =
 *   nchunksperloop = ngpus x i_chunks; reduce_scatter: i_chunks =
 *   nchunksperloop = ngpus x o_chunks), which is transfer.h's unit; other
 *   sizes are rejected.
 *   In place: the schedule keeps separate buffers.  allreduce: output
 *   references mean the input, result_buf = INPUT.  allgather: input unit
 *   j of rank r is output unit r * i_chunks + j; references are rewritten
 *   so, and a first local copy input -> that slice of the output starts
 *   the rank.  reduce_scatter: output unit k is input unit r * o_chunks +
 *   k; a last local copy moves that slice to the output.  A <copy> that
 *   becomes a copy onto itself is dropped.
 *   Steps (cnt chunks): s send src; r receive into dst; rcs r then send
 *   dst; rrc dst = src op received; rrcs rrc then send dst; rrs receive,
 *   combine with src, send without storing; cpy dst = src; re dst = dst op
 *   src; nop only orders.  The k-th send of a thread block with send=p
 *   chan=c matches the k-th receive of p's thread block with recv=this gpu
 *   chan=c.
 *   Transfers: a message is one transfer from the sender's (buf, off) to
 *   the receiver's, COPY or REDUCE; rrc/rrcs with src != dst copy src to
 *   dst first; rrs receives into a fresh scratch temporary, reduces src
 *   into it and sends it.  Happens-before (HB): thread block order,
 *   depid/deps and messages.  A transfer depends on every earlier
 *   transfer with a conflicting access (same rank and buffer, overlapping
 *   units, one writes): the last writer of each unit, and the readers
 *   since when it writes.  Conflicting accesses not ordered by HB are a
 *   race (rejected).  A receive whose destination has such a dependency
 *   that is not HB-before the matching send (it could deadlock under MPI:
 *   two ranks swapping a region in place) receives into a fresh scratch
 *   temporary instead, and a local COPY/REDUCE temporary -> destination
 *   carries those dependencies.
 *   Dead transfers: a transfer that reads garbage - a unit nobody wrote,
 *   or one last written by a dead transfer - is dead (TACCL sends scratch
 *   nobody wrote, then overwrites what it received).  If no result unit's
 *   last writer is dead, nothing live reads what a dead one wrote, so the
 *   dead ones are skipped (info.ndead): whoever depended on one depends
 *   on its dependencies instead.  Otherwise the file is refused (the
 *   garbage reaches a result).
 *   Canonical form: the list is sorted by (depth in the dependency DAG,
 *   dst, dst_buf, dst_off), unique since transfers writing the same unit
 *   are ordered, so every dependency points backwards and the order
 *   depends on the transfers and their dependencies only.  A receive is
 *   also redirected when its dependencies would not be HB-before the send
 *   in the exported form of the schedule (below), until none is: so
 *   export and import again give the same schedule (same themis_xfer_hash).
 *
 * Export: per rank one thread block per send peer, per receive peer and
 * one for local steps (in that order, channel 0); steps in list order;
 * a network transfer is s + r (COPY) or s + rrc with src = dst (REDUCE), a
 * local one cpy or re; the transfer's dependencies on the rank in another
 * thread block become depid/deps, nop steps carrying all but the last.
 * allgather and reduce_scatter are written out of place (in-place copies
 * are explicit transfers), allreduce with result_buf INPUT in place.
 */
#ifndef THEMIS_MSCCL_H
#define THEMIS_MSCCL_H

#include <stdio.h>

#include "topology.h"
#include "transfer.h"

/* Bounds on what an import may allocate. */
#define THEMIS_MSCCL_MAX_GPUS 1024u
#define THEMIS_MSCCL_MAX_STEPS 16384u          /* steps and copies, all gpus */
#define THEMIS_MSCCL_MAX_CHUNKS 65536u         /* nchunksperloop, s_chunks */
#define THEMIS_MSCCL_MAX_UNITS (1u << 22)      /* ngpus x buffer units */
#define THEMIS_MSCCL_MAX_FILE THEMIS_INPUT_MAX_FILE  /* bytes (topology.h) */

typedef struct {
    char name[64];
    char proto[16];
    char redop[16];
    themis_coll_t coll;
    uint32_t ngpus, nchunksperloop, nchannels;
    int inplace;
    uint64_t min_bytes, max_bytes;  /* 0 and UINT64_MAX when absent */
    uint32_t nsteps;                /* <step> elements, nop included */
    uint32_t ntbs;                  /* <tb> elements */
    uint32_t ncopies;               /* <copy> elements */
    uint32_t nxfers;
    uint32_t nredirects;            /* receives through a scratch temporary */
    uint32_t ndead;                 /* dead transfers, skipped (see below) */
    uint64_t extra_scratch;         /* units beyond the largest s_chunks */
} themis_msccl_info_t;

/* A file into *out (a fresh schedule; empty on error) and, if info is not
 * NULL, what it held.  THEMIS_ERR_PARSE (not XML, elements or attributes
 * missing or malformed), THEMIS_ERR_INVALID (a program that does not run:
 * unmatched messages, cycles, races, reads of unwritten units whose data
 * reaches a result, sizes that do not fit the collective), THEMIS_ERR_UNSUPPORTED (other collectives,
 * limits above), THEMIS_ERR_IO, THEMIS_ERR_NOMEM; why says which. */
themis_status_t themis_msccl_load(const char *path, themis_xfer_sched_t *out,
                                  themis_msccl_info_t *info, char *why, size_t len);
/* The same from text[0 .. size). */
themis_status_t themis_msccl_parse(const char *text, size_t size, themis_xfer_sched_t *out,
                                   themis_msccl_info_t *info, char *why, size_t len);

/* Only the <algo> start tag (msccl_header.c): info->ngpus and info->name,
 * the rest of *info zero, at a cost that grows with the text before the
 * first element.  THEMIS_ERR_PARSE when that is no <algo> with an ngpus
 * in 1..THEMIS_MSCCL_MAX_GPUS or a DOCTYPE comes first (themis_msccl_parse
 * says why), THEMIS_ERR_UNSUPPORTED over THEMIS_MSCCL_MAX_FILE,
 * THEMIS_ERR_NOMEM.  A file it accepts may still fail the full parse. */
themis_status_t themis_msccl_header(const char *text, size_t size, themis_msccl_info_t *info);

/* s as MSCCL-XML (see above).  THEMIS_ERR_UNSUPPORTED for a result in
 * INPUT other than an allreduce without OUTPUT units, THEMIS_ERR_NOMEM,
 * THEMIS_ERR_IO. */
themis_status_t themis_msccl_write(const themis_xfer_sched_t *s, FILE *f);

#endif
