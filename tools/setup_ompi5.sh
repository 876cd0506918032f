#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Builds Open MPI 5.0.9 with its internal headers into the fixed prefix
# /opt/ompi-5.0.9 (as root), from ../shared/ompi/openmpi-5.0.9-src.tar.xz
# beside the checkout (THEMIS_OMPI5_TARBALL overrides).  Skipped when that
# prefix already holds a 5.0.9 with the headers.  ~50 min on 2 cores
# (README); logs in THEMIS_OMPI5_WORK (default /tmp/themis-ompi5-build).
#
# The tarball is the v5.0.9 tag with its PRRTE/OpenPMIx submodules and no
# bundled hwloc: Debian's hwloc and libevent are used, and the bundled
# OpenPMIx (Debian 12's PMIx 4.2.2 is older than this PRRTE accepts).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=/opt/ompi-5.0.9
tarball=${THEMIS_OMPI5_TARBALL:-$top/../shared/ompi/openmpi-5.0.9-src.tar.xz}
work=${THEMIS_OMPI5_WORK:-/tmp/themis-ompi5-build}

# Open MPI 5.0.9's `make install --with-devel-headers` leaves out the
# headers of the threads and timer components that its opal_config.h
# includes (MCA_threads_*_HEADER, MCA_timer_*_HEADER, e.g.
# opal/mca/threads/pthreads/threads_pthreads_mutex.h), so nothing compiles
# against the installed internal headers.  Lists those missing.
missing_headers() {
    local inc=$prefix/include/openmpi h
    [ -f "$inc/opal_config.h" ] || return 0
    for h in $(grep -ho '"[a-z]*/mca/[^"]*\.h"' "$inc/opal_config.h" | tr -d '"' | sort -u); do
        [ -f "$inc/$h" ] || echo "$h"
    done
}
# Copies the headers of each component directory a missing header is in.
install_missing_headers() {   # SOURCE_TREE
    local d
    for d in $(missing_headers | xargs -r -n 1 dirname | sort -u); do
        mkdir -p "$prefix/include/openmpi/$d"
        cp "$1/$d"/*.h "$prefix/include/openmpi/$d/"
        echo "setup_ompi5: installed the headers of $d (left out by Open MPI's make install)"
    done
}

if [ -x "$prefix/bin/mpirun" ] && [ -f "$prefix/include/openmpi/ompi/mca/coll/coll.h" ] \
   && "$prefix/bin/ompi_info" --parsable 2>/dev/null | grep -q '^ompi:version:full:5\.0\.9'; then
    if [ -n "$(missing_headers)" ]; then
        [ -f "$tarball" ] || { echo "setup_ompi5: $tarball not found" >&2; exit 1; }
        tmp=$(mktemp -d)
        tar -C "$tmp" -xJf "$tarball" --wildcards 'openmpi-5.0.9/opal/mca/*.h'
        install_missing_headers "$tmp/openmpi-5.0.9"
        rm -rf "$tmp"
    fi
    echo "setup_ompi5: Open MPI 5.0.9 already in $prefix"
    exit 0
fi
if [ ! -f "$tarball" ]; then
    echo "setup_ompi5: $tarball not found (Open MPI v5.0.9 with its submodules; set" \
         "THEMIS_OMPI5_TARBALL)" >&2
    exit 1
fi
missing=()
for p in flex libevent-dev libhwloc-dev perl autoconf automake libtool make gcc; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup_ompi5: need root to install ${missing[*]}" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

rm -rf "$work"
mkdir -p "$work"
cd "$work"
t0=$SECONDS
tar -xJf "$tarball"
cd openmpi-5.0.9
step() {   # NAME COMMAND...: one build step, its log in $work/NAME.log
    local name=$1; shift
    if ! "$@" >"$work/$name.log" 2>&1; then
        tail -n 30 "$work/$name.log" >&2
        echo "setup_ompi5: $name failed (log $work/$name.log)" >&2
        exit 1
    fi
    echo "setup_ompi5: $name done at $((SECONDS - t0)) s"
}
step autogen ./autogen.pl --no-3rdparty hwloc,libevent
step configure ./configure --prefix="$prefix" --with-hwloc=external --with-libevent=external \
    --with-pmix=internal --with-prrte=internal --disable-mpi-fortran --disable-oshmem \
    --disable-io-romio --with-devel-headers --disable-sphinx
step make make -j"$(nproc 2>/dev/null || echo 2)"
step install make install
install_missing_headers "$work/openmpi-5.0.9"
echo "setup_ompi5: Open MPI 5.0.9 installed in $prefix ($((SECONDS - t0)) s)"
