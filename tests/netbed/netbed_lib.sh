# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Shared by the test-bed suites (run_netbed_smoke.sh, run_netbed_torus.sh,
# run_netgraph_smoke.sh): the teardown trap and the
# checks every one of them makes before it builds a bed.  LABEL is the
# suite's name in its SKIP:/FAIL: lines ("netbed smoke", ...).
# shellcheck shell=bash

# netbed_cleanup_on_exit BED WORK: on exit (and on INT/TERM), `BED down`
# and remove the directory WORK.
netbed_cleanup_on_exit() {
    netbed_bed=$1 netbed_work=$2
    # shellcheck disable=SC2317  # invoked by the EXIT trap
    netbed_cleanup() {
        "$netbed_bed" down >/dev/null 2>&1 || true
        rm -rf "$netbed_work"
    }
    trap netbed_cleanup EXIT
    trap 'exit 130' INT TERM
}

# Skips the suite (exit 0) when network namespaces cannot be made here:
# not root, or `ip netns add PREFIX-probe` fails.  Finds out by trying.
netbed_need_netns() {
    local label=$1 probe=$2-probe err
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: $label (not root: network namespaces need root)"
        exit 0
    fi
    if ! err=$(ip netns add "$probe" 2>&1); then
        echo "SKIP: $label (ip netns add failed: ${err:-no message})"
        exit 0
    fi
    ip netns del "$probe"
}

# Fails the suite (exit 1) when a tool is missing; `pyroute2` names the
# Python module the netgraph bed needs.
netbed_need_tools() {
    local label=$1 tool
    shift
    for tool in "$@"; do
        if [ pyroute2 = "$tool" ]; then
            if ! /usr/bin/python3 -c 'import pyroute2' 2>/dev/null; then
                echo "FAIL: $label (python3-pyroute2 missing; run tools/setup.sh)"
                exit 1
            fi
        elif ! command -v "$tool" >/dev/null 2>&1; then
            echo "FAIL: $label ($tool not found; run tools/setup.sh)"
            exit 1
        fi
    done
}
