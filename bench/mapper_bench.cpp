// The exact mapper on the zoo: solves every unique layer of the chosen networks (default: all
// of ResNet-18, ResNet-50, VGG16, MobileNet-v2, BERT-base s128 and s512) on a named
// architecture (default: the 16x16 "default") and prints, per layer, the optimum, the proven
// lower bound, the gap, the time, the nodes and the surrogate evaluations; then the median
// time per layer and the total. A plain main (the runs are seconds long, not micro-benchmarks).
//
//   mapper_bench [--arch NAME] [--objective edp|latency|energy] [--gap 1e-3]
//                [--time-limit SECONDS] [--threads N] [--networks a,b,...] [--layers N] [--raw]
//
// --raw searches every tile size and PE use (the raw space, orders by reuse class) with the
// same bounds, to validate the compact space on real layers. --space only prints, per layer,
// log10 of the raw space (core::MapSpace), of its tilings (tile sizes x PE use x dataflow)
// and of the compact space's tilings.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/mapspace/compact_space.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/mapper/mapper.hpp"

using namespace mapwright;
using core::Dim;

namespace {

/// Tilings of the compact space of one layer (tile sizes and PE use, every dataflow; capacity
/// and the <= 15 order classes and <= 8 double-buffer choices per tiling not counted),
/// factorized along core::tile_branch_order, where each loop's candidates depend only on
/// the loops before it.
double compact_tilings(const core::Layer& l, const core::Arch& a) {
  double total = 0;
  core::Mapping m;
  auto n_cands = [&](Dim d) {
    return static_cast<double>(core::compact_tile_sizes(l, m, d).size());
  };
  auto set = [&](Dim d, long long t) { m.tile[static_cast<int>(d)] = t; };
  // Compact C tiles (the other tiles fixed) that fill pe_rows minimally; C back to 1 after.
  auto count_c = [&] {
    double n = 0;
    for (long long tc : core::compact_tile_sizes(l, m, Dim::C)) {
      set(Dim::C, tc);
      n += core::pe_rows_minimal(l, m);
    }
    set(Dim::C, 1);
    return n;
  };
  // Compact N x P x Q tilings (the other tiles fixed) that `minimal` accepts; N, P, Q back to 1.
  auto count_npq = [&](bool (*minimal)(const core::Layer&, const core::Mapping&)) {
    double n = 0;
    for (long long tn : core::compact_tile_sizes(l, m, Dim::N)) {
      set(Dim::N, tn);
      for (long long tp : core::compact_tile_sizes(l, m, Dim::P)) {
        set(Dim::P, tp);
        for (long long tq : core::compact_tile_sizes(l, m, Dim::Q)) {
          set(Dim::Q, tq);
          n += minimal(l, m);
        }
        set(Dim::Q, 1);
      }
      set(Dim::P, 1);
    }
    set(Dim::N, 1);
    return n;
  };
  for (core::Dataflow df : a.dataflows) {
    m.dataflow = df;
    m.tile.fill(1);
    if (df == core::Dataflow::IS) {
      // Rows carry C*R*S (pe_rows), columns N*P*Q (pe_cols, halo-coupled to R and S); K free.
      for (int pr = 1; pr <= a.rows; ++pr)
        for (int pc = 1; pc <= a.cols; ++pc) {
          m.pe_rows = pr;
          m.pe_cols = pc;
          for (long long tr = 1; tr <= l.r; ++tr)
            for (long long ts = 1; ts <= l.s; ++ts) {
              set(Dim::R, tr);
              set(Dim::S, ts);
              const double c_ok = count_c();
              const double npq = count_npq(core::pe_cols_minimal);
              total += c_ok * npq * n_cands(Dim::K) * n_cands(Dim::G);
            }
          set(Dim::R, 1);
          set(Dim::S, 1);
        }
      continue;
    }
    double k_sum = 0;  // sum over pe_cols of minimal K tiles
    for (int pc = 1; pc <= a.cols; ++pc) {
      m.pe_cols = pc;
      for (long long tk : core::compact_tile_sizes(l, m, Dim::K)) {
        set(Dim::K, tk);
        k_sum += core::pe_cols_minimal(l, m);
      }
    }
    set(Dim::K, 1);
    double rest = 0;  // sum over pe_rows of the other loops
    for (int pr = 1; pr <= a.rows; ++pr) {
      m.pe_rows = pr;
      for (long long tr = 1; tr <= l.r; ++tr)
        for (long long ts = 1; ts <= l.s; ++ts) {
          set(Dim::R, tr);
          set(Dim::S, ts);
          if (df == core::Dataflow::WS) {
            const double c_ok = count_c();
            rest += c_ok * n_cands(Dim::G) * n_cands(Dim::N) * n_cands(Dim::P) * n_cands(Dim::Q);
          } else {
            const double npq = count_npq(core::pe_rows_minimal);
            rest += npq * n_cands(Dim::C) * n_cands(Dim::G);
          }
        }
      set(Dim::R, 1);
      set(Dim::S, 1);
    }
    total += k_sum * rest;
  }
  return total;
}

/// --space: the raw and compact space sizes of every unique layer shape of `nets`.
void print_space_sizes(const std::vector<std::string>& nets, const core::Arch& arch) {
  std::printf("%-16s %-26s %12s %14s %16s %8s\n", "network", "layer", "log10_raw", "log10_raw_til",
              "log10_compact_til", "ratio");
  std::set<std::string> shapes;
  for (const auto& net : nets)
    for (const auto& [layer, count] : core::zoo_network(net).unique_layers()) {
      (void)count;
      if (!shapes.insert(layer.shape_key()).second) continue;
      double raw_til = static_cast<double>(arch.rows) * arch.cols * arch.dataflows.size();
      for (int d = 0; d < core::kNumDims; ++d)
        raw_til *= static_cast<double>(layer.dim(static_cast<Dim>(d)));
      const double ct = compact_tilings(layer, arch);
      std::printf("%-16s %-26s %12.2f %14.2f %16.2f %8.1e\n", net.c_str(), layer.name.c_str(),
                  core::MapSpace(layer, arch).log10_size(), std::log10(raw_til), std::log10(ct),
                  raw_til / ct);
      std::fflush(stdout);
    }
}

}  // namespace

int main(int argc, char** argv) {
  std::string arch_name = "default", objective = "edp";
  double gap = 1e-3, time_limit = 0;
  int threads = 0;
  long long max_layers = -1;
  bool raw = false;    // search every tile size and PE use instead of the compact space
  bool space = false;  // only print the sizes of the raw and compact spaces
  std::vector<std::string> nets = core::zoo_names();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--arch")
      arch_name = next();
    else if (a == "--objective")
      objective = next();
    else if (a == "--gap")
      gap = std::stod(next());
    else if (a == "--time-limit")
      time_limit = std::stod(next());
    else if (a == "--threads")
      threads = std::stoi(next());
    else if (a == "--layers")
      max_layers = std::stoll(next());
    else if (a == "--raw")
      raw = true;
    else if (a == "--space")
      space = true;
    else if (a == "--networks") {
      nets.clear();
      std::stringstream ss(next());
      for (std::string n; std::getline(ss, n, ',');) nets.push_back(n);
    } else {
      std::fprintf(stderr,
                   "usage: mapper_bench [--arch NAME] [--objective edp|latency|energy] "
                   "[--gap G] [--time-limit S] [--threads N] [--networks a,b] [--layers N] [--raw] "
                   "[--space]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const core::Arch arch = core::load_arch(arch_name);
  mapper::Options opt;
  opt.objective = core::parse_objective(objective, "--objective");
  opt.target_gap = gap;
  opt.time_limit_s = time_limit;
  opt.threads = threads;
  opt.compact = !raw;

  if (space) {
    print_space_sizes(nets, arch);
    return 0;
  }
  std::printf("%-16s %-26s %14s %14s %9s %8s %11s %11s %s\n", "network", "layer", "optimum",
              "lower_bound", "gap%", "time_s", "nodes", "evals", "stop");
  std::set<std::string> seen;  // unique shapes over all networks
  std::vector<double> times;
  double total = 0, worst_gap = 0;
  long long solved = 0;
  for (const auto& net : nets) {
    for (const auto& [layer, count] : core::zoo_network(net).unique_layers()) {
      (void)count;
      if (!seen.insert(layer.shape_key()).second) continue;
      if (max_layers >= 0 && solved >= max_layers) break;
      const mapper::Result r = mapper::solve(layer, arch, opt);
      ++solved;
      times.push_back(r.seconds);
      total += r.seconds;
      worst_gap = std::max(worst_gap, r.gap);
      std::printf("%-16s %-26s %14.6e %14.6e %9.4f %8.3f %11lld %11lld %s\n", net.c_str(),
                  layer.name.c_str(), r.best_cost, r.lower_bound, 100 * r.gap, r.seconds, r.nodes,
                  r.evaluations, mapper::stop_reason_name(r.stop));
      std::fflush(stdout);
    }
  }
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0
                        : times.size() % 2
                            ? times[times.size() / 2]
                            : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  std::printf(
      "unique layers %lld, median %.3f s/layer, max %.3f s, total %.2f s, worst gap %.4f%%\n",
      solved, median, times.empty() ? 0 : times.back(), total, 100 * worst_gap);
  return 0;
}
