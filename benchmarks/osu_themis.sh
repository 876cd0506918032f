#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# OSU-style latency of coll/themis against Open MPI's own components, on one
# node: runs benchmarks/osu_coll_latency for the variants
#   themis     --mca coll themis,inter,tuned,libnbc,basic,self --mca coll_themis_dims DIMS
#   baseline   the same with --mca coll_themis_scheduler baseline
#   tuned      --mca coll tuned,inter,libnbc,basic,self (no themis)
#   han        --mca coll han,tuned,inter,libnbc,basic,self --mca coll_han_priority 100
#   themis-all themis with --mca coll_themis_min_bytes 0: every size on the themis
#              path (not in the default list; it shows where min_bytes belongs)
# and prints one merged table: per size each variant's latency and its
# ratio to themis (variant / themis: > 1 means themis is faster).
#
# Noise.  np 8 on 2 shared cores is oversubscribed and other jobs run too:
# a call that catches a descheduled rank takes 10-100x the typical time,
# and one run of a variant can be off by 2x.  So:
#  - every variant runs --reps times (default 3), interleaved: the sizes are
#    cut into bands (--bands), and for each repetition and band all variants
#    run back to back, in an order rotated per (repetition, band), so runs
#    compared with each other are minutes apart at most and no variant is
#    always first;
#  - inside a run, osu_coll_latency --rounds spreads each size's iterations
#    over the whole run;
#  - a variant's latency at a size is the minimum over its repetitions
#    (interference only adds time) of the run's average (--stat avg, the OSU
#    figure, default) or of its median call latency (--stat median);
#  - the table shows the spread of the repetitions (max/min - 1 of the
#    noisiest variant), the range of the paired ratios tuned/themis of runs
#    made side by side (a ratio below 0.95 whose range reaches 0.95 is
#    within the noise), and tuned/themis under the other statistic;
#  - interference is measured, not guessed: for every run the script takes
#    the CPU time all tasks used (/proc/stat) less the CPU time of its own
#    processes (bash times, which includes the ranks), as a share of all
#    cores over the run's wall time.  A run that other jobs disturbed by more
#    than --max-disturb is repeated (--retries) and the least disturbed
#    attempt kept; before each attempt the script waits up to --quiet-wait
#    seconds for no other runnable task.  Waiting and retrying stop once
#    they have cost --patience seconds in total.  The share of each kept run
#    is reported.
#
# han turns itself off when all ranks share one host.  A short probe run
# with coll_base_verbose shows whether han was selected on MPI_COMM_WORLD;
# if not, its column is labelled with han's reason, e.g.
# "han(off: single host)", and measures what han hands the calls to (tuned).
#
# Options:
#   --np N              ranks (default 8).  Up to one rank per core the ranks
#                       are bound to cores and busy-poll (stable placement:
#                       run-to-run spread of a few %); above that they are
#                       unbound and yield when idle (oversubscribed)
#   --dims SHAPE        coll_themis_dims (default 4x2; the product must be N)
#   --transport T       vader (ob1+vader, default) | tcp (ob1+tcp on lo) |
#                       ofi (cm+ofi, FI_PROVIDER=tcp)
#   --coll C            allreduce (default) | reduce_scatter_block | allgather
#   --min B --max B     size range (default 4 .. 64M; K/M/G suffixes)
#   --bands B1,B2,...   upper ends of the size bands (default 4K,512K)
#   --reps R            repetitions per variant (default 3)
#   --stat S            avg (default) | median
#   --rounds R          rounds per run, see osu_coll_latency (default 4)
#   --iters N --warmup N --budget B --min-iters N   passed to osu_coll_latency
#   --variants LIST     default themis,baseline,tuned,han
#   --themis-opt "ARGS" more mpirun arguments for the themis variants
#   --timeout S         per mpirun (default 600)
#   --max-disturb F     share of the CPUs other jobs may use during a run
#                       before it is repeated (default 0.10)
#   --retries N         repeats of a disturbed run (default 2)
#   --quiet-wait S      before each attempt, wait up to S s for no other
#                       runnable task (default 20)
#   --patience S        total seconds spent waiting and repeating (default 900)
#   --out DIR           keep every run's output there (default: a temp dir, removed)
# Environment: THEMIS_BUILD_DIR (default: the repository root) holds
# benchmarks/osu_coll_latency and ompi/mca/coll/themis/.libs.
#
# The last line is `worst_ratio_tuned_vs_themis=X.XX at SIZE`: the smallest
# tuned/themis over the sizes (target: >= 0.95 everywhere).  Exit status 1
# when a run failed or a validation failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${THEMIS_BUILD_DIR:-$top}
bench=$BUILD/benchmarks/osu_coll_latency
# shellcheck source=tools/launch.sh
. "$top/tools/launch.sh"
mapfile -t path_args < <(launch_opts path)

die() { echo "osu_themis: $*" >&2; exit 2; }

np=8 dims=4x2 transport=vader coll=allreduce min=4 max=64M bands=4K,512K reps=3
stat=avg rounds=4 variants=themis,baseline,tuned,han themis_opt="" tmo=600 out="" quiet=20
max_disturb=0.10 retries=2 patience=900
bench_opts=()
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) sed -n '/^# Options:/,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    esac
    [ $# -ge 2 ] || die "$1 needs a value"
    case $1 in
        --np) np=$2 ;;
        --dims) dims=$2 ;;
        --transport) transport=$2 ;;
        --coll) coll=$2 ;;
        --min) min=$2 ;;
        --max) max=$2 ;;
        --bands) bands=$2 ;;
        --reps) reps=$2 ;;
        --stat) stat=$2 ;;
        --rounds) rounds=$2 ;;
        --iters|--warmup|--budget|--min-iters) bench_opts+=("$1" "$2") ;;
        --variants) variants=$2 ;;
        --themis-opt) themis_opt=$2 ;;
        --timeout) tmo=$2 ;;
        --quiet-wait) quiet=$2 ;;
        --max-disturb) max_disturb=$2 ;;
        --retries) retries=$2 ;;
        --patience) patience=$2 ;;
        --out) out=$2 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift 2
done

# ---------------------------------------------------------------- checks
bytes() {   # K/M/G suffixes (binary) -> bytes; prints nothing on error
    local n u
    [[ $1 =~ ^([0-9]+)([KkMmGg]?)[Bb]?$ ]] || return 0
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
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive integer"
[[ $tmo =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive integer (seconds)"
[[ $quiet =~ ^[0-9]+$ ]] || die "--quiet-wait must be a number of seconds"
[[ $patience =~ ^[0-9]+$ ]] || die "--patience must be a number of seconds"
[[ $retries =~ ^[0-9]+$ ]] || die "--retries must be a non-negative integer"
[[ $max_disturb =~ ^(0?\.[0-9]+|[01](\.[0-9]*)?)$ ]] || die "--max-disturb must be a share between 0 and 1"
[[ $dims =~ ^[1-9][0-9]*(x[1-9][0-9]*)*$ ]] || die "--dims must look like 4x2 or 2x2x2"
prod=1
for d in ${dims//x/ }; do prod=$((prod * d)); done
[ "$prod" -eq "$np" ] || die "--dims $dims has $prod ranks, --np is $np"
min_b=$(bytes "$min"); max_b=$(bytes "$max")
[ -n "$min_b" ] && [ -n "$max_b" ] && [ "$min_b" -gt 0 ] && [ "$min_b" -le "$max_b" ] ||
    die "--min/--max must be byte counts with min <= max"
[ $((min_b % 4)) -eq 0 ] || die "--min must be a multiple of 4 (sizes are whole floats)"
case $stat in
    avg|median) ;;
    *) die "--stat must be avg or median" ;;
esac
case $coll in
    allreduce|reduce_scatter_block|allgather) ;;
    *) die "--coll must be allreduce, reduce_scatter_block or allgather" ;;
esac
case $transport in
    vader | tcp | ofi) mapfile -t tr_args < <(launch_opts "$transport") ;;
    *) die "--transport must be vader, tcp or ofi" ;;
esac
IFS=, read -r -a vlist <<<"$variants"
[ ${#vlist[@]} -gt 0 ] || die "--variants is empty"
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
        { [ "$hi" -lt "$max_b" ] && [ "$hi" -ge "$lo" ]; } || continue
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
orte_dir=""
cleanup() {
    [ -z "$orte_dir" ] || rm -rf "$orte_dir"
    [ "$keep_out" -eq 1 ] || rm -rf "$out"
}
trap cleanup EXIT

# ---------------------------------------------------------------- running
variant_args() {   # the mpirun arguments that make variant $1
    local themis
    themis="$(launch_opts coll | tr '\n' ' ')--mca coll_themis_dims $dims"
    case $1 in
        themis) echo "$themis $themis_opt" ;;
        baseline) echo "$themis --mca coll_themis_scheduler baseline $themis_opt" ;;
        themis-all) echo "$themis $themis_opt --mca coll_themis_min_bytes 0" ;;
        tuned) echo "--mca coll tuned,inter,libnbc,basic,self" ;;
        han) echo "--mca coll han,tuned,inter,libnbc,basic,self --mca coll_han_priority 100" ;;
    esac
}
if [ "$np" -le "$(nproc)" ]; then
    place_args=(--bind-to core)
else
    mapfile -t place_args < <(launch_opts oversubscribe)
    place_args+=(--bind-to none --mca mpi_yield_when_idle 1)
fi
# run VARIANT OUTFILE BENCH-ARGS...: one mpirun, output in OUTFILE; sets rc.
# $extra: more mpirun arguments for this run only.
extra=()
run() {
    local v=$1 file=$2
    shift 2
    local tmpo
    orte_dir=$(mktemp -d /tmp/osu_themis_orte.XXXXXX)
    mapfile -t tmpo < <(launch_opts tmpdir "$orte_dir")
    # shellcheck disable=SC2046  # variant_args is meant to split into words
    timeout --kill-after=15 "$tmo" "$MPIRUN" -np "$np" "${place_args[@]}" "${tmpo[@]}" \
        "${path_args[@]}" "${tr_args[@]}" $(variant_args "$v") "${extra[@]}" \
        "$bench" --coll "$coll" "$@" >"$file" 2>&1
    rc=$?
    rm -rf "$orte_dir"
    orte_dir=""
}

# Other runnable tasks (procs_running less the sampling awk itself),
# averaged over 5 samples 0.1 s apart.
other_load() {
    local sum=0 n _
    for _ in 1 2 3 4 5; do
        n=$(awk '/^procs_running/ { print $2 - 1 }' /proc/stat)
        sum=$((sum + n))
        sleep 0.1
    done
    awk -v s="$sum" 'BEGIN { printf "%.1f", s / 5 }'
}
# Waits up to --quiet-wait seconds (within --patience) for no other
# runnable task; sets load.
wait_quiet() {
    local t0=$SECONDS deadline=$((SECONDS + quiet))
    load=$(other_load)
    while awk -v l="$load" 'BEGIN { exit !(l >= 0.5) }' && [ "$SECONDS" -lt "$deadline" ] &&
          [ "$spent" -lt "$patience" ]; do
        sleep 2
        spent=$((spent + 2))
        load=$(other_load)
    done
}
# CPU time of the whole machine (USER_HZ ticks: user nice system irq
# softirq steal) and of this shell's finished children, in seconds.  times
# must run in this shell, not in a $(...) subshell, to see our children.
clk=$(getconf CLK_TCK)
ncores=$(nproc)
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
times_file=$out/.times
children_secs() {
    awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); s += a[1] * 60 + a[2] } print s }' "$times_file"
}
# measured_run VARIANT OUTFILE BENCH-ARGS...: run with the interference
# measurement; sets rc, disturb (share of all CPUs other jobs used) and wall.
measured_run() {
    local c0 c1 k0 k1 w0 w1
    c0=$(machine_ticks); times >"$times_file"; k0=$(children_secs); w0=$(date +%s.%N)
    run "$@"
    c1=$(machine_ticks); times >"$times_file"; k1=$(children_secs); w1=$(date +%s.%N)
    read -r disturb wall < <(awk -v c0="$c0" -v c1="$c1" -v k0="$k0" -v k1="$k1" -v w0="$w0" \
        -v w1="$w1" -v clk="$clk" -v n="$ncores" 'BEGIN {
        wall = w1 - w0; other = (c1 - c0) / clk - (k1 - k0)
        d = wall > 0 ? other / (n * wall) : 0
        printf "%.3f %.1f\n", d < 0 ? 0 : d, wall }')
}

echo "# OSU-style $coll latency, one node: np $np, dims $dims, transport $transport, sizes $min_b..$max_b"
echo "# variants $variants; $reps interleaved repetition(s) in ${#band_lo[@]} size band(s);" \
     "$rounds round(s) per run; statistic: min over repetitions of the run's $stat"
[ -n "$themis_opt" ] && echo "# themis variants also get: $themis_opt"
[ ${#bench_opts[@]} -gt 0 ] && echo "# osu_coll_latency options: ${bench_opts[*]}"
echo "# placement: ${place_args[*]}"

han_label=han
if [[ ,$variants, == *,han,* ]]; then
    # han's selection on MPI_COMM_WORLD, from one tiny verbose run.
    extra=(--mca coll_base_verbose 30)
    run han "$out/han_probe.txt" --min 4K --max 4K --iters 1 --warmup 0
    extra=()
    if [ "$rc" -ne 0 ]; then
        han_label="han(probe failed: exit $rc)"
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

# all.txt: variant rep size avg min max iters validation path median
# runs.txt: variant rep band other-load seconds exit-status disturbance attempts
# attempts.txt: variant rep band attempt other-load disturbance seconds exit-status
: >"$out/all.txt"
: >"$out/runs.txt"
: >"$out/attempts.txt"
spent=0
failed_runs=()
nv=${#vlist[@]}
# run_variant REP BAND VARIANT: attempts until one is quiet enough (within
# --retries and --patience); keeps the least disturbed one.
run_variant() {
    local r=$1 b=$2 v=$3 f="$out/$3.rep$1.band$2.txt" best_d="" attempt=0
    local best_rc best_wall best_load why
    while :; do
        wait_quiet
        measured_run "$v" "$f.try$attempt" --min "${band_lo[$b]}" --max "${band_hi[$b]}" \
            --rounds "$rounds" "${bench_opts[@]}"
        echo "$v $r $b $attempt $load $disturb $wall $rc" >>"$out/attempts.txt"
        if [ -z "$best_d" ] || awk -v d="$disturb" -v b="$best_d" 'BEGIN { exit !(d < b) }'; then
            best_d=$disturb best_rc=$rc best_wall=$wall best_load=$load
            mv "$f.try$attempt" "$f"
        else
            rm -f "$f.try$attempt"
        fi
        attempt=$((attempt + 1))
        awk -v d="$best_d" -v m="$max_disturb" 'BEGIN { exit !(d > m) }' || break
        { [ "$attempt" -le "$retries" ] && [ "$spent" -lt "$patience" ]; } || break
        spent=$(awk -v s="$spent" -v w="$wall" 'BEGIN { printf "%d", s + w + 0.5 }')
    done
    awk -v v="$v" -v r="$r" -v d="$best_d" '/^[0-9]/ && NF == 8 { print v, r, $0, d }' "$f" \
        >>"$out/all.txt"
    echo "$v $r $b $best_load $best_wall $best_rc $best_d $attempt" >>"$out/runs.txt"
    if [ "$best_rc" -ne 0 ]; then
        why="exit $best_rc"
        [ "$best_rc" -eq 124 ] && why="timeout after ${tmo}s"
        failed_runs+=("$v rep $r sizes ${band_lo[$b]}..${band_hi[$b]}: $why: $(grep -vE '^(#|[0-9])' "$f" | head -n 2 | tr '\n' ' ')")
    fi
}
# run_band REP BAND: every variant once, back to back, order rotated.
run_band() {
    local k
    for ((k = 0; k < nv; k++)); do
        run_variant "$1" "$2" "${vlist[$(((k + $1 + $2) % nv))]}"
    done
}
# Does every variant have an undisturbed run of band $1?
band_clean() {
    awk -v b="$1" -v m="$max_disturb" -v vs="$variants" '
        $3 == b && $7 <= m { ok[$1] = 1 }
        END { n = split(vs, V, ","); for (i = 1; i <= n; i++) if (!(V[i] in ok)) exit 1 }' \
        "$out/runs.txt"
}
start=$SECONDS
for ((r = 0; r < reps; r++)); do
    for ((b = 0; b < ${#band_lo[@]}; b++)); do
        run_band "$r" "$b"
    done
    echo "# repetition $((r + 1))/$reps done ($((SECONDS - start)) s)"
done
# Make-up repetitions (up to --reps more, within --patience) of the bands
# where some variant has no undisturbed run.
for ((r = reps; r < 2 * reps; r++)); do
    for ((b = 0; b < ${#band_lo[@]}; b++)); do
        band_clean "$b" && continue
        [ "$spent" -lt "$patience" ] || break 2
        t0=$SECONDS
        run_band "$r" "$b"
        spent=$((spent + SECONDS - t0))
        echo "# make-up repetition of sizes ${band_lo[$b]}..${band_hi[$b]} done ($((SECONDS - start)) s)"
    done
done

# ---------------------------------------------------------------- table
# Ratios are to themis, or to the first variant listed when themis is not
# among them (then the "themis" below means that variant).
awk -v variants="$variants" -v hanlabel="$han_label" -v stat="$stat" -v maxd="$max_disturb" '
function human(b) {
    return b >= 1048576 ? (b / 1048576) "M" : b >= 1024 ? (b / 1024) "K" : b
}
# one A/A ratio of kind k ("han": han(off)/tuned, "fb": tuned/ref where ref fell back)
function aa(r, k) {
    naa[k]++; if (!(k in aalo) || r < aalo[k]) aalo[k] = r; if (!(k in aahi) || r > aahi[k]) aahi[k] = r
    aad[++naad] = r < 1 ? r : 1 / r
}
# is run (v, s, r) usable: any run, or only undisturbed ones when q is set
function use(v, s, r) { return ((v, s, r) in val) && (!q || val[v, s, r, "d"] <= maxd) }
function width(v) { return length(label[v]) > 11 ? length(label[v]) : 11 }
function rwidth(v) { return length(v "/" sh) > 8 ? length(v "/" sh) : 8 }
# min over repetitions of statistic c for variant v at size s ("" if none)
function best(v, s, c,    r, x, m) {
    m = ""
    for (r in reps) if (use(v, s, r)) {
        x = val[v, s, r, c]
        if (m == "" || x < m) m = x
    }
    return m
}
{
    v = $1; r = $2; s = $3 + 0
    if (!(s in seen)) { seen[s] = 1; sizes[++ns] = s }
    reps[r] = 1
    val[v, s, r] = 1
    val[v, s, r, "avg"] = $4 + 0; val[v, s, r, "median"] = $10 + 0; val[v, s, r, "d"] = $11 + 0
    if ($8 != "Pass") bad[s] = bad[s] " " v
    path[v, s] = $9
}
END {
    other = stat == "avg" ? "median" : "avg"
    hanoff = hanlabel ~ /^han\(off/
    nvar = split(variants, V, ",")
    ref = V[1]
    for (i = 1; i <= nvar; i++) {
        label[V[i]] = V[i] == "han" ? hanlabel : V[i]
        if (V[i] == "themis") ref = "themis"
    }
    sh = ref == "themis" ? "th" : ref
    for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++)
        if (sizes[j] < sizes[i]) { t = sizes[i]; sizes[i] = sizes[j]; sizes[j] = t }
    printf "latency in us: min over repetitions of the %s of a run; x/%s = x / %s (> 1: %s faster)\n", stat, sh, ref, ref
    printf "rows marked * : some variant has no run that other jobs disturbed by <= %.0f%% of the CPUs, so all runs are used\n", 100 * maxd
    hdr = sprintf("%-6s", "size")
    for (i = 1; i <= nvar; i++) hdr = hdr sprintf(" %*s", width(V[i]), label[V[i]])
    pw = length(sh ".path") > 8 ? length(sh ".path") : 8
    hdr = hdr sprintf("  %-*s", pw, sh ".path")
    for (i = 1; i <= nvar; i++) if (V[i] != ref) hdr = hdr sprintf(" %*s", rwidth(V[i]), V[i] "/" sh)
    hdr = hdr sprintf("  %-13s %16s %6s  %s", "tuned/" sh " pairs", "tuned/" sh "(" other ")", "noise", "valid")
    print hdr
    worst = ""; worst_o = ""; nspread = 0; maxsp = -1
    nclean = 0
    for (i = 1; i <= ns; i++) {
        s = sizes[i]
        # undisturbed runs only, when every variant has one at this size
        q = 1
        for (k = 1; k <= nvar; k++) if (best(V[k], s, stat) == "") q = 0
        clean[i] = q; nclean += q
        line = sprintf("%-6s", human(s) (q ? "" : "*"))
        for (k = 1; k <= nvar; k++) {
            x = best(V[k], s, stat)
            line = line sprintf(" %*s", width(V[k]), x == "" ? "n/a" : sprintf("%.2f", x))
        }
        line = line sprintf("  %-*s", pw, ((ref, s) in path) ? path[ref, s] : "n/a")
        th = best(ref, s, stat)
        for (k = 1; k <= nvar; k++) {
            if (V[k] == ref) continue
            x = best(V[k], s, stat)
            line = line ((x != "" && th != "" && th > 0) ? sprintf(" %*.2f", rwidth(V[k]), x / th) : sprintf(" %*s", rwidth(V[k]), "n/a"))
        }
        # paired ratios: tuned/ref of the runs of the same repetition
        lo = ""; hi = ""
        for (r in reps) {
            if (use("tuned", s, r) && use(ref, s, r) && val[ref, s, r, stat] > 0) {
                pq = val["tuned", s, r, stat] / val[ref, s, r, stat]
                if (lo == "" || pq < lo) lo = pq
                if (hi == "" || pq > hi) hi = pq
            }
        }
        line = line (lo == "" ? sprintf("  %-13s", "n/a") : sprintf("  %-13s", sprintf("%.2f-%.2f", lo, hi)))
        tu = best("tuned", s, other); tho = best(ref, s, other)
        ro = (tu != "" && tho != "" && tho > 0) ? tu / tho : ""
        line = line sprintf(" %16s", ro == "" ? "n/a" : sprintf("%.2f", ro))
        # spread of the repetitions, noisiest variant
        sp = -1
        for (k = 1; k <= nvar; k++) {
            m = best(V[k], s, stat); M = ""
            nm = 0
            for (r in reps) if (use(V[k], s, r)) { nm++; if (M == "" || val[V[k], s, r, stat] > M) M = val[V[k], s, r, stat] }
            if (m != "" && m > 0 && nm > 1 && M / m - 1 > sp) sp = M / m - 1
        }
        line = line (sp < 0 ? sprintf(" %6s", "n/a") : sprintf(" %5.0f%%", 100 * sp))
        line = line "  " ((s in bad) ? "FAIL:" bad[s] : "Pass")
        print line
        if (sp >= 0) { spreads[++nspread] = sp; if (sp > maxsp) { maxsp = sp; maxsp_s = s } }
        tu = best("tuned", s, stat)
        if (tu != "" && th != "" && th > 0 && ref != "tuned") {
            ratio[i] = tu / th
            # A/A pairs (the same code in both columns) measure the noise floor
            if (path[ref, s] == "fallback") aa_fb[i] = ratio[i]
        }
        ha = best("han", s, stat)
        if (hanoff && ha != "" && tu != "" && tu > 0) aa_han[i] = ha / tu
        if (ro != "") ratio_o[i] = ro
        ta = best("themis-all", s, stat)
        if (ta != "" && tu != "" && ta > 0) allr[i] = tu / ta
    }
    # the worst ratios come from the clean rows when there are any
    for (i = 1; i <= ns; i++) {
        if (nclean > 0 && !clean[i]) continue
        if ((i in ratio) && (worst == "" || ratio[i] < worst)) { worst = ratio[i]; worst_s = sizes[i] }
        if ((i in ratio_o) && ref != "tuned" && (worst_o == "" || ratio_o[i] < worst_o)) { worst_o = ratio_o[i]; worst_os = sizes[i] }
    }
    for (i = 1; i <= ns; i++) {
        if (!clean[i]) dirty_all = dirty_all " " human(sizes[i])
        if (nclean > 0 && !clean[i]) continue
        if (i in aa_fb) aa(aa_fb[i], "fb")
        if (i in aa_han) aa(aa_han[i], "han")
    }
    # A/A floor: the 10th percentile of the A/A ratios folded below 1
    # (the worst tenth of the A/A pairs are taken as outliers)
    aa_floor = ""
    if (naad > 0) {
        for (i = 1; i <= naad; i++) for (j = i + 1; j <= naad; j++) if (aad[j] < aad[i]) { t = aad[i]; aad[i] = aad[j]; aad[j] = t }
        aa_floor = aad[int(naad / 10) + 1]
    }
    print ""
    if (nspread > 0) {
        for (i = 1; i <= nspread; i++) for (j = i + 1; j <= nspread; j++)
            if (spreads[j] < spreads[i]) { t = spreads[i]; spreads[i] = spreads[j]; spreads[j] = t }
        printf "noise: spread of the repetitions (max/min - 1, noisiest variant): median %.0f%%, max %.0f%% at %s\n",
            100 * spreads[int((nspread + 1) / 2)], 100 * maxsp, human(maxsp_s)
    }
    if ("han" in naa)
        printf "noise floor, A/A (han is off, so han and tuned run the same code): han/tuned %.2f..%.2f over %d sizes\n", aalo["han"], aahi["han"], naa["han"]
    if ("fb" in naa)
        printf "noise floor, A/A (%s hands the call to tuned): tuned/%s %.2f..%.2f over %d sizes\n", ref, sh, aalo["fb"], aahi["fb"], naa["fb"]
    if (aa_floor != "")
        printf "A/A floor (10th percentile of the A/A ratios folded below 1): %.2f\n", aa_floor
    if (dirty_all != "")
        printf "disturbed rows (*):%s%s\n", dirty_all, (nclean > 0 ? "; the A/A and worst ratios below ignore them" : "; no clean row: the A/A and worst ratios below use them")
    slow = ""
    for (i = 1; i <= ns; i++) if ((i in ratio) && ratio[i] < 0.95) {
        # within the noise: the global A/A floor, or the han/tuned
        # A/A pair (folded below 1) strays as far
        aa_here = (i in aa_han) && aa_han[i] > 0 ? (aa_han[i] < 1 ? aa_han[i] : 1 / aa_han[i]) : ""
        noisy = (aa_floor != "" && ratio[i] >= aa_floor) || (aa_here != "" && ratio[i] >= aa_here)
        slow = slow sprintf(" %s(%.2f%s)", human(sizes[i]), ratio[i], !clean[i] ? ", disturbed" : noisy ? ", within A/A noise" : "")
    }
    if (worst != "")
        printf "%s slower than tuned by more than 5%% at:%s\n", ref, (slow != "" ? slow : " none")
    if (length(allr) > 0) {
        # smallest size from which the themis path never loses more than 5% to tuned
        from = ""
        for (i = ns; i >= 1; i--) { if (!(i in allr) || allr[i] < 0.95) break; from = sizes[i] }
        printf "suggested_min_bytes=%s (themis-all within 5%% of tuned from there to the largest size)\n",
            from == "" ? "none in range" : from
    }
    if (worst_o != "") printf "worst_ratio_tuned_vs_%s(%s)=%.2f at %d\n", ref, other, worst_o, worst_os
    if (worst != "") printf "worst_ratio_tuned_vs_%s=%.2f at %d\n", ref, worst, worst_s
    else printf "worst_ratio_tuned_vs_%s=n/a at n/a (no size measured by both %s and tuned)\n", ref, ref
}' "$out/all.txt" >"$out/table.txt"

status=0
if [ ${#failed_runs[@]} -gt 0 ]; then
    status=1
    for f in "${failed_runs[@]}"; do echo "# FAILED RUN: $f"; done
fi
grep -q 'FAIL:' "$out/table.txt" && status=1
awk -v m="$max_disturb" -v tries="$(wc -l <"$out/attempts.txt")" -v spent="$spent" '
{ d[++n] = $7; if ($7 > m) bad++ }
END {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (d[j] < d[i]) { t = d[i]; d[i] = d[j]; d[j] = t }
    if (n > 0) printf "# other jobs used %.0f%% of the CPUs during the median kept run, %.0f%% at most; %d of %d kept runs above %.0f%% (%d attempts, %d s waiting/repeating)\n", 100 * d[int((n + 1) / 2)], 100 * d[n], bad, n, 100 * m, tries, spent
}' "$out/runs.txt"
[ "$keep_out" -eq 1 ] && echo "# raw outputs in $out"
echo
cat "$out/table.txt"
exit "$status"
