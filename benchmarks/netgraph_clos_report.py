#!/usr/bin/python3
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
"""The summary and the per-link picture of benchmarks/netgraph_clos_routing.sh,
from its results file alone (header and `run` lines; no bed needed):

  netgraph_clos_report.py RESULTS.txt SVG

Prints the summary (netgraph_clos_routing.sh appends it to RESULTS) and writes
SVG with gnuplot: bytes on each of the 16 ToR-spine directions under the
planned routes (mean of the plan runs) and in the ECMP runs with the most
and the fewest directions carrying two flows or more.
"""

import os
import re
import statistics
import subprocess
import sys


def main(out, svg):
    text = open(out).read()
    plan_load = int(re.search(r'#   exact: max_load=([0-9]+) ', text).group(1))
    ecmp_mean = float(re.search(r'mean_max_load=([0-9.]+) ', text).group(1))
    hist = re.search(r'histogram (.*) \(max_load', text).group(1).replace(' ', ',')
    rate = re.search(r'ToR-spine (\S+) each way', text).group(1)
    runs = []
    for line in text.splitlines():
        t = line.split()
        if t and t[0] == 'run':
            up, down = ' '.join(t[8:]).split('|')
            runs.append({'run': int(t[1]), 'mode': t[2], 'slow': float(t[6]), 'load': int(t[7]),
                         'mb': [float(x) for x in up.split()] + [float(x) for x in down.split()]})
    P = [r for r in runs if r['mode'] == 'plan']
    E = [r for r in runs if r['mode'] == 'ecmp']
    if not P or not E:
        sys.exit('netgraph_clos_report: %s has no plan or no ecmp runs' % out)
    pt = statistics.median(r['slow'] for r in P)
    # Directions carrying two flows or more: bytes / bytes per flow (all up
    # bytes over the 8 flows), rounded.
    for r in runs:
        f = sum(r['mb'][:8]) / 8
        r['shared'] = sum(1 for x in r['mb'] if round(x / f) >= 2)
    print('# summary: plan runs %d, ecmp runs %d' % (len(P), len(E)))
    for name, rs in (('plan', P), ('ecmp', E)):
        print('%s: slower job %s ms (median %.1f), max link load %s, directions with >= 2 flows %s'
              % (name, ' '.join('%.1f' % r['slow'] for r in rs),
                 statistics.median(r['slow'] for r in rs),
                 ' '.join(str(r['load']) for r in rs), ' '.join(str(r['shared']) for r in rs)))
    print("per ecmp run: predicted slowdown (its max load / plan's %d) vs measured (its slower "
          "job / plan median):" % plan_load)
    for r in E:
        print('  run %d: predicted %.2f measured %.2f (%d directions with >= 2 flows)'
              % (r['run'], r['load'] / plan_load, r['slow'] / pt, r['shared']))
    meas = statistics.mean(r['slow'] for r in E) / pt
    real = statistics.mean(r['load'] for r in E) / plan_load
    print('predicted_slowdown_planner=%.3f predicted_slowdown_runs=%.3f measured_slowdown=%.3f '
          'ecmp_histogram=%s' % (ecmp_mean / plan_load, real, meas, hist))

    labels = ['T%d>S%d' % (t, s) for t in range(4) for s in range(2)] + \
             ['S%d>T%d' % (s, t) for s in range(2) for t in range(4)]
    most = min(E, key=lambda r: (-r['shared'], r['run']))
    fewest = min(E, key=lambda r: (r['shared'], r['run']))
    dat = svg + '.dat'
    with open(dat, 'w') as f:
        for i, lab in enumerate(labels):
            f.write('%s %.2f %.2f %.2f\n' % (lab, statistics.mean(r['mb'][i] for r in P),
                                              most['mb'][i], fewest['mb'][i]))

    def title(r):
        return 'ECMP run %d: %d directions carry 2 flows, slower job %.2fx planned' % (
            r['run'], r['shared'], r['slow'] / pt)
    gp = '\n'.join([
        'set terminal svg size 1000,460 dynamic font "sans,12"',
        'set output "%s"' % svg,
        'set title "Bytes per ToR-spine direction in one run of both jobs (Clos 4x2, %s per '
        'direction)"' % rate,
        'set ylabel "MB sent"',
        'set xlabel "up: ToR t to spine s (Tt>Ss)          down: spine s to ToR t (Ss>Tt)"',
        'set style data histograms',
        'set style histogram clustered gap 1',
        'set style fill solid 0.85 border -1',
        'set boxwidth 0.9',
        'set xtics scale 0 font "sans,10"',
        'set key outside top center vertical',
        'set grid ytics',
        'set yrange [0:*]',
        'plot "%s" using 2:xtic(1) title "planned (themis-plan route --algo exact), mean of %d '
        'runs" lc rgb "#1b7837", "" using 3 title "%s" lc rgb "#c51b7d", '
        '"" using 4 title "%s" lc rgb "#fdb863"' % (dat, len(P), title(most), title(fewest)),
        ''])
    try:
        subprocess.run(['gnuplot'], input=gp, text=True, check=True)
    finally:
        os.unlink(dat)
    print('picture: %s (ECMP runs %d and %d)' % (os.path.basename(svg), most['run'], fewest['run']))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: netgraph_clos_report.py RESULTS.txt SVG')
    main(sys.argv[1], sys.argv[2])
