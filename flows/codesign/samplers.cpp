// The sampling searchers over the hardware: the search library's ask/tell searchers (sa, ga, bo,
// ppo, ppo-box, marl) drive the hardware parameters of a codesign space. Each parameter that
// takes more than one value is one search parameter (its value index; the dataflow set is
// categorical, every other parameter ordinal), and each proposed point is scored by the same
// PointEvaluator as exact and grid: every unique layer at its proven-optimal mapping, the
// weighted workload's cost. A point that is unbuildable, above the area limit or beyond a latency
// or energy limit is a typed failure told to the searcher; run_search answers repeated proposals
// from its cache, so the budget counts distinct hardware points.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "codesign/codesign_search.hpp"
#include "mapwright/search/searcher.hpp"

namespace mapwright::flows::codesign {

namespace {

/// The search problem of a space: its varying parameters (a space of one point keeps the first
/// parameter, with its one value: a problem needs a parameter), and where each sits in an
/// HwIndex.
struct HwProblem {
  search::Problem problem;  ///< One search parameter per varying hardware parameter.
  std::vector<int> param;   ///< HwParam of each search parameter.
};

HwProblem hw_problem(const CodesignSpace& s) {
  HwProblem h;
  auto add = [&](int p) {
    h.problem.params.push_back({hw_param_key(static_cast<HwParam>(p)),
                                static_cast<int64_t>(s.values[p].size()),
                                p != static_cast<int>(HwParam::Dataflows)});
    h.param.push_back(p);
  };
  for (int p = 0; p < kNumHwParams; ++p)
    if (s.values[p].size() > 1) add(p);
  if (h.param.empty()) add(0);
  return h;
}

/// The searcher's outcome of an evaluated point: its workload cost when feasible, else the
/// failure with its class (unbuildable, area, constraint, unmapped).
search::Outcome outcome_of(const CodesignSpace& s, const PointResult& r) {
  search::Outcome o;
  if (r.feasible()) {
    o.valid = true;
    o.cost = r.cost;
  } else if (!r.unbuildable.empty()) {
    o.failure_class = "unbuildable";
    o.reason = "unbuildable: " + r.unbuildable;
  } else if (!r.found) {
    o.failure_class = "unmapped";
    o.reason = "unmapped: " + r.infeasible;
  } else if (!r.infeasible.empty()) {
    o.failure_class = "constraint";
    o.reason = "constraint: " + r.infeasible;
  } else {
    o.failure_class = "area";
    o.reason = "area: " + std::to_string(r.area_mm2) + " mm^2 > " + std::to_string(s.max_area_mm2);
  }
  return o;
}

}  // namespace

SearchOutcome search_sampled(PointEvaluator& ev, const SamplerRequest& rq) {
  const CodesignSpace& s = ev.space();
  const HwProblem h = hw_problem(s);
  std::unique_ptr<search::Searcher> searcher =
      search::make_searcher(rq.kind, h.problem, rq.options, rq.seed);
  SearchOutcome out;
  const double t0 = ev.elapsed();
  const double deadline = rq.time_limit_s > 0 ? t0 + rq.time_limit_s : 0;
  const search::EvaluateFn evaluate = [&](const std::vector<search::Point>& pts) {
    std::vector<search::Outcome> res;
    for (const search::Point& pt : pts) {
      HwIndex i{};
      for (size_t k = 0; k < pt.size(); ++k) i[h.param[k]] = static_cast<int>(pt[k]);
      out.points.push_back(ev.evaluate(i, deadline));
      res.push_back(outcome_of(s, out.points.back()));
    }
    return res;
  };
  const search::ProgressFn progress = [&](const search::SearchProgress&) {
    out.timed_out = deadline > 0 && ev.elapsed() >= deadline;
    return !out.timed_out;
  };
  const long long budget = std::min<long long>(rq.budget, static_cast<long long>(s.size()));
  const search::SearchResult sr = search::run_search(*searcher, evaluate, budget, progress);
  out.searcher = searcher->describe();
  out.searcher["duplicates"] = sr.duplicates;
  out.searcher["exhausted"] = sr.exhausted;
  // Every point seen (a budget of the whole space that was not cut short): as grid, proved.
  settle(out, !out.timed_out && static_cast<double>(out.points.size()) >= s.size());
  out.seconds = ev.elapsed() - t0;
  return out;
}

}  // namespace mapwright::flows::codesign
