#include "mapwright/model/bank_conflicts.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <utility>
#include <map>

#include "mapwright/core/tile_program.hpp"
#include "mapwright/model/tile_classes.hpp"

namespace mapwright::model {

using core::Dataflow;
using core::Dim;

long long row_bank_stall(const std::vector<long long>& offsets, long long banks) {
  if (offsets.size() < 2 || banks < 1) return 0;
  int worst = 0;
  if (banks <= 256 && offsets.size() < 256) {
    unsigned char load[256] = {};
    for (long long o : offsets) {
      const long long b = ((o % banks) + banks) % banks;
      worst = std::max(worst, static_cast<int>(++load[b]));
    }
    return worst - 1;
  }
  std::map<long long, int> load;
  for (long long o : offsets) worst = std::max(worst, ++load[((o % banks) + banks) % banks]);
  return worst - 1;
}

TileShape tile_shape(const core::Layer& l, const core::TileBox& b) {
  TileShape t{};
  t.n = b.ext_of(Dim::N);
  t.p = b.ext_of(Dim::P);
  t.q = b.ext_of(Dim::Q);
  t.c = b.ext_of(Dim::C);
  t.r = b.ext_of(Dim::R);
  t.s = b.ext_of(Dim::S);
  t.k = b.ext_of(Dim::K);
  t.g = b.ext_of(Dim::G);
  t.rows = core::input_row_shape(b.lo_of(Dim::P), t.p, b.lo_of(Dim::R), t.r, l.stride, l.pad, l.h);
  t.cols = core::input_row_shape(b.lo_of(Dim::Q), t.q, b.lo_of(Dim::S), t.s, l.stride, l.pad, l.w);
  return t;
}

BankStalls fold_bank_stalls(const core::Layer& l, const core::Arch& arch, const core::Mapping& m,
                            long long banks) {
  BankStalls st;
  std::vector<long long> off;
  // A fold's row costs depend on the tile's shape and the fold's lanes only: memoized.
  std::map<std::vector<long long>, BankStalls> memo;
  core::walk_tile_program(l, arch, m, [&](const core::TileOp& op) {
    if (op.kind != core::OpKind::Compute) return;
    const core::TileBox& b = op.box;
    const TileShape sh = tile_shape(l, b);
    const long long tn = sh.n, tp = sh.p, tq = sh.q, tc = sh.c, tr = sh.r, ts = sh.s;
    const long long tk = sh.k, tg = sh.g, hx = sh.rows.held, wx = sh.cols.held;
    const long long col = tg * tc;  // input buffer: one column holds the tile's groups
    const long long pixels = tn * tp * tq, red = tc * tr * ts;
    // Input offsets of a reduction index (r, s, c) and of an output pixel (n, p, q): the input
    // address is their sum plus a base (buffer base, group, low-edge clip).
    auto red_off = [&](long long y) {
      return (y / (ts * tc)) * wx * col + ((y / tc) % ts) * col + y % tc;
    };
    auto pix_off = [&](long long x) {
      return (x / (tp * tq)) * hx * wx * col + ((x / tq) % tp) * sh.rows.a * wx * col +
             (x % tq) * sh.cols.a * col;
    };
    core::for_each_fold(
        m, b, [&](long long /*g*/, long long row0, long long ru, long long col0, long long cu) {
          const bool acc =
              m.dataflow == Dataflow::OS ? op.accumulate : (op.accumulate || row0 != 0);
          const std::vector<long long> key{tn,        tp, tq, tc,   tr,   ts, tk, tg, sh.rows.a,
                                           sh.cols.a, hx, wx, row0, col0, ru, cu, acc};
          auto hit = memo.find(key);
          if (hit == memo.end()) {
            BankStalls f;
            auto lanes = [&](long long n, auto&& offset_of) {
              off.clear();
              for (long long i = 0; i < n; ++i) off.push_back(offset_of(i));
              return row_bank_stall(off, banks);
            };
            auto consecutive = [&](long long n) { return lanes(n, [](long long i) { return i; }); };
            switch (m.dataflow) {
              case Dataflow::WS: {
                // `w` preload: ru weight rows, lanes k = col0 + j (consecutive); `a`: one row
                // per output pixel, lanes = reduction rows row0 + i; results one row per pixel.
                f.weight = ru * consecutive(cu);
                f.input = pixels * lanes(ru, [&](long long i) { return red_off(row0 + i); });
                f.accum = (acc ? 2 : 1) * pixels * consecutive(cu);
                break;
              }
              case Dataflow::OS: {
                // `a` and `w` together, one row per reduction index: input lanes = output
                // pixels row0 + i, weight lanes k = col0 + j; then ru result rows.
                f.input = red * lanes(ru, [&](long long i) { return pix_off(row0 + i); });
                f.weight = red * consecutive(cu);
                f.accum = (acc ? 2 : 1) * ru * consecutive(cu);
                break;
              }
              case Dataflow::IS: {
                // `w` preload: one row per reduction row, lanes = pixels col0 + i; `a`: one
                // row per output channel, weight lanes (row0 + i) * tk; results: one row per
                // channel, accumulator lanes (col0 + i) * tg * tk.
                f.input = ru * lanes(cu, [&](long long i) { return pix_off(col0 + i); });
                f.weight = tk * lanes(ru, [&](long long i) { return i * tk; });
                f.accum = (acc ? 2 : 1) * tk * lanes(cu, [&](long long i) { return i * tg * tk; });
                break;
              }
            }
            hit = memo.emplace(key, f).first;
          }
          st.input += hit->second.input;
          st.weight += hit->second.weight;
          st.accum += hit->second.accum;
        });
  });
  return st;
}

namespace {

/// Distinct (tile extent, filter tile extent, input rows held, row step) of one image axis over
/// its (output tile, filter tile) pairs, with how many pairs have them.
struct AxisClass {
  long long t, ft, held, a, count;
};

/// The AxisClasses of output rows P by tp and filter rows R by tr, into `v` (cleared first).
void axis_classes(long long P, long long tp, long long R, long long tr, long long stride,
                  long long pad, long long H, std::vector<AxisClass>& v) {
  v.clear();
  tp = std::min(tp, P);
  tr = std::min(tr, R);
  for (long long p0 = 0; p0 < P; p0 += tp) {
    const long long pt = std::min(tp, P - p0);
    for (long long r0 = 0; r0 < R; r0 += tr) {
      const long long rt = std::min(tr, R - r0);
      const long long held = core::input_extent(p0, pt, r0, rt, stride, pad, H);
      const long long a = core::input_row_step(pt, rt, stride);
      auto it = std::find_if(v.begin(), v.end(), [&](const AxisClass& c) {
        return c.t == pt && c.ft == rt && c.held == held && c.a == a;
      });
      if (it == v.end())
        v.push_back({pt, rt, held, a, 1});
      else
        ++it->count;
    }
  }
}

}  // namespace

namespace detail {

/// The banked terms of compute ops by their shape: bank stalls per buffer and the cycles the
/// mesh waits (banked_fold_cycles), summed over an op's folds. Fold lists (each fold's lanes
/// and one row's stall) are memoized by shape.
class BankTerms {
 public:
  BankTerms(const core::Mapping& m, long long banks)
      : m_(m), banks_(banks), load_(static_cast<size_t>(banks), 0) {}

  struct Totals {
    long long input = 0, weight = 0, cycles = 0;
  };

  /// Adds `count` ops of shape `sh` (the clipped positions unused: they move the base only).
  void add(long long count, const TileShape& sh, Totals& out) {
    const long long tn = sh.n, tp = sh.p, tq = sh.q, tr = sh.r, ts = sh.s, tc = sh.c, tk = sh.k;
    const long long tg = sh.g, hx = sh.rows.held, wx = sh.cols.held, ah = sh.rows.a, aw = sh.cols.a;
    const long long pr = m_.pe_rows, pc = m_.pe_cols;
    const long long col = tg * tc, pixels = tn * tp * tq, red = tc * tr * ts;
    // Input offsets of reduction index y = (r, s, c) and output pixel x = (n, p, q).
    auto red_off = [&]() -> const std::vector<long long>& {
      return digits_table(red, ts, tc, wx * col, col, 1);
    };
    auto pix_off = [&]() -> const std::vector<long long>& {
      return digits_table(pixels, tp, tq, hx * wx * col, ah * wx * col, aw * col);
    };
    auto consecutive = [&](long long n) -> const std::vector<long long>& {
      return digits_table(n, 1, n, 0, 0, 1);
    };
    long long in = 0, wt = 0, cyc = 0;
    switch (m_.dataflow) {
      case Dataflow::WS: {
        // `w` preload: ru weight rows (lanes k, consecutive); `a`: M = pixels rows.
        const Folds& a = folds({1, tc, tr, ts, wx, col, pr}, red, pr, red_off);
        const Folds& w = folds({0, tk, pc}, tk, pc,
                               [&]() -> const std::vector<long long>& { return consecutive(tk); });
        in = pixels * static_cast<long long>(w.size()) * sum_k(a);
        wt = red * sum_k(w);
        // The first `a` row is requested with the first preload row and waits at most
        // k_a < ru cycles: the preload (ru cycles at least) hides it.
        for (const Fold& fa : a)
          for (const Fold& fw : w) cyc += 1 + fa.lanes * fw.k + (pixels - 1) * fa.k;
        break;
      }
      case Dataflow::OS: {
        // `a` and `w` together, one row per reduction index (L = red).
        const Folds& a = folds({2, tn, tp, tq, hx, wx, ah, aw, col, pr}, pixels, pr, pix_off);
        const Folds& w = folds({0, tk, pc}, tk, pc,
                               [&]() -> const std::vector<long long>& { return consecutive(tk); });
        in = red * static_cast<long long>(w.size()) * sum_k(a);
        wt = red * static_cast<long long>(a.size()) * sum_k(w);
        for (const Fold& fa : a)
          for (const Fold& fw : w) cyc += 1 + red * std::max(fa.k, fw.k);
        break;
      }
      case Dataflow::IS: {
        // `w` preload: ru rows of input pixels (lanes = pixels); `a`: tk rows of weights
        // (lanes (row0 + i) * tk).
        const Folds& r = folds({3, tk, red, pr}, red, pr, [&]() -> const std::vector<long long>& {
          return digits_table(red, 1, red, 0, 0, tk);
        });
        const Folds& c = folds({2, tn, tp, tq, hx, wx, ah, aw, col, pc}, pixels, pc, pix_off);
        in = red * sum_k(c);
        wt = tk * static_cast<long long>(c.size()) * sum_k(r);
        // As under WS, the preload hides the first `a` row's k_wt < ru cycles.
        for (const Fold& fr : r)
          for (const Fold& fc : c) cyc += 1 + fr.lanes * fc.k + (tk - 1) * fr.k;
        break;
      }
    }
    out.input += count * tg * in;
    out.weight += count * tg * wt;
    out.cycles += count * tg * cyc;
  }

 private:
  struct Fold {
    long long lanes, k;  // lanes of the fold, one row's stall
  };
  using Folds = std::vector<Fold>;
  using Key = std::array<long long, 10>;

  static long long sum_k(const Folds& f) {
    long long s = 0;
    for (const Fold& x : f) s += x.k;
    return s;
  }

  /// The folds of an axis of `rows` rows in folds of `lanes`, the lanes of a fold at
  /// build()[row0 + i] (banks of all rows; built on a miss only).
  template <class Build>
  const Folds& folds(const Key& key, long long rows, long long lanes, Build&& build) {
    for (const auto& [k, v] : memo_)
      if (k == key) return v;
    const std::vector<long long>& t = build();
    Folds f;
    for (long long r0 = 0; r0 < rows; r0 += lanes) {
      const long long n = std::min(lanes, rows - r0);
      f.push_back({n, row_stall(t.data() + r0, n)});
    }
    memo_.emplace_back(key, std::move(f));
    return memo_.back().second;
  }

  /// Banks of consecutive indices of a three-digit mixed-radix index (radices d1, d2 of the
  /// two fast digits, offset strides s0, s1, s2): (a*s0 + b*s1 + c*s2) mod banks for i = 0,
  /// 1, ..., kept as residues digit by digit (adds and compares only).
  const std::vector<long long>& digits_table(long long n, long long d1, long long d2, long long s0,
                                             long long s1, long long s2) {
    const long long m0 = s0 % banks_, m1 = s1 % banks_, m2 = s2 % banks_;
    auto add = [&](long long x, long long y) { return x + y >= banks_ ? x + y - banks_ : x + y; };
    table_.resize(static_cast<size_t>(n));
    long long b = 0, c = 0, ra = 0, rb = 0, rc = 0;
    for (long long i = 0; i < n; ++i) {
      table_[static_cast<size_t>(i)] = add(add(ra, rb), rc);
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
    return table_;
  }

  /// One row's stall from its lanes' banks.
  long long row_stall(const long long* bank, long long n) {
    unsigned char worst = 1;
    for (long long i = 0; i < n; ++i)
      worst = std::max(worst, ++load_[static_cast<size_t>(bank[i])]);
    for (long long i = 0; i < n; ++i) load_[static_cast<size_t>(bank[i])] = 0;
    return static_cast<long long>(worst) - 1;
  }

  const core::Mapping& m_;
  long long banks_;
  std::vector<unsigned char> load_;
  std::vector<long long> table_;
  std::deque<std::pair<Key, Folds>> memo_;  // a deque: references stay valid as it grows
};

}  // namespace detail

using detail::BankTerms;

BankTotals shape_sum_bank_totals(const core::Layer& l, const core::Mapping& m, long long banks) {
  BankTotals out;
  if (banks < 1) return out;
  BankTerms::Totals t;
  BankTerms terms(m, banks);
  const TileClasses cn = tile_classes(l.n, m.tile_of(Dim::N));
  const TileClasses cc = tile_classes(l.c, m.tile_of(Dim::C));
  const TileClasses ck = tile_classes(l.k, m.tile_of(Dim::K));
  const TileClasses cg = tile_classes(l.g, m.tile_of(Dim::G));
  std::vector<AxisClass> ph, qw;
  axis_classes(l.p, m.tile_of(Dim::P), l.r, m.tile_of(Dim::R), l.stride, l.pad, l.h, ph);
  axis_classes(l.q, m.tile_of(Dim::Q), l.s, m.tile_of(Dim::S), l.stride, l.pad, l.w, qw);
  for (int in_ = 0; in_ < cn.n; ++in_)
    for (const AxisClass& hp : ph)
      for (const AxisClass& wq : qw) {
        // The clipped positions move a tile's base only: the terms do not read them.
        const core::RowShape rows{hp.held, hp.a, 0}, cols{wq.held, wq.a, 0};
        for (int ic = 0; ic < cc.n; ++ic)
          for (int ik = 0; ik < ck.n; ++ik)
            for (int ig = 0; ig < cg.n; ++ig)
              terms.add(
                  cn.count[in_] * hp.count * wq.count * cc.count[ic] * ck.count[ik] * cg.count[ig],
                  TileShape{cn.size[in_], hp.t, wq.t, cc.size[ic], hp.ft, wq.ft, ck.size[ik],
                            cg.size[ig], rows, cols},
                  t);
      }
  out.input = t.input;
  out.weight = t.weight;
  out.cycles = t.cycles;
  return out;
}

BankStalls closed_form_bank_stalls(const core::Layer& l, const core::Mapping& m, long long banks) {
  const BankTotals t = closed_form_bank_totals(l, m, banks);
  BankStalls st;
  st.input = t.input;
  st.weight = t.weight;
  return st;
}

long long closed_form_bank_cycles(const core::Layer& l, const core::Mapping& m, long long banks) {
  return closed_form_bank_totals(l, m, banks).cycles;
}

OpBankCycles::OpBankCycles(const core::Layer& layer, const core::Mapping& m, long long banks)
    : layer_(layer), terms_(banks >= 1 ? std::make_unique<BankTerms>(m, banks) : nullptr) {}

OpBankCycles::~OpBankCycles() = default;

long long OpBankCycles::op_cycles(const core::TileBox& box) {
  if (!terms_) return 0;
  BankTerms::Totals t;
  terms_->add(1, tile_shape(layer_, box), t);
  return t.cycles;
}

}  // namespace mapwright::model
