// The banked buffers' terms in factored closed form (closed_form_bank_totals).
//
// The per-shape sum (shape_sum_bank_totals, model/src/bank_conflicts.cpp) visits every
// combination of tile-size classes (N, C, K, G, and the distinct input row and column sets of
// the image axes) and, for each, builds the banks of every lane of the fold lists it needs: a
// sum over the layer's tiles that costs O(tile size) per evaluation. Here:
//
// * A fold list's stalls depend only on how its lanes' offsets fall into banks: the offsets of
//   consecutive indices of a mixed-radix counter (at most three digits) with per-digit strides,
//   folded into groups of `lanes`. So a list is named by the digit radices, the strides mod the
//   bank count, the number of indices, the lanes per fold and the bank count (FoldKey), with
//   digits that never move or that continue an inner one merged away.
// * Most lists then have at most two digits, and their stalls have a closed form
//   (FoldCache::closed): a fold holds one run of the inner digit, or two runs that meet in a
//   bank for every fold or for none, so only the folds that hold an inner boundary are counted.
// * The other lists are summarized once, fold by fold (O(folds) where a fold holds at most two
//   runs, lane by lane otherwise), and kept in a per-thread cache shared by every evaluation,
//   layer and architecture the thread scores.
// * Lists whose offsets are an arithmetic progression (consecutive lanes: the weight rows; IS
//   weight rows at a stride of tk words) need neither: n lanes at a stride s fall at most
//   ceil(n * gcd(s, B) / B) into one of B banks.
// * The sums over classes factor: under WS a fold's input stalls depend on the C, R, S and G
//   tiles and the columns held, not on N, P, Q or K, so those loops enter as sums of counts
//   and of extents; OS and IS take the pixel list once per (N, rows, columns, C, G) class.
//
// The cache is per thread (no lock on the hot path, no cache line shared between threads); it
// holds at most 32,768 summaries (64 bytes each in 65,536 slots, 4 MiB) and starts again empty
// when full. The answers are the per-shape sum's exactly: the test
// BankConflicts.FactoredClosedFormEqualsTheShapeSum compares them on 100,000 random mappings.
#include "mapwright/model/bank_conflicts.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "mapwright/core/axis_profile.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/model/tile_classes.hpp"

namespace mapwright::model {

using core::AxisTile;
using core::cdiv;
using core::Dataflow;
using core::Dim;

namespace {

/// A fold list: the indices 0..n-1 of a counter with digits (a, b, c), c the fastest (radix
/// d2), then b (radix d1), then a; index i sits at offset a*s0 + b*s1 + c*s2, and the list is
/// cut into folds of `lanes` consecutive indices. Only the banks matter, so the strides are
/// kept mod `banks`, and digits that never move are zeroed so that equal lists share one key.
struct FoldKey {
  long long n, d1, d2, m0, m1, m2, lanes, banks;
};

/// x mod b by a multiplication for x < 2^32 (Lemire, Kaser and Kurz, "Faster remainder by
/// direct computation", 2019), a division otherwise: one evaluation reduces every stride of its
/// fold lists by the one bank count.
__extension__ typedef unsigned __int128 U128;
struct Mod {
  uint64_t b, m;
  explicit Mod(long long banks)
      : b(static_cast<uint64_t>(banks)), m(UINT64_MAX / static_cast<uint64_t>(banks) + 1) {}
  long long operator()(long long x) const {
    const uint64_t u = static_cast<uint64_t>(x);
    if (u >> 32) return static_cast<long long>(u % b);
    return static_cast<long long>(static_cast<uint64_t>((static_cast<U128>(m * u) * b) >> 64));
  }
};

FoldKey fold_key(long long n, long long d1, long long d2, long long s0, long long s1, long long s2,
                 long long lanes, const Mod& mod) {
  long long m0 = mod(s0), m1 = mod(s1), m2 = mod(s2);
  // Digits that never move, or that continue the digit inside them (b's stride d2 times c's,
  // a's stride d1 d2 times c's or d1 times b's), name the same list in fewer digits.
  if (d2 <= 1) d2 = 1, m2 = 0;
  if (d1 <= 1) d1 = 1, m1 = 0;
  if (d1 > 1 && mod(d2 * m2) == m1) d2 *= d1, d1 = 1, m1 = 0;
  if (n <= d2) d2 = n, d1 = 1, m1 = 0;
  if (n <= d1 * d2) d1 = core::cdiv(n, d2), m0 = 0;
  if (d1 == 1 && mod(d2 * m2) == m0) d2 = n, m0 = 0;
  if (d1 > 1 && mod(d1 * m1) == m0) d1 = core::cdiv(n, d2), m0 = 0;
  if (d2 == 1) m2 = 0;
  if (d1 == 1) m1 = 0;
  return {n, d1, d2, m0, m1, m2, std::min(lanes, n), static_cast<long long>(mod.b)};
}

/// What the formulas need of a fold list: its folds, the sum of one row's stall over them, and
/// how many folds stall k cycles for k < kHist (for the OS sum of max(input stall, weight
/// stall); a larger weight stall needs more than 8 lanes per bank).
constexpr int kHist = 7;
struct FoldSum {
  uint32_t folds = 0;
  uint32_t sum_k = 0;
  uint32_t hist[kHist] = {};  ///< hist[k]: folds whose rows stall k cycles.
  /// Sum over the folds of max(k, x), for x <= kHist.
  long long sum_max(long long x) const {
    long long s = sum_k;
    for (long long k = 0; k < x; ++k) s += (x - k) * hist[k];
    return s;
  }
};

/// The per-thread cache of fold-list summaries: open addressing with linear probing over
/// 64-byte slots (the key packed into three words, the summary beside it), 4 MiB in all.
class FoldCache {
 public:
  static constexpr size_t kSlots = size_t{1} << 16;
  static constexpr size_t kMaxEntries = kSlots / 2;

  FoldCache() : slots_(kSlots) {}

  /// The summary of the list named by `key`.
  FoldSum get(const FoldKey& key) {
    FoldSum f;
    if (closed(key, f)) return f;
    Packed p;
    if (!pack(key, p)) return build(key);  // beyond the packed ranges: not cached
    size_t h = hash(p) & (kSlots - 1);
    for (; slots_[h].gen == gen_; h = (h + 1) & (kSlots - 1))
      if (slots_[h].key == p) return slots_[h].sum;
    if (entries_ >= kMaxEntries) {  // full: start again (entries are cheap to rebuild)
      clear();
      h = hash(p) & (kSlots - 1);
    }
    Slot& s = slots_[h];
    s.key = p;
    s.gen = gen_;
    s.sum = build(key);
    ++entries_;
    return s.sum;
  }

  /// Empties the cache: a new generation (every slot of an older one is free).
  void clear() {
    if (++gen_ == 0) {  // wrapped: mark every slot free for real
      for (Slot& s : slots_) s.gen = 0;
      gen_ = 1;
    }
    entries_ = 0;
  }

  /// Sum over the folds of `key`'s list of max(k, x) for any x (walks the list again when x is
  /// above the kept histogram).
  long long sum_max(const FoldKey& key, const FoldSum& f, long long x) {
    if (x <= kHist) return f.sum_max(x);
    long long s = 0;
    for (long long y0 = 0; y0 < key.n; y0 += key.lanes)
      s += std::max(x, walk_fold(key, y0, std::min(key.n, y0 + key.lanes)));
    return s;
  }

 private:
  struct Packed {
    uint64_t w[3];
    bool operator==(const Packed& o) const {
      return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2];
    }
  };
  struct alignas(64) Slot {
    Packed key{};
    FoldSum sum;
    uint32_t gen = 0;  ///< Occupied when equal to the cache's generation.
  };
  static_assert(sizeof(Slot) == 64, "one cache line per slot");

  /// n and lanes, d1 and d2 in 32 bits each; the bank count and the three strides in 16.
  static bool pack(const FoldKey& k, Packed& p) {
    constexpr long long k32 = 1LL << 32, k16 = 1LL << 16;
    if (k.n >= k32 || k.d1 >= k32 || k.d2 >= k32 || k.lanes >= k32 || k.banks >= k16) return false;
    p.w[0] = static_cast<uint64_t>(k.n) << 32 | static_cast<uint64_t>(k.lanes);
    p.w[1] = static_cast<uint64_t>(k.d1) << 32 | static_cast<uint64_t>(k.d2);
    p.w[2] = static_cast<uint64_t>(k.banks) << 48 | static_cast<uint64_t>(k.m0) << 32 |
             static_cast<uint64_t>(k.m1) << 16 | static_cast<uint64_t>(k.m2);
    return true;
  }

  static size_t hash(const Packed& p) {
    uint64_t h = p.w[0] * 0x9E3779B97F4A7C15ULL;
    h = (h ^ (h >> 29) ^ p.w[1]) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 32) ^ p.w[2]) * 0x94D049BB133111EBULL;
    return static_cast<size_t>(h ^ (h >> 31));
  }

  /// One row's stall per fold of the list. With at most
  /// `banks` lanes per fold, a fold's lanes are one or two runs of the inner digit c (when c's
  /// radix is not smaller than the fold), each an arithmetic progression of stride m2 (mod
  /// banks): one run of len lanes stalls ceil(len * gcd(m2, B) / B) - 1 cycles; two runs of an
  /// invertible stride are two arcs after scaling by its inverse, and stall 1 if the arcs meet
  /// (each lane of an arc in its own bank), else 0; two runs of stride 0 put their lanes in one
  /// or two banks. Every other fold is counted lane by lane.
  FoldSum build(const FoldKey& key) {
    const long long n = key.n, d1 = key.d1, d2 = key.d2, banks = key.banks;
    const long long m0 = key.m0, m1 = key.m1, m2 = key.m2, lanes = key.lanes;
    const long long g = std::gcd(m2, banks);  // gcd(0, B) = B
    const long long inv = g == 1 ? inverse(m2, banks) : 0;
    // The digits (a, b, c) of the fold's first index and their offsets' banks (ra, rb, rc),
    // advanced by `lanes` indices per fold with adds and compares (a division only when b
    // wraps more than once).
    auto mod_add = [&](long long x, long long y) { return x + y >= banks ? x + y - banks : x + y; };
    const long long qL = lanes / d2, rL = lanes % d2;
    const long long step_c = rL * m2 % banks, wrap_c = d2 % banks * m2 % banks;
    const long long step_b = qL % banks * m1 % banks, wrap_b = d1 % banks * m1 % banks;
    long long a = 0, b = 0, c = 0, ra = 0, rb = 0, rc = 0;
    FoldSum f;
    for (long long y0 = 0; y0 < n; y0 += lanes) {
      const long long e = std::min(n, y0 + lanes);
      long long stall = -1;
      if (lanes <= banks) {
        const long long l0 = std::min(d2 - c, e - y0), start0 = mod_add(mod_add(ra, rb), rc);
        if (l0 == e - y0) {  // one run
          stall = core::cdiv(l0 * g, banks) - 1;
        } else if (l0 + d2 >= e - y0) {  // two runs, the second from c = 0 of the next b
          const long long l1 = e - y0 - l0;
          const long long start1 = b + 1 == d1 ? mod_add(ra, m0) : mod_add(ra, mod_add(rb, m1));
          if (g == 1) {
            const long long u0 = start0 * inv % banks, u1 = start1 * inv % banks;
            const bool apart = (u1 - u0 + banks) % banks >= l0 && (u0 - u1 + banks) % banks >= l1;
            stall = apart ? 0 : 1;
          } else if (g == banks) {
            stall = start0 == start1 ? l0 + l1 - 1 : std::max(l0, l1) - 1;
          }
        }
      }
      if (stall < 0) stall = walk_fold(key, y0, e);
      ++f.folds;
      f.sum_k += static_cast<uint32_t>(stall);
      if (stall < kHist) ++f.hist[stall];
      // Advance the digits by `lanes`.
      c += rL;
      rc = mod_add(rc, step_c);
      b += qL;
      rb = mod_add(rb, step_b);
      if (c >= d2) {
        c -= d2;
        rc = mod_add(rc, banks - wrap_c);
        ++b;
        rb = mod_add(rb, m1);
      }
      if (b >= d1) {
        const long long wraps = b / d1;
        b -= wraps * d1;
        rb = (rb + (banks - wrap_b) * (wraps % banks)) % banks;
        a += wraps;
        ra = (ra + m0 * (wraps % banks)) % banks;
      }
    }
    return f;
  }

  /// The list's summary without walking its folds, where it has at most two digits, at most
  /// `banks` lanes per fold and an inner run at least a fold long of a stride prime to the bank
  /// count: then a fold holds one run (no stall) or, where it crosses one boundary of the inner
  /// digit, two runs that are arcs [phi, J) and [0, l - J + phi) of the inner digit's positions
  /// (scaled by the stride's inverse), the second shifted by u (the outer stride, scaled). The
  /// arcs meet, one stall, exactly when c = (u - J) mod B exceeds B - l, whatever phi: with
  /// x = J - phi in [1, l), the first arc ends before the second starts iff c + x < B, and the
  /// second ends before the first starts iff B - c - x >= l - x. So the stalled folds are those
  /// that hold an inner boundary (at multiples of J, each in one fold unless it starts one),
  /// counted in closed form. A single progression (one digit) stalls ceil(len * g / B) - 1 per
  /// fold of len lanes, g = gcd(stride, B). Returns false where neither applies.
  bool closed(const FoldKey& key, FoldSum& f) {
    if (key.n >= (1LL << 31) || key.banks >= (1LL << 16)) return false;
    // 32-bit operands: the divisions are the hot path's cost.
    const uint32_t n = static_cast<uint32_t>(key.n), L = static_cast<uint32_t>(key.lanes);
    const uint32_t B = static_cast<uint32_t>(key.banks);
    const uint32_t full = n / L, last = n - full * L;  // full folds, lanes of the last one
    auto put = [&](uint32_t folds, uint32_t stall) {
      f.folds += folds;
      f.sum_k += folds * stall;
      if (stall < kHist) f.hist[stall] += folds;
    };
    const Residues& r = residues(B);
    if (key.d2 >= key.n) {  // one digit
      const uint32_t g = r.gcd[static_cast<size_t>(key.m2)];
      put(full, (L * g + B - 1) / B - 1);
      if (last) put(1, (last * g + B - 1) / B - 1);
      return true;
    }
    long long J64, s_in, s_out;  // inner radix and stride, outer stride
    if (key.d1 == 1) {
      J64 = key.d2, s_in = key.m2, s_out = key.m0;
    } else if (key.m0 == 0 && key.n <= key.d1 * key.d2) {
      J64 = key.d2, s_in = key.m2, s_out = key.m1;
    } else {
      return false;
    }
    const uint32_t J = static_cast<uint32_t>(J64);
    if (L > B || J < L || r.gcd[static_cast<size_t>(s_in)] != 1) return false;
    const uint32_t u = static_cast<uint32_t>(s_out) * r.inv[static_cast<size_t>(s_in)] % B;
    const uint32_t c = (u + B - J % B) % B;
    // Inner boundaries b = kJ, 0 < b < n: the full folds' and the last fold's.
    const uint32_t bounds = (n - 1) / J;
    const uint32_t aligned = bounds / (L / std::gcd(J, L));  // b a multiple of L: in no fold
    const uint32_t in_last = last && bounds * J > full * L ? 1 : 0;
    const uint32_t crossing = bounds - aligned - in_last;
    put(crossing, c > B - L ? 1 : 0);
    put(full - crossing, 0);
    if (last) put(1, in_last && c > B - last ? 1 : 0);
    return true;
  }

  /// gcd(s, B) and the inverse of s mod B (0 where none) for every residue s of one bank count.
  struct Residues {
    uint32_t banks = 0;
    std::vector<uint32_t> gcd, inv;
  };
  /// The residue tables of `banks`, built when the bank count changes (one per evaluation at
  /// most; every list of an evaluation has its bank count).
  const Residues& residues(uint32_t banks) {
    if (res_.banks != banks) {
      res_.banks = banks;
      res_.gcd.assign(banks, 0);
      res_.inv.assign(banks, 0);
      for (uint32_t s = 0; s < banks; ++s) {
        res_.gcd[s] = std::gcd(s, banks);
        if (res_.gcd[s] == 1) res_.inv[s] = static_cast<uint32_t>(inverse(s, banks));
      }
    }
    return res_;
  }

  /// x with x * m = 1 (mod b), for gcd(m, b) = 1.
  static long long inverse(long long m, long long b) {
    long long r0 = b, r1 = m % b, t0 = 0, t1 = 1;
    while (r1 != 0) {
      const long long q = r0 / r1;
      r0 = std::exchange(r1, r0 - q * r1);
      t0 = std::exchange(t1, t0 - q * t1);
    }
    return ((t0 % b) + b) % b;
  }

  /// One row's stall of the fold [y0, e) counted lane by lane: each index's bank digit by digit
  /// (adds and compares only), the busiest bank's lanes minus one.
  long long walk_fold(const FoldKey& key, long long y0, long long e) {
    const long long d1 = key.d1, d2 = key.d2, banks = key.banks;
    const long long m0 = key.m0, m1 = key.m1, m2 = key.m2;
    if (load_.size() < static_cast<size_t>(banks)) load_.resize(static_cast<size_t>(banks), 0);
    touched_.resize(static_cast<size_t>(e - y0));
    auto add = [&](long long x, long long y) { return x + y >= banks ? x + y - banks : x + y; };
    const long long D = d1 * d2;
    long long b = (y0 % D) / d2, c = y0 % d2;
    long long ra = ((y0 / D) % banks) * m0 % banks, rb = b * m1 % banks, rc = c * m2 % banks;
    long long worst = 1;
    for (long long i = y0; i < e; ++i) {
      const long long bank = add(add(ra, rb), rc);
      touched_[static_cast<size_t>(i - y0)] = bank;
      worst = std::max(worst, ++load_[static_cast<size_t>(bank)]);
      rc = add(rc, m2);
      if (++c == d2) {
        c = 0;
        rc = 0;
        rb = add(rb, m1);
        if (++b == d1) {
          b = 0;
          rb = 0;
          ra = add(ra, m0);
        }
      }
    }
    for (long long i = 0; i < e - y0; ++i)
      load_[static_cast<size_t>(touched_[static_cast<size_t>(i)])] = 0;
    return worst - 1;
  }

  std::vector<Slot> slots_;
  size_t entries_ = 0;
  uint32_t gen_ = 1;                ///< The current generation (slots start at 0: free).
  Residues res_;                    ///< The last bank count's residue tables.
  std::vector<long long> load_;     ///< Scratch: lanes per bank in the fold being counted.
  std::vector<long long> touched_;  ///< Scratch: the banks the fold's lanes hit.
};

FoldCache& cache() {
  thread_local FoldCache c;
  return c;
}

/// One row's stall of `n` lanes whose offsets step by `s` words on `banks` banks: the
/// residues repeat every banks / gcd(s, banks) lanes.
long long progression_stall(long long n, long long s, long long banks) {
  if (n < 2 || (s == 1 && n <= banks)) return 0;   // consecutive words in distinct banks
  const long long g = std::gcd(s % banks, banks);  // gcd(0, B) = B: every lane in one bank
  return cdiv(n * g, banks) - 1;
}

/// A progression list of `rows` lanes at stride `s` cut into folds of `lanes`: its folds, the
/// sum of their stalls and the stall of a full fold and of the last fold.
struct ProgFolds {
  long long folds, sum_k, k_full, k_rem, n_full, n_rem;
};
ProgFolds progression_folds(long long rows, long long lanes, long long s, long long banks) {
  ProgFolds f{};
  f.n_full = rows / lanes;
  f.n_rem = rows % lanes ? 1 : 0;
  f.k_full = progression_stall(lanes, s, banks);
  f.k_rem = f.n_rem ? progression_stall(rows % lanes, s, banks) : 0;
  f.folds = f.n_full + f.n_rem;
  f.sum_k = f.n_full * f.k_full + f.k_rem;
  return f;
}

}  // namespace

/// An axis' classes merged where a fold list cannot tell them apart: their counts, and the
/// counts weighted by the output and the filter tile (the sums are linear in both).
struct AxisGroup {
  long long t, ft, rows, a;
  long long count = 0, count_t = 0, count_ft = 0;
};
template <class Same>
void group_axis(const std::vector<AxisTile>& in, std::vector<AxisGroup>& out, Same same) {
  out.clear();
  for (const AxisTile& x : in) {
    auto it = std::find_if(out.begin(), out.end(), [&](const AxisGroup& g) { return same(g, x); });
    if (it == out.end()) it = out.insert(out.end(), AxisGroup{x.t, x.ft, x.b.rows, x.a});
    it->count += x.count;
    it->count_t += x.count * x.t;
    it->count_ft += x.count * x.ft;
  }
}

BankTotals closed_form_bank_totals(const core::Layer& l, const core::Mapping& m, long long banks) {
  BankTotals t;
  if (banks < 1) return t;
  FoldCache& fc = cache();
  const Mod mod(banks);
  const std::vector<AxisTile>& ph =
      core::axis_profile(l.p, m.tile_of(Dim::P), l.r, m.tile_of(Dim::R), l.stride, l.pad, l.h)
          .tiles;
  const std::vector<AxisTile>& qw =
      core::axis_profile(l.q, m.tile_of(Dim::Q), l.s, m.tile_of(Dim::S), l.stride, l.pad, l.w)
          .tiles;
  const TileClasses cn = tile_classes(l.n, m.tile_of(Dim::N));
  const TileClasses cc = tile_classes(l.c, m.tile_of(Dim::C));
  const TileClasses ck = tile_classes(l.k, m.tile_of(Dim::K));
  const TileClasses cg = tile_classes(l.g, m.tile_of(Dim::G));
  const long long pr = m.pe_rows, pc = m.pe_cols;
  // Consecutive lanes (weight rows under WS and OS): per K class its folds and stalls.
  ProgFolds kw[2];
  for (int i = 0; i < ck.n; ++i) kw[i] = progression_folds(ck.size[i], pc, 1, banks);

  switch (m.dataflow) {
    case Dataflow::WS: {
      // Per op: in = pixels*nW*KA, wt = red*KW, cycles = nA*nW + red*KW + (pixels-1)*nW*KA, with
      // A the input list (lanes = reduction rows, pr a fold) and W the weight list. A depends on
      // the C, R, S, G tiles and the columns held only: N, P, Q and K enter as sums.
      long long KnW = 0, KKW = 0;  // K classes: folds and stalls, summed over K tiles
      for (int i = 0; i < ck.n; ++i) {
        KnW += ck.count[i] * kw[i].folds;
        KKW += ck.count[i] * kw[i].sum_k;
      }
      long long N0 = 0, N1 = 0;  // N classes: tiles, images
      for (int i = 0; i < cn.n; ++i) {
        N0 += cn.count[i];
        N1 += cn.count[i] * cn.size[i];
      }
      // Row classes by filter tile: tiles and output rows.
      long long H0[2] = {}, H1[2] = {}, Hft[2] = {};
      int nh = 0;
      for (const AxisTile& h : ph) {
        int j = 0;
        while (j < nh && Hft[j] != h.ft) ++j;
        if (j == nh) Hft[nh++] = h.ft;
        H0[j] += h.count;
        H1[j] += h.count * h.t;
      }
      // Column classes by filter tile and columns held (the input list's only axis terms).
      thread_local std::vector<AxisGroup> qg;
      group_axis(qw, qg, [](const AxisGroup& g, const AxisTile& x) {
        return g.ft == x.ft && g.rows == x.b.rows;
      });
      for (int ic = 0; ic < cc.n; ++ic)
        for (int ig = 0; ig < cg.n; ++ig) {
          const long long tc = cc.size[ic], tg = cg.size[ig], col = tg * tc;
          const long long w_cg = cc.count[ic] * cg.count[ig] * tg;
          for (int ih = 0; ih < nh; ++ih)
            for (const AxisGroup& q : qg) {
              const long long red = tc * Hft[ih] * q.ft, nA = cdiv(red, pr);
              const long long KA =
                  fc.get(fold_key(red, q.ft, tc, q.rows * col, col, 1, pr, mod)).sum_k;
              const long long C0 = N0 * H0[ih] * q.count, C1 = N1 * H1[ih] * q.count_t;
              t.input += w_cg * C1 * KnW * KA;
              t.weight += w_cg * C0 * red * KKW;
              t.cycles += w_cg * (C0 * nA * KnW + C0 * red * KKW + (C1 - C0) * KnW * KA);
            }
        }
      break;
    }
    case Dataflow::OS:
    case Dataflow::IS: {
      // The pixel list (lanes = output pixels; pr a fold under OS, pc under IS), looked up per
      // (N, rows, columns, C, G) class.
      // OS per op: in = red*nW*KA, wt = red*nA*KW, cycles = nA*nW + red*sum over W folds of
      //   sum over A folds of max(k_a, k_w).
      // IS per op: in = red*KC, wt = tk*nC*KR, cycles = nR*nC + red*KC + (tk-1)*nC*KR, with R the
      //   weight list (red lanes at a stride of tk words, pr a fold).
      const bool os = m.dataflow == Dataflow::OS;
      const long long lanes = os ? pr : pc;
      // Row and column classes by extent, rows held and row step (the pixel list's axis terms);
      // under OS the filter tiles enter only through the reduction, linearly (count_ft), under
      // IS also through the weight list, so there they stay apart.
      thread_local std::vector<AxisGroup> hg, qg;
      auto same = [os](const AxisGroup& g, const AxisTile& x) {
        return g.t == x.t && g.rows == x.b.rows && g.a == x.a && (os || g.ft == x.ft);
      };
      group_axis(ph, hg, same);
      group_axis(qw, qg, same);
      for (int in_ = 0; in_ < cn.n; ++in_)
        for (const AxisGroup& h : hg)
          for (const AxisGroup& q : qg)
            for (int ic = 0; ic < cc.n; ++ic)
              for (int ig = 0; ig < cg.n; ++ig) {
                const long long tn = cn.size[in_], tc = cc.size[ic], tg = cg.size[ig];
                const long long col = tg * tc;
                const long long w0 = cn.count[in_] * cc.count[ic] * cg.count[ig] * tg;
                const long long w = w0 * h.count * q.count;              // ops
                const long long wr = w0 * h.count_ft * q.count_ft * tc;  // ops times red
                const FoldKey key = fold_key(tn * h.t * q.t, h.t, q.t, h.rows * q.rows * col,
                                             h.a * q.rows * col, q.a * col, lanes, mod);
                const FoldSum a = fc.get(key);
                for (int ik = 0; ik < ck.n; ++ik) {
                  const long long wk = w * ck.count[ik], wkr = wr * ck.count[ik];
                  if (os) {
                    const ProgFolds& f = kw[ik];
                    auto sum_max = [&](long long x) { return fc.sum_max(key, a, x); };
                    t.input += wkr * f.folds * a.sum_k;
                    t.weight += wkr * a.folds * f.sum_k;
                    t.cycles += wk * a.folds * f.folds + wkr * (f.n_full * sum_max(f.k_full) +
                                                                (f.n_rem ? sum_max(f.k_rem) : 0));
                  } else {
                    const long long tk = ck.size[ik], red = tc * h.ft * q.ft;
                    const ProgFolds r = progression_folds(red, pr, tk, banks);
                    t.input += wk * red * a.sum_k;
                    t.weight += wk * tk * a.folds * r.sum_k;
                    t.cycles +=
                        wk * (r.folds * a.folds + red * a.sum_k + (tk - 1) * a.folds * r.sum_k);
                  }
                }
              }
      break;
    }
  }
  return t;
}

void clear_bank_fold_cache() {
  cache().clear();
}

}  // namespace mapwright::model
