// DRAM burst study (a plain main; a design measurement, not a micro-benchmark). The RTL's DMA
// moves each transfer as one packed byte stream at the architecture's bytes per cycle, and the
// SystemC DRAM model gathers the tile's strided runs into it (rtl/README.md). A DMA engine that
// generates the addresses itself issues one burst per contiguous DRAM run, and a DRAM port
// moves whole beats per burst, so short runs waste beat slots, and a latency of L cycles needs
// about L requests in flight when the bursts are one beat long. This program replays the exact
// runs of every DMA operation (core::dram_segments, the DRAM layout of core/dram_layout.hpp)
// and re-times the reference schedule (model::simulate_schedule) with each transfer's duration
// under candidate DRAM ports:
//   packed stream     latency + ceil(bytes / B): the RTL today (B = bytes per beat)
//   run bursts        one burst per run, ceil(len / B) beats each (a port that realigns an
//                     unaligned start), requests never limited: the surrogate's
//                     `dram.port: bursts` (core::transfer_cycles, checked on every transfer)
//   AXI bursts        beats aligned to B in DRAM (tensor bases aligned), at most 256 beats and
//                     no 4 KiB boundary crossed per burst (AXI4 rules), requests never limited
//   AXI bursts, O outstanding   the same with at most O bursts in flight
// The tiles' byte streams are in the buffers' order, which keeps the DRAM layout's (a pixel's
// groups side by side, rtl/README.md), so runs are as long as the tile allows.
// A transfer's bursts are requested one per cycle from its start; burst i's first beat comes
// L cycles after its request and after burst i-1's last beat; a burst leaves the outstanding
// set after its last beat. With one burst this is latency + beats, the RTL's timing. Writes are
// timed like reads (the RTL's writes take latency + beats too), and transfers stay serial as in
// the RTL's DMA engine (the next transfer's requests never overlap this one's beats).
//
//   burst_study [--arch NAME] [--samples 20] [--seed 11] [--optimal] [--search N]
//
// --search N: a search that knows the port. For every unique ResNet-18 and MobileNet-v2 layer,
// N random valid mappings (seed S) are timed under every port; per port, the fastest of them
// (fewest schedule cycles) is kept, and each network's sum (every layer times its count) is
// printed next to the packed stream's: the cost of the port once the mapping is chosen for it
// (as far as N random samples find one).
//
// Mappings: bench/study_set.hpp. Prints, per candidate: the DMA time and the end-to-end cycles
// of the schedule relative to the packed stream (median, p90, max over the mappings, the worst
// layer), the beats by tensor relative to the packed stream, and with --optimal the cycles of
// each network's optimal mappings (every layer times its count) relative to the packed stream.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/model/schedule.hpp"

#include "study_set.hpp"

using namespace mapwright;
using core::OpKind;

namespace {

struct Candidate {
  const char* name;
  bool packed;            ///< One stream (today's RTL).
  bool axi;               ///< Beat-aligned, 256-beat and 4 KiB limits.
  long long outstanding;  ///< Bursts in flight (0: unlimited).
};

/// The ports, the packed stream (the reference of every comparison) first.
constexpr int kNumCand = 5;
constexpr std::array<Candidate, kNumCand> kCands = {{{"packed stream", true, false, 0},
                                                     {"run bursts", false, false, 0},
                                                     {"AXI bursts", false, true, 0},
                                                     {"AXI, 32 outstanding", false, true, 32},
                                                     {"AXI, 8 outstanding", false, true, 8}}};
constexpr long long kAxiMaxBeats = 256;
constexpr long long kAxiBoundary = 4096;

/// Beats of the bursts of one DMA operation under a candidate (appended to `beats`).
void bursts(const std::vector<core::DramSegment>& segs, uint64_t region, long long bb,
            const Candidate& c, std::vector<long long>& beats) {
  for (const core::DramSegment& s : segs) {
    if (!c.axi) {
      beats.push_back((static_cast<long long>(s.len) + bb - 1) / bb);
      continue;
    }
    // Relative to the tensor's base (bases taken as aligned); split at 4 KiB and 256 beats.
    long long a = static_cast<long long>(s.addr - region);
    long long left = static_cast<long long>(s.len);
    while (left > 0) {
      const long long first = a / bb * bb;
      const long long limit =
          std::min(first + kAxiMaxBeats * bb, (first / kAxiBoundary + 1) * kAxiBoundary);
      const long long take = std::min(left, limit - a);
      beats.push_back((a + take - first + bb - 1) / bb);
      a += take;
      left -= take;
    }
  }
}

/// Cycles of one transfer: bursts requested one per cycle, at most `outstanding` in flight,
/// first beat `lat` cycles after the request and after the previous burst's last beat.
long long transfer_cycles(const std::vector<long long>& beats, long long lat,
                          long long outstanding) {
  if (beats.empty()) return lat;
  std::vector<long long> end(beats.size());
  long long req = -1, last = -1;
  for (size_t i = 0; i < beats.size(); ++i) {
    req += 1;
    if (outstanding > 0 && i >= static_cast<size_t>(outstanding))
      req = std::max(req, end[i - static_cast<size_t>(outstanding)] + 1);
    const long long first = std::max(req + lat, last + 1);
    last = first + beats[i] - 1;
    end[i] = last;
  }
  return last + 1;
}

int kind_index(OpKind k) {
  switch (k) {
    case OpKind::LoadInput:
      return 0;
    case OpKind::LoadWeight:
      return 1;
    case OpKind::LoadPsum:
    case OpKind::SpillPsum:
      return 2;
    default:
      return 3;
  }
}
const char* kKindNames[4] = {"input", "weight", "psum", "output"};

/// Per mapping: schedule cycles and DMA time per candidate, beats per candidate and tensor.
struct Measured {
  std::array<long long, kNumCand> cycles{}, dma{};
  std::array<std::array<long long, 4>, kNumCand> beats{};
  std::string no_descriptor;  ///< Why the RTL's bursts port cannot serve it ("" = it can).
};

Measured measure(const core::Layer& l, const core::Mapping& m, const core::Arch& arch) {
  const core::DramLayout at = core::dram_layout(l);
  const long long bb = static_cast<long long>(arch.dram_bytes_per_cycle);
  const long long lat = arch.dram_latency_cycles;
  core::Arch burst_arch = arch;
  burst_arch.dram_port = core::DramPort::Bursts;
  Measured r;
  // Durations of every DMA operation in program order, per candidate.
  std::vector<std::array<long long, kNumCand>> dur;
  std::vector<core::DramSegment> segs;
  std::vector<long long> beats;
  core::walk_tile_program(l, arch, m, [&](const core::TileOp& op) {
    if (op.kind == OpKind::Compute) return;
    segs.clear();
    core::dram_segments(l, at, op, segs);
    if (std::string why; r.no_descriptor.empty() && !core::transfer_descriptor(op, segs, why))
      r.no_descriptor = why;
    const uint64_t region = op.kind == OpKind::LoadInput     ? at.input
                            : op.kind == OpKind::LoadWeight  ? at.weight
                            : op.kind == OpKind::StoreOutput ? at.output
                                                             : at.psum;
    std::array<long long, kNumCand> d{};
    for (int c = 0; c < kNumCand; ++c) {
      if (kCands[c].packed) {
        d[c] = core::dma_cycles(arch, op.bytes);
        r.beats[c][kind_index(op.kind)] += (op.bytes + bb - 1) / bb;
        continue;
      }
      beats.clear();
      bursts(segs, region, bb, kCands[c], beats);
      for (long long b : beats) r.beats[c][kind_index(op.kind)] += b;
      d[c] = transfer_cycles(beats, lat, kCands[c].outstanding);
    }
    // Self-check: a one-run transfer moved as one burst ("run bursts") is the packed stream's.
    if (segs.size() == 1 && d[1] != d[0])
      throw std::logic_error("one-run transfer of " + std::to_string(op.bytes) + " bytes: " +
                             std::to_string(d[1]) + " cycles, packed " + std::to_string(d[0]));
    // Self-check: "run bursts" is the surrogate's burst port, computed from the tile's shape.
    if (d[1] != core::transfer_cycles(l, burst_arch, op))
      throw std::logic_error(std::string("run bursts of a ") + core::op_kind_name(op.kind) +
                             " transfer: " + std::to_string(d[1]) +
                             " cycles, core::transfer_cycles " +
                             std::to_string(core::transfer_cycles(l, burst_arch, op)));
    dur.push_back(d);
  });
  for (int c = 0; c < kNumCand; ++c) {
    size_t i = 0;
    const model::ScheduleResult sr = model::simulate_schedule(
        l, arch, m, [&](const core::TileOp&) { return dur[i++][static_cast<size_t>(c)]; });
    r.cycles[c] = sr.cycles;
    r.dma[c] = sr.dma_cycles;
  }
  return r;
}

double pct_over(long long v, long long base) {
  return 100.0 * (static_cast<double>(v) / static_cast<double>(std::max(1LL, base)) - 1.0);
}

/// Per network, the sum over its unique layers (times their counts) of the fewest cycles any of
/// `n` random valid mappings reaches under each port.
void port_aware_search(const core::Arch& arch, int n, unsigned long long seed) {
  std::printf(
      "\nport-aware random search, %d valid mappings per unique layer (seed %llu), fewest "
      "cycles per layer and port, every layer times its count:\n",
      n, seed);
  for (const char* net : {"resnet18", "mobilenet_v2"}) {
    std::array<long long, kNumCand> sum{};
    for (const auto& [l, count] : core::zoo_network(net).unique_layers()) {
      core::MapSpace space(l, arch);
      std::mt19937_64 rng(seed);
      std::array<long long, kNumCand> best;
      best.fill(-1);
      for (int i = 0; i < n; ++i) {
        core::ParamVector v;
        if (!space.sample_valid(rng, v)) break;
        const Measured r = measure(l, space.decode(v), arch);
        for (int c = 0; c < kNumCand; ++c)
          if (best[c] < 0 || r.cycles[c] < best[c]) best[c] = r.cycles[c];
      }
      for (int c = 0; c < kNumCand; ++c) sum[c] += count * std::max(0LL, best[c]);
    }
    std::printf("%-14s packed %lld cycles", net, sum[0]);
    for (int c = 1; c < kNumCand; ++c)
      std::printf(", %s %+.2f%%", kCands[c].name, pct_over(sum[c], sum[0]));
    std::printf("\n");
  }
}

/// DMA beats per tensor kind over all mappings, each candidate against the packed stream.
void print_beats_by_tensor(const std::vector<Measured>& res) {
  std::printf("\nbeats by tensor, all mappings, relative to the packed stream:\n");
  for (int c = 1; c < kNumCand; ++c) {
    std::printf("%-21s", kCands[c].name);
    for (int k = 0; k < 4; ++k) {
      long long now = 0, base = 0;
      for (const Measured& m : res) {
        now += m.beats[c][k];
        base += m.beats[0][k];
      }
      if (base == 0)
        std::printf("  %s (none)", kKindNames[k]);
      else
        std::printf("  %s %+.1f%%", kKindNames[k], pct_over(now, base));
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --search N is this study's own; the rest is the shared study set's.
  int search = 0;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--search" && i + 1 < argc)
      search = std::atoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  bench::StudyOptions opt;
  if (!bench::parse_study_options(static_cast<int>(rest.size()), rest.data(), "burst_study", opt)) {
    std::fprintf(stderr, "       burst_study also takes --search N\n");
    return 2;
  }
  try {
    const core::Arch arch = core::load_arch(opt.arch);
    const std::vector<bench::StudySample> set = bench::study_set(arch, opt);
    std::vector<Measured> res;
    for (const bench::StudySample& s : set) res.push_back(measure(s.l, s.m, arch));

    std::printf("burst_study: %zu mappings on %s (%lld bytes per beat, latency %d), seed %llu\n",
                set.size(), opt.arch.c_str(), static_cast<long long>(arch.dram_bytes_per_cycle),
                arch.dram_latency_cycles, opt.seed);
    std::printf("%-21s %-8s %6s %9s %9s %9s %9s   %s\n", "candidate", "what", "maps", "same",
                "median %", "p90 %", "max %", "worst mapping");
    for (int c = 1; c < kNumCand; ++c) {
      for (const bool cyc : {false, true}) {
        std::vector<double> v;
        double worst = -1;
        std::string worst_layer;
        int same = 0;
        for (size_t i = 0; i < set.size(); ++i) {
          const long long now = cyc ? res[i].cycles[c] : res[i].dma[c];
          const long long base = cyc ? res[i].cycles[0] : res[i].dma[0];
          const double p = pct_over(now, base);
          v.push_back(p);
          same += now == base;
          if (p > worst) {
            worst = p;
            worst_layer = set[i].layer;
          }
        }
        std::printf("%-21s %-8s %6zu %9d %9.2f %9.2f %9.2f   %s\n", kCands[c].name,
                    cyc ? "cycles" : "DMA time", v.size(), same, bench::quantile(v, 0.5),
                    bench::quantile(v, 0.9), bench::quantile(v, 1.0), worst_layer.c_str());
      }
    }
    // The RTL's bursts port takes one descriptor per transfer (rtl/README.md).
    size_t unservable = 0, unservable_opt = 0, opt_maps = 0;
    std::string example;
    for (size_t i = 0; i < set.size(); ++i) {
      opt_maps += set[i].optimal;
      if (res[i].no_descriptor.empty()) continue;
      ++unservable;
      unservable_opt += set[i].optimal;
      if (example.empty()) example = set[i].l.name + ": " + res[i].no_descriptor;
    }
    std::printf(
        "\nmappings the RTL's bursts port cannot serve (a transfer without one burst descriptor): "
        "%zu of %zu (optimal: %zu of %zu)%s%s\n",
        unservable, set.size(), unservable_opt, opt_maps, example.empty() ? "" : "; e.g. ",
        example.c_str());
    print_beats_by_tensor(res);
    if (opt.optimal) {
      std::printf(
          "\noptimal mappings, every layer times its count, cycles relative to the packed "
          "stream:\n");
      std::map<std::string, std::array<long long, kNumCand>> net;
      for (size_t i = 0; i < set.size(); ++i)
        if (set[i].optimal)
          for (int c = 0; c < kNumCand; ++c) net[set[i].net][c] += set[i].count * res[i].cycles[c];
      for (const auto& [name, cyc] : net) {
        std::printf("%-14s packed %lld cycles", name.c_str(), cyc[0]);
        for (int c = 1; c < kNumCand; ++c)
          std::printf(", %s %+.2f%%", kCands[c].name, pct_over(cyc[c], cyc[0]));
        std::printf("\n");
      }
    }
    if (search > 0) port_aware_search(arch, search, opt.seed);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "burst_study: %s\n", e.what());
    return 2;
  }
}
