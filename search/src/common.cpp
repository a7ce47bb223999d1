// Helpers shared by all searchers: portable random draws from std::mt19937_64, random points,
// single-parameter mutations that respect ordinal structure, and the reward normalization of
// the RL searchers (log of a reference cost over the cost, with a fixed invalid penalty).
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mapwright::search::detail {

uint64_t mix_seed(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int64_t uniform_index(std::mt19937_64& rng, int64_t n) {
  if (n <= 1) return 0;
  const uint64_t range = static_cast<uint64_t>(n);
  const uint64_t reject_below = (0 - range) % range;  // 2^64 mod n: values below are biased.
  for (;;) {
    const uint64_t x = rng();
    if (x >= reject_below) return static_cast<int64_t>(x % range);
  }
}

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

Point random_point(const Problem& problem, std::mt19937_64& rng) {
  Point p(problem.params.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = uniform_index(rng, problem.params[i].cardinality);
  return p;
}

int64_t space_size(const Problem& problem) {
  int64_t n = 1;
  for (const auto& p : problem.params) {
    if (n > INT64_MAX / p.cardinality) return INT64_MAX;
    n *= p.cardinality;
  }
  return n;
}

int64_t mutate_value(const ParamSpec& spec, int64_t v, double radius, std::mt19937_64& rng) {
  const int64_t card = spec.cardinality;
  if (card <= 1) return v;
  if (spec.ordinal && uniform01(rng) < 0.8) {
    const int64_t max_step = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(radius * static_cast<double>(card))));
    const int64_t step = 1 + uniform_index(rng, max_step);
    int64_t w = uniform01(rng) < 0.5 ? v - step : v + step;
    // Reflect at the ends; a step larger than the range falls back to the far end.
    if (w < 0) w = std::min<int64_t>(-w, card - 1);
    if (w >= card) w = std::max<int64_t>(2 * (card - 1) - w, 0);
    if (w != v) return w;
  }
  // Uniform jump to one of the other card - 1 values.
  const int64_t w = uniform_index(rng, card - 1);
  return w >= v ? w + 1 : w;
}

nlohmann::json problem_json(const Problem& problem) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : problem.params)
    params.push_back({{"name", p.name}, {"cardinality", p.cardinality}, {"ordinal", p.ordinal}});
  return params;
}

std::vector<double> RewardNormalizer::rewards(const std::vector<Outcome>& outcomes) {
  if (form_.inverse) {
    std::vector<double> r(outcomes.size(), 0.0);
    for (size_t i = 0; i < outcomes.size(); ++i) {
      r[i] = outcomes[i].valid ? 1.0 / (outcomes[i].cost * form_.scale) : form_.invalid_reward;
      if (outcomes[i].repeat) r[i] -= repeat_penalty_;
    }
    return r;
  }
  if (!has_ref_) {
    std::vector<double> costs;
    for (const auto& o : outcomes)
      if (o.valid) costs.push_back(o.cost);
    if (!costs.empty()) {
      ref_ = median(costs);
      has_ref_ = true;
    }
  }
  std::vector<double> r(outcomes.size(), 0.0);
  // Valid rewards first, so that an invalid point is penalized against this batch too.
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].valid) continue;
    r[i] = std::log(ref_ / outcomes[i].cost);
    if (!seen_valid_ || r[i] < worst_) worst_ = r[i];
    seen_valid_ = true;
  }
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].valid) r[i] = (seen_valid_ ? worst_ : 0.0) - penalty_;
    if (outcomes[i].repeat) r[i] -= repeat_penalty_;
  }
  return r;
}

}  // namespace mapwright::search::detail
