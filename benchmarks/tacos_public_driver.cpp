/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Runs the public TACOS synthesizer (github.com/astra-sim/tacos v1.3.0,
 * built unmodified beside this file by benchmarks/tacos_vs_public.sh) on
 * a graph given as links and writes the schedule it found, which its API
 * does not return: the link-chunk matches are observed by wrapping the
 * time-expanded network's calls at link time (-Wl,--wrap), and each
 * finished transfer's chunk (the matched one, or its replacement, Sec.
 * VI-B) is read from the synthesizer's chunk map.  Only for the
 * benchmark; nothing of it is part of themis.
 *
 * usage: tacos_public_driver LINKS K CHUNK_BYTES RUNS OUT
 *   LINKS: "n", then "src dst GiB/s us" per directed link.
 *   OUT: per run "run R TIME_US SYNTH_US NSENDS", then NSENDS lines
 *   "src dst chunk start_us finish_us" (start = finish - link time; chunk
 *   in themis's numbering, node r's chunks r x K .. r x K + K - 1).
 * RUNS solves with logging, then RUNS without, for the synthesis time
 * (the public code seeds from std::random_device: every run differs).
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tacos/collective/all_gather.h>
#include <tacos/event_queue/timer.h>
#include <tacos/synthesizer/time_expanded_network.h>
#include <tacos/topology/topology.h>
/* the chunk map is private; this reads it, nothing writes it */
#define private public
#include <tacos/synthesizer/synthesizer.h>
#undef private

using namespace tacos;

namespace {

struct Links : Topology {
    explicit Links(FILE *f, bool *ok) : Topology()
    {
        int n = 0, s, d;
        double bw, lat;
        *ok = 1 == fscanf(f, "%d", &n) && n > 0;
        if (*ok) {
            setNpusCount_(n);
        }
        while (*ok && 4 == fscanf(f, "%d %d %lf %lf", &s, &d, &bw, &lat)) {
            connect_(s, d, bw, lat, false);
        }
    }
};

struct Send {
    int src, dst, chunk;
    double start, finish;
};

Synthesizer *g_synth = nullptr;
bool g_log = false;
double g_now = 0;
std::vector<std::vector<char>> g_held;   /* [npu][chunk] what the log has seen arrive */
std::vector<Send> g_sends;
std::vector<int> g_ours;                 /* [chunk] themis's number: owner x K + index */

}  // namespace

extern "C" {
void __real__ZN5tacos19TimeExpandedNetwork8timestepEd(TimeExpandedNetwork *self, double t);
void __real__ZN5tacos19TimeExpandedNetwork16transferFinishedEii(TimeExpandedNetwork *self,
                                                                int src, int dst);

void __wrap__ZN5tacos19TimeExpandedNetwork8timestepEd(TimeExpandedNetwork *self, double t)
{
    g_now = t;
    __real__ZN5tacos19TimeExpandedNetwork8timestepEd(self, t);
}

/* Called when a link's transfer ends, after the synthesizer has marked
 * the chunk that arrived (if any) in its chunk map. */
void __wrap__ZN5tacos19TimeExpandedNetwork16transferFinishedEii(TimeExpandedNetwork *self,
                                                                int src, int dst)
{
    if (g_log) {
        const auto &map = g_synth->chunkMap_;
        for (size_t c = 0; c < map.size(); ++c) {
            if (map[c][dst] && !g_held[dst][c]) {
                g_held[dst][c] = 1;
                double t = self->linkTransferTime(src, dst);
                g_sends.push_back({src, dst, g_ours[c], g_now - t, g_now});
            }
        }
    }
    __real__ZN5tacos19TimeExpandedNetwork16transferFinishedEii(self, src, dst);
}
}

int main(int argc, char **argv)
{
    if (6 != argc) {
        fprintf(stderr, "usage: %s LINKS K CHUNK_BYTES RUNS OUT\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    bool ok = false;
    if (nullptr == f) {
        perror(argv[1]);
        return 1;
    }
    Links topo(f, &ok);
    fclose(f);
    int k = atoi(argv[2]), runs = atoi(argv[4]);
    long long chunk = atoll(argv[3]);
    FILE *out = fopen(argv[5], "w");
    if (!ok || k < 1 || chunk < 1 || runs < 1 || nullptr == out) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    int n = topo.npusCount();
    AllGather coll(n, k);
    std::vector<int> next(n, 0);
    g_ours.resize(coll.chunksCount());
    for (int c = 0; c < coll.chunksCount(); ++c) {
        int o = coll.precondition(c);
        g_ours[c] = o * k + next[o]++;
    }
    for (int r = 0; r < 2 * runs; ++r) {
        Synthesizer synth;
        Timer timer;
        g_synth = &synth;
        g_log = r < runs;
        g_held.assign(n, std::vector<char>(coll.chunksCount(), 0));
        for (int c = 0; c < coll.chunksCount(); ++c) {
            g_held[coll.precondition(c)][c] = 1;
        }
        g_sends.clear();
        timer.start();
        double t = synth.solve(topo, coll, chunk);
        timer.stop();
        if (g_log) {
            fprintf(out, "run %d %.6f %.3f %zu\n", r, t, timer.time(), g_sends.size());
            for (const Send &s : g_sends) {
                fprintf(out, "%d %d %d %.6f %.6f\n", s.src, s.dst, s.chunk, s.start, s.finish);
            }
        } else {
            fprintf(out, "synth %d %.3f\n", r, timer.time());
        }
    }
    fclose(out);
    return 0;
}
