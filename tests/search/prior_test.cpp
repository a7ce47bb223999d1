// A prior (Searcher::prime): uniformly drawn points scored by a cheaper evaluator, given to a
// searcher before its first ask. prior_points draws distinct seeded points; every searcher but
// random takes the prior, each in its own way (sa starts at its best, ga breeds from its best,
// marl clusters on it instead of spending initial samples), runs stay deterministic, and on the
// separable problem a prior helps the searchers that use it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "problems.hpp"

using namespace mapwright::search;
using namespace mapwright::search::testing;

namespace {

/// The prior's outcomes under `f`.
template <class F>
std::vector<Outcome> score(const std::vector<Point>& pts, F f) {
  std::vector<Outcome> out;
  for (const Point& p : pts) out.push_back(f(p));
  return out;
}

/// Best cost of a `budget`-sample run of `kind` on the separable problem, with a prior of
/// `prior` points (0: none).
double best_after(const std::string& kind, uint64_t seed, int64_t budget, int64_t prior) {
  const Problem p = separable_problem();
  auto s = make_searcher(kind, p, kDefaults, seed);
  if (prior > 0) {
    const std::vector<Point> pts = prior_points(p, prior, seed);
    s->prime(pts, score(pts, separable_cost));
  }
  return run_search(*s, batch_of(separable_cost), budget).best_cost;
}

}  // namespace

TEST(Prior, PointsAreDistinctSeededAndInsideTheDomains) {
  const Problem p = separable_problem();
  const std::vector<Point> a = prior_points(p, 300, 7);
  ASSERT_EQ(a.size(), 300u);
  EXPECT_EQ(std::set<Point>(a.begin(), a.end()).size(), 300u);
  for (const Point& x : a)
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_GE(x[k], 0);
      EXPECT_LT(x[k], p.params[k].cardinality);
    }
  EXPECT_EQ(prior_points(p, 300, 7), a);
  EXPECT_NE(prior_points(p, 300, 8), a);
  // A space of 6 points gives at most 6.
  const Problem tiny{{{"a", 2, true}, {"b", 3, false}}};
  const std::vector<Point> all = prior_points(tiny, 100, 1);
  EXPECT_EQ(all.size(), 6u);
  EXPECT_EQ(std::set<Point>(all.begin(), all.end()).size(), 6u);
  EXPECT_TRUE(prior_points(tiny, 0, 1).empty());
}

TEST(Prior, EverySearcherButRandomTakesItAndRunsTheWholeBudget) {
  const Problem p = separable_problem();
  const std::vector<Point> pts = prior_points(p, 64, 3);
  const std::vector<Outcome> out = score(pts, separable_cost);
  for (const std::string& kind : searcher_kinds()) {
    auto s = make_searcher(kind, p, kDefaults, 3);
    s->prime(pts, out);
    EXPECT_EQ(s->primed(), kind == "random" ? 0 : 64) << kind;
    const SearchResult r = run_search(*s, batch_of(separable_cost), 40);
    EXPECT_EQ(r.samples, 40) << kind;
    EXPECT_TRUE(r.found) << kind;
  }
}

TEST(Prior, SaStartsItsWalkAtThePriorsBest) {
  const Problem p = separable_problem();
  std::vector<Point> pts = prior_points(p, 50, 5);
  pts.push_back(kSeparableOptimum);
  std::vector<Outcome> out = score(pts, separable_cost);
  auto s = make_searcher("sa", p, kDefaults, 5);
  s->prime(pts, out);
  // Its first proposal is a neighbour of the optimum: one parameter changed (params_per_move).
  const std::vector<Point> first = s->ask(1);
  ASSERT_EQ(first.size(), 1u);
  int changed = 0;
  for (size_t k = 0; k < first[0].size(); ++k) changed += first[0][k] != kSeparableOptimum[k];
  EXPECT_EQ(changed, 1);
  // Without the prior it starts anywhere: a uniform point (not a neighbour of the optimum).
  auto cold = make_searcher("sa", p, kDefaults, 5);
  const Point c = cold->ask(1)[0];
  int far = 0;
  for (size_t k = 0; k < c.size(); ++k) far += c[k] != kSeparableOptimum[k];
  EXPECT_GT(far, 1);
}

TEST(Prior, GaBreedsItsFirstGenerationFromThePriorsBest) {
  const Problem p = separable_problem();
  // 200 poor points, and 18 (the default population) good ones that all have o8 = 5.
  std::vector<Point> pts = prior_points(p, 218, 9);
  std::vector<Outcome> out;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (i < 18) pts[i][0] = 5;
    out.push_back(valid(i < 18 ? 1.0 + 0.01 * static_cast<double>(i) : 50.0));
  }
  auto s = make_searcher("ga", p, kDefaults, 9);
  s->prime(pts, out);
  const std::vector<Point> brood = s->ask(64);
  ASSERT_FALSE(brood.empty());
  const auto with5 =
      std::count_if(brood.begin(), brood.end(), [](const Point& x) { return x[0] == 5; });
  // A child keeps its parents' o8 = 5 unless mutated (13 %); a random point has it 1 in 8.
  EXPECT_GE(static_cast<double>(with5), 0.6 * static_cast<double>(brood.size()))
      << with5 << " of " << brood.size();
}

TEST(Prior, MarlClustersOnThePriorAndSpendsNoInitialSamples) {
  const Problem p = grouped_problem();
  const std::vector<Point> pts = prior_points(p, 200, 11);
  auto s = make_searcher("marl", p, kDefaults, 11);
  s->prime(pts, score(pts, grouped_cost));
  EXPECT_EQ(s->primed(), 200);
  EXPECT_FALSE(s->describe()["clustering"].is_null());
  // Its first ask comes from the agents' policies: one learner batch, not 26 initial points.
  EXPECT_EQ(s->ask(64).size(), static_cast<size_t>(kDefaults.marl.learner.batch));
  // A prior of fewer than 8 points is ignored: the initial sample is spent as usual.
  auto small = make_searcher("marl", p, kDefaults, 11);
  const std::vector<Point> few(pts.begin(), pts.begin() + 5);
  small->prime(few, score(few, grouped_cost));
  EXPECT_EQ(small->primed(), 0);
  EXPECT_EQ(small->ask(64).size(), static_cast<size_t>(kDefaults.marl.initial_samples));
}

TEST(Prior, SameSeedAndPriorGiveIdenticalRuns) {
  const Problem p = separable_problem();
  const std::vector<Point> pts = prior_points(p, 48, 2);
  const std::vector<Outcome> out = score(pts, separable_cost);
  for (const std::string& kind : searcher_kinds()) {
    std::vector<double> curves[2];
    for (auto& c : curves) {
      auto s = make_searcher(kind, p, kDefaults, 2);
      s->prime(pts, out);
      c = run_search(*s, batch_of(separable_cost), 30).best_so_far;
    }
    EXPECT_EQ(curves[0], curves[1]) << kind;
  }
}

TEST(Prior, HelpsTheSearchersThatUseItOnTheSeparableProblem) {
  // Geometric mean over seeds 1-6 of the best cost after 48 samples, with a prior of 256
  // points and without. Every searcher that takes the prior ends better with it.
  for (const std::string kind : {"ga", "sa", "ppo", "ppo-box", "marl", "bo"}) {
    double with = 0, without = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      with += std::log(best_after(kind, seed, 48, 256)) / 6;
      without += std::log(best_after(kind, seed, 48, 0)) / 6;
    }
    EXPECT_LT(with, without) << kind << ": " << std::exp(with) << " with, " << std::exp(without)
                             << " without";
  }
}
