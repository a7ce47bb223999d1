// The codesign searchers. `exact`: best-first branch-and-bound over boxes of the hardware space.
// A box is bounded by the area of its smallest point (against max_area_mm2), by the closed-form
// cycle and energy bounds at its relaxed architecture (against the latency and energy limits and
// the incumbent), and, once only the buffer sizes vary, by the mapper: a layer whose optimum with
// the space's largest buffers fits the box's smallest buffers has that optimum on every point of
// the box (when every layer does, the box is one evaluation: its smallest point), any other layer
// is bounded by its optimum's lower bound at the box's largest buffers. `grid` evaluates every
// point, `random` a seeded sample.
#include <algorithm>
#include <cmath>
#include <queue>
#include <random>
#include <set>

#include "codesign/codesign_search.hpp"

namespace mapwright::flows::codesign {

namespace {

/// A box waiting in the queue.
struct Node {
  HwBox box;           ///< The box.
  double bound = 0;    ///< Lower bound on the cost of its points.
  double area_lb = 0;  ///< Lower bound on their area.
  long long seq = 0;   ///< Creation order (ties).
};
struct ByBound {
  bool operator()(const Node& a, const Node& b) const {
    if (a.bound != b.bound) return a.bound > b.bound;
    if (a.area_lb != b.area_lb) return a.area_lb > b.area_lb;
    return a.seq > b.seq;
  }
};

/// The point of linear index `k` (the last parameter fastest).
HwIndex index_of(const CodesignSpace& s, long long k) {
  HwIndex i{};
  for (int p = kNumHwParams - 1; p >= 0; --p) {
    const long long n = static_cast<long long>(s.values[p].size());
    i[p] = static_cast<int>(k % n);
    k /= n;
  }
  return i;
}

/// Drops from `b` the largest values of the array and buffer parameters whose every point is
/// above the area limit (area grows with each of them).
void tighten_by_area(const CodesignSpace& s, HwBox& b) {
  for (const HwParam p :
       {HwParam::Rows, HwParam::Cols, HwParam::AccumKib, HwParam::WeightKib, HwParam::InputKib}) {
    const int k = static_cast<int>(p);
    HwBox probe = b;
    probe.lo[k] = b.hi[k];
    while (b.hi[k] > b.lo[k] && area_lower_bound(s, probe) > s.max_area_mm2)
      probe.lo[k] = --b.hi[k];
  }
}

/// Why box `n.box` cannot hold a feasible point ("" = it may): fills n.area_lb and n.bound
/// (at least `parent`) from the area and closed-form bounds.
const char* bound_box(const CodesignSpace& s, Node& n, double parent) {
  n.area_lb = area_lower_bound(s, n.box);
  if (s.max_area_mm2 > 0 && n.area_lb > s.max_area_mm2) return "area";
  if (s.max_area_mm2 > 0) tighten_by_area(s, n.box);
  const std::vector<NetworkBound> nb = closed_form_bounds(s, n.box);
  const double clock_mhz = box_clock_mhz(s, n.box);  // no point of the box is faster
  double cost = 0;
  for (size_t w = 0; w < nb.size(); ++w) {
    if (s.max_latency_ms > 0 && nb[w].cycles / (clock_mhz * 1e3) > s.max_latency_ms)
      return "constraint";
    if (s.max_energy_uj > 0 && nb[w].energy_pj * 1e-6 > s.max_energy_uj) return "constraint";
    cost += s.workload[w].weight * s.objective.cost(nb[w].cycles, nb[w].energy_pj);
  }
  cost *= clock_cost_factor(s, clock_mhz);
  n.bound = std::max(parent, cost);
  return "";
}

/// The parameter to split: the first varying one of dataflows, rows, cols, bandwidth, banks,
/// else the buffer with the most values left.
int split_param(const HwBox& b) {
  for (int p = 0; p <= static_cast<int>(HwParam::Banks); ++p)
    if (b.lo[p] < b.hi[p]) return p;
  int best = -1;
  for (int p = static_cast<int>(HwParam::AccumKib); p < kNumHwParams; ++p)
    if (b.lo[p] < b.hi[p] && (best < 0 || b.hi[p] - b.lo[p] > b.hi[best] - b.lo[best])) best = p;
  return best;
}

/// Branch-and-bound state.
class Exact {
 public:
  Exact(PointEvaluator& ev, double time_limit_s) : ev_(ev), s_(ev.space()) {
    deadline_ = time_limit_s > 0 ? ev.elapsed() + time_limit_s : 0;
  }
  SearchOutcome run();

 private:
  void push(const HwBox& b, double parent);
  void add_point(PointResult r);
  bool cut(const Node& n) const {
    return best_ < 0 ? false
                     : n.bound > best_cost_ || (n.bound == best_cost_ && n.area_lb > best_area_);
  }
  /// A box with only the buffers left: collapsed into one evaluation, or its bound refined;
  /// false when it is done (collapsed or cut).
  bool refine(Node& n);
  void branch(const Node& n);

  PointEvaluator& ev_;                                           ///< Scores points.
  const CodesignSpace& s_;                                       ///< The space.
  double deadline_ = 0;                                          ///< Evaluator seconds.
  std::priority_queue<Node, std::vector<Node>, ByBound> queue_;  ///< Open boxes.
  long long seq_ = 0;                                            ///< Next Node::seq.
  SearchOutcome out_;                                            ///< The answer.
  int best_ = -1;                                                ///< Incumbent in points.
  double best_cost_ = INFINITY;                                  ///< Its cost.
  double best_area_ = INFINITY;                                  ///< Its area.
};

void Exact::push(const HwBox& b, double parent) {
  Node n;
  n.box = b;
  n.seq = seq_++;
  ++out_.nodes;
  const std::string why = bound_box(s_, n, parent);
  if (why == "area") {
    ++out_.pruned_area;
  } else if (why == "constraint") {
    ++out_.pruned_constraint;
  } else if (cut(n)) {
    ++out_.pruned_bound;
  } else {
    queue_.push(n);
  }
}

void Exact::add_point(PointResult r) {
  out_.points.push_back(std::move(r));
  const PointResult& p = out_.points.back();
  if (!p.feasible()) return;
  if (p.cost < best_cost_ || (p.cost == best_cost_ && p.area_mm2 < best_area_)) {
    best_ = static_cast<int>(out_.points.size()) - 1;
    best_cost_ = p.cost;
    best_area_ = p.area_mm2;
  }
}

bool Exact::refine(Node& n) {
  const HwBox& b = n.box;
  if (!unbuildable(s_, b.lo).empty()) return false;  // the same for every point of the box
  const core::Arch lo = point_arch(s_, b.lo), hi = buffer_relaxed_arch(s_, b);
  std::vector<char> shortcut;
  const std::vector<LayerFigures> f = ev_.all_layers(lo, hi, deadline_, shortcut);
  bool all = true;
  for (size_t u = 0; u < f.size(); ++u) {
    all = all && shortcut[u];
    if (!f[u].found && std::isinf(f[u].lower_bound)) return false;  // nothing fits anywhere
  }
  if (all) {
    PointResult r = ev_.evaluate(b.lo, deadline_);
    r.covers = b.size();
    ++out_.collapsed;
    add_point(std::move(r));
    return false;
  }
  double cost = 0;
  for (size_t w = 0; w < ev_.uses().size(); ++w) {
    std::vector<double> lbs;
    std::vector<int> counts;
    for (const auto& [u, c] : ev_.uses()[w]) {
      lbs.push_back(f[u].lower_bound);
      counts.push_back(c);
    }
    cost += s_.workload[w].weight * compose_layer_bounds(s_.objective, lbs, counts);
  }
  cost *= clock_cost_factor(s_, box_clock_mhz(s_, b));  // only the buffers vary: one clock
  n.bound = std::max(n.bound, cost);
  if (cut(n)) {
    ++out_.pruned_bound;
    return false;
  }
  return true;
}

void Exact::branch(const Node& n) {
  const int p = split_param(n.box);
  const int mid = (n.box.lo[p] + n.box.hi[p]) / 2;
  HwBox a = n.box, b = n.box;
  a.hi[p] = mid;
  b.lo[p] = mid + 1;
  push(a, n.bound);
  push(b, n.bound);
}

SearchOutcome Exact::run() {
  const double t0 = ev_.elapsed();
  push(whole_space(s_), 0);
  while (!queue_.empty()) {
    if (deadline_ > 0 && ev_.elapsed() >= deadline_) {
      out_.timed_out = true;
      break;
    }
    Node n = queue_.top();
    queue_.pop();
    if (cut(n)) {
      ++out_.pruned_bound;
      continue;
    }
    if (n.box.size() == 1) {
      add_point(ev_.evaluate(n.box.lo, deadline_));
      continue;
    }
    if (n.box.fixed_but_buffers() && !refine(n)) continue;
    branch(n);
  }
  // The proven bound: the smallest of the open boxes' bounds and of the evaluated points' own.
  double lb = best_cost_;
  if (!queue_.empty()) lb = std::min(lb, queue_.top().bound);
  for (const PointResult& p : out_.points)
    if (p.feasible()) lb = std::min(lb, p.lower_bound);
  out_.lower_bound = lb;
  // A mapper solve stopped at its time limit leaves its point bounded, not exact.
  out_.proved = !out_.timed_out && (best_ < 0 || lb >= best_cost_);
  out_.best = choose_best(out_.points);
  out_.seconds = ev_.elapsed() - t0;
  return out_;
}

}  // namespace

SearchOutcome search_exact(PointEvaluator& ev, double time_limit_s) {
  return Exact(ev, time_limit_s).run();
}

namespace {

/// Evaluates the points of `is` in order until the time limit.
SearchOutcome evaluate_all(PointEvaluator& ev, const std::vector<HwIndex>& is,
                           double time_limit_s) {
  SearchOutcome out;
  const double t0 = ev.elapsed();
  const double deadline = time_limit_s > 0 ? t0 + time_limit_s : 0;
  for (const HwIndex& i : is) {
    if (deadline > 0 && ev.elapsed() >= deadline) {
      out.timed_out = true;
      break;
    }
    out.points.push_back(ev.evaluate(i, deadline));
  }
  out.seconds = ev.elapsed() - t0;
  return out;
}

/// The points of linear indices `ks`.
std::vector<HwIndex> indices(const CodesignSpace& s, const std::vector<long long>& ks) {
  std::vector<HwIndex> is;
  is.reserve(ks.size());
  for (const long long k : ks) is.push_back(index_of(s, k));
  return is;
}

}  // namespace

SearchOutcome search_points(PointEvaluator& ev, const std::vector<HwIndex>& points,
                            double time_limit_s) {
  SearchOutcome out = evaluate_all(ev, points, time_limit_s);
  settle(out, !out.timed_out);
  return out;
}

SearchOutcome search_grid(PointEvaluator& ev, double time_limit_s) {
  std::vector<long long> ks(static_cast<size_t>(ev.space().size()));
  for (size_t k = 0; k < ks.size(); ++k) ks[k] = static_cast<long long>(k);
  return search_points(ev, indices(ev.space(), ks), time_limit_s);
}

SearchOutcome search_random(PointEvaluator& ev, long long samples, uint64_t seed,
                            double time_limit_s) {
  const long long size = static_cast<long long>(ev.space().size());
  std::vector<long long> ks;
  if (samples >= size) {
    for (long long k = 0; k < size; ++k) ks.push_back(k);
  } else {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<long long> pick(0, size - 1);
    std::set<long long> seen;
    while (static_cast<long long>(ks.size()) < samples)
      if (const long long k = pick(rng); seen.insert(k).second) ks.push_back(k);
  }
  SearchOutcome out = evaluate_all(ev, indices(ev.space(), ks), time_limit_s);
  settle(out, false);
  return out;
}

void settle(SearchOutcome& out, bool every_point) {
  out.best = choose_best(out.points);
  out.lower_bound = out.best >= 0 ? out.points[out.best].lower_bound : INFINITY;
  out.proved = every_point;
  if (every_point)  // the smallest proven bound of a feasible point
    for (const PointResult& p : out.points)
      if (p.feasible()) out.lower_bound = std::min(out.lower_bound, p.lower_bound);
}

int choose_best(const std::vector<PointResult>& points) {
  int best = -1;
  for (size_t i = 0; i < points.size(); ++i) {
    const PointResult& p = points[i];
    if (!p.feasible()) continue;
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const PointResult& b = points[best];
    if (std::tie(p.cost, p.area_mm2, p.index) < std::tie(b.cost, b.area_mm2, b.index))
      best = static_cast<int>(i);
  }
  return best;
}

std::vector<int> pareto_front(const std::vector<PointResult>& points) {
  std::vector<int> ids;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].on_front_axis()) ids.push_back(static_cast<int>(i));
  std::sort(ids.begin(), ids.end(), [&](int a, int b) {
    return std::tie(points[a].area_mm2, points[a].cost, points[a].index) <
           std::tie(points[b].area_mm2, points[b].cost, points[b].index);
  });
  std::vector<int> front;
  double best = INFINITY;
  for (int i : ids)
    if (points[i].cost < best) {
      front.push_back(i);
      best = points[i].cost;
    }
  return front;
}

}  // namespace mapwright::flows::codesign
