#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# The main demo: installs what is missing, builds, then
#  1. simulates baseline vs Themis on the paper's 3D-SW_SW_SW_homo network, and
#  2. where network namespaces can be created (root), runs a real All-Reduce
#     on an emulated 4x2 network (100mbit,100mbit) with coll/themis against
#     its baseline order and Open MPI's tuned component.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash tools/setup.sh
build=${THEMIS_BUILD_DIR:-$top}

echo
echo "== simulator: 1 GB All-Reduce, 64 chunks, 1 in flight, on 3D-SW_SW_SW_homo (themis.txt Table 2)"
"$build/tools/themis-plan" simulate --topo 3D-SW_SW_SW_homo --bytes 1GB --chunks 64 \
    --chunks-in-flight 1

if [ -x benchmarks/netbed_allreduce.sh ] && [ "$(id -u)" -eq 0 ]; then
    echo
    echo "== emulated network: 16 MiB All-Reduce on 4x2 at 100mbit,100mbit"
    THEMIS_BUILD_DIR="$build" bash benchmarks/netbed_allreduce.sh --quick
else
    echo
    echo "(emulated-network demo skipped: needs root and benchmarks/netbed_allreduce.sh)"
fi
