// The analytical surrogate. Access counts in closed form: sums over the level-2 tiles factor
// per loop (each loop has at most two tile sizes: full and remainder), so every count is a
// product of per-loop sums; only the fold counts ceil(red / pe_rows) (WS) and
// ceil(M / pe_rows) (OS) couple loops, and they are summed over at most 2^3 size classes.
// Cycles: exact compute and DMA totals, combined by a closed-form model of the double-buffered
// schedule over classes of steps (docs/timing.md).
#include "mapwright/model/surrogate.hpp"

#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/core/axis_profile.hpp"
#include "mapwright/core/loopnest.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/model/tile_classes.hpp"

#include "dma_ops.hpp"

#include <algorithm>
#include <cmath>

namespace mapwright::model {

using namespace mapwright::core;

namespace {

using Classes = TileClasses;
inline Classes classes(long long bound, long long t) {
  return tile_classes(bound, t);
}

/// What every count shares: the trips per loop, the number of steps and each tensor's reuse
/// (core::order_reuse, the one definition the compact space and the exact mapper use too).
struct Shared {
  std::array<long long, kNumDims> T;  ///< Level-2 trips per loop.
  TensorReuse in, wt, out;            ///< Reload multiplier and period per tensor.
  long long steps;                    ///< Product of the trips.
  ExtentClasses rows, cols;           ///< Input tile extents (rows: P R; columns: Q S).
  /// The axes' profiles (core::axis_profile: the thread's cache, valid for this evaluation).
  const AxisProfile* hp = nullptr;
  const AxisProfile* wp = nullptr;
};

inline Shared shared(const Layer& l, const Mapping& m) {
  Shared s;
  s.T = trip_counts(l, m);
  s.steps = 1;
  for (int d = 0; d < kNumDims; ++d) s.steps *= s.T[d];
  const OrderReuse r = order_reuse(s.T, m.order);
  s.in = r.input;
  s.wt = r.weight;
  s.out = r.output;
  s.hp = &axis_profile(l.p, m.tile_of(Dim::P), l.r, m.tile_of(Dim::R), l.stride, l.pad, l.h);
  s.wp = &axis_profile(l.q, m.tile_of(Dim::Q), l.s, m.tile_of(Dim::S), l.stride, l.pad, l.w);
  s.rows = extent_classes(*s.hp);
  s.cols = extent_classes(*s.wp);
  return s;
}

AccessCounts counts_from(const Layer& l, const Mapping& m, const Shared& sh) {
  const auto& T = sh.T;
  auto cl = [&](Dim d) { return classes(l.dim(d), m.tile_of(d)); };
  const Classes cK = cl(Dim::K);
  const long long G = l.g, N = l.n, K = l.k, C = l.c, P = l.p, Q = l.q, R = l.r, S = l.s;
  const long long NPQ = N * P * Q, CRS = C * R * S, OUT = G * N * K * P * Q;
  const long long Tnpq = T[I(Dim::N)] * T[I(Dim::P)] * T[I(Dim::Q)];
  const long long Tcrs = T[I(Dim::C)] * T[I(Dim::R)] * T[I(Dim::S)];
  const long long sumFk = sum_ceil1(cK, m.pe_cols);

  AccessCounts a;
  a.macs = l.macs();
  a.steps = sh.steps;
  const long long Tk = T[I(Dim::K)];
  // The fold sums the dataflow reads, and its folds.
  long long sumFred = 0, sumFm = 0;
  switch (m.dataflow) {
    case Dataflow::WS:
      sumFred = sum_ceil3(cl(Dim::C), cl(Dim::R), cl(Dim::S), m.pe_rows);
      a.folds = G * sumFred * sumFk * Tnpq;
      break;
    case Dataflow::OS:
      sumFm = sum_ceil3(cl(Dim::N), cl(Dim::P), cl(Dim::Q), m.pe_rows);
      a.folds = G * sumFm * sumFk * Tcrs;
      break;
    case Dataflow::IS:
      // Rows carry the reduction (pe_rows), columns the output pixels (pe_cols); K streams.
      sumFred = sum_ceil3(cl(Dim::C), cl(Dim::R), cl(Dim::S), m.pe_rows);
      sumFm = sum_ceil3(cl(Dim::N), cl(Dim::P), cl(Dim::Q), m.pe_cols);
      a.folds = G * sumFred * sumFm * Tk;
      break;
  }
  const ComputeAccesses<long long> ca =
      compute_accesses(m.dataflow, G, K, NPQ, CRS, Tnpq, Tcrs, Tk, sumFk, sumFred, sumFm);
  a.input_buf_reads = ca.input_reads;
  a.weight_buf_reads = ca.weight_reads;
  const long long compute_acc_writes = ca.accum_writes;

  // DRAM traffic.
  const long long hs = sh.rows.total();
  const long long ws = sh.cols.total();
  a.dram_input_bytes = sh.in.mult * G * N * C * hs * ws;
  a.input_loads = sh.steps / sh.in.period;
  a.dram_weight_bytes = sh.wt.mult * G * K * C * R * S;
  a.weight_loads = sh.steps / sh.wt.period;
  const long long distinct_out =
      T[I(Dim::G)] * T[I(Dim::N)] * T[I(Dim::K)] * T[I(Dim::P)] * T[I(Dim::Q)];
  const long long V = sh.out.mult;  // visits per output tile
  a.output_stores = distinct_out;
  a.dram_output_bytes = OUT;
  a.psum_spills = distinct_out * (V - 1);
  a.psum_reloads = a.psum_spills;
  a.dram_psum_write_bytes = 4 * OUT * (V - 1);
  a.dram_psum_read_bytes = a.dram_psum_write_bytes;

  a.input_buf_writes = a.dram_input_bytes;
  a.weight_buf_writes = a.dram_weight_bytes;
  a.accum_writes = compute_acc_writes + OUT * (V - 1);
  a.accum_reads = (compute_acc_writes - OUT) + OUT * V;
  return a;
}

/// Sum over the tile-size classes of five loops (innermost first) of count * nested_beats(ext):
/// a loop is whole in every class (one tile) or in none, so the runs end at the first loop with
/// more than one tile whatever the classes, and the sum factors: that loop's classes give the
/// run lengths, the loops outside it their total extents (the sum of their tiles).
long long class_beats(const Classes (&c)[5], const long long* size, long long unit,
                      long long beat) {
  long long run = unit;
  int j = 0;
  for (; j < 5 && c[j].trips == 1; ++j) run *= size[j];
  if (j == 5) return cdiv(run, beat);
  long long sum = 0;
  for (int k = 0; k < c[j].n; ++k) sum += c[j].count[k] * cdiv(run * c[j].size[k], beat);
  for (int i = j + 1; i < 5; ++i) sum *= size[i];
  return sum;
}

/// model::burst_totals on the shared terms; `bb` bytes per beat.
BurstTotals burst_totals_of(const Layer& l, const Mapping& m, const Shared& sh, long long bb) {
  auto cl = [&](Dim d) { return classes(l.dim(d), m.tile_of(d)); };
  BurstTotals t;
  {  // weights [g][r][s][c][k]
    const Classes c[5] = {cl(Dim::K), cl(Dim::C), cl(Dim::S), cl(Dim::R), cl(Dim::G)};
    const long long size[5] = {l.k, l.c, l.s, l.r, l.g};
    t.wt = sh.wt.mult * class_beats(c, size, 1, bb);
  }
  {  // outputs and partial sums [n][p][q][g][k]
    const Classes c[5] = {cl(Dim::K), cl(Dim::G), cl(Dim::Q), cl(Dim::P), cl(Dim::N)};
    const long long size[5] = {l.k, l.g, l.q, l.p, l.n};
    t.store = class_beats(c, size, 1, bb);
    if (sh.out.mult > 1) t.psum = class_beats(c, size, 4, bb);
  }
  // Inputs: per tile core::burst_beats, summed over N tiles, row positions (P and R tiles, by
  // their classes in the axis profile), column positions (Q and S tiles), C and G tiles.
  auto tile = [&](Dim d) { return std::min<long long>(m.tile_of(d), l.dim(d)); };
  const long long tc = tile(Dim::C), tg = tile(Dim::G);
  const long long u = l.g * l.c;                                   // bytes of a whole pixel
  const long long rows = sh.rows.total(), cols = sh.cols.total();  // the halo sums
  long long in = 0;
  if (tc < l.c) {
    in = l.n * rows * cols * l.g * sum_ceil1(cl(Dim::C), bb);
  } else if (tg < l.g) {
    const Classes cg = cl(Dim::G);
    for (int i = 0; i < cg.n; ++i) in += cg.count[i] * cdiv(cg.size[i] * l.c, bb);
    in *= l.n * rows * cols;
  } else {
    // Row positions: rows, consecutive-row pairs, positions holding both edges; with whole rows
    // of columns: beats and join savings of the positions that are not whole, whole positions.
    long long pairs = 0, wrap = 0, a_beats = 0, a_save = 0, a_full = 0;
    for (const AxisTile& x : sh.hp->tiles) {
      const RowBlocks& rb = x.b;
      pairs += x.count * (rb.rows - rb.blocks);
      wrap += rb.lo && rb.hi ? x.count : 0;
      if (rb.full()) {
        a_full += x.count;
      } else {
        a_beats += x.count * rb.beats(l.w * u, bb);
        a_save += x.count * rb.join_saving(l.w * u, bb);
      }
    }
    long long c_beats = 0, c_save = 0, c_full = 0;
    for (const AxisTile& x : sh.wp->tiles) {
      const RowBlocks& cb = x.b;
      if (cb.full()) {
        c_full += x.count;
      } else {
        c_beats += x.count * cb.beats(u, bb);
        c_save += x.count * cb.join_saving(u, bb);
      }
    }
    const Classes cn = cl(Dim::N);
    for (int i = 0; i < cn.n; ++i) {
      const long long n = cn.size[i];
      in += cn.count[i] *
            (n * rows * c_beats - c_save * (n * pairs + (n - 1) * wrap) +
             c_full * (n * a_beats - (n - 1) * a_save + a_full * cdiv(n * l.h * l.w * u, bb)));
    }
  }
  t.in = sh.in.mult * in;
  return t;
}

/// The exact sum of fold_cycles over all folds of the layer, bank stalls aside.
long long fold_compute_cycles(const Layer& l, const Mapping& m, const Shared& sh) {
  const auto& T = sh.T;
  auto cl = [&](Dim d) { return classes(l.dim(d), m.tile_of(d)); };
  const long long G = l.g, K = l.k, NPQ = l.n * l.p * l.q, CRS = l.c * l.r * l.s;
  const long long Tnpq = T[I(Dim::N)] * T[I(Dim::P)] * T[I(Dim::Q)];
  const long long Tcrs = T[I(Dim::C)] * T[I(Dim::R)] * T[I(Dim::S)];
  const long long sumFk = sum_ceil1(cl(Dim::K), m.pe_cols);
  // WS fold = M + 2*ru + cu, OS fold = red + ru + cu; summed over the folds of one step,
  // sum(ru) = rows and sum(cu) = k.
  switch (m.dataflow) {
    case Dataflow::WS: {
      const long long sumFred = sum_ceil3(cl(Dim::C), cl(Dim::R), cl(Dim::S), m.pe_rows);
      return G * (sumFred * sumFk * NPQ + 2 * sumFk * CRS * Tnpq + sumFred * K * Tnpq);
    }
    case Dataflow::OS: {
      const long long sumFm = sum_ceil3(cl(Dim::N), cl(Dim::P), cl(Dim::Q), m.pe_rows);
      return G * (sumFm * sumFk * CRS + sumFk * NPQ * Tcrs + sumFm * K * Tcrs);
    }
    case Dataflow::IS: {
      // IS fold = kt + 2*ru + cu; per step sum(ru) = C*R*S rows, sum(cu) = N*P*Q pixels.
      const long long Tk = T[I(Dim::K)];
      const long long sumFred = sum_ceil3(cl(Dim::C), cl(Dim::R), cl(Dim::S), m.pe_rows);
      const long long sumFm = sum_ceil3(cl(Dim::N), cl(Dim::P), cl(Dim::Q), m.pe_cols);
      return G * (sumFred * sumFm * K + 2 * sumFm * CRS * Tk + sumFred * NPQ * Tk);
    }
  }
  return 0;
}

/// `bank_cycles` < 0: computed here (banked architectures).
CycleEstimate cycles_from(const Layer& l, const Arch& arch, const Mapping& m, const Shared& sh,
                          const AccessCounts& a, long long bank_cycles = -1) {
  CycleEstimate e;
  e.compute_cycles = fold_compute_cycles(l, m, sh);
  // Banked buffers: the first-row read of every fold and the bank stalls the mesh waits for.
  if (arch.buffer_banks > 0) {
    e.bank_cycles =
        bank_cycles >= 0 ? bank_cycles : closed_form_bank_cycles(l, m, arch.buffer_banks);
    e.compute_cycles += e.bank_cycles;
  }
  const double bw = arch.dram_bytes_per_cycle;
  const double lat = arch.dram_latency_cycles;
  // Beats of each transfer kind in total: bytes / bandwidth for the packed port, the exact
  // burst beats for the burst port.
  double b_in = a.dram_input_bytes / bw, b_wt = a.dram_weight_bytes / bw;
  double b_out = (a.dram_output_bytes + a.dram_psum_write_bytes) / bw;
  double b_rl = a.dram_psum_read_bytes / bw;
  if (arch.dram_port == DramPort::Bursts) {
    const BurstTotals bt = burst_totals_of(l, m, sh, static_cast<long long>(bw));
    b_in = static_cast<double>(bt.in);
    b_wt = static_cast<double>(bt.wt);
    b_rl = static_cast<double>((sh.out.mult - 1) * bt.psum);  // V - 1 spills and reloads a tile
    b_out = static_cast<double>(bt.store) + b_rl;
  }
  // Average DMA time per event of each kind.
  const long long n_out = a.output_stores + a.psum_spills;  // output tile changes (+ last)
  const double d_in = lat + b_in / std::max(1LL, a.input_loads);
  const double d_wt = lat + b_wt / std::max(1LL, a.weight_loads);
  const double d_out = lat + b_out / std::max(1LL, n_out);
  const double d_rl =
      a.psum_reloads ? (lat + b_rl / a.psum_reloads) * a.psum_reloads / std::max(1LL, n_out) : 0.0;
  e.dma_cycles = a.input_loads * static_cast<long long>(lat) +
                 a.weight_loads * static_cast<long long>(lat) +
                 (n_out + a.psum_reloads) * static_cast<long long>(lat);
  if (arch.dram_port == DramPort::Bursts)
    e.dma_cycles += std::llround(b_in + b_wt + b_out + b_rl);  // whole numbers: exact
  else
    e.dma_cycles +=
        static_cast<long long>(std::ceil(a.dram_input_bytes / bw)) +
        static_cast<long long>(std::ceil(a.dram_weight_bytes / bw)) +
        static_cast<long long>(std::ceil(
            (a.dram_output_bytes + a.dram_psum_write_bytes + a.dram_psum_read_bytes) / bw));

  // Step classes. An event kind (input load, weight load, output change) happens every
  // `period` steps; periods are suffix products of the trip counts, hence nested, so the
  // steps fall into at most four classes by the set of events they carry. The DMA engine runs
  // a step's operations in program order (input, weight, store/spill of the old output tile,
  // reload of the new one): the operations before the first one that must wait for the
  // previous compute (a single-buffered load, or any store) overlap that compute; the rest run
  // after it, and the next compute waits for the last operation it needs.
  const double st_avg = d_out;
  const double rl_avg = d_rl;
  const long long periods[3] = {sh.in.period, sh.wt.period, sh.out.period};
  auto step_cost = [&](long long q, double& ov_prefix, double& tail, double& leftover) {
    DmaOp ops[4];
    int n = 0;
    if (periods[0] <= q) ops[n++] = {d_in, !m.db_input, true};
    if (periods[1] <= q) ops[n++] = {d_wt, !m.db_weight, true};
    if (periods[2] <= q) {
      ops[n++] = {st_avg, true, !m.db_accum};
      if (rl_avg > 0) ops[n++] = {rl_avg, true, true};
    }
    split_dma_ops(ops, n, ov_prefix, tail, leftover);
  };
  const double c_avg = static_cast<double>(e.compute_cycles) / sh.steps;
  const long long S = sh.steps;
  // Distinct periods, ascending.
  long long q[3] = {periods[0], periods[1], periods[2]};
  std::sort(q, q + 3);
  const int nq = static_cast<int>(std::unique(q, q + 3) - q);
  // Overlappable DMA of the step after one of class k: the smallest class if its period is 1.
  double ov1 = 0, t1 = 0, l1 = 0;
  step_cost(1, ov1, t1, l1);
  const double next_prefix = q[0] == 1 ? ov1 : 0.0;
  double total = 0;
  long long covered = 0;  // steps 1..S-1 carrying at least one event
  for (int k = 0; k < nq; ++k) {
    const long long cnt = (S - 1) / q[k] - (k + 1 < nq ? (S - 1) / q[k + 1] : 0);
    double ov, tail, left;
    step_cost(q[k], ov, tail, left);
    const double lead = dma_lead(c_avg, ov, tail);
    total += cnt * (next_compute_start(c_avg, ov, tail) +
                    (left > 0 ? leftover_delay(left, lead, c_avg, next_prefix) : 0.0));
    covered += cnt;
  }
  total += static_cast<double>((S - 1) - covered) * c_avg;
  // Step 0: its loads are not overlapped (its compute starts kDmaToCompute after them); the
  // last store follows the last compute.
  total += d_in + d_wt + static_cast<double>(kDmaToCompute) + c_avg + st_avg;
  e.cycles = static_cast<long long>(std::llround(total));
  return e;
}

}  // namespace

BurstTotals burst_totals(const Layer& l, const Arch& arch, const Mapping& m) {
  return burst_totals_of(l, m, shared(l, m), static_cast<long long>(arch.dram_bytes_per_cycle));
}

AccessCounts closed_form_counts(const Layer& l, const Arch& arch, const Mapping& m) {
  (void)arch;
  return counts_from(l, m, shared(l, m));
}

CycleEstimate closed_form_cycles(const Layer& l, const Arch& arch, const Mapping& m,
                                 const AccessCounts& a) {
  return cycles_from(l, arch, m, shared(l, m), a);
}

CycleEstimate closed_form_cycles(const Layer& l, const Arch& arch, const Mapping& m,
                                 const AccessCounts& a, long long bank_cycles) {
  return cycles_from(l, arch, m, shared(l, m), a, std::max(0LL, bank_cycles));
}

Metrics Surrogate::evaluate(const Layer& layer, const Arch& arch, const Mapping& mapping) {
  Metrics r;
  const Validity v = check_valid(layer, arch, mapping);
  if (!v.ok()) {
    r.invalid = v.kind;
    r.reason = v.reason();
    return r;
  }
  r.valid = true;
  const Shared sh = shared(layer, mapping);
  r.counts = counts_from(layer, mapping, sh);
  const CycleEstimate c = cycles_from(layer, arch, mapping, sh, r.counts);
  r.cycles = c.cycles;
  r.compute_cycles = c.compute_cycles;
  r.dma_cycles = c.dma_cycles;
  finish_metrics(r, layer, arch, mapping);
  return r;
}

}  // namespace mapwright::model
