#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Installs what a fresh Debian 12 machine lacks (as root), then configures
# and builds themis in place.  Idempotent: a second run only rebuilds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

packages=(build-essential autoconf automake libtool pkg-config
          libopenmpi-dev openmpi-bin libhwloc-dev libfabric-bin
          libglpk-dev libjson-c-dev libxml2-dev gnuplot-nox iproute2 iperf3 procps python3-pyroute2
          clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: need root to install packages: ${missing[*]}" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] \
   || [ tests/tests.mk -nt Makefile.in ]; then
    autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
    ./configure --quiet
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs"
make -s -j"$jobs" check TESTS= >/dev/null
echo "setup: built $(ls ompi/mca/coll/themis/.libs/mca_coll_themis.so 2>/dev/null || echo '(no component)')"
