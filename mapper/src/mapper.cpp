// The exact mapper. Branch-and-bound over the compact map space: the root splits into
// subtrees by (dataflow, pe_rows, pe_cols), sorted by their bound; inside a subtree the tiles
// are fixed in core::tile_branch_order, then the loop-order class, then the double-buffer
// flags, and every node is cut when its admissible bound (bounds.hpp) reaches the incumbent
// (times 1 - target gap), when its tiles cannot fit, or when a smaller PE use gives the same
// fold counts. Children are visited in ascending bound. Subtrees run in fixed waves: every
// subtree of a wave starts from the incumbent known before the wave and the wave's results
// are merged in subtree order, so the answer and the statistics do not depend on the number
// of threads. Ties in cost are broken by a canonical key of the mapping.
#include "mapwright/mapper/mapper.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <thread>
#include <vector>

#include "mapwright/mapspace/compact_space.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapper/bounds.hpp"
#include "mapwright/model/bank_conflicts.hpp"
#include "mapwright/model/surrogate.hpp"

#include "raw_pass.hpp"

namespace mapwright::mapper {

using namespace mapwright::core;

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::ProvedOptimal:
      return "proved_optimal";
    case StopReason::GapReached:
      return "gap_reached";
    case StopReason::TimeLimit:
      return "time_limit";
    case StopReason::Infeasible:
      return "infeasible";
  }
  return "?";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Clock = std::chrono::steady_clock;

/// Canonical key of a mapping: ties in cost go to the smallest key.
using Key = std::array<long long, 15>;
Key key_of(const Mapping& m) {
  Key k{};
  k[0] = static_cast<int>(m.dataflow);
  k[1] = m.pe_rows;  // fewer enabled PEs first, as the compact space's PE dominance does
  k[2] = m.pe_cols;
  for (int d = 0; d < kNumDims; ++d) k[3 + d] = m.tile[d];
  k[11] = order_to_index(m.order);
  k[12] = m.db_input;
  k[13] = m.db_weight;
  k[14] = m.db_accum;
  return k;
}

/// The best mapping known, with its cost and key.
struct Incumbent {
  bool found = false;  ///< A valid mapping is known.
  double cost = kInf;  ///< Its objective.
  Key key{};           ///< Its canonical key.
  Mapping m;           ///< The mapping.
  bool beaten_by(double c, const Key& k) const {
    return !found || c < cost || (c == cost && k < key);
  }
  /// Takes (c, k, mm) as the incumbent if it beats the current one.
  void offer(double c, const Key& k, const Mapping& mm) {
    if (!beaten_by(c, k)) return;
    found = true;
    cost = c;
    key = k;
    m = mm;
  }
};

/// The K best distinct mappings seen, by (cost, key).
struct TopList {
  struct Entry {
    double cost;  ///< Objective.
    Key key;      ///< Canonical key (also the identity of the mapping).
    Mapping m;    ///< The mapping.
    bool operator<(const Entry& o) const {
      return cost < o.cost || (cost == o.cost && key < o.key);
    }
  };
  size_t k = 1;                ///< Capacity.
  std::vector<Entry> entries;  ///< Sorted, distinct keys, at most k.
  /// Worst cost that can still enter (infinity while not full).
  double admits() const { return entries.size() < k ? kInf : entries.back().cost; }
  void offer(double cost, const Key& key, const Mapping& m) {
    if (entries.size() >= k && !(Entry{cost, key, m} < entries.back())) return;
    for (const auto& e : entries)
      if (e.key == key) return;
    Entry e{cost, key, m};
    entries.insert(std::upper_bound(entries.begin(), entries.end(), e), e);
    if (entries.size() > k) entries.pop_back();
  }
};

/// Counters of one subtree (summed in subtree order).
struct Stats : Effort {
  long long unservable = 0;  ///< Leaves that would count, dropped: no burst descriptor.
  double open_bound = kInf;  ///< Smallest bound of a region cut below the incumbent.
  bool timed_out = false;    ///< The time limit cut this subtree.
  void add(const Stats& o) {
    nodes += o.nodes;
    evaluations += o.evaluations;
    pruned_bound += o.pruned_bound;
    pruned_capacity += o.pruned_capacity;
    pruned_dominance += o.pruned_dominance;
    unservable += o.unservable;
    open_bound = std::min(open_bound, o.open_bound);
    timed_out = timed_out || o.timed_out;
  }
};

/// One root subtree: dataflow and PE use, with its bound.
struct Root {
  Dataflow df;   ///< Dataflow.
  int pr, pc;    ///< PE use.
  double bound;  ///< Objective bound of the subtree.
};

/// Shared, read-only context of one solve.
struct Context {
  const Layer& layer;          ///< The layer.
  const Arch& arch;            ///< The architecture.
  const Objective& obj;        ///< The objective.
  const LowerBound& lb;        ///< Bound calculator.
  double gap;                  ///< Target relative gap.
  bool has_deadline;           ///< A time limit is set.
  Clock::time_point deadline;  ///< When to stop.
  std::atomic<bool>* stop;     ///< Set once the deadline passed.
  bool compact;                ///< Compact space (else every tile size and PE use).
  RawPass raw;                 ///< What the raw pass (compact false) keeps compact.
};

/// Depth-first branch-and-bound of one subtree at a time; owns a tile-candidate cache.
class Worker {
 public:
  explicit Worker(const Context& ctx) : ctx_(ctx) {}

  void run(const Root& root, const Incumbent& start, Incumbent& inc, Stats& st, TopList& top) {
    inc_ = start;
    st_ = Stats{};
    top_ = TopList{};
    top_.k = top.k;
    p_ = Partial{};
    p_.m.layer_shape = ctx_.layer.shape_key();
    p_.m.fold_order = FoldOrder::RowsOuter;
    p_.m.dataflow = root.df;
    p_.m.pe_rows = root.pr;
    p_.m.pe_cols = root.pc;
    p_.dataflow = p_.pe = true;
    bo_ = tile_branch_order(root.df);
    if (stopped()) {
      st_.open_bound = std::min(st_.open_bound, root.bound);
    } else if (inc_.found && root.bound >= threshold()) {
      ++st_.pruned_bound;
      if (root.bound < inc_.cost) st_.open_bound = std::min(st_.open_bound, root.bound);
    } else {
      tiles(0);
    }
    inc = inc_;
    st = st_;
    top = std::move(top_);
  }

 private:
  double threshold() const { return inc_.cost * (1 - ctx_.gap); }

  bool stopped() {
    if (ctx_.stop->load(std::memory_order_relaxed)) {
      st_.timed_out = true;
      return true;
    }
    if (ctx_.has_deadline && (++tick_ & 1023) == 0 && Clock::now() >= ctx_.deadline) {
      ctx_.stop->store(true);
      st_.timed_out = true;
      return true;
    }
    return false;
  }

  /// Cuts the sorted children from index i on; records the bound of the first one.
  void cut(double bound, long long remaining) {
    st_.pruned_bound += remaining;
    if (!inc_.found || bound < inc_.cost) st_.open_bound = std::min(st_.open_bound, bound);
  }

  const std::vector<long long>& candidates(Dim d) {
    const size_t dfi = static_cast<size_t>(p_.m.dataflow);
    const long long prone = !ctx_.compact && d == Dim::K ? ctx_.raw.k_prone_banks[dfi] : 0;
    if (!ctx_.compact && !((ctx_.raw.compact_dims[dfi] >> I(d)) & 1u) && prone == 0) {
      auto& all = all_[static_cast<size_t>(I(d))];
      if (all.empty())
        for (long long t = 1; t <= ctx_.layer.dim(d); ++t) all.push_back(t);
      return all;
    }
    const long long beat = burst_beat_of(ctx_.arch);
    std::vector<long long> key = compact_tile_key(ctx_.layer, p_.m, d, beat);
    if (prone > 0) key.push_back(-prone);  // the widened set (widen_k_sizes) has its own entry
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    std::vector<long long> c = compact_tile_sizes(ctx_.layer, p_.m, d, beat);
    if (prone > 0) c = widen_k_sizes(std::move(c), ctx_.layer.dim(Dim::K), prone);
    return cache_.emplace(std::move(key), std::move(c)).first->second;
  }

  struct Child {
    double bound;  ///< Objective bound.
    long long v;   ///< Tile size or order-class index.
    bool operator<(const Child& o) const {
      return bound < o.bound || (bound == o.bound && v < o.v);
    }
  };

  void tiles(int level) {
    if (level == kNumDims) {
      leaf();
      return;
    }
    const Dim d = bo_[level];
    // PE-use minimality is checked once every loop the rows (columns) carry has its tile.
    const Dataflow df = p_.m.dataflow;
    const bool check_cols = d == (df == Dataflow::IS ? Dim::Q : Dim::K);
    const bool check_rows = d == (df == Dataflow::OS ? Dim::Q : Dim::C);
    std::vector<Child> kids;
    const std::vector<long long> cands = candidates(d);
    kids.reserve(cands.size());
    p_.tile[I(d)] = true;
    for (long long t : cands) {
      p_.m.tile[I(d)] = t;
      ++st_.nodes;
      if (!ctx_.lb.may_fit(p_)) {  // candidates ascend and footprints grow with the tile
        ++st_.pruned_capacity;
        break;
      }
      const size_t dfi = static_cast<size_t>(p_.m.dataflow);
      const bool cols_rule = ctx_.compact || ctx_.raw.compact_pe_cols[dfi];
      const bool rows_rule = ctx_.compact || ctx_.raw.compact_pe_rows[dfi];
      if ((cols_rule && check_cols && !pe_cols_minimal(ctx_.layer, p_.m)) ||
          (rows_rule && check_rows && !pe_rows_minimal(ctx_.layer, p_.m))) {
        ++st_.pruned_dominance;
        continue;
      }
      const Bounds b = ctx_.lb.bounds(p_);
      kids.push_back({ctx_.obj.cost(b.cycles, b.energy), t});
    }
    std::sort(kids.begin(), kids.end());
    for (size_t i = 0; i < kids.size(); ++i) {
      if (stopped()) {
        st_.open_bound = std::min(st_.open_bound, kids[i].bound);
        break;  // kids are sorted: the first bound is the smallest
      }
      if (inc_.found && kids[i].bound >= threshold()) {
        cut(kids[i].bound, static_cast<long long>(kids.size() - i));
        break;
      }
      p_.m.tile[I(d)] = kids[i].v;
      tiles(level + 1);
    }
    p_.tile[I(d)] = false;
    p_.m.tile[I(d)] = 1;
  }

  void leaf() {
    bank_cycles_ = -1;  // one tiling: its bank cycles are computed at its first evaluation
    servable_ = -1;     // and whether the bursts port can serve it, when a leaf would count
    const auto trips = trip_counts(ctx_.layer, p_.m);
    const auto orders = order_classes(trips);
    std::vector<Child> kids;
    p_.order = true;
    for (size_t i = 0; i < orders.size(); ++i) {
      p_.m.order = orders[i];
      ++st_.nodes;
      const Bounds b = ctx_.lb.bounds(p_);
      kids.push_back({ctx_.obj.cost(b.cycles, b.energy), static_cast<long long>(i)});
    }
    std::sort(kids.begin(), kids.end());
    for (size_t i = 0; i < kids.size(); ++i) {
      if (stopped()) {
        st_.open_bound = std::min(st_.open_bound, kids[i].bound);
        break;
      }
      if (inc_.found && kids[i].bound >= threshold()) {
        cut(kids[i].bound, static_cast<long long>(kids.size() - i));
        break;
      }
      p_.m.order = orders[static_cast<size_t>(kids[i].v)];
      evaluate_db();
    }
    p_.order = false;
  }

  void evaluate_db() {
    Mapping& m = p_.m;
    const AccessCounts counts = model::closed_form_counts(ctx_.layer, ctx_.arch, m);
    static const std::vector<std::array<bool, 3>> all_db = [] {
      std::vector<std::array<bool, 3>> v;
      for (int i = 0; i < 8; ++i) v.push_back({(i & 1) != 0, (i & 2) != 0, (i & 4) != 0});
      return v;
    }();
    for (const auto& db :
         ctx_.compact || ctx_.raw.compact_db ? double_buffer_choices(ctx_.layer, m) : all_db) {
      m.db_input = db[0];
      m.db_weight = db[1];
      m.db_accum = db[2];
      if (!check_capacity(ctx_.layer, ctx_.arch, m).ok()) {
        ++st_.pruned_capacity;
        continue;
      }
      ++st_.evaluations;
      Metrics met;
      met.valid = true;
      met.counts = counts;
      if (ctx_.arch.buffer_banks > 0 && bank_cycles_ < 0)
        bank_cycles_ = model::closed_form_bank_cycles(ctx_.layer, m, ctx_.arch.buffer_banks);
      const model::CycleEstimate ce =
          model::closed_form_cycles(ctx_.layer, ctx_.arch, m, counts, bank_cycles_);
      met.cycles = ce.cycles;
      met.compute_cycles = ce.compute_cycles;
      met.dma_cycles = ce.dma_cycles;
      finish_metrics(met, ctx_.layer, ctx_.arch, m);
      const double cost = ctx_.obj.cost(met);
      const bool to_top = top_.k > 1 && cost <= top_.admits();
      if (!to_top && inc_.found && cost > inc_.cost) continue;
      if (!servable()) {  // no double-buffer choice changes the transfers' runs
        ++st_.unservable;
        break;
      }
      if (to_top) top_.offer(cost, key_of(m), m);
      if (inc_.found && cost > inc_.cost) continue;  // the key is only needed on ties
      inc_.offer(cost, key_of(m), m);
    }
    m.db_input = m.db_weight = m.db_accum = false;
  }

  /// Whether every transfer of the leaf's tiling has a burst descriptor (always under the
  /// packed port) and its result lanes fit the banked accumulator (core::check_valid). Depends
  /// on the tiles (and the leaf's dataflow and PE use) only, so it is found once per tiling and
  /// only for a leaf good enough to count: the check is cheap but not free.
  bool servable() {
    if (servable_ < 0)
      servable_ = core::descriptor_problem(ctx_.layer, ctx_.arch, p_.m).empty() &&
                          core::accum_bank_problem(ctx_.layer, ctx_.arch, p_.m).empty()
                      ? 1
                      : 0;
    return servable_ == 1;
  }

  const Context& ctx_;              ///< Shared context.
  Incumbent inc_;                   ///< Incumbent of the current subtree.
  Stats st_;                        ///< Counters of the current subtree.
  TopList top_;                     ///< Best distinct mappings of the current subtree.
  Partial p_;                       ///< The node being expanded.
  std::array<Dim, kNumDims> bo_{};  ///< Tile branch order of the subtree's dataflow.
  long long tick_ = 0;              ///< Counter for clock checks.
  long long bank_cycles_ = -1;      ///< Bank cycles of the leaf's tiling (-1: not yet known).
  int servable_ = -1;               ///< servable() of the leaf's tiling (-1: not yet known).
  std::map<std::vector<long long>, std::vector<long long>> cache_;  ///< Tile candidates.
  std::array<std::vector<long long>, kNumDims> all_;                ///< Every tile size (raw mode).
};

/// A deterministic starting incumbent: the greedy default mapping of each dataflow.
Incumbent initial(const Layer& l, const Arch& a, const Objective& obj) {
  Incumbent inc;
  model::Surrogate sur;
  for (Dataflow df : a.dataflows) {
    Mapping m = default_mapping(l, a);
    m.dataflow = df;
    const Metrics met = sur.evaluate(l, a, m);
    if (!met.valid) continue;
    inc.offer(obj.cost(met), key_of(m), m);
  }
  return inc;
}

/// Root subtrees (every dataflow and PE use), sorted by bound (ties: dataflow, then more PEs
/// first).
std::vector<Root> root_subtrees(const Arch& arch, const LowerBound& lb, const Objective& obj) {
  std::vector<Root> roots;
  for (Dataflow df : arch.dataflows)
    for (int pr = arch.rows; pr >= 1; --pr)
      for (int pc = arch.cols; pc >= 1; --pc) {
        Partial p;
        p.m.dataflow = df;
        p.m.pe_rows = pr;
        p.m.pe_cols = pc;
        p.dataflow = p.pe = true;
        const Bounds b = lb.bounds(p);
        roots.push_back({df, pr, pc, obj.cost(b.cycles, b.energy)});
      }
  std::stable_sort(roots.begin(), roots.end(),
                   [](const Root& a, const Root& b) { return a.bound < b.bound; });
  return roots;
}

/// What the search has found so far, merged in subtree order (deterministic for any number
/// of threads).
struct Found {
  Incumbent best;  ///< The incumbent.
  Stats total;     ///< Counters of every subtree searched.
  TopList top;     ///< The best distinct mappings.
};

/// Searches roots[w0 .. w0+n) (one wave) with up to `threads` of `workers`, each subtree
/// starting from the incumbent before the wave, then merges their results into `f` in subtree
/// order.
void search_wave(const Context& ctx, const std::vector<Root>& roots, size_t w0, size_t n,
                 int threads, std::vector<Worker>& workers, Found& f) {
  std::vector<Incumbent> incs(n);
  std::vector<Stats> stats(n);
  std::vector<TopList> tops(n);
  for (auto& t : tops) t.k = f.top.k;
  std::atomic<size_t> next{0};
  auto work = [&](int wi) {
    for (size_t i = next++; i < n; i = next++)
      workers[static_cast<size_t>(wi)].run(roots[w0 + i], f.best, incs[i], stats[i], tops[i]);
  };
  // Subtrees whose root bound already reaches the incumbent are cut without a thread.
  size_t live = 0;
  for (size_t i = 0; i < n; ++i)
    if (!f.best.found || roots[w0 + i].bound < f.best.cost * (1 - ctx.gap)) ++live;
  const int nt = std::min(threads, static_cast<int>(live));
  if (nt <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int i = 0; i < nt; ++i) pool.emplace_back(work, i);
    for (auto& th : pool) th.join();
  }
  for (size_t i = 0; i < n; ++i) {
    if (incs[i].found && f.best.beaten_by(incs[i].cost, incs[i].key)) f.best = incs[i];
    f.total.add(stats[i]);
    for (const auto& e : tops[i].entries) f.top.offer(e.cost, e.key, e.m);
  }
}

/// The answer: the best mapping with its surrogate metrics, the proven bound and gap, the
/// other top mappings, the effort and why the search stopped.
Result make_result(const Layer& layer, const Arch& arch, const Options& options, const Found& f,
                   Clock::time_point t0) {
  const Incumbent& best = f.best;
  const Stats& total = f.total;
  Result r;
  static_cast<Effort&>(r) = total;
  r.found = best.found;
  if (best.found) {
    r.best = best.m;
    model::Surrogate sur;
    r.metrics = sur.evaluate(layer, arch, r.best);
    r.best_cost = options.objective.cost(r.metrics);
    r.lower_bound = std::min(r.best_cost, total.open_bound);
    r.gap = r.best_cost > 0 ? (r.best_cost - r.lower_bound) / r.best_cost : 0;
    r.top.emplace_back(r.best, r.metrics);
    for (const auto& e : f.top.entries)
      if (static_cast<int>(r.top.size()) < std::max(1, options.keep) && e.key != best.key)
        r.top.emplace_back(e.m, sur.evaluate(layer, arch, e.m));
  } else {
    r.lower_bound = total.open_bound;
    r.gap = 1;
  }
  r.optimal = best.found && !total.timed_out && r.lower_bound >= r.best_cost;
  r.stop = total.timed_out ? StopReason::TimeLimit
           : !best.found   ? StopReason::Infeasible
           : r.optimal     ? StopReason::ProvedOptimal
                           : StopReason::GapReached;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace

Result solve(const Layer& layer, const Arch& arch, const Options& options) {
  const auto t0 = Clock::now();
  const LowerBound lb(layer, arch);
  std::atomic<bool> stop{false};
  Context ctx{layer,
              arch,
              options.objective,
              lb,
              std::max(0.0, options.target_gap),
              options.time_limit_s > 0,
              t0,
              &stop,
              options.compact,
              RawPass{}};
  if (ctx.has_deadline)
    ctx.deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(options.time_limit_s));
  const std::vector<Root> roots = root_subtrees(arch, lb, options.objective);

  Found f;
  f.best = initial(layer, arch, options.objective);
  f.top.k = static_cast<size_t>(std::max(1, options.keep));
  if (f.best.found) f.top.offer(f.best.cost, f.best.key, f.best.m);
  const int threads = options.threads > 0 ? options.threads : default_jobs();
  const int wave = std::max(1, options.wave);
  auto search_space = [&](const Context& c, Found& into) {
    std::vector<Worker> workers;
    for (int i = 0; i < threads; ++i) workers.emplace_back(c);
    for (size_t w0 = 0; w0 < roots.size(); w0 += static_cast<size_t>(wave))
      search_wave(c, roots, w0, std::min(static_cast<size_t>(wave), roots.size() - w0), threads,
                  workers, into);
  };
  search_space(ctx, f);
  // Banked buffers: a fold's bank stalls depend on tile sizes and PE uses the compact space
  // merges (mapper/README.md), so the compact optimum is not proven over every mapping. The
  // bursts port likewise when the compact search dropped a leaf for want of a burst descriptor
  // (core::check_valid): a tile size the compact space merged away may have one. When it
  // dropped none, its search was the unconstrained one, whose answer is dominated by no raw
  // mapping and is servable, so it stands.
  if (options.compact && (arch.buffer_banks > 0 || f.total.unservable > 0)) {
    // The raw space follows, from the compact search's incumbent and top list, under the same
    // deadline; its bound and gap are the answer's, so they hold over every mapping (with the
    // time spent, a layer whose raw space is too large to close reports its gap).
    Context raw = ctx;
    raw.compact = false;
    raw.raw = raw_pass_space(layer, arch, f.total.unservable > 0);
    Found g;
    g.best = f.best;
    g.top = f.top;
    search_space(raw, g);
    Stats compact_effort = f.total;  // its effort counts; its bound and deadline do not
    compact_effort.open_bound = kInf;
    compact_effort.timed_out = false;
    g.total.add(compact_effort);
    f = std::move(g);
  }
  return make_result(layer, arch, options, f, t0);
}

}  // namespace mapwright::mapper
