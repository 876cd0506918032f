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
# The beds run the PATH's Open MPI 4.1; mpirun's options come from
# tools/launch.sh (mapfile -t X < <(launch_opts themis op)).
# shellcheck source=tools/launch.sh
THEMIS_OMPI='' THEMIS_BUILD_DIR=$BUILD . "$here/../tools/launch.sh"
