// The compact search encoding for the ask/tell searchers: static per-loop tile lists (the union
// of every compact_tile_sizes answer over dataflows, PE uses and coupled tiles), 15 fixed
// order-class representatives, PE counts and double-buffer flags, and a decode that
// canonicalizes (minimal PE use, no useless double buffering) and repairs overflowing tiles
// deterministically so that every decoded mapping fits when any does. Reachability of the
// compact space's optima is tested in tests/mapper/search_space_test.cpp.
#include "mapwright/mapspace/search_space.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "mapwright/mapspace/compact_space.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/core/loopnest.hpp"

namespace mapwright::core {

namespace {

/// Tie-break priority of the repair (first wins among equal tiles) and parameter order.
constexpr Dim kRepairPriority[] = {Dim::G, Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};
constexpr Dim kParamDims[] = {Dim::G, Dim::N, Dim::K, Dim::C, Dim::P, Dim::Q, Dim::R, Dim::S};

/// Smallest PE count p' <= pe with ceil(x / p') == ceil(x / pe) for every x in sizes.
int minimal_pe(int pe, const long long* sizes, int n) {
  while (pe > 1) {
    bool same = true;
    for (int i = 0; i < n && same; ++i) same = cdiv(sizes[i], pe - 1) == cdiv(sizes[i], pe);
    if (!same) break;
    --pe;
  }
  return pe;
}

/// The static tile list of every loop: the union of compact_tile_sizes over every condition
/// the compact space (and the exact mapper, which walks it in tile_branch_order) can meet.
std::array<std::vector<long long>, kNumDims> static_tile_lists(const Layer& l, const Arch& arch) {
  std::array<std::set<long long>, kNumDims> uni;
  std::set<std::vector<long long>> seen;
  auto add = [&](const Mapping& m, Dim d) {
    if (!seen.insert(compact_tile_key(l, m, d, burst_beat_of(arch))).second) return;
    for (long long t : compact_tile_sizes(l, m, d, burst_beat_of(arch))) uni[I(d)].insert(t);
  };
  auto all_sizes = [&](Dim d) {
    std::vector<long long> v;
    for (long long t = 1; t <= l.dim(d); ++t) v.push_back(t);
    return v;
  };
  const std::vector<long long> rs = all_sizes(Dim::R), ss = all_sizes(Dim::S);
  for (Dataflow df : arch.dataflows) {
    Mapping m;
    m.dataflow = df;
    std::vector<std::vector<long long>> p_by_pe;  // OS/IS P candidates per PE count (for Q)
    for (Dim d : tile_branch_order(df)) {
      m.tile.fill(1);
      m.pe_rows = arch.rows;
      m.pe_cols = arch.cols;
      const bool os = df == Dataflow::OS;
      // OS rows or IS columns carry the output pixels: P and Q couple to that PE count.
      const bool pix = df != Dataflow::WS;
      const int pix_max = os ? arch.rows : arch.cols;
      auto set_pix_pe = [&](int pe) { (os ? m.pe_rows : m.pe_cols) = pe; };
      if (d == Dim::K && df != Dataflow::IS) {
        for (int pc = 1; pc <= arch.cols; ++pc) {
          m.pe_cols = pc;
          add(m, d);
        }
      } else if (d == Dim::C && !os) {
        for (int pr = 1; pr <= arch.rows; ++pr)
          for (long long r : rs)
            for (long long s : ss) {
              m.pe_rows = pr;
              m.tile[I(Dim::R)] = r;
              m.tile[I(Dim::S)] = s;
              add(m, d);
            }
      } else if ((d == Dim::P || d == Dim::Q) && !pix) {
        for (long long f : d == Dim::P ? rs : ss) {
          m.tile[I(d == Dim::P ? Dim::R : Dim::S)] = f;
          add(m, d);
        }
      } else if (d == Dim::P) {
        p_by_pe.assign(pix_max + 1, {});
        for (int pe = 1; pe <= pix_max; ++pe) {
          std::set<long long> p_set;
          for (long long n = 1; n <= l.n; ++n)
            for (long long r : rs) {
              set_pix_pe(pe);
              m.tile[I(Dim::N)] = n;
              m.tile[I(Dim::R)] = r;
              for (long long t : compact_tile_sizes(l, m, d, burst_beat_of(arch))) p_set.insert(t);
            }
          uni[I(d)].insert(p_set.begin(), p_set.end());
          p_by_pe[pe].assign(p_set.begin(), p_set.end());
        }
      } else if (d == Dim::Q) {
        // Q's candidates are conditioned on a P tile the compact space keeps for this PE use.
        for (int pe = 1; pe <= pix_max; ++pe)
          for (long long n = 1; n <= l.n; ++n)
            for (long long p : p_by_pe[pe])
              for (long long s : ss) {
                set_pix_pe(pe);
                m.tile[I(Dim::N)] = n;
                m.tile[I(Dim::P)] = p;
                m.tile[I(Dim::S)] = s;
                add(m, d);
              }
      } else {
        add(m, d);  // G, N, R, S, C under OS and K under IS: no condition
      }
    }
  }
  std::array<std::vector<long long>, kNumDims> tiles;
  for (int d = 0; d < kNumDims; ++d) tiles[d].assign(uni[d].begin(), uni[d].end());
  return tiles;
}

/// Step 2 of SearchSpace::decode: while the mapping overflows a buffer, drops that buffer's
/// double buffering, else steps the largest tile relevant to it one entry down its list
/// (ties: kRepairPriority); then, on the bursts port, steps tiles down until every input tile
/// has a burst descriptor. `idx` holds each tile's index in `tiles`. Returns true if the
/// mapping changed.
bool repair(const Layer& l, const Arch& arch,
            const std::array<std::vector<long long>, kNumDims>& tiles,
            std::array<long long, kNumDims>& idx, Mapping& m) {
  bool fixed = false;
  for (;;) {
    const Validity val = check_capacity(l, arch, m);
    if (val.ok()) break;
    fixed = true;
    bool* db = val.kind == InvalidKind::InputOverflow    ? &m.db_input
               : val.kind == InvalidKind::WeightOverflow ? &m.db_weight
               : val.kind == InvalidKind::AccumOverflow  ? &m.db_accum
                                                         : nullptr;
    if (!db) break;  // unsupported dataflow: cannot happen, the domain holds supported ones
    if (*db) {
      *db = false;
      continue;
    }
    bool (*rel)(Dim) = val.kind == InvalidKind::InputOverflow    ? input_rel
                       : val.kind == InvalidKind::WeightOverflow ? weight_rel
                                                                 : output_rel;
    int pick = -1;
    for (Dim d : kRepairPriority) {
      const int i = I(d);
      if (!rel(d) || idx[i] == 0) continue;
      if (pick < 0 || m.tile[i] > m.tile[pick]) pick = i;
    }
    if (pick < 0) break;  // every relevant tile is 1: nothing fits
    m.tile[pick] = tiles[pick][--idx[pick]];
  }
  // On the bursts port, repair an input tile that no single burst descriptor describes
  // (descriptor_problem): step down the larger of the P and Q tiles (rows or columns held in
  // blocks), then G, then N (fewer loops). Tiles only shrink, so the mapping still fits.
  if (arch.dram_port == DramPort::Bursts && check_capacity(l, arch, m).ok()) {
    while (!descriptor_problem(l, arch, m).empty()) {
      int pick = -1;
      for (Dim d : {Dim::P, Dim::Q})
        if (idx[I(d)] > 0 && (pick < 0 || m.tile[I(d)] > m.tile[pick])) pick = I(d);
      for (Dim d : {Dim::G, Dim::N})
        if (pick < 0 && idx[I(d)] > 0) pick = I(d);
      if (pick < 0) break;  // stays invalid (a typed no_burst_descriptor result)
      m.tile[pick] = tiles[pick][--idx[pick]];
      fixed = true;
    }
  }
  return fixed;
}

/// Step 3 of SearchSpace::decode: the smallest PE rows and columns that give the same fold
/// counts as the mapping's.
void minimize_pe_use(const Layer& l, Mapping& m) {
  auto minimal_for = [&](int pe, Dim a, Dim b, Dim c) {
    long long sa[2], sb[2], sc[2], prod[8];
    const int na = class_sizes(l.dim(a), m.tile_of(a), sa);
    const int nb = class_sizes(l.dim(b), m.tile_of(b), sb);
    const int nc = class_sizes(l.dim(c), m.tile_of(c), sc);
    int np = 0;
    for (int i = 0; i < na; ++i)
      for (int j = 0; j < nb; ++j)
        for (int k = 0; k < nc; ++k) prod[np++] = sa[i] * sb[j] * sc[k];
    return minimal_pe(pe, prod, np);
  };
  if (m.dataflow == Dataflow::OS)
    m.pe_rows = minimal_for(m.pe_rows, Dim::N, Dim::P, Dim::Q);
  else
    m.pe_rows = minimal_for(m.pe_rows, Dim::C, Dim::R, Dim::S);
  if (m.dataflow == Dataflow::IS) {
    m.pe_cols = minimal_for(m.pe_cols, Dim::N, Dim::P, Dim::Q);
  } else {
    long long sk[2];
    const int nk = class_sizes(l.k, m.tile_of(Dim::K), sk);
    m.pe_cols = minimal_pe(m.pe_cols, sk, nk);
  }
}

}  // namespace

const std::array<std::array<Dim, kNumOrderedDims>, 15>& search_order_reps() {
  static const auto reps = [] {
    std::array<std::array<Dim, kNumOrderedDims>, 15> r{};
    r[0] = {Dim::N, Dim::P, Dim::Q, Dim::C, Dim::R, Dim::S, Dim::K};
    const Dim out_loops[3] = {Dim::N, Dim::P, Dim::Q};
    const Dim red_loops[3] = {Dim::C, Dim::R, Dim::S};
    for (int pass = 0; pass < 2; ++pass) {
      const Dim* run = pass == 0 ? out_loops : red_loops;
      const Dim* other = pass == 0 ? red_loops : out_loops;
      for (int mask = 1; mask < 8; ++mask) {
        std::array<Dim, kNumOrderedDims>& o = r[1 + pass * 7 + (mask - 1)];
        int i = 0;
        for (int j = 0; j < 3; ++j)
          if (!(mask >> j & 1)) o[i++] = run[j];  // rest of the run's type, outermost
        o[i++] = Dim::K;
        for (int j = 0; j < 3; ++j) o[i++] = other[j];
        for (int j = 0; j < 3; ++j)
          if (mask >> j & 1) o[i++] = run[j];  // the innermost run
      }
    }
    return r;
  }();
  return reps;
}

SearchSpace::SearchSpace(Layer layer, Arch arch)
    : layer_(std::move(layer)), arch_(std::move(arch)), shape_key_(layer_.shape_key()) {
  const Layer& l = layer_;
  tiles_ = static_tile_lists(l, arch_);

  // Parameters.
  tile_param_.fill(-1);
  auto push = [&](const std::string& name, long long card, bool ordinal, Slot s) {
    params_.push_back({name, card, ordinal});
    slots_.push_back(s);
    return static_cast<int>(params_.size()) - 1;
  };
  if (arch_.dataflows.size() > 1)
    df_param_ = push("dataflow", static_cast<long long>(arch_.dataflows.size()), false,
                     {Kind::Dataflow, Dim::N});
  for (Dim d : kParamDims)
    if (tiles_[I(d)].size() > 1)
      tile_param_[I(d)] = push(std::string("tile_") + dim_name(d),
                               static_cast<long long>(tiles_[I(d)].size()), true, {Kind::Tile, d});
  order_param_ = push("order", 15, false, {Kind::Order, Dim::N});
  long long row_max = 1, col_max = 1;
  for (Dataflow df : arch_.dataflows) {
    row_max = std::max<long long>(row_max, df == Dataflow::OS ? l.n * l.p * l.q : l.c * l.r * l.s);
    col_max = std::max<long long>(col_max, df == Dataflow::IS ? l.n * l.p * l.q : l.k);
  }
  rows_param_ =
      push("pe_rows", std::min<long long>(arch_.rows, row_max), true, {Kind::PeRows, Dim::N});
  cols_param_ =
      push("pe_cols", std::min<long long>(arch_.cols, col_max), true, {Kind::PeCols, Dim::N});
  db_param_ = push("db_input", 2, false, {Kind::DbInput, Dim::N});
  push("db_weight", 2, false, {Kind::DbWeight, Dim::N});
  push("db_accum", 2, false, {Kind::DbAccum, Dim::N});
}

Mapping SearchSpace::decode(const ParamVector& v, bool* repaired) const {
  auto at = [&](int i) {
    if (i < 0) return 0LL;
    return std::clamp<long long>(i < static_cast<int>(v.size()) ? v[i] : 0, 0,
                                 params_[i].cardinality - 1);
  };
  const Layer& l = layer_;
  Mapping m;
  m.layer_shape = shape_key_;
  m.fold_order = FoldOrder::RowsOuter;
  m.dataflow = arch_.dataflows[at(df_param_)];
  std::array<long long, kNumDims> idx{};
  for (int d = 0; d < kNumDims; ++d) {
    idx[d] = at(tile_param_[d]);
    m.tile[d] = tiles_[d][idx[d]];
  }
  m.order = search_order_reps()[at(order_param_)];
  m.pe_rows = static_cast<int>(at(rows_param_) + 1);
  m.pe_cols = static_cast<int>(at(cols_param_) + 1);
  m.db_input = at(db_param_) != 0;
  m.db_weight = at(db_param_ + 1) != 0;
  m.db_accum = at(db_param_ + 2) != 0;

  // 1. A double-buffer flag matters only if its tensor changes: some relevant loop has more
  // than one trip (order_reuse: period < steps). This only grows with the trips, so the
  // repair below (which only adds trips) never makes a kept flag useless.
  auto varies = [&](bool (*rel)(Dim)) {
    for (int d = 0; d < kNumDims; ++d)
      if (rel(static_cast<Dim>(d)) && m.tile[d] < l.dim(static_cast<Dim>(d))) return true;
    return false;
  };
  m.db_input = m.db_input && varies(input_rel);
  m.db_weight = m.db_weight && varies(weight_rel);
  m.db_accum = m.db_accum && varies(output_rel);

  // 2. Repair: shrink tiles until the mapping fits and its transfers have descriptors.
  const bool fixed = repair(l, arch_, tiles_, idx, m);
  if (repaired) *repaired = fixed;

  // 3. Minimal PE use for the same fold counts.
  minimize_pe_use(l, m);
  return m;
}

ParamVector SearchSpace::encode(const Mapping& m) const {
  ParamVector v(params_.size(), 0);
  for (size_t i = 0; i < params_.size(); ++i) {
    const Slot& s = slots_[i];
    long long x = 0;
    switch (s.kind) {
      case Kind::Dataflow:
        x = std::find(arch_.dataflows.begin(), arch_.dataflows.end(), m.dataflow) -
            arch_.dataflows.begin();
        break;
      case Kind::Tile: {
        const auto& list = tiles_[I(s.dim)];
        const auto it = std::upper_bound(list.begin(), list.end(), m.tile_of(s.dim));
        x = it == list.begin() ? 0 : (it - list.begin()) - 1;
        break;
      }
      case Kind::Order: {
        const auto trips = trip_counts(layer_, m);
        const OrderReuse want = order_reuse(trips, m.order);
        const auto& reps = search_order_reps();
        for (size_t r = 0; r < reps.size(); ++r)
          if (order_reuse(trips, reps[r]) == want) {
            x = static_cast<long long>(r);
            break;
          }
        break;
      }
      case Kind::PeRows:
        x = m.pe_rows - 1;
        break;
      case Kind::PeCols:
        x = m.pe_cols - 1;
        break;
      case Kind::DbInput:
        x = m.db_input;
        break;
      case Kind::DbWeight:
        x = m.db_weight;
        break;
      case Kind::DbAccum:
        x = m.db_accum;
        break;
    }
    v[i] = std::clamp<long long>(x, 0, params_[i].cardinality - 1);
  }
  return v;
}

double SearchSpace::log10_size() const {
  double s = 0;
  for (const auto& p : params_) s += std::log10(static_cast<double>(p.cardinality));
  return s;
}

}  // namespace mapwright::core
