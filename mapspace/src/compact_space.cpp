// The compact map space: conditional tile candidates (smallest tile per trip count, plus
// larger tiles that change a fold count or lower the input halo sum), PE-use minimality,
// representatives of the loop-order classes (orders with equal tensor reuse) and the
// double-buffer choices that can matter. mapper/README.md gives the argument that every raw
// mapping is dominated by a compact one; tests/mapper/compact_space_test.cpp checks it by
// brute force on small layers.
#include "mapwright/mapspace/compact_space.hpp"

#include <algorithm>

#include "mapwright/core/tile_program.hpp"

namespace mapwright::core {

namespace {

/// Tile sizes of a loop (the full size, and the remainder if any).
std::vector<long long> class_sizes(long long bound, long long t) {
  std::vector<long long> s{std::min(t, bound)};
  if (t < bound && bound % t) s.push_back(bound % t);
  return s;
}

/// Sum over the tiles of a loop (bound, tile t) of the distinct in-bounds input extent, with
/// the filter loop tiled by ft (the surrogate's halo sum).
long long extent_sum(long long bound, long long t, long long fbound, long long ft, long long stride,
                     long long pad, long long in) {
  long long s = 0;
  for (long long p0 = 0; p0 < bound; p0 += t) {
    const long long pt = std::min(t, bound - p0);
    for (long long r0 = 0; r0 < fbound; r0 += ft)
      s += input_extent(p0, pt, r0, std::min(ft, fbound - r0), stride, pad, in);
  }
  return s;
}

/// How the cost depends on a loop's tile beyond its trip count and its footprint.
struct Coupling {
  int mode = 0;                 ///< 0: nothing (smallest tile per T); 1: keep all; 2: keyed.
  long long pe = 0;             ///< Fold divisor (0 = no fold coupling).
  std::vector<long long> mult;  ///< Fold multipliers x (sizes of the coupled loops).
  long long halo_filter = 0;    ///< Filter tile of the halo sum (0 = no halo coupling).
  long long beat = 0;           ///< Burst port: bytes per beat (0 = no burst coupling).
  std::vector<long long> unit;  ///< Burst port: run units x of sum ceil(tile * x / beat).
};

void products(std::vector<long long>& out, const std::vector<long long>& a,
              const std::vector<long long>& b) {
  out.clear();
  for (long long x : a)
    for (long long y : b) out.push_back(x * y);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

Coupling coupling(const Layer& l, const Mapping& m, Dim d, long long beat) {
  Coupling c;
  auto sizes = [&](Dim e) { return class_sizes(l.dim(e), m.tile_of(e)); };
  // WS and IS: the array rows carry the reduction (C, R, S); OS: the output pixels. WS and
  // OS: the columns carry K; IS: the output pixels (and K streams).
  const Dataflow df = m.dataflow;
  const long long pixel_pe = df == Dataflow::OS ? m.pe_rows : m.pe_cols;
  if (d == Dim::R || d == Dim::S) {
    c.mode = 1;
  } else if (d == Dim::K) {
    if (df != Dataflow::IS) {
      c.mode = 2;
      c.pe = m.pe_cols;
      c.mult = {1};
    }
  } else if (d == Dim::G) {
    c.mode = 0;
  } else if (d == Dim::C) {
    if (df != Dataflow::OS) {
      c.mode = 2;
      c.pe = m.pe_rows;
      products(c.mult, sizes(Dim::R), sizes(Dim::S));
    }
  } else if (df == Dataflow::WS) {  // N, P, Q stream: only the halo couples P and Q
    if (d == Dim::P) {
      c.mode = 2;
      c.halo_filter = m.tile_of(Dim::R);
    } else if (d == Dim::Q) {
      c.mode = 2;
      c.halo_filter = m.tile_of(Dim::S);
    }
  } else {  // OS rows or IS columns carry the output pixels N*P*Q.
    if (d == Dim::N) {
      c.mode = 1;
    } else if (d == Dim::P) {
      c.mode = 2;
      c.pe = pixel_pe;
      std::vector<long long> qs;
      for (long long q = 1; q <= l.q; ++q) qs.push_back(q);
      products(c.mult, sizes(Dim::N), qs);
      c.halo_filter = m.tile_of(Dim::R);
    } else if (d == Dim::Q) {
      c.mode = 2;
      c.pe = pixel_pe;
      products(c.mult, sizes(Dim::N), sizes(Dim::P));
      c.halo_filter = m.tile_of(Dim::S);
    }
  }
  if (beat > 0 && c.mode != 1) {
    // Burst port (core::burst_beats): a loop cuts a tensor's DRAM runs when every loop inside
    // it in the tensor's layout is whole; the tensor's beats then depend on the loop's tiles
    // through sum ceil(tile * x / beat), x the bytes of the whole inner loops. Layouts, inner
    // first: weights k c s r g (x: 1, K, ..., R*S*C*K), outputs and partial sums k g q p n
    // (x: 1 or 4 bytes times the inner sizes), inputs c g, then columns and rows in blocks.
    // R and S keep every size already; N, P and Q do too, as the input's blocks (and their
    // joins across rows and images) depend on their tiles in more than one sum.
    const long long K = l.k, C = l.c;
    if (d == Dim::K) {
      c.unit = {1, 4};
    } else if (d == Dim::C) {
      c.unit = {1, K};
    } else if (d == Dim::G) {
      c.unit = {C, K, 4 * K, l.r * l.s * C * K};
    } else if (d == Dim::N || d == Dim::P || d == Dim::Q) {
      c.mode = 1;
    }
    if (!c.unit.empty()) {
      c.mode = 2;
      c.beat = beat;
    }
  }
  if (c.mode == 2 && c.pe == 0 && c.halo_filter == 0 && c.beat == 0) c.mode = 0;
  return c;
}

}  // namespace

std::vector<std::array<Dim, kNumOrderedDims>> order_classes(
    const std::array<long long, kNumDims>& T) {
  // Loops by relevance type: O = N P Q (output and input), I = C R S (input and weight), K.
  std::vector<Dim> unit, O, Iv;
  const bool k_non_unit = T[I(Dim::K)] > 1;
  for (Dim d : {Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S}) {
    if (T[I(d)] <= 1) {
      unit.push_back(d);
    } else if (d == Dim::N || d == Dim::P || d == Dim::Q) {
      O.push_back(d);
    } else if (d != Dim::K) {
      Iv.push_back(d);
    }
  }
  std::vector<std::array<Dim, kNumOrderedDims>> reps;
  std::vector<OrderReuse> seen;
  auto add = [&](std::vector<Dim> seq) {
    std::array<Dim, kNumOrderedDims> o{};
    for (int i = 0; i < kNumOrderedDims; ++i) o[i] = seq[i];
    const OrderReuse r = order_reuse(T, o);
    for (const OrderReuse& s : seen)
      if (s == r) return;
    seen.push_back(r);
    reps.push_back(o);
  };
  auto cat = [](std::initializer_list<const std::vector<Dim>*> parts) {
    std::vector<Dim> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
  const std::vector<Dim> kv = k_non_unit ? std::vector<Dim>{Dim::K} : std::vector<Dim>{};
  // (a) K innermost.
  if (k_non_unit) add(cat({&unit, &O, &Iv, &kv}));
  // (b) a non-empty set of O loops innermost; (c) a non-empty set of I loops innermost.
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<Dim>& run = pass == 0 ? O : Iv;
    const std::vector<Dim>& other = pass == 0 ? Iv : O;
    const int n = static_cast<int>(run.size());
    for (int mask = 1; mask < (1 << n); ++mask) {
      std::vector<Dim> in_run, rest;
      for (int i = 0; i < n; ++i) (mask >> i & 1 ? in_run : rest).push_back(run[i]);
      add(cat({&unit, &rest, &kv, &other, &in_run}));
    }
  }
  if (reps.empty()) add(cat({&unit, &O, &Iv, &kv}));  // every loop has one trip
  return reps;
}

std::array<Dim, kNumDims> tile_branch_order(Dataflow df) {
  switch (df) {
    case Dataflow::WS:
      return {Dim::K, Dim::R, Dim::S, Dim::C, Dim::G, Dim::N, Dim::P, Dim::Q};
    case Dataflow::OS:
      return {Dim::K, Dim::R, Dim::S, Dim::N, Dim::P, Dim::Q, Dim::C, Dim::G};
    case Dataflow::IS:
      return {Dim::R, Dim::S, Dim::C, Dim::N, Dim::P, Dim::Q, Dim::K, Dim::G};
  }
  return {};
}

long long burst_beat_of(const Arch& a) {
  return a.dram_port == DramPort::Bursts ? static_cast<long long>(a.dram_bytes_per_cycle) : 0;
}

std::vector<long long> compact_tile_key(const Layer& l, const Mapping& m, Dim d,
                                        long long burst_beat) {
  const Coupling c = coupling(l, m, d, burst_beat);
  std::vector<long long> key{I(d),          c.mode, c.pe,
                             c.halo_filter, c.beat, static_cast<long long>(c.mult.size())};
  key.insert(key.end(), c.mult.begin(), c.mult.end());
  key.insert(key.end(), c.unit.begin(), c.unit.end());
  return key;
}

std::vector<long long> compact_tile_sizes(const Layer& l, const Mapping& m, Dim d,
                                          long long burst_beat) {
  const long long bound = l.dim(d);
  const Coupling c = coupling(l, m, d, burst_beat);
  std::vector<long long> out;
  if (c.mode == 1) {
    for (long long t = 1; t <= bound; ++t) out.push_back(t);
    return out;
  }
  const bool is_p = d == Dim::P;
  const long long fbound = is_p ? l.r : l.s, in = is_p ? l.h : l.w;
  const long long dim_bound = is_p ? l.p : l.q;
  struct Kept {
    std::vector<long long> key;  // fold sums per multiplier, then burst sums per unit
    long long ext;               // halo sum
  };
  // Sum over the loop's tiles (tile t) of ceil(size * x / div).
  auto tile_sum = [&](long long t, long long x, long long div) {
    const long long full = bound / t, rem = bound % t;
    return full * cdiv(t * x, div) + (rem ? cdiv(rem * x, div) : 0);
  };
  auto key_of = [&](long long t, std::vector<long long>& key) {
    key.clear();
    for (long long x : c.mult) key.push_back(tile_sum(t, x, c.pe));
    for (long long x : c.unit) key.push_back(tile_sum(t, x, c.beat));
  };
  std::vector<Kept> kept;
  long long cur_t = -1;
  std::vector<long long> key;
  for (long long t = 1; t <= bound; ++t) {
    const long long T = cdiv(bound, t);
    if (T != cur_t) {
      cur_t = T;
      kept.clear();
      out.push_back(t);  // the smallest tile of every trip count is always kept
      if (c.mode == 2) {
        Kept k;
        key_of(t, k.key);
        k.ext = c.halo_filter ? extent_sum(dim_bound, t, fbound, c.halo_filter, l.stride, l.pad, in)
                              : 0;
        kept.push_back(std::move(k));
      }
      continue;
    }
    if (c.mode == 0) continue;
    key_of(t, key);
    const long long ext =
        c.halo_filter ? extent_sum(dim_bound, t, fbound, c.halo_filter, l.stride, l.pad, in) : 0;
    bool dominated = false;
    for (const Kept& k : kept)
      if (k.key == key && k.ext <= ext) {
        dominated = true;
        break;
      }
    if (!dominated) {
      out.push_back(t);
      kept.push_back(Kept{key, ext});
    }
  }
  return out;
}

namespace {
bool pe_minimal(long long pe, const std::vector<long long>& sizes) {
  if (pe <= 1) return true;
  for (long long x : sizes)
    if (cdiv(x, pe - 1) != cdiv(x, pe)) return true;
  return false;
}
}  // namespace

namespace {
/// Tile sizes of the product of three loops (every class of each).
std::vector<long long> product_sizes(const Layer& l, const Mapping& m, Dim a, Dim b, Dim c) {
  std::vector<long long> ab, abc;
  products(ab, class_sizes(l.dim(a), m.tile_of(a)), class_sizes(l.dim(b), m.tile_of(b)));
  products(abc, ab, class_sizes(l.dim(c), m.tile_of(c)));
  return abc;
}
}  // namespace

bool pe_rows_minimal(const Layer& l, const Mapping& m) {
  if (m.dataflow == Dataflow::OS)
    return pe_minimal(m.pe_rows, product_sizes(l, m, Dim::N, Dim::P, Dim::Q));
  return pe_minimal(m.pe_rows, product_sizes(l, m, Dim::C, Dim::R, Dim::S));
}

bool pe_cols_minimal(const Layer& l, const Mapping& m) {
  if (m.dataflow == Dataflow::IS)
    return pe_minimal(m.pe_cols, product_sizes(l, m, Dim::N, Dim::P, Dim::Q));
  return pe_minimal(m.pe_cols, class_sizes(l.k, m.tile_of(Dim::K)));
}

std::vector<std::array<bool, 3>> double_buffer_choices(const Layer& l, const Mapping& m) {
  const auto T = trip_counts(l, m);
  long long steps = 1;
  for (long long t : T) steps *= t;
  const OrderReuse r = order_reuse(T, m.order);
  const bool vary[3] = {r.input.period < steps, r.weight.period < steps, r.output.period < steps};
  std::vector<std::array<bool, 3>> out;
  for (int mask = 0; mask < 8; ++mask) {
    bool ok = true;
    for (int i = 0; i < 3; ++i)
      if ((mask >> i & 1) && !vary[i]) ok = false;
    if (ok) out.push_back({(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0});
  }
  return out;
}

CompactSpace::CompactSpace(Layer layer, Arch arch)
    : layer_(std::move(layer)), arch_(std::move(arch)) {}

long long CompactSpace::for_each(const std::function<void(const Mapping&)>& visit) const {
  long long count = 0;
  Mapping m;
  m.layer_shape = layer_.shape_key();
  m.fold_order = FoldOrder::RowsOuter;
  std::function<void(int)> tiles = [&](int level) {
    const auto bo = tile_branch_order(m.dataflow);
    if (level == kNumDims) {
      if (!pe_rows_minimal(layer_, m) || !pe_cols_minimal(layer_, m)) return;
      for (const auto& o : order_classes(trip_counts(layer_, m))) {
        m.order = o;
        for (const auto& db : double_buffer_choices(layer_, m)) {
          m.db_input = db[0];
          m.db_weight = db[1];
          m.db_accum = db[2];
          if (!check_capacity(layer_, arch_, m).ok()) continue;
          ++count;
          visit(m);
        }
      }
      m.db_input = m.db_weight = m.db_accum = false;
      return;
    }
    const Dim d = bo[level];
    for (long long t : compact_tile_sizes(layer_, m, d, burst_beat_of(arch_))) {
      m.tile[I(d)] = t;
      tiles(level + 1);
    }
    m.tile[I(d)] = 1;
  };
  for (Dataflow df : arch_.dataflows) {
    m.dataflow = df;
    for (int pr = 1; pr <= arch_.rows; ++pr)
      for (int pc = 1; pc <= arch_.cols; ++pc) {
        m.pe_rows = pr;
        m.pe_cols = pc;
        m.tile.fill(1);
        tiles(0);
      }
  }
  return count;
}

}  // namespace mapwright::core
