# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# Sourced by the benchmarks that run on a netgraph bed (netgraph_*.sh):
# where the build, the CLI, the benchmark, the bed and the components are.
# shellcheck disable=SC2034  # read by the sourcing scripts
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
BUILD=${THEMIS_BUILD_DIR:-$(cd "$here/.." && pwd)}
plan=$BUILD/tools/themis-plan
bench=$BUILD/benchmarks/osu_coll_latency
ng=$here/netbed/netgraph
comp_dir=$BUILD/ompi/mca/coll/themis/.libs
ompi_comp_dir=$(ompi_info --path pkglibdir 2>/dev/null | sed 's/.*: *//')
[ -d "$ompi_comp_dir" ] || ompi_comp_dir=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
