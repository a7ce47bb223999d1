// The refined cycle estimate: the closed form of the double-buffered schedule by classes of
// step transitions (docs/timing.md, section 4, "The refined estimate").
#include "mapwright/model/refined.hpp"

#include <algorithm>
#include <cmath>

#include "mapwright/core/loopnest.hpp"
#include "mapwright/core/dram_layout.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/model/tile_classes.hpp"

#include "dma_ops.hpp"

namespace mapwright::model {

using namespace mapwright::core;

namespace {

/// The closed form of the double-buffered schedule (docs/timing.md, section 4). The steps are
/// the points of a mixed-radix counter over the nest (G, then the order); the transition into a
/// step increments the loop at some nest position j ("level j") and resets every loop inside
/// it. Around such a transition the tile sizes are known by class: loops outside j keep their
/// tile (full or remainder, both enumerated with their counts), loop j goes from a full tile to
/// a full or the remainder tile, loops inside j go from their last tile (the remainder, if any)
/// to their first. Outer reduction loops also decide whether the old output tile leaves
/// complete (store: all at their last tile) or not (spill), and whether the new one comes back
/// (reload: one of them past its first tile); these cases are counted in closed form. So the
/// transitions fall into few classes, each with exact compute times on both sides and the DMA
/// operations of the new step. What stays averaged: the remainder classes of the loops outside
/// j (their steps are blended, weighted by their counts, per case), input bytes over the tile
/// positions of one size class (padding), and the slack the step after next leaves for
/// operations the next compute does not need.
class StepModel {
 public:
  StepModel(const Layer& l, const Arch& arch, const Mapping& m,
            const std::array<long long, kNumDims>& T, const ExtentClasses& rows,
            const ExtentClasses& cols, double in_beat_ratio, double compute_scale)
      : l_(l),
        m_(m),
        rows_(rows),
        cols_(cols),
        inv_bw_(1.0 / arch.dram_bytes_per_cycle),
        lat_(arch.dram_latency_cycles),
        bursts_(arch.dram_port == DramPort::Bursts),
        bb_(static_cast<long long>(arch.dram_bytes_per_cycle)),
        in_beat_ratio_(in_beat_ratio),
        compute_scale_(compute_scale) {
    nest_[0] = Dim::G;
    for (int i = 0; i < kNumOrderedDims; ++i) nest_[i + 1] = m.order[i];
    for (int i = 0; i < kNumDims; ++i) {
      const Dim d = nest_[i];
      const long long bound = l.dim(d);
      Loop& lp = loop_[i];
      lp.T = T[I(d)];
      lp.bit = 1 << I(d);
      full_[I(d)] = std::min(m.tile_of(d), bound);
      rem_[I(d)] = bound - (lp.T - 1) * full_[I(d)];
      lp.has_rem = lp.T > 1 && rem_[I(d)] != full_[I(d)];
      lp.reduction = lp.T > 1 && (d == Dim::C || d == Dim::R || d == Dim::S);
      if (lp.T > 1) innermost_ = i;
      if (lp.has_rem) last_mask_ |= lp.bit;
    }
    j_in_ = last_relevant([](Dim d) { return d != Dim::K; });
    j_wt_ = last_relevant([](Dim d) {
      return d == Dim::G || d == Dim::K || d == Dim::C || d == Dim::R || d == Dim::S;
    });
    j_out_ = last_relevant([](Dim d) {
      return d == Dim::G || d == Dim::N || d == Dim::K || d == Dim::P || d == Dim::Q;
    });
  }

  /// Estimated cycles from the first load to the last store.
  double total() {
    const Step& first = step(0);
    const Step& last = step(last_mask_);
    double t = first.in + first.wt + static_cast<double>(kDmaToCompute) + last.compute + last.store;
    if (innermost_ < 0) return t;  // one step
    for (int j = 0; j <= innermost_; ++j)
      if (loop_[j].T > 1) t += level(j);
    // The transition into the last step was counted as if loads followed it; none do.
    const Loop& lj = loop_[innermost_];
    bool outer_red = false;
    for (int o = 0; o < innermost_; ++o) outer_red = outer_red || loop_[o].reduction;
    const bool complete = !lj.reduction, fresh = !lj.reduction && !outer_red;
    const Step& before = step(last_mask_ & ~lj.bit);
    const Step& after = step(last_mask_);
    t += cost(innermost_, before, after, complete, !fresh, true) -
         cost(innermost_, before, after, complete, !fresh);
    // The transition out of the first step was counted with the DMA lead of a typical one; the
    // first step's compute waited for its loads with nothing beside them, a lead of one cycle.
    double steps = 1;
    for (const Loop& lp : loop_) steps *= static_cast<double>(lp.T);
    const bool two = steps == 2;  // the first transition is also the last one
    const Step& s1 = step(lj.T == 2 && lj.has_rem ? lj.bit : 0);
    const bool first_complete = !lj.reduction && !outer_red;
    t += cost(innermost_, step(0), s1, first_complete, false, two, kFirstLead) -
         cost(innermost_, step(0), s1, first_complete, false, two);
    return t;
  }

 private:
  struct Loop {
    long long T = 1;
    int bit = 0;  ///< This loop's bit in a size-class mask (bit Dim: remainder tile).
    bool has_rem = false, reduction = false;
  };
  /// What one step costs, by the size classes of its tiles.
  struct Step {
    double compute, in, wt, store, spill;
    void add(const Step& o, double w) {
      compute += w * o.compute;
      in += w * o.in;
      wt += w * o.wt;
      store += w * o.store;
      spill += w * o.spill;
    }
    void scale(double f) {
      compute *= f;
      in *= f;
      wt *= f;
      store *= f;
      spill *= f;
    }
  };

  template <class Rel>
  int last_relevant(Rel rel) const {
    int j = -1;
    for (int i = 0; i < kNumDims; ++i)
      if (rel(nest_[i]) && loop_[i].T > 1) j = i;
    return j;
  }

  /// The step of size-class mask `mask`, computed on first use: exact fold time (the sum of
  /// fold_cycles over its folds and groups) and its transfers.
  const Step& step(int mask) {
    Step& st = steps_[mask];
    if (have_[mask]) return st;
    have_[mask] = true;
    auto sz = [&](Dim d) { return (mask >> I(d)) & 1 ? rem_[I(d)] : full_[I(d)]; };
    auto cls = [&](Dim d) { return (mask >> I(d)) & 1; };
    const long long g = sz(Dim::G), n = sz(Dim::N), k = sz(Dim::K), c = sz(Dim::C);
    const long long red = c * sz(Dim::R) * sz(Dim::S);
    const long long M = n * sz(Dim::P) * sz(Dim::Q);
    const long long pr = m_.pe_rows, pc = m_.pe_cols;
    long long cc = 0;
    switch (m_.dataflow) {
      case Dataflow::WS: {
        const long long fr = cdiv(red, pr), fc = cdiv(k, pc);
        cc = fr * fc * M + 2 * fc * red + fr * k;
        break;
      }
      case Dataflow::OS: {
        const long long fr = cdiv(M, pr), fc = cdiv(k, pc);
        cc = fr * fc * red + fc * M + fr * k;
        break;
      }
      case Dataflow::IS: {
        const long long fr = cdiv(red, pr), fc = cdiv(M, pc);
        cc = fr * fc * k + 2 * fc * red + fr * M;
        break;
      }
    }
    st.compute = static_cast<double>(g * cc) * compute_scale_;
    const double in_bytes = static_cast<double>(g * n * c) *
                            rows_.average(cls(Dim::P), cls(Dim::R)) *
                            cols_.average(cls(Dim::Q), cls(Dim::S));
    if (!bursts_) {
      st.in = dma(in_bytes);
      st.wt = dma(static_cast<double>(g * k * red));
      st.store = dma(static_cast<double>(g * k * M));
      st.spill = dma(4.0 * static_cast<double>(g * k * M));
      return st;
    }
    // Burst port: weight and output tiles have the same runs wherever they lie, so their beats
    // are exact per class; the input's depend on the position (padding, rows holding both
    // edges), so an input load takes its bytes' share of all input beats.
    st.in = lat_ + in_bytes * inv_bw_ * in_beat_ratio_;
    const long long we[] = {k, c, sz(Dim::S), sz(Dim::R), g};
    const long long ws[] = {l_.k, l_.c, l_.s, l_.r, l_.g};
    st.wt = lat_ + static_cast<double>(nested_beats(we, ws, 5, 1, bb_));
    const long long oe[] = {k, g, sz(Dim::Q), sz(Dim::P), n};
    const long long os[] = {l_.k, l_.g, l_.q, l_.p, l_.n};
    st.store = lat_ + static_cast<double>(nested_beats(oe, os, 5, 1, bb_));
    st.spill = lat_ + static_cast<double>(nested_beats(oe, os, 5, 4, bb_));
    return st;
  }
  /// One transfer: latency + ceil(bytes / bandwidth), as core::dma_cycles.
  double dma(double bytes) const { return lat_ + std::ceil(bytes * inv_bw_ - 1e-9); }

  /// The new step's DMA operations for a transition at level j, in program order.
  int ops(int j, const Step& before, const Step& after, bool complete, bool revisit,
          DmaOp* o) const {
    int n = 0;
    if (j <= j_in_) o[n++] = {after.in, !m_.db_input, true};
    if (j <= j_wt_) o[n++] = {after.wt, !m_.db_weight, true};
    if (j <= j_out_) {
      o[n++] = {complete ? before.store : before.spill, true, !m_.db_accum};
      if (revisit) o[n++] = {after.spill, true, true};
    }
    return n;
  }
  /// Time from the start of one compute to the start of the next, over a transition: the
  /// prefix overlaps the old compute, the tail follows it, and operations the new compute
  /// does not need run beside it, delaying the following step's loads by what it cannot hide.
  /// `final`: the new step is the last one (no loads follow; the last store waits instead).
  /// `lead_before`: cycles the DMA engine is free before the old compute starts (negative:
  /// that of a typical innermost transition into `before`, see lead()).
  double cost(int j, const Step& before, const Step& after, bool complete, bool revisit,
              bool final = false, double lead_before = -1) const {
    DmaOp o[4];
    double prefix, tail, left;
    split_dma_ops(o, ops(j, before, after, complete, revisit, o), prefix, tail, left);
    // The prefix starts when the DMA engine is free, `lead` cycles before the old compute.
    prefix = std::max(0.0, prefix - (lead_before >= 0 ? lead_before : lead(before)));
    double t = next_compute_start(before.compute, prefix, tail);
    if (left > 0) {
      double np = 0, nt, nl;
      if (!final) split_dma_ops(o, ops(innermost_, after, after, true, false, o), np, nt, nl);
      t += leftover_delay(left, dma_lead(before.compute, prefix, tail), after.compute, np);
    }
    return t;
  }

  /// The first step's lead: its compute waits for its loads, and nothing runs beside them.
  static constexpr double kFirstLead = static_cast<double>(kDmaToCompute);

  /// How many cycles before the start of `st`'s compute the DMA engine is free, when the
  /// transition into `st` is at the innermost level (most are): the registered completion
  /// gives one cycle when that compute waited for a transfer and nothing ran beside it.
  double lead(const Step& st) const {
    DmaOp o[4];
    double prefix, tail, left;
    split_dma_ops(o, ops(innermost_, st, st, true, false, o), prefix, tail, left);
    if (left > 0) return 0.0;  // leftover_delay accounts for what runs beside it
    return dma_lead(st.compute, prefix, tail);
  }

  /// Sum of the costs of every transition at level j: per size class of the loops outside j
  /// (each remainder bit enumerated), split by the output tile's fate when j moves it.
  double level(int j) {
    const Loop& lj = loop_[j];
    // Outer loops without a remainder contribute constant factors; those with one are
    // enumerated (bit set: at the remainder tile, the loop's last).
    int rem_bit[kNumDims];
    double rem_t[kNumDims];
    bool rem_red[kNumDims];
    int n_rem = 0;
    double other0 = 1, all0 = 1;
    bool any_red = false;
    for (int o = 0; o < j; ++o) {
      const Loop& lp = loop_[o];
      any_red = any_red || lp.reduction;
      if (lp.has_rem) {
        rem_bit[n_rem] = lp.bit;
        rem_t[n_rem] = static_cast<double>(lp.T - 1);
        rem_red[n_rem++] = lp.reduction;
      } else if (lp.reduction) {
        all0 *= static_cast<double>(lp.T);
      } else {
        other0 *= static_cast<double>(lp.T);
      }
    }
    int inner = 0;  // before the transition the inner loops are at their last tile
    for (int i = j + 1; i < kNumDims; ++i)
      if (loop_[i].has_rem) inner |= loop_[i].bit;
    const bool moves_output = j <= j_out_;
    const long long n_full = lj.T - 1 - (lj.has_rem ? 1 : 0);
    struct Acc {
      double count = 0;
      Step before{}, after_full{}, after_rem{};
    } acc[4];
    for (int sel = 0; sel < (1 << n_rem); ++sel) {
      // Counts of the outer tiles of this class; among the reduction loops, how many of
      // them are all at their first tile (a) and all at their last (z).
      int outer = 0;
      double other = other0, all = all0, a = 1, z = 1;
      for (int b = 0; b < n_rem; ++b) {
        const bool at_rem = (sel >> b) & 1;
        const double t = at_rem ? 1.0 : rem_t[b];
        if (at_rem) outer |= rem_bit[b];
        if (rem_red[b]) {
          all *= t;
          a *= at_rem ? 0.0 : 1.0;
          z *= at_rem ? 1.0 : 0.0;
        } else {
          other *= t;
        }
      }
      // Flags (complete, fresh) -> slot: 0 (1,1), 1 (1,0), 2 (0,1), 3 (0,0).
      double cnt[4] = {};
      if (!moves_output || (!any_red && !lj.reduction))
        cnt[0] = other * all;
      else if (lj.reduction)
        cnt[3] = other * all;
      else
        cnt[1] = other * z, cnt[2] = other * a, cnt[3] = other * (all - a - z);
      const Step& bs = step(outer | inner);
      const Step& af = step(outer);
      const Step& ar = step(outer | (lj.has_rem ? lj.bit : 0));
      for (int c = 0; c < 4; ++c)
        if (cnt[c] > 0) {
          acc[c].count += cnt[c];
          acc[c].before.add(bs, cnt[c]);
          acc[c].after_full.add(af, cnt[c]);
          acc[c].after_rem.add(ar, cnt[c]);
        }
    }
    double sum = 0;
    for (int c = 0; c < 4; ++c) {
      Acc& k = acc[c];
      if (k.count <= 0) continue;
      const double inv = 1.0 / k.count;
      k.before.scale(inv);
      k.after_full.scale(inv);
      k.after_rem.scale(inv);
      const bool complete = c < 2, fresh = c == 0 || c == 2;
      if (n_full > 0)
        sum += k.count * static_cast<double>(n_full) *
               cost(j, k.before, k.after_full, complete, !fresh);
      if (lj.has_rem) sum += k.count * cost(j, k.before, k.after_rem, complete, !fresh);
    }
    return sum;
  }

  const Layer& l_;
  const Mapping& m_;
  const ExtentClasses& rows_;
  const ExtentClasses& cols_;
  double inv_bw_, lat_;
  bool bursts_;           ///< DramPort::Bursts.
  long long bb_;          ///< Bytes per beat.
  double in_beat_ratio_;  ///< Burst port: input beats per bytes / bandwidth, over the walk.
  /// Banked buffers: the closed form's compute cycles with the bank cycles over those without,
  /// applied to every step alike (the bank cycles of one step class are not separated).
  double compute_scale_;
  Dim nest_[kNumDims];
  Loop loop_[kNumDims];
  long long full_[kNumDims] = {}, rem_[kNumDims] = {};  ///< Tile sizes per Dim.
  int last_mask_ = 0;
  int innermost_ = -1;
  int j_in_ = -1, j_wt_ = -1, j_out_ = -1;

  Step steps_[1 << kNumDims];
  bool have_[1 << kNumDims] = {};
};

}  // namespace

CycleEstimate refined_cycles(const Layer& l, const Arch& arch, const Mapping& m) {
  const AccessCounts a = closed_form_counts(l, arch, m);
  CycleEstimate e = closed_form_cycles(l, arch, m, a);
  const auto T = trip_counts(l, m);
  const ExtentClasses rows =
      extent_classes(l.p, m.tile_of(Dim::P), l.r, m.tile_of(Dim::R), l.stride, l.pad, l.h);
  const ExtentClasses cols =
      extent_classes(l.q, m.tile_of(Dim::Q), l.s, m.tile_of(Dim::S), l.stride, l.pad, l.w);
  double in_beat_ratio = 1;
  if (arch.dram_port == DramPort::Bursts && a.dram_input_bytes > 0)
    in_beat_ratio = static_cast<double>(burst_totals(l, arch, m).in) /
                    (static_cast<double>(a.dram_input_bytes) / arch.dram_bytes_per_cycle);
  double compute_scale = 1;
  if (e.bank_cycles > 0 && e.compute_cycles > e.bank_cycles)
    compute_scale = static_cast<double>(e.compute_cycles) /
                    static_cast<double>(e.compute_cycles - e.bank_cycles);
  const double total = StepModel(l, arch, m, T, rows, cols, in_beat_ratio, compute_scale).total();
  // No schedule finishes before its busier engine is done.
  e.cycles =
      std::max({static_cast<long long>(std::llround(total)), e.compute_cycles, e.dma_cycles});
  return e;
}

}  // namespace mapwright::model
