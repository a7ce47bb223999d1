// The tile program: capacity check, the operation walk (loads, computes, spills, reloads,
// stores in program order), access counting by walking, fold expansion and the per-fold and
// per-transfer cycle formulas shared by the surrogate and the RTL driver.
#include "mapwright/core/tile_program.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "mapwright/core/loopnest.hpp"

namespace mapwright::core {

const char* invalid_kind_name(InvalidKind k) {
  switch (k) {
    case InvalidKind::None:
      return "none";
    case InvalidKind::InputOverflow:
      return "input_overflow";
    case InvalidKind::WeightOverflow:
      return "weight_overflow";
    case InvalidKind::AccumOverflow:
      return "accum_overflow";
    case InvalidKind::Dataflow:
      return "unsupported_dataflow";
    case InvalidKind::Descriptor:
      return "no_burst_descriptor";
    case InvalidKind::AccumBanks:
      return "accum_bank_conflict";
    case InvalidKind::Encoding:
      return "encoding";
  }
  return "?";
}

InvalidKind invalid_kind_from_name(const std::string& name) {
  for (InvalidKind k : {InvalidKind::InputOverflow, InvalidKind::WeightOverflow,
                        InvalidKind::AccumOverflow, InvalidKind::Dataflow, InvalidKind::Descriptor,
                        InvalidKind::AccumBanks, InvalidKind::Encoding})
    if (name == invalid_kind_name(k)) return k;
  return InvalidKind::None;
}

std::string Validity::reason() const {
  const char* buf = kind == InvalidKind::InputOverflow    ? "input"
                    : kind == InvalidKind::WeightOverflow ? "weight"
                    : kind == InvalidKind::AccumOverflow  ? "accumulator"
                                                          : nullptr;
  if (kind == InvalidKind::None) return "";
  if (kind == InvalidKind::Dataflow) return "dataflow not supported by this architecture";
  if (kind == InvalidKind::Descriptor)
    return "dram.port bursts: the RTL DMA takes one burst descriptor per transfer; " + detail;
  if (kind == InvalidKind::AccumBanks) return "banked accumulator: " + detail;
  if (kind == InvalidKind::Encoding) return "encoding: " + detail;
  return std::string(buf) + " buffer overflows by " + std::to_string(need_bytes - have_bytes) +
         " bytes (needs " + std::to_string(need_bytes) + ", has " + std::to_string(have_bytes) +
         ")";
}

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::LoadInput:
      return "load_input";
    case OpKind::LoadWeight:
      return "load_weight";
    case OpKind::LoadPsum:
      return "load_psum";
    case OpKind::Compute:
      return "compute";
    case OpKind::SpillPsum:
      return "spill_psum";
    case OpKind::StoreOutput:
      return "store_output";
  }
  return "?";
}

namespace {

// Distinct positions in [lo, hi] covered by the windows [first + i*stride, first + i*stride +
// rt - 1], i = 0..pt-1 (the input rows of pt output rows and rt filter rows).
long long window_points(long long first, long long pt, long long rt, long long stride, long long lo,
                        long long hi) {
  if (rt >= stride || pt == 1) {
    // Windows of consecutive outputs touch or overlap: one contiguous span.
    const long long last = first + (pt - 1) * stride + rt - 1;
    const long long a = std::max(first, lo), b = std::min(last, hi);
    return b >= a ? b - a + 1 : 0;
  }
  // Disjoint windows.
  long long n = 0;
  for (long long i = 0; i < pt; ++i) {
    const long long w = first + i * stride;
    const long long a = std::max(w, lo), b = std::min(w + rt - 1, hi);
    if (b >= a) n += b - a + 1;
  }
  return n;
}

}  // namespace

long long input_extent(long long p0, long long pt, long long r0, long long rt, long long stride,
                       long long pad, long long h) {
  return window_points(p0 * stride + r0 - pad, pt, rt, stride, 0, h - 1);
}

long long input_row_step(long long pt, long long rt, long long stride) {
  return (rt >= stride || pt == 1) ? stride : rt;
}

RowShape input_row_shape(long long p0, long long pt, long long r0, long long rt, long long stride,
                         long long pad, long long h) {
  const long long first = p0 * stride + r0 - pad;
  RowShape s;
  s.held = window_points(first, pt, rt, stride, 0, h - 1);
  s.a = input_row_step(pt, rt, stride);
  s.clip = first < 0 ? window_points(first, pt, rt, stride, first, -1) : 0;
  return s;
}

int class_sizes(long long bound, long long t, long long* out) {
  out[0] = std::min(t, bound);
  if (t < bound && bound % t) {
    out[1] = bound % t;
    return 2;
  }
  return 1;
}

RowMap input_rows(long long p0, long long pt, long long r0, long long rt, long long stride,
                  long long pad, long long h) {
  RowMap m;
  m.a = input_row_step(pt, rt, stride);
  const long long first = p0 * stride + r0 - pad;
  std::vector<long long> touched;
  for (long long pl = 0; pl < pt; ++pl)
    for (long long rl = 0; rl < rt; ++rl) touched.push_back(first + pl * stride + rl);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (long long r : touched) {
    if (r < 0)
      ++m.clip;
    else if (r < h)
      m.rows.push_back(r);
  }
  return m;
}

long long input_tile_bytes(const Layer& l, const TileBox& b) {
  const long long hx = input_extent(b.lo_of(Dim::P), b.ext_of(Dim::P), b.lo_of(Dim::R),
                                    b.ext_of(Dim::R), l.stride, l.pad, l.h);
  const long long wx = input_extent(b.lo_of(Dim::Q), b.ext_of(Dim::Q), b.lo_of(Dim::S),
                                    b.ext_of(Dim::S), l.stride, l.pad, l.w);
  return b.ext_of(Dim::G) * b.ext_of(Dim::N) * b.ext_of(Dim::C) * hx * wx;
}

Footprint footprint(const Layer& l, const Mapping& m) {
  auto t = [&](Dim d) { return m.tile_of(d); };
  auto span = [&](long long pt, long long rt, long long full) {
    const long long s = (rt >= l.stride || pt == 1) ? (pt - 1) * l.stride + rt : pt * rt;
    return std::min(s, full);
  };
  Footprint f;
  f.input_bytes = t(Dim::G) * t(Dim::N) * t(Dim::C) * span(t(Dim::P), t(Dim::R), l.h) *
                  span(t(Dim::Q), t(Dim::S), l.w);
  f.weight_bytes = t(Dim::G) * t(Dim::K) * t(Dim::C) * t(Dim::R) * t(Dim::S);
  f.accum_bytes = 4 * t(Dim::G) * t(Dim::N) * t(Dim::K) * t(Dim::P) * t(Dim::Q);
  return f;
}

Validity check_capacity(const Layer& l, const Arch& a, const Mapping& m) {
  Validity v;
  if (!a.supports(m.dataflow)) {
    v.kind = InvalidKind::Dataflow;
    return v;
  }
  const Footprint f = footprint(l, m);
  const struct {
    InvalidKind kind;
    long long need;
    long long have;
  } checks[] = {
      {InvalidKind::InputOverflow, f.input_bytes * (m.db_input ? 2 : 1), a.input_buf_bytes},
      {InvalidKind::WeightOverflow, f.weight_bytes * (m.db_weight ? 2 : 1), a.weight_buf_bytes},
      {InvalidKind::AccumOverflow, f.accum_bytes * (m.db_accum ? 2 : 1), a.accum_buf_bytes}};
  for (const auto& c : checks) {
    if (c.need > c.have) {
      v.kind = c.kind;
      v.need_bytes = c.need;
      v.have_bytes = c.have;
      return v;
    }
  }
  return v;
}

std::string accum_bank_problem(const Layer& l, const Arch& a, const Mapping& m) {
  if (a.buffer_banks <= 0 || m.dataflow != Dataflow::IS) return "";
  const long long banks = a.buffer_banks;
  const long long lanes =
      std::min<long long>(m.pe_cols, m.tile_of(Dim::N) * m.tile_of(Dim::P) * m.tile_of(Dim::Q));
  // The G and K extents of the tiles: the full tile and the remainder at the layer's edge.
  auto exts = [&](long long full, long long tile) {
    std::vector<long long> v{std::min(tile, full)};
    if (full % tile != 0 && full > tile) v.push_back(full % tile);
    return v;
  };
  for (long long g : exts(l.g, m.tile_of(Dim::G)))
    for (long long k : exts(l.k, m.tile_of(Dim::K))) {
      const long long stride = g * k;
      const long long period = banks / std::gcd(stride, banks);  // lanes before a bank repeats
      if (period < lanes)
        return "IS result lanes " + std::to_string(stride) + " words apart (G " +
               std::to_string(g) + " x K " + std::to_string(k) + " tile) put lanes 0 and " +
               std::to_string(period) + " of " + std::to_string(lanes) + " into one of " +
               std::to_string(banks) + " accumulator banks";
    }
  return "";
}

bool AccessCounts::operator==(const AccessCounts& o) const {
  const auto a = fields(), b = o.fields();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].second != b[i].second) return false;
  return true;
}

std::array<std::pair<const char*, long long>, 19> AccessCounts::fields() const {
  return {{{"macs", macs},
           {"steps", steps},
           {"folds", folds},
           {"input_buf_reads", input_buf_reads},
           {"input_buf_writes", input_buf_writes},
           {"weight_buf_reads", weight_buf_reads},
           {"weight_buf_writes", weight_buf_writes},
           {"accum_reads", accum_reads},
           {"accum_writes", accum_writes},
           {"dram_input_bytes", dram_input_bytes},
           {"dram_weight_bytes", dram_weight_bytes},
           {"dram_output_bytes", dram_output_bytes},
           {"dram_psum_write_bytes", dram_psum_write_bytes},
           {"dram_psum_read_bytes", dram_psum_read_bytes},
           {"input_loads", input_loads},
           {"weight_loads", weight_loads},
           {"psum_reloads", psum_reloads},
           {"psum_spills", psum_spills},
           {"output_stores", output_stores}}};
}

long long fold_rows(Dataflow df, const TileBox& b) {
  if (df == Dataflow::OS) return b.ext_of(Dim::N) * b.ext_of(Dim::P) * b.ext_of(Dim::Q);
  return b.ext_of(Dim::C) * b.ext_of(Dim::R) * b.ext_of(Dim::S);
}

long long fold_cols(Dataflow df, const TileBox& b) {
  if (df == Dataflow::IS) return b.ext_of(Dim::N) * b.ext_of(Dim::P) * b.ext_of(Dim::Q);
  return b.ext_of(Dim::K);
}

long long stream_length(Dataflow df, const TileBox& b) {
  switch (df) {
    case Dataflow::WS:
      return b.ext_of(Dim::N) * b.ext_of(Dim::P) * b.ext_of(Dim::Q);
    case Dataflow::OS:
      return b.ext_of(Dim::C) * b.ext_of(Dim::R) * b.ext_of(Dim::S);
    case Dataflow::IS:
      return b.ext_of(Dim::K);
  }
  return 0;
}

void for_each_fold(
    const Mapping& m, const TileBox& b,
    const std::function<void(long long, long long, long long, long long, long long)>& fold) {
  const long long rows = fold_rows(m.dataflow, b);
  const long long kc = fold_cols(m.dataflow, b);
  const long long pr = m.pe_rows, pc = m.pe_cols;
  for (long long g = 0; g < b.ext_of(Dim::G); ++g) {
    if (m.fold_order == FoldOrder::RowsOuter) {
      for (long long r0 = 0; r0 < rows; r0 += pr)
        for (long long c0 = 0; c0 < kc; c0 += pc)
          fold(g, r0, std::min(pr, rows - r0), c0, std::min(pc, kc - c0));
    } else {
      for (long long c0 = 0; c0 < kc; c0 += pc)
        for (long long r0 = 0; r0 < rows; r0 += pr)
          fold(g, r0, std::min(pr, rows - r0), c0, std::min(pc, kc - c0));
    }
  }
}

long long fold_cycles(Dataflow df, long long stream, long long ru, long long cu) {
  // Measured on the RTL fold engine (rtl/README.md), from the cycle after the fold command is
  // accepted through the cycle its last result row is taken. WS and IS (the fold engine's
  // stationary mode; IS holds input pixels where WS holds weights): ru cycles of preload, then
  // the stream's skewed rows and a fill/drain of ru + cu. OS: the reduction streams through
  // the skewed array, then ru + cu cycles until the last result row leaves.
  if (df == Dataflow::OS) return stream + ru + cu;
  return stream + 2 * ru + cu;
}

long long dma_cycles(const Arch& a, long long bytes) {
  const long long bw = static_cast<long long>(a.dram_bytes_per_cycle);
  return a.dram_latency_cycles + (bytes + bw - 1) / bw;
}

namespace {

/// One operation of the tile program (`accumulate` as TileOp has it by default).
TileOp tile_op(OpKind kind, long long step, const TileBox& box, long long bytes, int half) {
  return TileOp{kind, step, box, bytes, half, /*accumulate=*/true};
}

/// Output elements (int8 results or int32 partial sums) of the tile `b`.
long long output_elems(const TileBox& b) {
  return b.ext_of(Dim::G) * b.ext_of(Dim::N) * b.ext_of(Dim::K) * b.ext_of(Dim::P) *
         b.ext_of(Dim::Q);
}

}  // namespace

// One function on purpose (about 95 lines): the loop-nest walk is one state machine (tile
// position, reuse and reload decisions per tensor) that the reference schedule, the surrogate's
// checks and the RTL command program all mirror; keeping it whole keeps it comparable to them.
void walk_tile_program(const Layer& l, const Arch& arch, const Mapping& m,
                       const std::function<void(const TileOp&)>& visit) {
  (void)arch;
  const std::array<Dim, kNumDims> nest = loop_nest(m.order);
  const std::array<long long, kNumDims> trips = trip_counts(l, m);
  const long long red_tiles = trips[I(Dim::C)] * trips[I(Dim::R)] * trips[I(Dim::S)];

  std::array<long long, kNumDims> idx{};  // tile index per Dim
  auto box_now = [&]() {
    TileBox b;
    for (int d = 0; d < kNumDims; ++d) {
      b.lo[d] = idx[d] * m.tile[d];
      b.ext[d] = std::min(m.tile[d], l.dim(static_cast<Dim>(d)) - b.lo[d]);
    }
    return b;
  };
  auto key_of = [&](bool (*rel)(Dim)) {
    long long k = 0;
    for (int d = 0; d < kNumDims; ++d)
      k = k * (trips[d] + 1) + (rel(static_cast<Dim>(d)) ? idx[d] : trips[d]);
    return k;
  };

  long long step = 0;
  long long in_key = -1, wt_key = -1, out_key = -1;
  int in_half = 1, wt_half = 1, acc_half = 1;
  std::unordered_map<long long, long long> red_done;  // output key -> reduction steps done
  TileBox out_box{};
  bool out_live = false;

  auto finish_output = [&](long long at_step) {
    const long long elems = output_elems(out_box);
    if (red_done[out_key] == red_tiles)
      visit(tile_op(OpKind::StoreOutput, at_step, out_box, elems, acc_half));
    else
      visit(tile_op(OpKind::SpillPsum, at_step, out_box, 4 * elems, acc_half));
  };

  const long long total_steps = [&] {
    long long s = 1;
    for (long long t : trips) s *= t;
    return s;
  }();
  for (step = 0; step < total_steps; ++step) {
    // Decode the step into tile indices (last nest entry fastest).
    long long rem = step;
    for (int i = kNumDims - 1; i >= 0; --i) {
      const int d = I(nest[i]);
      idx[d] = rem % trips[d];
      rem /= trips[d];
    }
    const TileBox b = box_now();
    const long long ik = key_of(input_rel), wk = key_of(weight_rel), ok = key_of(output_rel);

    const bool out_changed = ok != out_key;
    if (ik != in_key) {
      in_key = ik;
      in_half = m.db_input ? in_half ^ 1 : 0;
      visit(tile_op(OpKind::LoadInput, step, b, input_tile_bytes(l, b), in_half));
    }
    if (wk != wt_key) {
      wt_key = wk;
      wt_half = m.db_weight ? wt_half ^ 1 : 0;
      const long long bytes = b.ext_of(Dim::G) * b.ext_of(Dim::K) * b.ext_of(Dim::C) *
                              b.ext_of(Dim::R) * b.ext_of(Dim::S);
      visit(tile_op(OpKind::LoadWeight, step, b, bytes, wt_half));
    }
    bool reload = false;
    if (out_changed) {
      // The finished (or interrupted) output tile leaves after this step's loads were issued,
      // so double-buffered loads can overlap the previous compute.
      if (out_live) finish_output(step - 1);
      out_key = ok;
      out_box = b;
      out_live = true;
      acc_half = m.db_accum ? acc_half ^ 1 : 0;
      reload = red_done[out_key] > 0;  // revisited: its partial sums were spilled
    }
    if (reload)
      visit(tile_op(OpKind::LoadPsum, step, out_box, 4 * output_elems(out_box), acc_half));
    long long& done = red_done[out_key];
    TileOp c = tile_op(OpKind::Compute, step, b, 0, acc_half);
    c.accumulate = done > 0;  // the very first reduction step of a tile overwrites
    visit(c);
    ++done;
  }
  if (out_live) finish_output(total_steps - 1);
}

}  // namespace mapwright::core

namespace mapwright::core {

AccessCounts count_by_walk(const Layer& l, const Arch& arch, const Mapping& m) {
  AccessCounts a;
  walk_tile_program(l, arch, m, [&](const TileOp& op) {
    const TileBox& b = op.box;
    const long long out_elems = b.ext_of(Dim::G) * b.ext_of(Dim::N) * b.ext_of(Dim::K) *
                                b.ext_of(Dim::P) * b.ext_of(Dim::Q);
    switch (op.kind) {
      case OpKind::LoadInput:
        ++a.input_loads;
        a.dram_input_bytes += op.bytes;
        a.input_buf_writes += op.bytes;
        break;
      case OpKind::LoadWeight:
        ++a.weight_loads;
        a.dram_weight_bytes += op.bytes;
        a.weight_buf_writes += op.bytes;
        break;
      case OpKind::LoadPsum:
        ++a.psum_reloads;
        a.dram_psum_read_bytes += op.bytes;
        a.accum_writes += out_elems;
        break;
      case OpKind::SpillPsum:
        ++a.psum_spills;
        a.dram_psum_write_bytes += op.bytes;
        a.accum_reads += out_elems;
        break;
      case OpKind::StoreOutput:
        ++a.output_stores;
        a.dram_output_bytes += op.bytes;
        a.accum_reads += out_elems;
        break;
      case OpKind::Compute: {
        ++a.steps;
        const long long M = b.ext_of(Dim::N) * b.ext_of(Dim::P) * b.ext_of(Dim::Q);
        const long long red = b.ext_of(Dim::C) * b.ext_of(Dim::R) * b.ext_of(Dim::S);
        a.macs += b.ext_of(Dim::G) * M * red * b.ext_of(Dim::K);
        for_each_fold(m, b, [&](long long, long long row0, long long ru, long long, long long cu) {
          ++a.folds;
          switch (m.dataflow) {
            case Dataflow::WS:
              a.input_buf_reads += M * ru;
              a.weight_buf_reads += ru * cu;
              a.accum_writes += M * cu;
              // The first reduction fold of a fresh tile overwrites; all others read-modify-write.
              if (op.accumulate || row0 > 0) a.accum_reads += M * cu;
              break;
            case Dataflow::OS:
              a.input_buf_reads += ru * red;
              a.weight_buf_reads += red * cu;
              a.accum_writes += ru * cu;
              if (op.accumulate) a.accum_reads += ru * cu;
              break;
            case Dataflow::IS: {
              // Preload: ru rows of cu input pixels; stream: K rows of ru weights.
              const long long kt = b.ext_of(Dim::K);
              a.input_buf_reads += ru * cu;
              a.weight_buf_reads += kt * ru;
              a.accum_writes += kt * cu;
              if (op.accumulate || row0 > 0) a.accum_reads += kt * cu;
              break;
            }
          }
        });
        break;
      }
    }
  });
  return a;
}

}  // namespace mapwright::core
