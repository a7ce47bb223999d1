#include "mapwright/core/dram_layout.hpp"

#include <algorithm>

#include "mapwright/core/axis_profile.hpp"
#include "mapwright/core/loopnest.hpp"

namespace mapwright::core {

namespace {

/// Appends segment [addr, addr+len), merging with the previous one when contiguous.
void add_segment(std::vector<DramSegment>& segs, uint64_t addr, uint64_t len) {
  if (len == 0) return;
  if (!segs.empty() && segs.back().addr + segs.back().len == addr) {
    segs.back().len += len;
    return;
  }
  segs.push_back({addr, len});
}

}  // namespace

long long RowBlocks::beats(long long unit, long long beat) const {
  if (blocks == 0) return 0;
  if (blocks == 1) return cdiv(first * unit, beat);
  return cdiv(first * unit, beat) + cdiv(last * unit, beat) + (blocks - 2) * cdiv(mid * unit, beat);
}

long long RowBlocks::join_saving(long long unit, long long beat) const {
  if (!(lo && hi) || blocks < 2) return 0;
  return cdiv(first * unit, beat) + cdiv(last * unit, beat) - cdiv((first + last) * unit, beat);
}

RowBlocks row_blocks(long long p0, long long pt, long long r0, long long rt, long long stride,
                     long long pad, long long h) {
  RowBlocks b;
  const long long first = p0 * stride + r0 - pad;
  long long prev = 0;                         // start of the previous block
  auto add = [&](long long a, long long z) {  // window [a, z], clipped to [0, h)
    const long long lo = std::max(a, 0LL), hi = std::min(z, h - 1);
    if (hi < lo) return;
    const long long len = hi - lo + 1;
    if (b.blocks == 0) {
      b.first = len;
      b.lo = lo == 0;
    } else {
      if (b.blocks == 1) b.gap = lo - prev;
      if (b.blocks >= 2) b.mid = b.last;  // every block between the first and the last is whole
      b.even = b.even && len == b.first && lo - prev == b.gap;
    }
    prev = lo;
    b.last = len;
    b.hi = hi == h - 1;
    b.rows += len;
    ++b.blocks;
  };
  if (rt >= stride || pt == 1)
    add(first, (p0 + pt - 1) * stride + r0 + rt - 1 - pad);
  else
    for (long long i = 0; i < pt; ++i) add(first + i * stride, first + i * stride + rt - 1);
  return b;
}

long long nested_beats(const long long* ext, const long long* size, int n, long long unit,
                       long long beat) {
  long long run = unit, runs = 1;
  int i = 0;
  for (; i < n; ++i) {
    run *= ext[i];
    if (ext[i] != size[i]) break;
  }
  for (++i; i < n; ++i) runs *= ext[i];
  return runs * cdiv(run, beat);
}

long long burst_beats(const Layer& l, const TileOp& op, long long beat) {
  const TileBox& b = op.box;
  auto ext = [&](Dim d) { return b.ext_of(d); };
  switch (op.kind) {
    case OpKind::LoadInput: {
      const RowBlocks rb = row_blocks(b.lo_of(Dim::P), ext(Dim::P), b.lo_of(Dim::R), ext(Dim::R),
                                      l.stride, l.pad, l.h);
      const RowBlocks cb = row_blocks(b.lo_of(Dim::Q), ext(Dim::Q), b.lo_of(Dim::S), ext(Dim::S),
                                      l.stride, l.pad, l.w);
      const long long tn = ext(Dim::N), tg = ext(Dim::G), tc = ext(Dim::C);
      const long long pixels = tn * rb.rows * cb.rows;
      if (tc < l.c) return pixels * tg * cdiv(tc, beat);   // one run per pixel and group
      if (tg < l.g) return pixels * cdiv(tg * l.c, beat);  // one run per pixel
      return input_plane_beats(rb, cb, tn, l.g * l.c, l.w, l.h, beat);
    }
    case OpKind::LoadWeight: {
      // [g][r][s][c][k], innermost first.
      const long long e[] = {ext(Dim::K), ext(Dim::C), ext(Dim::S), ext(Dim::R), ext(Dim::G)};
      const long long s[] = {l.k, l.c, l.s, l.r, l.g};
      return nested_beats(e, s, 5, 1, beat);
    }
    case OpKind::LoadPsum:
    case OpKind::SpillPsum:
    case OpKind::StoreOutput: {
      // [n][p][q][g][k], innermost first.
      const long long e[] = {ext(Dim::K), ext(Dim::G), ext(Dim::Q), ext(Dim::P), ext(Dim::N)};
      const long long s[] = {l.k, l.g, l.q, l.p, l.n};
      return nested_beats(e, s, 5, op.kind == OpKind::StoreOutput ? 1 : 4, beat);
    }
    case OpKind::Compute:
      return 0;
  }
  return 0;
}

long long input_plane_beats(const RowBlocks& rb, const RowBlocks& cb, long long tn, long long unit,
                            long long w, long long h, long long beat) {
  if (rb.rows == 0 || cb.rows == 0) return 0;
  if (!cb.full()) {
    // A run per block of columns of each row; where the columns hold both edges, the last
    // block of one row and the first of the next row (or of the next image's row 0) join.
    const long long joins = tn * (rb.rows - rb.blocks) + (tn - 1) * (rb.lo && rb.hi ? 1 : 0);
    return tn * rb.rows * cb.beats(unit, beat) - joins * cb.join_saving(unit, beat);
  }
  // Whole rows: a run per block of rows of each image, joined across images likewise.
  if (rb.full()) return cdiv(tn * h * w * unit, beat);
  return tn * rb.beats(w * unit, beat) - (tn - 1) * rb.join_saving(w * unit, beat);
}

long long transfer_cycles(const Layer& l, const Arch& a, const TileOp& op) {
  if (a.dram_port == DramPort::Packed) return dma_cycles(a, op.bytes);
  return a.dram_latency_cycles + burst_beats(l, op, static_cast<long long>(a.dram_bytes_per_cycle));
}

DramLayout dram_layout(const Layer& l) {
  const uint64_t G = l.g, N = l.n, K = l.k, C = l.c, H = l.h, W = l.w, R = l.r, S = l.s, P = l.p,
                 Q = l.q;
  DramLayout d;
  d.input = 0;
  d.weight = d.input + N * H * W * G * C;
  d.output = d.weight + G * R * S * C * K;
  d.psum = d.output + N * P * Q * G * K;
  d.bytes = d.psum + 4 * N * P * Q * G * K;
  return d;
}

void dram_segments(const Layer& l, const DramLayout& at, const TileOp& op,
                   std::vector<DramSegment>& out) {
  const uint64_t G = l.g, K = l.k, C = l.c, H = l.h, W = l.w, R = l.r, S = l.s, P = l.p, Q = l.q;
  const TileBox& b = op.box;
  auto lo = [&](Dim d) { return static_cast<uint64_t>(b.lo_of(d)); };
  auto ext = [&](Dim d) { return static_cast<uint64_t>(b.ext_of(d)); };
  switch (op.kind) {
    case OpKind::LoadInput: {
      const RowMap rm = input_rows(b.lo_of(Dim::P), b.ext_of(Dim::P), b.lo_of(Dim::R),
                                   b.ext_of(Dim::R), l.stride, l.pad, l.h);
      const RowMap cm = input_rows(b.lo_of(Dim::Q), b.ext_of(Dim::Q), b.lo_of(Dim::S),
                                   b.ext_of(Dim::S), l.stride, l.pad, l.w);
      // Buffer order [n][hrow][wcol][g][c], the DRAM layout's: with the whole C, the tile's
      // groups of one pixel are one run.
      for (uint64_t n = lo(Dim::N); n < lo(Dim::N) + ext(Dim::N); ++n)
        for (long long h : rm.rows)
          for (long long w : cm.rows)
            for (uint64_t g = lo(Dim::G); g < lo(Dim::G) + ext(Dim::G); ++g)
              add_segment(out, at.input + (((n * H + h) * W + w) * G + g) * C + lo(Dim::C),
                          ext(Dim::C));
      return;
    }
    case OpKind::LoadWeight:
      for (uint64_t g = lo(Dim::G); g < lo(Dim::G) + ext(Dim::G); ++g)
        for (uint64_t r = lo(Dim::R); r < lo(Dim::R) + ext(Dim::R); ++r)
          for (uint64_t s = lo(Dim::S); s < lo(Dim::S) + ext(Dim::S); ++s)
            for (uint64_t c = lo(Dim::C); c < lo(Dim::C) + ext(Dim::C); ++c)
              add_segment(out, at.weight + (((g * R + r) * S + s) * C + c) * K + lo(Dim::K),
                          ext(Dim::K));
      return;
    case OpKind::LoadPsum:
    case OpKind::SpillPsum:
    case OpKind::StoreOutput: {
      const bool psum = op.kind != OpKind::StoreOutput;
      const uint64_t eb = psum ? 4 : 1;
      const uint64_t region = psum ? at.psum : at.output;
      // Accumulator order [n][p][q][g][k], the DRAM layout's: with the whole K, the tile's
      // groups of one pixel are one run.
      for (uint64_t n = lo(Dim::N); n < lo(Dim::N) + ext(Dim::N); ++n)
        for (uint64_t pp = lo(Dim::P); pp < lo(Dim::P) + ext(Dim::P); ++pp)
          for (uint64_t q = lo(Dim::Q); q < lo(Dim::Q) + ext(Dim::Q); ++q)
            for (uint64_t g = lo(Dim::G); g < lo(Dim::G) + ext(Dim::G); ++g)
              add_segment(out, region + eb * (((n * P + pp) * Q + q) * G * K + g * K + lo(Dim::K)),
                          eb * ext(Dim::K));
      return;
    }
    case OpKind::Compute:
      return;
  }
}

std::optional<BurstDescriptor> burst_descriptor(const std::vector<DramSegment>& runs,
                                                std::string& why) {
  BurstDescriptor d;
  if (runs.empty()) return d;
  const size_t n = runs.size();
  d.addr = runs[0].addr;
  d.run = runs[0].len;
  for (const DramSegment& r : runs)
    if (r.len != d.run) {
      why = "runs of " + std::to_string(d.run) + " and " + std::to_string(r.len) + " bytes";
      return std::nullopt;
    }
  auto off = [&](size_t i) {
    return static_cast<int64_t>(runs[i].addr) - static_cast<int64_t>(runs[0].addr);
  };
  size_t block = 1;  // runs per iteration of the loops found so far
  for (int level = 0; block < n; ++level) {
    if (level == 4) {
      why = std::to_string(n) + " runs that are not a nest of four loops";
      return std::nullopt;
    }
    const int64_t s = off(block);
    size_t c = 1;
    for (; (c + 1) * block <= n; ++c) {
      bool same = true;
      for (size_t i = 0; i < block && same; ++i)
        same = off(c * block + i) == off(i) + static_cast<int64_t>(c) * s;
      if (!same) break;
    }
    if (c == 1 || n % (c * block) != 0) {
      why = std::to_string(n) + " runs that are not a nest of loops";
      return std::nullopt;
    }
    d.count[static_cast<size_t>(level)] = c;
    d.stride[static_cast<size_t>(level)] = s;
    block *= c;
  }
  return d;
}

std::string burst_descriptor_problem(const Layer& layer, const Arch& arch, const Mapping& m) {
  if (arch.dram_port != DramPort::Bursts) return "";
  const DramLayout at = dram_layout(layer);
  std::string problem;
  std::vector<DramSegment> runs;
  walk_tile_program(layer, arch, m, [&](const TileOp& op) {
    if (!problem.empty() || op.kind == OpKind::Compute) return;
    runs.clear();
    dram_segments(layer, at, op, runs);
    transfer_descriptor(op, runs, problem);
  });
  return problem;
}

namespace {

/// Whether every tile of the axis holds its input rows as one block (no gaps): the windows of
/// consecutive output rows touch (the smallest filter tile is at least the stride) or every
/// output tile is one row.
bool axis_contiguous(long long P, long long tp, long long R, long long tr, long long stride) {
  tp = std::min(tp, P);
  tr = std::min(tr, R);
  const long long min_rt = R % tr ? R % tr : tr;
  return tp == 1 || min_rt >= stride;
}

/// Loops (count, address step), innermost first, of a transfer's run starts.
struct Loops {
  std::array<long long, 8> count{}, step{};
  int n = 0;
  void add(long long c, long long s) {
    if (c <= 1) return;
    if (n > 0 && s == count[n - 1] * step[n - 1]) {  // continues the inner loop: one loop
      count[n - 1] *= c;
      return;
    }
    count[n] = c;
    step[n] = s;
    ++n;
  }
  /// The axis' rows as one or two loops of `unit` bytes per row; false when not a nest.
  bool add_axis(const RowBlocks& a, long long unit) {
    if (!a.even) return false;
    add(a.first, unit);
    add(a.blocks, a.gap * unit);
    return true;
  }
};

/// Whether the input tile of tn images, tg groups, tc channels, rows `r` and columns `c` has a
/// burst descriptor: its runs (dram_segments: pixels [n][h][w][g][c], contiguous runs merged)
/// equally long, their starts a nest of at most four loops (burst_descriptor, which finds a
/// loop whose step continues the inner one as part of it).
bool input_tile_has_descriptor(const Layer& l, long long tn, long long tg, long long tc,
                               const RowBlocks& r, const RowBlocks& c) {
  if (r.blocks == 0 || c.blocks == 0) return true;  // nothing to move
  const long long px = l.g * l.c, row = l.w * px, img = l.h * row;
  Loops lp;
  if (tc < l.c || tg < l.g) {  // a run per pixel and group, or per pixel
    if (tc < l.c) lp.add(tg, l.c);
    if (!lp.add_axis(c, px) || !lp.add_axis(r, row)) return false;
    lp.add(tn, img);
  } else if (!c.full()) {  // a run per block of columns of each row
    // Where the columns hold both edges of the axis, the last block of one row and the first of
    // the next row (or of the next image's row 0) are one run, longer than the others.
    const bool next_row = r.first > 1 || (r.blocks == 1 && r.rows > 1);
    if (c.lo && c.hi && c.blocks >= 2 && (next_row || (tn > 1 && r.lo && r.hi))) return false;
    if (!c.even) return false;
    lp.add(c.blocks, c.gap * px);
    if (!lp.add_axis(r, row)) return false;
    lp.add(tn, img);
  } else if (!r.full()) {  // whole rows: a run per block of rows of each image
    if (r.lo && r.hi && r.blocks >= 2 && tn > 1) return false;  // joined across images
    if (!r.even) return false;
    lp.add(r.blocks, r.gap * row);
    lp.add(tn, img);
  }
  return lp.n <= 4;
}

/// The exact verdict on one input tile (dram_segments, transfer_descriptor): why it has no
/// descriptor, naming the tile, or "" when it has one.
std::string input_tile_problem(const Layer& l, long long tn, long long tg, long long tc,
                               const AxisTile& r, const AxisTile& c) {
  TileOp op;
  op.kind = OpKind::LoadInput;
  auto set = [&](Dim d, long long lo, long long ext) {
    op.box.lo[static_cast<int>(d)] = lo;
    op.box.ext[static_cast<int>(d)] = ext;
  };
  set(Dim::K, 0, 1);
  set(Dim::N, 0, tn);
  set(Dim::G, 0, tg);
  set(Dim::C, 0, tc);
  set(Dim::P, r.p0, r.t);
  set(Dim::R, r.r0, r.ft);
  set(Dim::Q, c.p0, c.t);
  set(Dim::S, c.r0, c.ft);
  std::vector<DramSegment> runs;
  dram_segments(l, dram_layout(l), op, runs);
  std::string why;
  if (transfer_descriptor(op, runs, why)) return "";
  return why + " (the input tile of output rows " + std::to_string(r.p0) + ".." +
         std::to_string(r.p0 + r.t - 1) + " and columns " + std::to_string(c.p0) + ".." +
         std::to_string(c.p0 + c.t - 1) + ", filter rows " + std::to_string(r.r0) + ".." +
         std::to_string(r.r0 + r.ft - 1) + " and columns " + std::to_string(c.r0) + ".." +
         std::to_string(c.r0 + c.ft - 1) + ")";
}

}  // namespace

std::string descriptor_problem(const Layer& l, const Arch& arch, const Mapping& m) {
  if (arch.dram_port != DramPort::Bursts) return "";
  const long long tp = m.tile_of(Dim::P), tr = m.tile_of(Dim::R), tq = m.tile_of(Dim::Q),
                  ts = m.tile_of(Dim::S);
  if (axis_contiguous(l.p, tp, l.r, tr, l.stride) && axis_contiguous(l.q, tq, l.s, ts, l.stride))
    return "";
  const std::vector<AxisTile>& rows = axis_profile(l.p, tp, l.r, tr, l.stride, l.pad, l.h).tiles;
  const std::vector<AxisTile>& cols = axis_profile(l.q, tq, l.s, ts, l.stride, l.pad, l.w).tiles;
  long long ns[2], gs[2], cs[2];
  const int nn = class_sizes(l.n, m.tile_of(Dim::N), ns);
  const int ng = class_sizes(l.g, m.tile_of(Dim::G), gs);
  const int nc = class_sizes(l.c, m.tile_of(Dim::C), cs);
  for (int a = 0; a < nn; ++a)
    for (int b = 0; b < ng; ++b)
      for (int c = 0; c < nc; ++c)
        for (const AxisTile& r : rows)
          for (const AxisTile& q : cols)
            if (!input_tile_has_descriptor(l, ns[a], gs[b], cs[c], r.b, q.b)) {
              // Confirmed, and named, by the runs themselves (rare: only a tile without one).
              std::string why = input_tile_problem(l, ns[a], gs[b], cs[c], r, q);
              if (!why.empty()) return why;
            }
  return "";
}

Validity check_valid(const Layer& l, const Arch& arch, const Mapping& m) {
  Validity v = check_capacity(l, arch, m);
  if (!v.ok()) return v;
  v.detail = descriptor_problem(l, arch, m);
  if (!v.detail.empty()) {
    v.kind = InvalidKind::Descriptor;
    return v;
  }
  v.detail = accum_bank_problem(l, arch, m);
  if (!v.detail.empty()) v.kind = InvalidKind::AccumBanks;
  return v;
}

std::optional<BurstDescriptor> transfer_descriptor(const TileOp& op,
                                                   const std::vector<DramSegment>& runs,
                                                   std::string& why) {
  std::optional<BurstDescriptor> d = burst_descriptor(runs, why);
  if (!d) why = std::string("a ") + op_kind_name(op.kind) + " has " + why;
  return d;
}

std::vector<DramSegment> descriptor_runs(const BurstDescriptor& d) {
  std::vector<DramSegment> out;
  if (d.run == 0) return out;
  for (uint64_t i3 = 0; i3 < d.count[3]; ++i3)
    for (uint64_t i2 = 0; i2 < d.count[2]; ++i2)
      for (uint64_t i1 = 0; i1 < d.count[1]; ++i1)
        for (uint64_t i0 = 0; i0 < d.count[0]; ++i0) {
          const int64_t o =
              static_cast<int64_t>(i3) * d.stride[3] + static_cast<int64_t>(i2) * d.stride[2] +
              static_cast<int64_t>(i1) * d.stride[1] + static_cast<int64_t>(i0) * d.stride[0];
          out.push_back({static_cast<uint64_t>(static_cast<int64_t>(d.addr) + o), d.run});
        }
  return out;
}

}  // namespace mapwright::core
