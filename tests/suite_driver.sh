#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# automake test driver (LOG_DRIVER, SH_LOG_DRIVER) for themis' suites.
# Every unit test and every suite script prints one line per case,
# PASS: / FAIL: / SKIP: and a description; this driver runs one of them,
# keeps its whole output in the log automake names, and gives automake one
# result per case, so that `make check` and test-suite.log count cases, not
# programs.  A suite that prints no result, or exits non-zero without
# reporting a failure (a crash, a timeout, a missing program), is an ERROR.
set -u
test_name='' log_file='' trs_file=''
while [ $# -gt 0 ]; do
    case $1 in
        --test-name) test_name=$2; shift ;;
        --log-file) log_file=$2; shift ;;
        --trs-file) trs_file=$2; shift ;;
        --color-tests | --expect-failure | --enable-hard-errors | --collect-skipped-logs)
            shift ;;
        --) shift; break ;;
        *) echo "suite_driver: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$test_name" ] || [ -z "$log_file" ] || [ -z "$trs_file" ] || [ $# -eq 0 ]; then
    echo "usage: suite_driver.sh --test-name N --log-file L --trs-file T -- COMMAND..." >&2
    exit 2
fi

t0=$SECONDS
# A suite runs as it would from a shell: make's variables must not reach a
# make the suite runs itself (the sanitizer's build would inherit this
# run's TEST_LOGS and run every suite again, nested).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES "$@" >"$log_file" 2>&1 </dev/null
rc=$?
secs=$((SECONDS - t0))

pass=0 fail=0 skip=0
: >"$trs_file"
while IFS= read -r line; do
    case $line in
        'PASS: '*) res=PASS; pass=$((pass + 1)) ;;
        'FAIL: '*) res=FAIL; fail=$((fail + 1)) ;;
        'SKIP: '*) res=SKIP; skip=$((skip + 1)) ;;
        *) continue ;;
    esac
    echo ":test-result: $res" >>"$trs_file"
    echo "$line"
done <"$log_file"

error=
if [ $((pass + fail + skip)) -eq 0 ]; then
    error="printed no result (exit status $rc)"
elif [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
    error="exited $rc without reporting a failure"
fi
if [ -n "$error" ]; then
    echo ":test-result: ERROR" >>"$trs_file"
    echo "ERROR: $test_name $error" | tee -a "$log_file"
    tail -n 20 "$log_file" | sed 's/^/   | /'
elif [ "$fail" -gt 0 ]; then
    # the lines around the failures, as the suite printed them
    grep -vE '^(PASS|SKIP): ' "$log_file" | tail -n 40 | sed 's/^/   | /'
fi
echo "   ($test_name: $secs s, $pass passed, $fail failed, $skip skipped)"

if [ -n "$error" ] || [ "$fail" -gt 0 ]; then
    global=FAIL
elif [ "$pass" -eq 0 ]; then
    global=SKIP
else
    global=PASS
fi
{
    echo ":global-test-result: $global"
    [ "$global" = FAIL ] && echo ":recheck: yes" || echo ":recheck: no"
    [ "$global" = FAIL ] && echo ":copy-in-global-log: yes" || echo ":copy-in-global-log: no"
} >>"$trs_file"
exit 0
