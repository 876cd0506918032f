#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Reads valgrind logs (one per rank) and prints every error record and
# every "definitely lost" leak record whose stack goes through coll/themis
# (mca_coll_themis*, the component's functions or the planners).  Open MPI
# itself leaks and trips memcheck at startup; those records are not ours
# and are only counted.
#   valgrind_check.sh LOG...
# Exit status: 0 when no record is attributable to coll/themis, 1 otherwise,
# 2 when a log is missing or has no ERROR SUMMARY (valgrind did not finish).
set -uo pipefail
if [ $# -eq 0 ]; then
    echo "usage: $0 VALGRIND_LOG..." >&2
    exit 2
fi
status=0
for log in "$@"; do
    if [ ! -s "$log" ] || ! grep -q 'ERROR SUMMARY' "$log"; then
        echo "valgrind: $log: incomplete log (no ERROR SUMMARY)"
        status=2
        continue
    fi
    # A record runs from a "==PID== text" line to the next "==PID== " blank
    # line.  Keep errors (Invalid read/write, uninitialised values, bad
    # frees, ...) and definite leaks; skip the summaries.
    awk -v logname="$log" '
        function flush() {
            if (rec != "" && (kind == "error" || kind == "leak")) {
                total[kind]++
                if (rec ~ /mca_coll_themis|coll_themis_|themis_program|themis_schedule|themis_simulat|themis_plan|\(planners\//) {
                    ours[kind]++
                    printf "valgrind: %s: coll/themis %s:\n%s\n", logname, kind, rec
                }
            }
            rec = ""; kind = ""
        }
        /^==[0-9]+== *$/ { flush(); next }
        /^==[0-9]+== / {
            line = $0; sub(/^==[0-9]+== /, "", line)
            if (rec == "") {
                if (line ~ /definitely lost in loss record/) { kind = "leak" }
                else if (line ~ /^(Invalid|Conditional jump|Use of uninitialised|Syscall param|Mismatched free|Source and destination overlap|Argument .* of function)/) { kind = "error" }
                else { kind = "other" }
            }
            rec = rec "    " line "\n"
            next
        }
        END {
            flush()
            printf "valgrind: %s: %d error and %d definite-leak records, %d and %d in coll/themis\n",
                   logname, total["error"], total["leak"], ours["error"], ours["leak"]
            exit (ours["error"] + ours["leak"] > 0)
        }' "$log" || status=$((status > 1 ? status : 1))
done
exit $status
