// Bank-conflict study for banked compute buffers (a plain main; a design measurement, not a
// micro-benchmark). The RTL's buffers are multi-ported arrays today (rtl/README.md); a banked
// design gives each bank one read port, so a cycle whose read lanes fall into the same bank
// stalls the array for (largest bank load - 1) cycles. This program replays the compute
// controller's exact lane addresses (the buffer layouts of rtl/README.md, the folds of
// core::for_each_fold, padding lanes not read) for a set of mappings and counts those stall
// cycles under candidate lane-to-bank maps of the byte (input, weight) and word (accumulator)
// address:
//   mod B     bank = address mod B, B = max(Rows, Cols) (low-order interleave)
//   mod 2B    twice the banks
//   mod P     P = the smallest prime above B
//   mod B, odd pitch   low-order interleave, the input tile's column pitch (tg * tc bytes) rounded
//             up to odd (a layout change: up to 1 / (tg * tc) more input-buffer bytes)
//   mod P, padding     mod P with padding lanes taking their bank's port at their virtual
//             address (rtl/mw_bank_buf.sv's arbitration sees every lane): every row of a fold
//             then has the same conflicts, predicted per fold by model::fold_bank_stalls;
//             accumulator reads counted only when the fold accumulates
// Every candidate depends on address differences only, so buffer bases and group offsets do
// not change the count. Only compute-side reads and writes are counted; the DMA side writes and
// reads consecutive bytes or words (conflict-free under every candidate when a beat has at
// most B lanes), and engine-against-engine conflicts on a shared bank are not modelled.
//
//   bank_study [--arch NAME] [--samples 20] [--seed 11] [--optimal]
//
// Mappings: bench/study_set.hpp (random valid mappings of the ten fidelity layers, and with
// --optimal the exact mapper's EDP-optimal mapping of every unique ResNet-18 and MobileNet-v2
// layer).
// Prints, per candidate and dataflow: mappings without any conflict, and the stall cycles as a
// share of the compute cycles (median, 90th percentile, max).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/model/schedule.hpp"

#include "study_set.hpp"

using namespace mapwright;
using core::Dataflow;

namespace {

/// A lane-to-bank map: bank = address mod banks, with the input tile's column pitch (bytes
/// between buffer columns, tg * tc in the RTL's layout) rounded up to an odd number when odd_pitch.
struct Candidate {
  std::string name;
  long long banks = 1;
  bool odd_pitch = false;
  bool padding_occupies = false;  ///< Padding lanes take their bank (model::fold_bank_stalls).
};

/// Stall cycles of one access row: the largest number of lanes in one bank, minus one.
class RowStall {
 public:
  explicit RowStall(long long banks) : load_(static_cast<size_t>(banks), 0) {}
  long long operator()(const std::vector<long long>& addrs) {
    if (addrs.size() < 2) return 0;
    int worst = 0;
    for (long long a : addrs) worst = std::max(worst, ++load_[bank(a)]);
    for (long long a : addrs) load_[bank(a)] = 0;
    return worst - 1;
  }

 private:
  size_t bank(long long a) const {
    return static_cast<size_t>(a % static_cast<long long>(load_.size()));
  }
  std::vector<int> load_;
};

/// Stall cycles of one mapping, per buffer.
struct Stalls {
  long long input = 0, weight = 0, accum = 0;
  long long total() const { return input + weight + accum; }
};

/// Digits of a mixed-radix index (slowest first).
struct Digits3 {
  long long a, b, c;
};
Digits3 split3(long long idx, long long rb, long long rc) {
  return {idx / (rb * rc), (idx / rc) % rb, idx % rc};
}

/// Replays every compute op of the mapping's tile program.
Stalls count_stalls(const core::Layer& l, const core::Arch& arch, const core::Mapping& m,
                    const Candidate& cand) {
  Stalls st;
  if (cand.padding_occupies) {
    const model::BankStalls b = model::fold_bank_stalls(l, arch, m, cand.banks);
    return {b.input, b.weight, b.accum};
  }
  RowStall row(cand.banks);
  std::vector<long long> addrs;
  core::walk_tile_program(l, arch, m, [&](const core::TileOp& op) {
    if (op.kind != core::OpKind::Compute) return;
    const core::TileBox& b = op.box;
    const model::TileShape sh = model::tile_shape(l, b);
    const long long tn = sh.n, tp = sh.p, tq = sh.q, tc = sh.c, tr = sh.r, ts = sh.s;
    const long long tk = sh.k, tg = sh.g, hx = sh.rows.held, wx = sh.cols.held;
    const long long pitch = cand.odd_pitch ? ((tg * tc) | 1) : tg * tc;  // column: tg groups
    // Input address of pixel index x (n, p, q) and reduction index y (r, s, c); -1 = padding.
    auto in_addr = [&](long long x, long long y) {
      const Digits3 px = split3(x, tp, tq), rd = split3(y, ts, tc);
      const long long hrow = px.b * sh.rows.a + rd.a - sh.rows.clip;
      const long long wcol = px.c * sh.cols.a + rd.b - sh.cols.clip;
      if (hrow < 0 || hrow >= hx || wcol < 0 || wcol >= wx) return -1LL;
      return ((px.a * hx + hrow) * wx + wcol) * pitch + rd.c;
    };
    const long long pixels = tn * tp * tq, red = tc * tr * ts;
    // Input stalls of a fold depend on its rows (and under IS its columns) only: the column
    // folds of WS and OS stream the same input rows again.
    std::map<std::pair<long long, long long>, long long> memo;
    core::for_each_fold(
        m, b, [&](long long g, long long row0, long long ru, long long col0, long long cu) {
          if (g != 0) return;  // every group repeats group 0's pattern
          long long in = 0, wt = 0, acc = 0;
          const auto key = std::make_pair(row0, m.dataflow == Dataflow::IS ? col0 : 0);
          const auto hit = memo.find(key);
          const bool cached = hit != memo.end();
          if (cached) in = hit->second;
          auto gather = [&](long long count, auto&& addr_of) {
            addrs.clear();
            for (long long i = 0; i < count; ++i) {
              const long long a = addr_of(i);
              if (a >= 0) addrs.push_back(a);
            }
            return row(addrs);
          };
          switch (m.dataflow) {
            case Dataflow::WS:
              // a stream: one output pixel per cycle, lanes = reduction rows row0 + i.
              if (!cached)
                for (long long x = 0; x < pixels; ++x)
                  in += gather(ru, [&](long long i) { return in_addr(x, row0 + i); });
              // Weight preload and accumulator lanes are consecutive (k = col0 + j): no conflict.
              break;
            case Dataflow::OS:
              // a stream: one reduction index per cycle, lanes = output pixels row0 + i.
              if (!cached)
                for (long long y = 0; y < red; ++y)
                  in += gather(ru, [&](long long i) { return in_addr(row0 + i, y); });
              break;
            case Dataflow::IS:
              // w preload: reduction row row0 + j per cycle, lanes = pixels col0 + i.
              if (!cached)
                for (long long j = 0; j < ru; ++j)
                  in += gather(cu, [&](long long i) { return in_addr(col0 + i, row0 + j); });
              // a stream: output channel k per cycle, weight lanes (row0 + i) * tk + k; result
              // and accumulate-in rows: accumulator lanes (col0 + i) * tg * tk + k (pixels hold
              // the tile's groups side by side), read and written.
              wt = tk * gather(ru, [&](long long i) { return (row0 + i) * tk; });
              acc = 2 * tk * gather(cu, [&](long long i) { return (col0 + i) * tg * tk; });
              break;
          }
          if (!cached) memo.emplace(key, in);
          st.input += tg * in;
          st.weight += tg * wt;
          st.accum += tg * acc;
        });
  });
  return st;
}

long long smallest_prime_above(long long n) {
  for (long long p = n + 1;; ++p) {
    bool prime = p > 1;
    for (long long d = 2; d * d <= p && prime; ++d) prime = p % d != 0;
    if (prime) return p;
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::StudyOptions opt;
  if (!bench::parse_study_options(argc, argv, "bank_study", opt)) return 2;
  try {
    const core::Arch arch = core::load_arch(opt.arch);
    const long long lanes = std::max(arch.rows, arch.cols);
    const std::vector<Candidate> cands = {
        {"mod " + std::to_string(lanes), lanes},
        {"mod " + std::to_string(2 * lanes), 2 * lanes},
        {"mod " + std::to_string(smallest_prime_above(lanes)) + " (prime)",
         smallest_prime_above(lanes)},
        {"mod " + std::to_string(lanes) + ", odd pitch", lanes, true},
        {"mod " + std::to_string(smallest_prime_above(lanes)) + ", padding",
         smallest_prime_above(lanes), false, true}};

    const std::vector<bench::StudySample> set = bench::study_set(arch, opt);
    std::vector<long long> compute_cycles;
    for (const bench::StudySample& s : set)
      compute_cycles.push_back(model::simulate_schedule(s.l, arch, s.m).compute_cycles);

    std::printf("bank_study: %zu mappings on %s (%lldx%lld, %lld read lanes), seed %llu\n",
                set.size(), opt.arch.c_str(), static_cast<long long>(arch.rows),
                static_cast<long long>(arch.cols), lanes, opt.seed);
    std::printf("%-18s %-4s %6s %10s %10s %10s %10s   %s\n", "candidate", "df", "maps", "no-stall",
                "median %", "p90 %", "max %", "worst mapping");
    for (const Candidate& c : cands) {
      std::map<std::string, std::vector<double>> share;
      std::map<std::string, std::pair<double, std::string>> worst;
      std::map<std::string, int> clean;
      Stalls sum;
      for (size_t i = 0; i < set.size(); ++i) {
        const bench::StudySample& s = set[i];
        const Stalls st = count_stalls(s.l, arch, s.m, c);
        sum.input += st.input;
        sum.weight += st.weight;
        sum.accum += st.accum;
        const double pct = 100.0 * static_cast<double>(st.total()) /
                           static_cast<double>(std::max(1LL, compute_cycles[i]));
        for (const std::string& df :
             {std::string(core::dataflow_name(s.m.dataflow)), std::string("all")}) {
          share[df].push_back(pct);
          clean[df] += st.total() == 0;
          if (pct >= worst[df].first) worst[df] = {pct, s.layer};
        }
      }
      for (const auto& [df, v] : share)
        std::printf("%-18s %-4s %6zu %9.0f%% %10.2f %10.2f %10.2f   %s\n", c.name.c_str(),
                    df.c_str(), v.size(), 100.0 * clean[df] / static_cast<double>(v.size()),
                    bench::quantile(v, 0.5), bench::quantile(v, 0.9), bench::quantile(v, 1.0),
                    worst[df].second.c_str());
      const double t = static_cast<double>(std::max(1LL, sum.total()));
      std::printf("%-18s stall cycles by buffer: input %.0f%%, weight %.0f%%, accumulator %.0f%%\n",
                  c.name.c_str(), 100.0 * static_cast<double>(sum.input) / t,
                  100.0 * static_cast<double>(sum.weight) / t,
                  100.0 * static_cast<double>(sum.accum) / t);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bank_study: %s\n", e.what());
    return 2;
  }
}
