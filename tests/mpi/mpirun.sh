#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# mpirun of the Open MPI under test, taking Open MPI 4.1's options: the
# one place where the test suites meet the differences of the launchers.
#   THEMIS_OMPI=PREFIX  Open MPI installed under PREFIX (default: mpirun on
#                       the PATH, Debian's 4.1.4)
# As root it allows running as root.  Under 5.0 (PRRTE's mpirun) it
# rewrites what 4.1's ORTE spelled differently:
#   --oversubscribe                 --map-by :OVERSUBSCRIBE
#   --mca orte_tmpdir_base DIR      --prtemca prte_tmpdir_base DIR, and
#                                   TMPDIR=DIR for PMIx's rendezvous files
# Everything else (--mca, -x, -np, btl vader = 5.0's btl sm alias) is the
# same in both.
set -u
mpirun=${THEMIS_OMPI:+$THEMIS_OMPI/bin/}mpirun
if [ -z "${THEMIS_OMPI_MAJOR:-}" ]; then
    THEMIS_OMPI_MAJOR=$("$mpirun" --version 2>/dev/null \
                        | sed -n 's/.*Open MPI[^0-9]*\([0-9][0-9]*\)\..*/\1/p' | head -n 1)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ "${THEMIS_OMPI_MAJOR:-4}" -lt 5 ]; then
    exec "$mpirun" "$@"
fi
args=()
[ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
while [ $# -gt 0 ]; do
    case $1 in
        --oversubscribe)
            args+=(--map-by :OVERSUBSCRIBE); shift ;;
        --mca)
            if [ $# -lt 3 ]; then
                args+=("$@"); break
            elif [ "$2" = orte_tmpdir_base ]; then
                args+=(--prtemca prte_tmpdir_base "$3")
                export TMPDIR=$3
            else
                args+=("$1" "$2" "$3")
            fi
            shift 3 ;;
        *)
            args+=("$1"); shift ;;
    esac
done
exec "$mpirun" "${args[@]}"
