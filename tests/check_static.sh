#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Static checks, no build needed: `bash -n` and `shellcheck -S warning`
# on every shell script of tests/, tools/, benchmarks/ and .ci/ (a *.sh
# file or one whose first line names sh or bash), and clang-format
# (.clang-format) on the C files named in tests/clang_format_files.
# Prints one PASS:/FAIL:/SKIP: line per check, the findings after a FAIL.
#
# clang-format is enforced only on the listed files (those that already
# followed .clang-format when it was written; by base name, so moving a
# file keeps it checked) and counted, informational, on the others: most
# of the code breaks long lines by hand where clang-format packs them.
# Add a file to the list once it is formatted.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
failed=0

# list_files DIR-OR-PATTERN...: tracked and new files (without git: find).
list_files() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- "$@"
    else
        find . -type f | sed 's#^\./##' | sort
    fi
}
scripts=()
mapfile -t files < <(list_files tests tools benchmarks .ci)
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    case $f in
        tests/*|tools/*|benchmarks/*|.ci/*) ;;
        *) continue ;;
    esac
    case $f in
        */logs/*) ;;
        *.sh) scripts+=("$f") ;;
        *) head -n 1 "$f" | grep -qE '^#!.*[/ ](ba)?sh( |$)' && scripts+=("$f") ;;
    esac
done
[ ${#scripts[@]} -gt 0 ] || { echo "FAIL: static: no scripts found"; exit 1; }

# bash -n: every script parses.
bad=()
for f in "${scripts[@]}"; do
    bash -n "$f" 2>"${TMPDIR:-/tmp}/themis-static.$$" || bad+=("$f: $(head -n 1 \
        "${TMPDIR:-/tmp}/themis-static.$$")")
done
rm -f "${TMPDIR:-/tmp}/themis-static.$$"
if [ ${#bad[@]} -eq 0 ]; then
    echo "PASS: static: bash -n (${#scripts[@]} scripts)"
else
    echo "FAIL: static: bash -n (${#bad[@]} of ${#scripts[@]} scripts do not parse)"
    printf '    | %s\n' "${bad[@]}"
    failed=1
fi

# Run from the top, so the suites' source= directives for shellcheck
# resolve.
if ! command -v shellcheck >/dev/null 2>&1; then
    echo "FAIL: static: shellcheck not installed (tools/setup.sh installs it)"
    failed=1
else
    out=$(shellcheck -S warning -x -f gcc "${scripts[@]}" 2>&1)
    if [ -z "$out" ]; then
        echo "PASS: static: shellcheck -S warning (${#scripts[@]} scripts)"
    else
        echo "FAIL: static: shellcheck -S warning ($(grep -c ': \(warning\|error\):' <<<"$out")" \
             "findings)"
        sed 's/^/    | /' <<<"$out" | head -n 60
        failed=1
    fi
fi

# clang-format: the listed files exactly, the others counted.
if ! command -v clang-format >/dev/null 2>&1; then
    echo "FAIL: static: clang-format not installed (tools/setup.sh installs it)"
    failed=1
else
    mapfile -t listed < <(grep -v '^#' tests/clang_format_files | sed '/^$/d')
    mapfile -t cfiles < <(list_files '*.c' '*.h' | grep -E '\.[ch]$')
    bad=(); nfmt=0; others=0; other_lines=0
    for f in "${cfiles[@]}"; do
        [ -f "$f" ] || continue
        n=$(clang-format --style=file "$f" | diff "$f" - | grep -c '^<')
        if printf '%s\n' "${listed[@]}" | grep -qxF "${f##*/}"; then
            nfmt=$((nfmt + 1))
            [ "$n" -eq 0 ] || bad+=("$f: $n lines differ (clang-format --dry-run $f)")
        elif [ "$n" -gt 0 ]; then
            others=$((others + 1)); other_lines=$((other_lines + n))
        fi
    done
    if [ "$nfmt" -ne ${#listed[@]} ]; then
        bad+=("tests/clang_format_files names ${#listed[@]} files, $nfmt found")
    fi
    if [ ${#bad[@]} -eq 0 ]; then
        echo "PASS: static: clang-format ($nfmt files as listed; informational:" \
             "$other_lines lines of $others other files differ)"
    else
        echo "FAIL: static: clang-format (${#bad[@]} of ${#listed[@]} listed files)"
        printf '    | %s\n' "${bad[@]}"
        failed=1
    fi
fi
[ "$failed" -eq 0 ]
