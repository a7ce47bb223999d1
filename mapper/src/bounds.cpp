// Admissible lower bounds for branch-and-bound. Every bound is a closed-form term of the
// surrogate (docs/timing.md) evaluated with each free quantity replaced by its smallest
// possible value: free trip counts by 1, fold sums sum(ceil(size / pe)) by ceil(sum / pe) over
// the merged free loops, the halo sum by the halo of the merged tiles, and the three tensor
// reloads by the smallest of the three order cases (K innermost, an output-type run innermost,
// a reduction-type run innermost). Cycles are bounded by the exact compute cycles of that
// relaxation and by the input and weight DMA time, both of which the closed-form schedule
// never hides; energy by the count terms plus static energy at the cycle bound.
#include "mapwright/mapper/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mapwright/core/loopnest.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/model/tile_classes.hpp"

namespace mapwright::mapper {

using namespace mapwright::core;

namespace {

using model::extent_sum;
using model::sum_ceil1;
using model::sum_ceil3;

/// Tile-size classes of one loop (as in the surrogate); a loop whose tile is not fixed yet is
/// relaxed to one tile of the whole loop.
inline model::TileClasses cls(long long bound, long long t, bool fixed) {
  return model::tile_classes(bound, fixed ? t : bound);
}

constexpr double kSafety = 1 - 1e-12;  // absorbs floating-point reassociation

}  // namespace

LowerBound::LowerBound(const Layer& layer, const Arch& arch) : layer_(layer), arch_(arch) {
  const Layer& l = layer_;
  hs_.resize(static_cast<size_t>(l.p * l.r));
  for (long long tp = 1; tp <= l.p; ++tp)
    for (long long tr = 1; tr <= l.r; ++tr)
      hs_[(tp - 1) * l.r + (tr - 1)] = extent_sum(l.p, tp, l.r, tr, l.stride, l.pad, l.h);
  ws_.resize(static_cast<size_t>(l.q * l.s));
  for (long long tq = 1; tq <= l.q; ++tq)
    for (long long ts = 1; ts <= l.s; ++ts)
      ws_[(tq - 1) * l.s + (ts - 1)] = extent_sum(l.q, tq, l.s, ts, l.stride, l.pad, l.w);
}

long long LowerBound::halo(bool rows, long long t, long long ft) const {
  return rows ? hs_[(t - 1) * layer_.r + (ft - 1)] : ws_[(t - 1) * layer_.s + (ft - 1)];
}

bool LowerBound::may_fit(const Partial& p) const {
  Mapping m = p.m;
  for (int d = 0; d < kNumDims; ++d)
    if (!p.tile[d]) m.tile[d] = 1;
  m.db_input = m.db_weight = m.db_accum = false;
  const Footprint f = footprint(layer_, m);
  return f.input_bytes <= arch_.input_buf_bytes && f.weight_bytes <= arch_.weight_buf_bytes &&
         f.accum_bytes <= arch_.accum_buf_bytes;
}

Bounds LowerBound::bounds(const Partial& p) const {
  if (p.dataflow) return bounds_df(p, p.m.dataflow);
  Bounds b{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  for (Dataflow df : arch_.dataflows) {
    const Bounds x = bounds_df(p, df);
    b.cycles = std::min(b.cycles, x.cycles);
    b.energy = std::min(b.energy, x.energy);
  }
  return b;
}

namespace {

/// Compute cycles (sum of fold_cycles) and the compute-side buffer counts of dataflow `df`: input
/// and weight buffer reads, accumulator writes.
struct ComputeSide {
  double compute = 0, ibr = 0, wbr = 0, caw = 0;
  double folds = 0;  ///< Level-1 folds (AccessCounts::folds).
};

/// ComputeSide of `df` for trip counts `T`, fold classes `c` (Dim -> classes) and a pr x pc
/// array, all monotone in the fold sums and trip counts.
template <typename FoldClasses>
ComputeSide compute_side(Dataflow df, const Layer& l, const std::array<long long, kNumDims>& T,
                         const FoldClasses& c, long long pr, long long pc) {
  const long long G = l.g, K = l.k, NPQ = l.n * l.p * l.q, CRS = l.c * l.r * l.s;
  const long long Tnpq = T[I(Dim::N)] * T[I(Dim::P)] * T[I(Dim::Q)];
  const long long Tcrs = T[I(Dim::C)] * T[I(Dim::R)] * T[I(Dim::S)];
  const long long Tk = T[I(Dim::K)];
  const long long sumFk = sum_ceil1(c(Dim::K), pc);
  // The fold sums the dataflow reads, and its compute cycles.
  long long sumFred = 0, sumFm = 0;
  ComputeSide r;
  switch (df) {
    case Dataflow::WS:
      sumFred = sum_ceil3(c(Dim::C), c(Dim::R), c(Dim::S), pr);
      r.compute = static_cast<double>(G) *
                  (static_cast<double>(sumFred) * sumFk * NPQ + 2.0 * sumFk * CRS * Tnpq +
                   static_cast<double>(sumFred) * K * Tnpq);
      r.folds = static_cast<double>(G) * sumFred * sumFk * Tnpq;
      break;
    case Dataflow::OS:
      sumFm = sum_ceil3(c(Dim::N), c(Dim::P), c(Dim::Q), pr);
      r.compute = static_cast<double>(G) *
                  (static_cast<double>(sumFm) * sumFk * CRS +
                   static_cast<double>(sumFk) * NPQ * Tcrs + static_cast<double>(sumFm) * K * Tcrs);
      r.folds = static_cast<double>(G) * sumFm * sumFk * Tcrs;
      break;
    default:  // IS: rows carry the reduction, columns the output pixels, K streams
      sumFred = sum_ceil3(c(Dim::C), c(Dim::R), c(Dim::S), pr);
      sumFm = sum_ceil3(c(Dim::N), c(Dim::P), c(Dim::Q), pc);
      r.compute =
          static_cast<double>(G) *
          (static_cast<double>(sumFred) * sumFm * K + 2.0 * sumFm * CRS * static_cast<double>(Tk) +
           static_cast<double>(sumFred) * NPQ * static_cast<double>(Tk));
      r.folds = static_cast<double>(G) * sumFred * sumFm * static_cast<double>(Tk);
      break;
  }
  const model::ComputeAccesses<double> ca = model::compute_accesses(
      df, static_cast<double>(G), K, NPQ, CRS, Tnpq, Tcrs, Tk, sumFk, sumFred, sumFm);
  r.ibr = ca.input_reads;
  r.wbr = ca.weight_reads;
  r.caw = ca.accum_writes;
  return r;
}

}  // namespace

Bounds LowerBound::bounds_df(const Partial& p, Dataflow df) const {
  const Layer& l = layer_;
  const Mapping& m = p.m;
  const EnergyTable& e = arch_.energy;
  const long long G = l.g, N = l.n, K = l.k, C = l.c, P = l.p, Q = l.q, R = l.r, S = l.s;
  const long long OUT = G * N * K * P * Q;
  const long long pr = p.pe ? m.pe_rows : arch_.rows, pc = p.pe ? m.pe_cols : arch_.cols;
  const double area = p.pe ? static_cast<double>(m.pe_rows) * m.pe_cols : 1.0;

  std::array<long long, kNumDims> T{};
  bool all_tiles = true;
  for (int d = 0; d < kNumDims; ++d) {
    T[d] = p.tile[d] ? cdiv(l.dim(static_cast<Dim>(d)), m.tile[d]) : 1;
    all_tiles = all_tiles && p.tile[d];
  }
  auto c = [&](Dim d) { return cls(l.dim(d), m.tile_of(d), p.tile[I(d)]); };
  const long long Tnpq = T[I(Dim::N)] * T[I(Dim::P)] * T[I(Dim::Q)];
  const long long Tcrs = T[I(Dim::C)] * T[I(Dim::R)] * T[I(Dim::S)];

  const ComputeSide cs = compute_side(df, l, T, c, pr, pc);
  const double ibr = cs.ibr, wbr = cs.wbr, caw = cs.caw;
  // Banked buffers add at least one cycle per fold (its first row's registered read,
  // model::closed_form_bank_cycles), and the fold count is monotone in the same relaxations.
  const double compute = cs.compute + (arch_.buffer_banks > 0 ? cs.folds : 0.0);

  // DRAM: input bytes per load pass (halo sum of the merged tiles), weights, outputs.
  const long long hs = halo(true, p.tile[I(Dim::P)] ? m.tile_of(Dim::P) : P,
                            p.tile[I(Dim::R)] ? m.tile_of(Dim::R) : R);
  const long long ws = halo(false, p.tile[I(Dim::Q)] ? m.tile_of(Dim::Q) : Q,
                            p.tile[I(Dim::S)] ? m.tile_of(Dim::S) : S);
  const double In = static_cast<double>(G) * N * C * hs * ws;
  const double Wt = static_cast<double>(G) * K * C * R * S;
  const double Out = static_cast<double>(OUT);

  struct Case {
    double mi, mw, v;  // input multiplier, weight multiplier, output visits
  };
  Case cases[3];
  int n_cases;
  double loads = 2;  // at least one input and one weight load
  if (all_tiles && p.order) {
    const OrderReuse r = order_reuse(T, m.order);
    long long steps = 1;
    for (long long t : T) steps *= t;
    cases[0] = {static_cast<double>(r.input.mult), static_cast<double>(r.weight.mult),
                static_cast<double>(r.output.mult)};
    n_cases = 1;
    loads = static_cast<double>(steps / r.input.period + steps / r.weight.period);
  } else {
    const double Tk = static_cast<double>(T[I(Dim::K)]);
    cases[0] = {1, static_cast<double>(Tnpq), static_cast<double>(Tcrs)};  // K innermost
    cases[1] = {Tk, 1, static_cast<double>(Tcrs)};                         // N/P/Q run innermost
    cases[2] = {Tk, static_cast<double>(Tnpq), 1};                         // C/R/S run innermost
    n_cases = 3;
  }
  double energy = std::numeric_limits<double>::infinity();
  double dma_bytes = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n_cases; ++i) {
    const Case& k = cases[i];
    const double din = k.mi * In, dwt = k.mw * Wt, psum = 4 * Out * (k.v - 1);
    const double en = e.mac_pj * static_cast<double>(l.macs()) + e.input_buf_pj * (ibr + din) +
                      e.weight_buf_pj * (wbr + dwt) +
                      e.accum_buf_pj * (2 * caw + 2 * Out * (k.v - 1)) +
                      e.dram_pj_per_byte * (din + dwt + Out + 2 * psum);
    energy = std::min(energy, en);
    dma_bytes = std::min(dma_bytes, din + dwt);
  }
  // The schedule runs every input and weight load (latency + bytes / bandwidth) on the DMA
  // engine without overlapping two of them, and never runs faster than its computes.
  const double dma = loads * arch_.dram_latency_cycles + dma_bytes / arch_.dram_bytes_per_cycle;
  Bounds b;
  b.cycles = std::max(compute, dma * kSafety - 0.5) * kSafety;
  b.energy = (energy + e.pe_static_pj * area * b.cycles) * kSafety;
  return b;
}

}  // namespace mapwright::mapper
