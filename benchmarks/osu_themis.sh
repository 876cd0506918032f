#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# OSU-style latency of coll/themis against Open MPI's own components, on one
# node: runs benchmarks/osu_coll_latency for
#   themis     --mca coll themis,inter,tuned,libnbc,basic,self --mca coll_themis_dims DIMS
#   baseline   the same with --mca coll_themis_scheduler baseline
#   tuned      --mca coll tuned,inter,libnbc,basic,self (no themis)
#   han        --mca coll han,tuned,inter,libnbc,basic,self --mca coll_han_priority 100
#   themis-all themis with --mca coll_themis_min_bytes 0 (every size on the themis
#              path; not in the default list: it measures where a min_bytes belongs)
# and prints one merged table: per size each variant's latency and its
# ratio to themis (variant / themis: > 1 means themis is faster).
#
# Noise.  np 8 on 2 shared cores is oversubscribed and other jobs run too,
# so one sample of a variant can be off by 2x.  Every variant therefore
# runs --reps times (default 2), interleaved: the size range is cut into
# bands (--bands), and for each repetition and band all variants run back
# to back, in an order rotated per (repetition, band) so that no variant
# is always first.  A variant's latency at a size is the minimum over its
# repetitions of the average over iterations (min-of-avgs: interference
# only adds time).  The table also shows the spread of the repetitions
# (max/min - 1, worst variant) and the range of the paired ratios
# tuned/themis of runs made side by side: a ratio below 0.95 whose range
# reaches above 0.95 is within the noise.
#
# han turns itself off when all ranks share one host.  A short probe run
# with coll_base_verbose finds out whether han was selected on
# MPI_COMM_WORLD; if not, its column is labelled with han's reason, e.g.
# "han(off: single host)", and measures what han falls back to.
#
# Options:
#   --np N              ranks (default 8)
#   --dims SHAPE        coll_themis_dims (default 4x2; product must be N)
#   --transport T       vader (ob1+vader, default) | tcp (ob1+tcp on lo) |
#                       ofi (cm+ofi, FI_PROVIDER=tcp)
#   --coll C            allreduce (default) | reduce_scatter_block | allgather
#   --min B --max B     size range (default 4 .. 64M; K/M/G suffixes)
#   --bands B1,B2,...   upper ends of the size bands (default 4K,512K)
#   --reps R            repetitions per variant (default 2)
#   --iters N --warmup N --budget B --min-iters N   passed to osu_coll_latency
#   --variants LIST     default themis,baseline,tuned,han
#   --themis-opt "ARGS" more mpirun arguments for the themis variants
#   --timeout S         per mpirun (default 600)
#   --out DIR           keep every run's output there (default: a temp dir, removed)
# Environment: THEMIS_BUILD_DIR (default: the repository root) holds
# benchmarks/osu_coll_latency and ompi/mca/coll/themis/.libs.
#
# The last line is `worst_ratio_tuned_vs_themis=X.XX at SIZE`: the smallest
# tuned/themis over the sizes (target: >= 0.95 everywhere).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${THEMIS_BUILD_DIR:-$top}
bench=$BUILD/benchmarks/osu_coll_latency
comp_dir=$BUILD/ompi/mca/coll/themis/.libs
ompi_comp_dir=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

die() { echo "osu_themis: $*" >&2; exit 2; }

np=8 dims=4x2 transport=vader coll=allreduce min=4 max=64M bands=4K,512K reps=2
variants=themis,baseline,tuned,han themis_opt="" tmo=600 out=""
bench_opts=()
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || [ "$1" = -h ] || [ "$1" = --help ] || die "$1 needs a value"
    case $1 in
        --np) np=$2 ;;
        --dims) dims=$2 ;;
        --transport) transport=$2 ;;
        --coll) coll=$2 ;;
        --min) min=$2 ;;
        --max) max=$2 ;;
        --bands) bands=$2 ;;
        --reps) reps=$2 ;;
        --iters|--warmup|--budget|--min-iters) bench_opts+=("$1" "$2") ;;
        --variants) variants=$2 ;;
        --themis-opt) themis_opt=$2 ;;
        --timeout) tmo=$2 ;;
        --out) out=$2 ;;
        -h|--help) sed -n '/^# Options:/,/^# The last line/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift 2
done

# ---------------------------------------------------------------- checks
bytes() {   # K/M/G suffixes (binary) -> bytes; empty on error
    local v=$1 n u
    [[ $v =~ ^([0-9]+)([KkMmGg]?)[Bb]?$ ]] || return 0
    n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]}
    case $u in
        K|k) n=$((n << 10)) ;;
        M|m) n=$((n << 20)) ;;
        G|g) n=$((n << 30)) ;;
    esac
    echo "$n"
}
[[ $np =~ ^[1-9][0-9]*$ ]] || die "--np must be a positive integer"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
[[ $tmo =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive integer (seconds)"
[[ $dims =~ ^[1-9][0-9]*(x[1-9][0-9]*)*$ ]] || die "--dims must look like 4x2 or 2x2x2"
prod=1
for d in ${dims//x/ }; do prod=$((prod * d)); done
[ "$prod" -eq "$np" ] || die "--dims $dims has $prod ranks, --np is $np"
min_b=$(bytes "$min"); max_b=$(bytes "$max")
[ -n "$min_b" ] && [ -n "$max_b" ] && [ "$min_b" -gt 0 ] && [ "$min_b" -le "$max_b" ] ||
    die "--min/--max must be byte counts with min <= max"
case $coll in
    allreduce|reduce_scatter_block|allgather) ;;
    *) die "--coll must be allreduce, reduce_scatter_block or allgather" ;;
esac
case $transport in
    vader) tr_args=(--mca pml ob1 --mca btl vader,self) ;;
    tcp) tr_args=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo) ;;
    ofi) tr_args=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_exclude none
                  -x FI_PROVIDER=tcp) ;;
    *) die "--transport must be vader, tcp or ofi" ;;
esac
IFS=, read -r -a vlist <<<"$variants"
for v in "${vlist[@]}"; do
    case $v in
        themis|baseline|tuned|han|themis-all) ;;
        *) die "unknown variant '$v' (themis, baseline, tuned, han, themis-all)" ;;
    esac
done
[ -x "$bench" ] || die "$bench not built: run 'make check TESTS=' (or tools/setup.sh) in $BUILD"
if [[ ,$variants, =~ ,(themis|baseline|themis-all), ]] && [ ! -f "$comp_dir/mca_coll_themis.so" ]; then
    die "$comp_dir/mca_coll_themis.so not built: make ompi/mca/coll/themis/mca_coll_themis.la in $BUILD"
fi
# Size bands: [min .. b1], [2*b1 .. b2], ..., [.. max]
band_lo=() band_hi=()
lo=$min_b
IFS=, read -r -a blist <<<"$bands"
for b in "${blist[@]}" ""; do
    hi=$max_b
    if [ -n "$b" ]; then
        hi=$(bytes "$b")
        [ -n "$hi" ] && [ "$hi" -gt 0 ] || die "--bands: bad size '$b'"
        [ "$hi" -lt "$max_b" ] || continue
        [ "$hi" -ge "$lo" ] || continue
    fi
    band_lo+=("$lo") band_hi+=("$hi")
    lo=$((hi * 2))
    [ "$hi" -ge "$max_b" ] && break
done

keep_out=1
if [ -z "$out" ]; then
    out=$(mktemp -d /tmp/osu_themis.XXXXXX)
    keep_out=0
fi
mkdir -p "$out" || die "cannot create $out"
tmpdirs=()
cleanup() {
    local d
    for d in "${tmpdirs[@]}"; do rm -rf "$d"; done
    [ "$keep_out" -eq 1 ] || rm -rf "$out"
}
trap cleanup EXIT

# ---------------------------------------------------------------- running
variant_args() {   # the mpirun arguments that make variant $1
    case $1 in
        themis) echo "--mca coll themis,inter,tuned,libnbc,basic,self --mca coll_themis_dims $dims $themis_opt" ;;
        baseline) echo "--mca coll themis,inter,tuned,libnbc,basic,self --mca coll_themis_dims $dims --mca coll_themis_scheduler baseline $themis_opt" ;;
        themis-all) echo "--mca coll themis,inter,tuned,libnbc,basic,self --mca coll_themis_dims $dims $themis_opt --mca coll_themis_min_bytes 0" ;;
        tuned) echo "--mca coll tuned,inter,libnbc,basic,self" ;;
        han) echo "--mca coll han,tuned,inter,libnbc,basic,self --mca coll_han_priority 100" ;;
    esac
}
# run VARIANT OUTFILE BENCH-ARGS...: one mpirun; sets rc.  $extra: more
# mpirun arguments for this run only.
extra=()
run() {
    local v=$1 file=$2 tdir
    shift 2
    tdir=$(mktemp -d /tmp/osu_themis_orte.XXXXXX)
    tmpdirs+=("$tdir")
    # shellcheck disable=SC2046  # variant_args is meant to split into words
    timeout --kill-after=15 "$tmo" mpirun -np "$np" --oversubscribe --bind-to none \
        --mca orte_tmpdir_base "$tdir" \
        --mca mca_base_component_path "$comp_dir:$ompi_comp_dir" \
        --mca mpi_yield_when_idle 1 "${tr_args[@]}" $(variant_args "$v") "${extra[@]}" \
        "$bench" --coll "$coll" "$@" >"$file" 2>&1
    rc=$?
    rm -rf "$tdir"
}

echo "# OSU-style $coll latency: np $np, dims $dims, transport $transport, sizes $min_b..$max_b,"
echo "# $reps interleaved repetitions per variant in ${#band_lo[@]} size band(s); variants: $variants"
[ -n "$themis_opt" ] && echo "# themis variants also get: $themis_opt"
[ ${#bench_opts[@]} -gt 0 ] && echo "# osu_coll_latency options: ${bench_opts[*]}"

han_label=han
if [[ ,$variants, == *,han,* ]]; then
    # han's selection on MPI_COMM_WORLD, from one tiny verbose run.
    extra=(--mca coll_base_verbose 30)
    run han "$out/han_probe.txt" --min 4K --max 4K --iters 1 --warmup 0
    extra=()
    if [ "$rc" -ne 0 ]; then
        han_label="han(probe failed: rc $rc)"
    elif grep -qE 'comm_select: selecting +han,' "$out/han_probe.txt"; then
        han_label=han
    elif grep -q 'han:comm_query (0/MPI_COMM_WORLD): comm has only local processes' \
            "$out/han_probe.txt"; then
        han_label="han(off: single host)"
    else
        why=$(sed -n 's/.*han:comm_query (0\/MPI_COMM_WORLD): \(.*\); disqualifying.*/\1/p' \
              "$out/han_probe.txt" | head -n 1)
        han_label="han(off: ${why:-not selected})"
    fi
    echo "# han on MPI_COMM_WORLD: $han_label"
fi

# all.txt: variant rep size avg min max iters validation path
: >"$out/all.txt"
failed_runs=()
nv=${#vlist[@]}
for ((r = 0; r < reps; r++)); do
    for ((b = 0; b < ${#band_lo[@]}; b++)); do
        for ((k = 0; k < nv; k++)); do
            v=${vlist[$(((k + r + b) % nv))]}
            f="$out/$v.rep$r.band$b.txt"
            run "$v" "$f" --min "${band_lo[$b]}" --max "${band_hi[$b]}" "${bench_opts[@]}"
            awk -v v="$v" -v r="$r" '/^[0-9]/ && NF == 7 { print v, r, $0 }' "$f" >>"$out/all.txt"
            if [ "$rc" -ne 0 ]; then
                why="exit $rc"
                [ "$rc" -eq 124 ] && why="timeout after ${tmo}s"
                failed_runs+=("$v rep $r sizes ${band_lo[$b]}..${band_hi[$b]}: $why ($(grep -v '^#' "$f" | grep -vE '^[0-9]' | head -n 2 | tr '\n' ' '))")
            fi
        done
    done
    echo "# repetition $((r + 1))/$reps done"
done

# ---------------------------------------------------------------- table
awk -v variants="$variants" -v hanlabel="$han_label" '
function human(b) {
    return b >= 1048576 ? (b / 1048576) "M" : b >= 1024 ? (b / 1024) "K" : b
}
{
    v = $1; s = $3 + 0; avg = $4 + 0
    if (!(s in seen)) { seen[s] = 1; sizes[++ns] = s }
    key = v SUBSEP s
    n[key]++
    if (n[key] == 1 || avg < best[key]) { best[key] = avg }
    if (n[key] == 1 || avg > worst[key]) { worst[key] = avg }
    rep[key, $2] = avg
    if ($8 != "Pass") { bad[s] = bad[s] " " v }
    if (v == "themis") { path[s] = $9 }
    reps_seen[$2] = 1
}
END {
    nvar = split(variants, V, ",")
    for (i = 1; i <= nvar; i++) { label[V[i]] = V[i] == "han" ? hanlabel : V[i] }
    # selection sort of the sizes (awk has no portable sort)
    for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++)
        if (sizes[j] < sizes[i]) { t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t }
    hdr = sprintf("%-9s", "size")
    for (i = 1; i <= nvar; i++) hdr = hdr sprintf(" %*s", length(label[V[i]]) > 12 ? length(label[V[i]]) : 12, label[V[i]])
    hdr = hdr "  th.path "
    for (i = 1; i <= nvar; i++) if (V[i] != "themis") hdr = hdr sprintf(" %*s", length(V[i]) + 3 > 9 ? length(V[i]) + 3 : 9, V[i] "/th")
    hdr = hdr "  tuned/th range   noise  valid"
    print "latency in us (min over repetitions of the average over iterations); x/th = x / themis"
    print hdr
    worst_r = -1; nslow = 0; nspread = 0
    for (i = 1; i <= ns; i++) {
        s = sizes[i]
        line = sprintf("%-9s", human(s))
        for (k = 1; k <= nvar; k++) {
            w = length(label[V[k]]) > 12 ? length(label[V[k]]) : 12
            key = V[k] SUBSEP s
            line = line sprintf(" %*s", w, (key in best) ? sprintf("%.2f", best[key]) : "n/a")
        }
        line = line sprintf("  %-8s", (s in path) ? path[s] : "n/a")
        th = "themis" SUBSEP s
        for (k = 1; k <= nvar; k++) {
            if (V[k] == "themis") continue
            w = length(V[k]) + 3 > 9 ? length(V[k]) + 3 : 9
            key = V[k] SUBSEP s
            if ((key in best) && (th in best) && best[th] > 0) {
                line = line sprintf(" %*.2f", w, best[key] / best[th])
            } else {
                line = line sprintf(" %*s", w, "n/a")
            }
        }
        # paired ratios tuned/themis of runs made side by side, and the spread
        lo = ""; hi = ""
        for (r in reps_seen) {
            if ((("tuned" SUBSEP s, r) in rep) && (("themis" SUBSEP s, r) in rep) && rep["themis" SUBSEP s, r] > 0) {
                q = rep["tuned" SUBSEP s, r] / rep["themis" SUBSEP s, r]
                if (lo == "" || q < lo) lo = q
                if (hi == "" || q > hi) hi = q
            }
        }
        line = line (lo == "" ? sprintf("  %15s", "n/a") : sprintf("  %7.2f-%-7.2f", lo, hi))
        sp = -1
        for (k = 1; k <= nvar; k++) {
            key = V[k] SUBSEP s
            if ((key in best) && n[key] > 1 && best[key] > 0 && worst[key] / best[key] - 1 > sp) sp = worst[key] / best[key] - 1
        }
        line = line (sp < 0 ? sprintf(" %6s", "n/a") : sprintf(" %5.0f%%", 100 * sp))
        line = line "  " ((s in bad) ? "FAIL:" bad[s] : "Pass")
        print line
        if (sp >= 0) { spreads[++nspread] = sp; if (sp > maxsp) { maxsp = sp; maxsp_s = s } }
        if (("tuned" SUBSEP s in best) && (th in best) && best[th] > 0) {
            ratio = best["tuned" SUBSEP s] / best[th]
            if (worst_r < 0 || ratio < worst_r) { worst_r = ratio; worst_s = s }
            if (ratio < 0.95) {
                slow = slow sprintf(" %s(%.2f%s)", human(s), ratio, hi != "" && hi >= 0.95 ? ", within noise" : "")
                nslow++
            }
        }
        if ("themis-all" SUBSEP s in best && "tuned" SUBSEP s in best) {
            allr[i] = best["tuned" SUBSEP s] / best["themis-all" SUBSEP s]
        }
    }
    print ""
    if (nspread > 0) {
        for (i = 1; i <= nspread; i++) for (j = i + 1; j <= nspread; j++)
            if (spreads[j] < spreads[i]) { t = spreads[i]; spreads[i] = spreads[j]; spreads[j] = t }
        printf "noise: spread of repetitions (max/min - 1, worst variant) median %.0f%%, max %.0f%% at %s\n",
            100 * spreads[int((nspread + 1) / 2)], 100 * maxsp, human(maxsp_s)
    }
    if (nslow > 0) {
        printf "themis slower than tuned by more than 5%% at:%s\n", slow
    } else if (worst_r >= 0) {
        print "themis slower than tuned by more than 5% at: none"
    }
    # smallest size from which the themis path (min_bytes 0) never loses >5% to tuned
    if (length(allr) > 0) {
        from = ""
        for (i = ns; i >= 1; i--) { if (!(i in allr) || allr[i] < 0.95) break; from = sizes[i] }
        printf "suggested_min_bytes=%s (smallest size from which themis-all is within 5%% of tuned at every larger size)\n",
            from == "" ? "none in range" : from
    }
    if (worst_r >= 0) {
        printf "worst_ratio_tuned_vs_themis=%.2f at %d\n", worst_r, worst_s
    } else {
        print "worst_ratio_tuned_vs_themis=n/a at n/a (themis or tuned missing)"
    }
}' "$out/all.txt" >"$out/table.txt"
status=0
if [ ${#failed_runs[@]} -gt 0 ]; then
    status=1
    for f in "${failed_runs[@]}"; do echo "# FAILED RUN: $f"; done
fi
grep -q FAIL: "$out/table.txt" && status=1
[ "$keep_out" -eq 1 ] && echo "# raw outputs in $out"
echo
cat "$out/table.txt"
exit "$status"
