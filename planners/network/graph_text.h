/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * What the graph files share beyond graph.h: graph.c's building blocks
 * that the file parser (graph_file.c) and the specs (graph_spec.c) use,
 * and the two parsers' token helpers.
 */
#ifndef THEMIS_GRAPH_TEXT_H
#define THEMIS_GRAPH_TEXT_H

#include <stddef.h>

#include "graph.h"

/* Graph files hold up to THEMIS_GRAPH_MAX_LINKS lines of ~30 bytes. */
#define THEMIS_GRAPH_MAX_FILE_BYTES THEMIS_INPUT_MAX_FILE
/* Fields echoed in messages are cut so that the reason still fits. */
#define THEMIS_GRAPH_SHOW_MAX 24

#define THEMIS_GRAPH_NKINDS 4
/* Node kinds as the file format writes them, by themis_node_kind_t. */
extern const char *const themis_graph_kind_names[THEMIS_GRAPH_NKINDS];

/* themis_graph_finish, saying which link (bad) or node (bad_node) is wrong. */
themis_status_t themis_graph_finish_at(themis_graph_t *g, uint32_t *bad, uint32_t *bad_node,
                                       char *why, size_t len);
/* Any link src -> dst, failed or not (UINT32_MAX: none). */
uint32_t themis_graph_find_link(const themis_graph_t *g, uint32_t src, uint32_t dst);

const char *themis_graph_show(const char *p, size_t len, char buf[THEMIS_GRAPH_SHOW_MAX + 1]);
int themis_graph_tok_is(const themis_token_t *t, const char *s);
/* An unsigned decimal of at most `max`, from a whole token. */
themis_status_t themis_graph_parse_uint(const themis_token_t *t, int line, uint64_t max,
                                        const char *what, uint64_t *v, themis_parse_error_t *err);
/* A bandwidth (is_bw) or latency token through the project's value parsers. */
themis_status_t themis_graph_parse_rate(const themis_token_t *t, int line, int is_bw, uint64_t *v,
                                        themis_parse_error_t *err);

#endif
