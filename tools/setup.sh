#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Installs what a fresh Debian 12 machine lacks (as root), then configures
# and builds themis in place.  Idempotent: a second run only rebuilds.
#
# --ompi5: instead, builds Open MPI 5.0.9 into /opt/ompi-5.0.9 unless it is
# there (tools/setup_ompi5.sh), and themis against it in build-ompi5/, a
# copy of this checkout's files (git ls-files; an in-place build for 4.1
# and one for 5.0 cannot share a directory) configured --with-ompi.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ompi5=false
case "${1:-}" in
    --ompi5) ompi5=true ;;
    "") ;;
    *) echo "usage: tools/setup.sh [--ompi5]" >&2; exit 2 ;;
esac

packages=(build-essential autoconf automake libtool pkg-config
          libopenmpi-dev openmpi-bin libhwloc-dev libfabric-bin
          libglpk-dev libjson-c-dev libxml2-dev gnuplot-nox iproute2 iperf3 procps python3-pyroute2
          clang libclang-rt-14-dev shellcheck clang-format)
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

jobs=$(nproc 2>/dev/null || echo 2)
if $ompi5; then
    bash tools/setup_ompi5.sh
    build=$top/build-ompi5
    mkdir -p "$build"
    # Tracked and new files as they are in the checkout; tar keeps their
    # times, so a second run rebuilds only what changed.
    git -C "$top" ls-files -co --exclude-standard -z | grep -zv '^build-ompi5/' \
        | tar -C "$top" --null -T - -cf - | tar -C "$build" -xf -
    cd "$build"
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] \
       || [ tests/tests.mk -nt Makefile.in ]; then
        autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
    fi
    if [ ! -f Makefile ] || [ configure -nt config.status ]; then
        ./configure --quiet --with-ompi=/opt/ompi-5.0.9
    fi
    make -s -j"$jobs"
    make -s -j"$jobs" check TESTS= >/dev/null
    echo "setup: built $build/ompi/mca/coll/themis/.libs/mca_coll_themis.so for Open MPI 5.0.9"
    exit 0
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] \
   || [ tests/tests.mk -nt Makefile.in ]; then
    autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
    ./configure --quiet
fi
make -s -j"$jobs"
make -s -j"$jobs" check TESTS= >/dev/null
echo "setup: built $(ls ompi/mca/coll/themis/.libs/mca_coll_themis.so 2>/dev/null || echo '(no component)')"
