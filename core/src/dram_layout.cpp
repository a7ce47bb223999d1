#include "mapwright/core/dram_layout.hpp"

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

}  // namespace mapwright::core
