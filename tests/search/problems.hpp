#pragma once
// Synthetic problems with known optima for the search tests. Costs are products of
// per-group factors, so log-cost is additive across groups and interacting inside them.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/search/options.hpp"
#include "mapwright/search/searcher.hpp"

namespace mapwright::search::testing {

/// A valid outcome of cost `cost`.
inline Outcome valid(double cost) {
  Outcome o;
  o.valid = true;
  o.cost = cost;
  return o;
}
/// An invalid outcome with message `reason` and class `failure_class` (empty: "invalid").
inline Outcome invalid(std::string reason, std::string failure_class = "") {
  Outcome o;
  o.reason = std::move(reason);
  o.failure_class = std::move(failure_class);
  return o;
}

/// Six independent parameters (four ordinal, two categorical); optimum cost 1.0 at
/// kSeparableOptimum.
inline Problem separable_problem() {
  return Problem{{{"o8", 8, true},
                  {"o16", 16, true},
                  {"o32", 32, true},
                  {"o64", 64, true},
                  {"c6", 6, false},
                  {"c12", 12, false}}};
}
inline const Point kSeparableOptimum = {5, 3, 20, 41, 2, 7};

inline double categorical_factor(int64_t x, int64_t target) {
  return x == target ? 1.0 : 1.3 + 0.1 * static_cast<double>((x * 7) % 5);
}

inline Outcome separable_cost(const Point& x) {
  const Problem p = separable_problem();
  double c = 1.0;
  for (size_t i = 0; i < 4; ++i) {
    const double d = static_cast<double>(x[i] - kSeparableOptimum[i]) /
                     (static_cast<double>(p.params[i].cardinality) / 8.0);
    c *= 1.0 + 0.25 * d * d;
  }
  c *= categorical_factor(x[4], kSeparableOptimum[4]);
  c *= categorical_factor(x[5], kSeparableOptimum[5]);
  return valid(c);
}

/// f = g1(x0,x1,x2) * g2(x3,x4) * g3(x5), strong interactions inside each group, every
/// parameter in 0..7; optimum 1.0 at {4,4,4,5,4,2}.
inline Problem grouped_problem() {
  Problem p;
  for (int i = 0; i < 6; ++i) p.params.push_back({"x" + std::to_string(i), 8, true});
  return p;
}
inline const Point kGroupedOptimum = {4, 4, 4, 5, 4, 2};

inline Outcome grouped_cost(const Point& x) {
  auto sq = [](double v) { return v * v; };
  const double x0 = static_cast<double>(x[0]), x1 = static_cast<double>(x[1]),
               x2 = static_cast<double>(x[2]), x3 = static_cast<double>(x[3]),
               x4 = static_cast<double>(x[4]), x5 = static_cast<double>(x[5]);
  const double g1 = 1 + (sq(x0 - x1) + sq(x1 - x2) + sq(x0 - x2)) / 2 + sq(x0 - 4) / 8;
  const double g2 = 1 + sq(x3 + x4 - 9) / 2 + sq(x3 - 5) / 8;
  const double g3 = 1 + sq(x5 - 2) / 4;
  return valid(g1 * g2 * g3);
}

/// A mapping-like space with large domains: a 5040-value loop-order index (categorical),
/// tile sizes over 4096 and 1024 values (ordinal) that must fit a buffer together, a
/// dataflow choice and a PE count. Invalid points report "does not fit: ...". The best cost
/// is about 1.04 (52 of the 5040 orders are best).
inline Problem mapping_problem() {
  return Problem{{{"order", 5040, false},
                  {"tile_a", 4096, true},
                  {"tile_b", 1024, true},
                  {"dataflow", 3, false},
                  {"pes", 16, true}}};
}

inline Outcome mapping_cost(const Point& x) {
  const double a = static_cast<double>(x[1] + 1), b = static_cast<double>(x[2] + 1);
  if (a * b > 1048576.0) return invalid("does not fit: tile_a * tile_b > buffer", "does not fit");
  const double order = 1.0 + 2.0 * static_cast<double>((x[0] * 2654435761LL) % 97) / 96.0;
  const double tiles = (1.0 + 40.96 / a) * (1.0 + 10.24 / b);
  const double flow = x[3] == 1 ? 1.0 : 1.4;
  const double pe_off = static_cast<double>(x[4] - 10) / 4.0;
  const double pes = 1.0 + pe_off * pe_off;
  return valid(order * tiles * flow * pes);
}

/// Evaluates a batch with a per-point cost function.
template <class F>
EvaluateFn batch_of(F f) {
  return [f](const std::vector<Point>& pts) {
    std::vector<Outcome> out;
    out.reserve(pts.size());
    for (const auto& p : pts) out.push_back(f(p));
    return out;
  };
}

/// The built-in default options.
inline const SearchOptions kDefaults{};

/// marl's learner as it was tuned on these synthetic problems, before the equal-effort tuning on
/// real layers set today's defaults (lr 0.0288, batch 10, entropy 0.124, repeat penalty 1.06,
/// 26 initial samples): the behavioural tests of marl's mechanisms pin it, so that they test the
/// mechanism and do not move with the defaults.
inline SearchOptions synthetic_marl_options() {
  SearchOptions o;
  o.marl.initial_samples = 32;
  o.marl.learner.lr = 0.02;
  o.marl.learner.batch = 16;
  o.marl.learner.entropy_coef = 0.1;
  o.marl.learner.repeat_penalty = 0.5;
  return o;
}

}  // namespace mapwright::search::testing
