#!/bin/sh
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Gives one MPI rank a different environment, to make ranks disagree:
#   mpirun ... rank_env.sh RANK VAR=VALUE... -- PROGRAM ARGS...
# The process whose OMPI_COMM_WORLD_RANK is RANK gets the VAR=VALUE
# settings (e.g. OMPI_MCA_coll_themis_chunks=8); every process then runs
# PROGRAM.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 RANK VAR=VALUE... -- PROGRAM ARGS..." >&2
    exit 2
fi
target=$1
shift
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    if [ "${OMPI_COMM_WORLD_RANK:-}" = "$target" ]; then
        # shellcheck disable=SC2163  # $1 is VAR=VALUE
        export "$1"
    fi
    shift
done
if [ $# -lt 2 ]; then
    echo "$0: missing -- PROGRAM" >&2
    exit 2
fi
shift
exec "$@"
