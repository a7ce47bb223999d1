// Behavioural tests of every searcher on problems with a known optimum and fixed seeds: the
// optimum is found within a stated budget, the rewarded action's probability rises within a
// few updates for the learners, large categorical domains work and are fast, and the same
// seed gives bit-identical runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "mapwright/search/searcher.hpp"
#include "problems.hpp"
#include "sanitized.hpp"

namespace mapwright::search {
namespace {

using testing::invalid;
using testing::valid;

/// Runs three searchers in lockstep for `rounds` asks of `n` points: `a` and `b` (same seed) must
/// propose identical points every round (and `size` points each, when given); returns whether
/// `c` (another seed) proposed something else at least once.
bool lockstep(Searcher& a, Searcher& b, Searcher& c, const EvaluateFn& ev, int rounds, int n,
              size_t size = 0) {
  bool differs = false;
  for (int round = 0; round < rounds; ++round) {
    const auto pa = a.ask(n), pb = b.ask(n), pc = c.ask(n);
    if (size) {
      EXPECT_EQ(pa.size(), size) << "round " << round;
    }
    EXPECT_EQ(pa, pb) << "round " << round;
    if (pa != pb) return differs;
    differs = differs || pa != pc;
    a.tell(pa, ev(pa));
    b.tell(pb, ev(pb));
    c.tell(pc, ev(pc));
  }
  return differs;
}

using testing::batch_of;

SearchResult run(const std::string& kind, const Problem& p, const EvaluateFn& ev, int64_t budget,
                 uint64_t seed, const SearchOptions& o = testing::kDefaults) {
  auto s = make_searcher(kind, p, o, seed);
  return run_search(*s, ev, budget);
}

TEST(Random, FindsTheOptimumOfASmallSpace) {
  // 625 points; 3000 uniform samples (duplicates re-drawn) cover it.
  const Problem p{{{"a", 5, true}, {"b", 5, true}, {"c", 5, false}, {"d", 5, false}}};
  const SearchResult r = run("random", p, batch_of([](const Point& x) {
                               double c = 1;
                               for (int64_t v : x) c *= 1.0 + static_cast<double>(v != 2);
                               return valid(c);
                             }),
                             1000, 1);
  EXPECT_EQ(r.best_point, (Point{2, 2, 2, 2}));
  EXPECT_EQ(r.best_cost, 1.0);
}

/// Budget within which each searcher finds the optimum of the separable 6-parameter problem
/// (786,432 points) for seeds 1..3.
struct BudgetCase {
  std::string kind;  ///< Searcher.
  int64_t budget;    ///< Samples allowed.
};

class SeparableOptimum : public ::testing::TestWithParam<BudgetCase> {};

TEST_P(SeparableOptimum, IsFoundWithinBudget) {
  const BudgetCase c = GetParam();
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const SearchResult r = run(c.kind, testing::separable_problem(),
                               batch_of(testing::separable_cost), c.budget, seed);
    EXPECT_EQ(r.best_point, testing::kSeparableOptimum) << c.kind << " seed " << seed;
    EXPECT_DOUBLE_EQ(r.best_cost, 1.0) << c.kind << " seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(AllLearners, SeparableOptimum,
                         ::testing::Values(BudgetCase{"ga", 1500}, BudgetCase{"sa", 1500},
                                           BudgetCase{"ppo", 1500}, BudgetCase{"marl", 1500}),
                         [](const auto& test_info) { return test_info.param.kind; });

TEST(Marl, FindsTheGroupedOptimumWithItsClusters) {
  // With a 192-point initial sample the clustering recovers the planted groups (see
  // tests/search/clustering_test.cpp), so each group is one agent. Not every seed finds the
  // optimum within 1000 samples: the learners (ppo too) can settle on the local optimum
  // {3,3,3,5,4,2} (cost 1.125), three coordinated moves away. Measured: 4 of 10 seeds with
  // the default options (self-imitation speeds convergence on real layers but makes this
  // trap likelier; search/README.md, "Known limitations").
  SearchOptions o = testing::synthetic_marl_options();
  o.marl.initial_samples = 192;
  int found = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(test_cases::cases(10)); ++seed) {
    const SearchResult r =
        run("marl", testing::grouped_problem(), batch_of(testing::grouped_cost), 1000, seed, o);
    found += r.best_point == testing::kGroupedOptimum;
  }
  // How many seeds find it is a property of all ten (test_cases).
  if (!test_cases::kSanitized) EXPECT_GE(found, 3);
}

/// Mean over seeds 1..5 of log(best cost) after `budget` samples of marl on a separable
/// 12-parameter problem (optimum cost 1, log-cost = sum of per-parameter distances to the
/// optimum), with the given credit rule and self-imitation off.
double separable12_log_best(const std::string& credit, int64_t budget) {
  Problem p;
  for (int k = 0; k < 12; ++k) p.params.push_back({"x" + std::to_string(k), 12, true});
  auto ev = batch_of([](const Point& x) {
    double y = 0;
    for (size_t k = 0; k < x.size(); ++k)
      y += 0.15 * static_cast<double>(std::llabs(x[k] - static_cast<int64_t>(k % 12)));
    return valid(std::exp(y));
  });
  SearchOptions o;  // Fixed here, so that the comparison does not move with the defaults.
  o.marl.credit = credit;
  o.marl.initial_samples = 128;
  o.marl.learner.batch = 32;
  o.marl.learner.imitation_coef = 0;
  double sum = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed)
    sum += std::log(run("marl", p, ev, budget, seed, o).best_cost);
  return sum / 5;
}

TEST(Marl, CounterfactualCreditLearnsFasterThanTeamCredit) {
  // Twelve one-parameter agents share one reward: with team credit each agent's signal is
  // buried in the other eleven's choices; the factored critic's counterfactual baseline
  // removes them. Measured at 400 samples (mean log of the best cost, 0 = optimum):
  // counterfactual 0 (the optimum for all five seeds), team 0.48.
  const double cf = separable12_log_best("counterfactual", 400);
  const double team = separable12_log_best("team", 400);
  EXPECT_LT(cf, 0.5 * team) << "counterfactual " << cf << ", team " << team;
}

/// Fraction of the points of a batch whose parameter 0 equals v.
double share(const std::vector<Point>& pts, int64_t v) {
  int n = 0;
  for (const auto& p : pts) n += p[0] == v;
  return static_cast<double>(n) / static_cast<double>(pts.size());
}

/// One rewarded value of a 10-value categorical parameter (the other parameter does not
/// matter): its share of the proposals must rise from chance to most (mean of the last three
/// batches above 0.7) within N updates.
void expect_rewarded_action_rises(const std::string& kind, SearchOptions o, int updates) {
  const Problem p{{{"a", 10, false}, {"b", 10, false}}};
  auto ev = batch_of([](const Point& x) { return valid(x[0] == 3 ? 1.0 : 2.0); });
  o.marl.initial_samples = 32;
  auto s = make_searcher(kind, p, o, 11);
  if (kind == "marl") {  // The initial random sample is the agents' first batch.
    const auto pts = s->ask(1000);
    s->tell(pts, ev(pts));
  }
  auto first = s->ask(1000);
  const double before = share(first, 3);
  s->tell(first, ev(first));
  double after = 0;
  for (int u = 1; u < updates; ++u) {
    const auto pts = s->ask(1000);
    if (u >= updates - 3) after += share(pts, 3) / 3.0;
    s->tell(pts, ev(pts));
  }
  EXPECT_LT(before, 0.4) << kind;
  EXPECT_GT(after, 0.7) << kind << " after " << updates << " updates";
}

TEST(Ppo, RewardedActionProbabilityRises) {
  expect_rewarded_action_rises("ppo", testing::kDefaults, 30);
}

TEST(Ppo, ReinforceRewardedActionProbabilityRises) {
  SearchOptions o;
  o.ppo.algorithm = "reinforce";
  o.ppo.lr = 0.1;
  expect_rewarded_action_rises("ppo", o, 30);
}

TEST(Marl, RewardedActionProbabilityRises) {
  expect_rewarded_action_rises("marl", testing::kDefaults, 30);
}

TEST(Marl, ReinforceRewardedActionProbabilityRises) {
  SearchOptions o = testing::synthetic_marl_options();
  o.marl.learner.algorithm = "reinforce";
  o.marl.learner.lr = 0.1;
  expect_rewarded_action_rises("marl", o, 30);
}

TEST(Marl, InitialSampleCountsAndClustersAreRecorded) {
  const Problem p = testing::grouped_problem();
  SearchOptions o;
  o.marl.initial_samples = 192;
  auto s = make_searcher("marl", p, o, 5);
  EXPECT_TRUE(s->describe()["clustering"].is_null());
  int64_t evaluated = 0;
  EvaluateFn ev = [&](const std::vector<Point>& pts) {
    evaluated += static_cast<int64_t>(pts.size());
    return batch_of(testing::grouped_cost)(pts);
  };
  const SearchResult r = run_search(*s, ev, 192 + 64);
  EXPECT_EQ(evaluated, 256);  // Every distinct point once; repeats come from the cache.
  EXPECT_EQ(r.samples, 256);
  const nlohmann::json d = s->describe();
  EXPECT_EQ(d["clustering"]["clusters"],
            (nlohmann::json{{"x0", "x1", "x2"}, {"x3", "x4"}, {"x5"}}));
  ASSERT_EQ(d["agents"].size(), 3u);
  // Initial sample + four batches of 16 fresh points, plus the batches that held repeats
  // (they are told, too, and count as updates).
  EXPECT_GE(d["agents"][0]["learner"]["updates"].get<int64_t>(), 5) << r.duplicates;
  EXPECT_LE(d["agents"][0]["learner"]["updates"].get<int64_t>(), 5 + r.duplicates) << r.duplicates;
  EXPECT_EQ(d["seed"], 5);
}

TEST(Marl, ReclusteringOnLaterSamplesFindsThePlantedGroups) {
  // 32 initial points are too few for the interaction tests (one agent per parameter); at
  // 192 samples the agents' own (independent) samples are clustered again.
  const Problem p = testing::grouped_problem();
  SearchOptions o = testing::synthetic_marl_options();
  o.marl.initial_samples = 32;
  o.marl.recluster_at = 192;
  o.marl.learner.entropy_coef = 0.03;  // Fixed: the on-policy sample depends on the learner.
  auto s = make_searcher("marl", p, o, 4);
  run_search(*s, batch_of(testing::grouped_cost), 256);
  const nlohmann::json d = s->describe();
  EXPECT_EQ(d["reclustered_at"], 192);
  EXPECT_TRUE(d["reclustering_changed_agents"].get<bool>());
  // Both planted groups are whole and kept apart (with seed 4, x5 joins {x3, x4} through a
  // weak false association: the on-policy points are fewer per cell than a uniform sample).
  std::map<std::string, int> agent_of;
  const auto& clusters = d["clustering"]["clusters"];
  for (size_t a = 0; a < clusters.size(); ++a)
    for (const auto& name : clusters[a]) agent_of[name.get<std::string>()] = static_cast<int>(a);
  EXPECT_EQ(agent_of["x0"], agent_of["x1"]) << d["clustering"].dump();
  EXPECT_EQ(agent_of["x0"], agent_of["x2"]) << d["clustering"].dump();
  EXPECT_EQ(agent_of["x3"], agent_of["x4"]) << d["clustering"].dump();
  EXPECT_NE(agent_of["x0"], agent_of["x3"]) << d["clustering"].dump();
}

TEST(Marl, AblationModesRun) {
  std::map<std::string, size_t> agents;
  for (const std::string mode : {"correlation", "per-param", "random", "single"}) {
    SearchOptions o;
    o.marl.mode = mode;
    auto s = make_searcher("marl", testing::grouped_problem(), o, 3);
    const SearchResult r = run_search(*s, batch_of(testing::grouped_cost), 300);
    EXPECT_TRUE(r.samples == 300 || r.exhausted) << mode;
    agents[mode] = s->describe()["agents"].size();
    EXPECT_EQ(s->describe()["clustering"]["mode"], mode);
  }
  EXPECT_EQ(agents["per-param"], 6u);
  EXPECT_EQ(agents["single"], 1u);
  EXPECT_EQ(agents["random"], agents["correlation"]);  // Same cluster sizes.
}

// The learners' speed on these domains is not asserted: no test depends on the machine's speed
// or load.
TEST(LargeDomains, AllSearchersWork) {
  // 5040-value categorical and 4096-value ordinal parameters, invalid points included.
  const Problem p = testing::mapping_problem();
  const EvaluateFn ev = batch_of(testing::mapping_cost);
  const SearchResult random = run("random", p, ev, 600, 4);
  for (const std::string kind : {"ga", "sa", "ppo", "marl"}) {
    const SearchResult r = run(kind, p, ev, 600, 4);
    EXPECT_TRUE(r.found) << kind;
    EXPECT_LT(r.best_cost, 1.2) << kind;  // Best is about 1.04; typical random points ~5.
  }
  EXPECT_TRUE(random.found);
}

TEST(Determinism, SameSeedGivesIdenticalRuns) {
  const Problem p = testing::mapping_problem();
  const EvaluateFn ev = batch_of(testing::mapping_cost);
  for (const std::string kind : {"random", "ga", "sa", "ppo", "ppo-box", "marl", "bo"}) {
    const SearchResult a = run(kind, p, ev, 400, 9);
    const SearchResult b = run(kind, p, ev, 400, 9);
    EXPECT_EQ(a.best_so_far, b.best_so_far) << kind;  // Bit-identical doubles.
    EXPECT_EQ(a.best_point, b.best_point) << kind;
    EXPECT_EQ(a.valid, b.valid) << kind;
    const SearchResult c = run(kind, p, ev, 400, 10);
    EXPECT_NE(a.best_so_far, c.best_so_far) << kind << ": another seed, another run";
  }
}

TEST(Determinism, InterleavedLearnersDoNotDisturbEachOther) {
  // Sampling uses each searcher's own generator, so interleaving two runs changes nothing.
  const Problem p = testing::separable_problem();
  const EvaluateFn ev = batch_of(testing::separable_cost);
  const SearchResult alone = run("ppo", p, ev, 320, 21);
  auto a = make_searcher("ppo", p, testing::kDefaults, 21);
  auto b = make_searcher("marl", p, testing::kDefaults, 22);
  std::vector<double> curve;
  double best = 1e300;
  for (int round = 0; round < 10; ++round) {
    const auto pa = a->ask(32);
    const auto oa = ev(pa);
    for (const auto& o : oa) curve.push_back(best = std::min(best, o.cost));
    const auto pb = b->ask(32);
    b->tell(pb, ev(pb));
    a->tell(pa, oa);
  }
  EXPECT_EQ(curve, alone.best_so_far);
}

TEST(Describe, RecordsSeedsAndOptions) {
  for (const std::string kind : {"random", "ga", "sa", "ppo", "ppo-box", "marl", "bo"}) {
    auto s = make_searcher(kind, testing::separable_problem(), testing::kDefaults, 42);
    const nlohmann::json d = s->describe();
    EXPECT_EQ(d["kind"], kind);
    EXPECT_EQ(s->name(), kind);
    EXPECT_EQ(d["seed"], 42);
    EXPECT_TRUE(d.contains("options")) << kind;
    EXPECT_EQ(d["problem"].size(), 6u);
  }
  EXPECT_TRUE(make_searcher("ppo", testing::separable_problem(), testing::kDefaults, 42)
                  ->describe()
                  .contains("torch_seed"));
}

// ppo-box: the paper's single-agent baseline (one tanh-Gaussian box action over all
// parameters, search/README.md).

TEST(PpoBox, SameSeedGivesIdenticalProposals) {
  const Problem p = testing::separable_problem();
  const EvaluateFn ev = batch_of(testing::separable_cost);
  auto a = make_searcher("ppo-box", p, testing::kDefaults, 3);
  auto b = make_searcher("ppo-box", p, testing::kDefaults, 3);
  auto c = make_searcher("ppo-box", p, testing::kDefaults, 4);
  EXPECT_TRUE(lockstep(*a, *b, *c, ev, 8, 32)) << "another seed, other proposals";
  EXPECT_EQ(a->describe()["learner"], b->describe()["learner"]);
  EXPECT_EQ(a->describe()["learner"]["updates"], 8);
}

/// The distance of ppo-box's mean action (decoded to indices) from the separable problem's
/// optimum, summed over its four parameters in units of each range.
double separable_distance(const Problem& p, const nlohmann::json& mean_index) {
  double d = 0;
  for (size_t k = 0; k < 4; ++k)
    d +=
        std::abs(mean_index[k].get<double>() - static_cast<double>(testing::kSeparableOptimum[k])) /
        static_cast<double>(p.params[k].cardinality);
  return d;
}

TEST(PpoBox, MeanActionMovesTowardTheRewardedValues) {
  // Separable problem: the four ordinal parameters' optimum indices are 5/8, 3/16, 20/32 and
  // 41/64; the initial mean action is the middle of every range. Within 40 updates of 32
  // points the mean (decoded to an index) must have covered three quarters of the way to the
  // optimum, summed over the four, in units of each range. Measured for seeds 1-10: 0.70
  // before, 0.00-0.09 after.
  const Problem p = testing::separable_problem();
  const EvaluateFn ev = batch_of(testing::separable_cost);
  auto s = make_searcher("ppo-box", p, testing::kDefaults, 7);
  const double before = separable_distance(p, s->describe()["learner"]["mean_index"]);
  for (int u = 0; u < 40; ++u) {
    const auto pts = s->ask(32);
    s->tell(pts, ev(pts));
  }
  const nlohmann::json learner = s->describe()["learner"];
  const double after = separable_distance(p, learner["mean_index"]);
  EXPECT_GT(before, 0.3);
  EXPECT_LT(after, 0.25 * before) << learner.dump();
}

// reward: inverse is ArchGym's MAESTRO reward, 1 / (cost x scale). On EDP-sized costs every
// reward is below 1e-12 and equal rewards give zero advantages: the learner gets no quality
// signal. On costs near 1 (the same form, scale 1) it does. Both runs are of the test above;
// the mean's distance to the optimum after / before, measured for seeds 1-10: 0.96-1.42 on
// EDP-sized costs, 0.00-0.04 on costs near 1.
double ppo_box_distance_ratio(double cost_scale, uint64_t seed) {
  const Problem p = testing::separable_problem();
  SearchOptions o = testing::kDefaults;
  o.ppo_box.reward = "inverse";
  o.ppo_box.inverse_scale = 1.0;
  const EvaluateFn ev = [cost_scale](const std::vector<Point>& pts) {
    std::vector<Outcome> out;
    for (const auto& x : pts) {
      Outcome c = testing::separable_cost(x);
      c.cost *= cost_scale;
      out.push_back(c);
    }
    return out;
  };
  auto s = make_searcher("ppo-box", p, o, seed);
  const double before = separable_distance(p, s->describe()["learner"]["mean_index"]);
  for (int u = 0; u < 40; ++u) {
    const auto pts = s->ask(32);
    s->tell(pts, ev(pts));
  }
  return separable_distance(p, s->describe()["learner"]["mean_index"]) / before;
}

TEST(PpoBox, InverseRewardOnEdpSizedCostsCarriesNoQualitySignal) {
  const double flat = ppo_box_distance_ratio(1e13, 7), informative = ppo_box_distance_ratio(1, 7);
  EXPECT_GT(flat, 0.6);
  EXPECT_LT(informative, 0.5);
}

TEST(PpoBox, ProposalsStayInsideTheDomains) {
  // Cardinalities 1 and 2 and a large range; invalid points too (a wide spread of rewards).
  const Problem p{{{"one", 1, true}, {"two", 2, false}, {"big", 4096, true}, {"c7", 7, false}}};
  int64_t seen = 0;
  EvaluateFn ev = [&](const std::vector<Point>& pts) {
    std::vector<Outcome> out;
    for (const auto& x : pts) {
      EXPECT_EQ(x.size(), 4u);
      for (size_t k = 0; k < x.size(); ++k) {
        EXPECT_GE(x[k], 0) << k;
        EXPECT_LT(x[k], p.params[k].cardinality) << k;
      }
      ++seen;
      out.push_back(x[2] > 4000 ? invalid("does not fit: big", "does not fit")
                                : valid(1.0 + static_cast<double>(x[2]) / 64.0));
    }
    return out;
  };
  auto s = make_searcher("ppo-box", p, testing::kDefaults, 2);
  const SearchResult r = run_search(*s, ev, 800);
  EXPECT_GT(seen, 0);
  EXPECT_TRUE(r.found);
}

TEST(PpoBox, RunsOnTheLargeDomainMappingProblem) {
  const Problem p = testing::mapping_problem();
  auto s = make_searcher("ppo-box", p, testing::kDefaults, 4);
  const SearchResult r = run_search(*s, batch_of(testing::mapping_cost), 600);
  EXPECT_TRUE(r.found);
  EXPECT_TRUE(r.samples == 600 || r.exhausted);
  EXPECT_LT(r.best_cost, 5.0);  // A weak learner; typical random points cost ~5.
  const nlohmann::json d = s->describe();
  EXPECT_EQ(d["kind"], "ppo-box");
  EXPECT_GE(d["learner"]["updates"].get<int64_t>(), 600 / 32);
  EXPECT_EQ(d["learner"]["mean_index"].size(), 5u);
}

// bo: dlib's global_function_search (MaxLIPO + trust region) as a baseline (search/README.md).

/// A 4-parameter bowl over 16^4 = 65,536 points, optimum 1.0 at {11, 4, 7, 13}: log-cost is
/// separable and smooth in the indices, the kind of structure dlib's models assume.
Problem bowl_problem() {
  return Problem{{{"a", 16, true}, {"b", 16, true}, {"c", 16, true}, {"d", 16, true}}};
}
const Point kBowlOptimum = {11, 4, 7, 13};
Outcome bowl_cost(const Point& x) {
  double c = 1;
  for (size_t k = 0; k < 4; ++k) {
    const double d = static_cast<double>(x[k] - kBowlOptimum[k]);
    c *= 1.0 + 0.05 * d * d;
  }
  return valid(c);
}

TEST(Bo, FindsTheOptimumOfASmoothSpaceWhereRandomDoesNot) {
  // 200 samples of 65,536 points: random search hits the optimum with probability 0.3 % per
  // run. Measured (seeds 1-5): bo finds it for every seed, in both encodings of the ordinal
  // parameters (real variables rounded by us, or dlib integer variables); random never does.
  SearchOptions integer;
  integer.bo.ordinal_continuous = false;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const SearchResult bo = run("bo", bowl_problem(), batch_of(bowl_cost), 200, seed);
    EXPECT_EQ(bo.best_point, kBowlOptimum) << "seed " << seed;
    const SearchResult bo_int = run("bo", bowl_problem(), batch_of(bowl_cost), 200, seed, integer);
    EXPECT_EQ(bo_int.best_point, kBowlOptimum) << "integer, seed " << seed;
    const SearchResult random = run("random", bowl_problem(), batch_of(bowl_cost), 200, seed);
    EXPECT_GT(random.best_cost, bo.best_cost) << "seed " << seed;
  }
}

TEST(Bo, BeatsRandomOnTheSyntheticProblems) {
  // Median over seeds 1-5 of log(best / optimum) at 300 samples on the separable and grouped
  // problems (786,432 and 262,144 points). Measured: separable bo 0.05, random 0.74; grouped
  // bo 0.87, random 1.24 (the grouped problem's strong interactions are hard for dlib's
  // Lipschitz model: bo's integer encoding finds its optimum there for 6 of 6 seeds at 800
  // samples, the default encoding for 1 of 6; search/README.md, "bo").
  auto median_log = [](const std::string& kind, const Problem& p, const EvaluateFn& ev) {
    std::vector<double> v;
    for (uint64_t seed = 1; seed <= 5; ++seed)
      v.push_back(std::log(run(kind, p, ev, 300, seed).best_cost));
    std::sort(v.begin(), v.end());
    return v[2];
  };
  const auto sep = batch_of(testing::separable_cost);
  const auto grp = batch_of(testing::grouped_cost);
  const double bo_sep = median_log("bo", testing::separable_problem(), sep);
  const double rnd_sep = median_log("random", testing::separable_problem(), sep);
  const double bo_grp = median_log("bo", testing::grouped_problem(), grp);
  const double rnd_grp = median_log("random", testing::grouped_problem(), grp);
  EXPECT_LT(bo_sep, 0.25 * rnd_sep) << "bo " << bo_sep << ", random " << rnd_sep;
  EXPECT_LT(bo_grp, 0.8 * rnd_grp) << "bo " << bo_grp << ", random " << rnd_grp;
}

TEST(Bo, SameSeedGivesIdenticalProposalsAndAnotherSeedOthers) {
  const Problem p = testing::separable_problem();
  const EvaluateFn ev = batch_of(testing::separable_cost);
  SearchOptions o;
  o.bo.batch = 3;  // Several outstanding dlib requests per ask.
  auto a = make_searcher("bo", p, o, 3);
  auto b = make_searcher("bo", p, o, 3);
  auto c = make_searcher("bo", p, o, 4);
  EXPECT_TRUE(lockstep(*a, *b, *c, ev, 40, 8, 3)) << "another seed, other proposals";
  EXPECT_EQ(a->describe(), b->describe());
  EXPECT_EQ(a->describe()["proposals"], 120);
}

TEST(Bo, AsksForAtMostTheBatchAndTheRequestedNumber) {
  SearchOptions o;
  o.bo.batch = 4;
  auto s = make_searcher("bo", testing::separable_problem(), o, 1);
  const EvaluateFn ev = batch_of(testing::separable_cost);
  auto pts = s->ask(100);
  EXPECT_EQ(pts.size(), 4u);
  s->tell(pts, ev(pts));
  pts = s->ask(2);
  EXPECT_EQ(pts.size(), 2u);
  s->tell(pts, ev(pts));
}

TEST(Bo, TellMustReportTheLastAsk) {
  auto s = make_searcher("bo", testing::separable_problem(), testing::kDefaults, 1);
  auto pts = s->ask(1);
  pts[0][0] = (pts[0][0] + 1) % 8;
  EXPECT_THROW(s->tell(pts, batch_of(testing::separable_cost)(pts)), std::logic_error);
}

TEST(Bo, LearnsToAvoidAnInvalidRegion) {
  // Two 64-value tile sizes that must fit a buffer together (x0 + x1 <= 70: 39 % of the space
  // is invalid); the optimum {35, 35} lies on the boundary. The evaluator also refuses its
  // first 20 points, so the run starts with invalid outcomes only (told -invalid_penalty).
  // Later invalid points are told the worst valid value minus invalid_penalty, and the model
  // learns where they are: bo proposes far fewer of them than random. Measured (seeds 1-3):
  // bo 97 + 84 + 65 invalid of 300 each, random 123 + 127 + 125; bo's best costs 1.01, 1.01 and
  // 1.16 (the cliff between the valid optimum and its invalid neighbours is what a Lipschitz
  // model handles worst; search/README.md, "bo").
  const Problem p{{{"x0", 64, true}, {"x1", 64, true}}};
  int64_t bo_invalid = 0, random_invalid = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    for (const std::string kind : {"bo", "random"}) {
      int64_t calls = 0;
      EvaluateFn ev = [&](const std::vector<Point>& pts) {
        std::vector<Outcome> out;
        for (const auto& x : pts) {
          if (calls++ < 20 || x[0] + x[1] > 70) {
            out.push_back(invalid("does not fit: x0 + x1 > 70", "does not fit"));
            continue;
          }
          const double d0 = static_cast<double>(x[0] - 35), d1 = static_cast<double>(x[1] - 35);
          out.push_back(valid(1.0 + 0.01 * (d0 * d0 + d1 * d1)));
        }
        return out;
      };
      auto s = make_searcher(kind, p, testing::kDefaults, seed);
      const SearchResult r = run_search(*s, ev, 300);
      ASSERT_TRUE(r.found) << kind << " seed " << seed;
      EXPECT_EQ(r.failures.at("does not fit"), r.invalid);
      if (kind == "bo") {
        EXPECT_LE(r.best_point[0] + r.best_point[1], 70) << "seed " << seed;
        EXPECT_LT(r.best_cost, 1.2) << "seed " << seed;
        bo_invalid += r.invalid;
      } else {
        random_invalid += r.invalid;
      }
    }
  }
  EXPECT_LT(static_cast<double>(bo_invalid), 0.8 * static_cast<double>(random_invalid))
      << "bo " << bo_invalid << ", random " << random_invalid;
}

TEST(Bo, SingleValueParametersAreFixedAtZero) {
  // Cardinality-1 parameters are not dlib variables; every point has 0 there. Also a
  // 2-value categorical and a large ordinal, with invalid points.
  const Problem p{{{"one", 1, true},
                   {"two", 2, false},
                   {"big", 4096, true},
                   {"lone", 1, false},
                   {"c7", 7, false}}};
  EvaluateFn ev = [&](const std::vector<Point>& pts) {
    std::vector<Outcome> out;
    for (const auto& x : pts) {
      EXPECT_EQ(x.size(), 5u);
      EXPECT_EQ(x[0], 0);
      EXPECT_EQ(x[3], 0);
      for (size_t k = 0; k < x.size(); ++k) {
        EXPECT_GE(x[k], 0) << k;
        EXPECT_LT(x[k], p.params[k].cardinality) << k;
      }
      out.push_back(x[2] > 4000 ? invalid("does not fit: big", "does not fit")
                                : valid((1.0 + static_cast<double>(x[2]) / 64.0) *
                                        (x[1] == 1 ? 1.0 : 2.0) * (x[4] == 3 ? 1.0 : 1.5)));
    }
    return out;
  };
  auto s = make_searcher("bo", p, testing::kDefaults, 2);
  const SearchResult r = run_search(*s, ev, 200);
  EXPECT_EQ(r.samples, 200);
  // The optimum {0, 1, 0, 0, 3} or within 2 steps of it on the large ordinal (cost + 3 %).
  ASSERT_EQ(r.best_point.size(), 5u);
  EXPECT_EQ(r.best_point[1], 1);
  EXPECT_EQ(r.best_point[4], 3);
  EXPECT_LE(r.best_point[2], 2);
  const nlohmann::json d = s->describe();
  EXPECT_EQ(d["variables"], 3);
  EXPECT_EQ(d["fixed_parameters"], (nlohmann::json{"one", "lone"}));
}

TEST(Bo, ASpaceOfOnePointEndsAsExhausted) {
  const Problem p{{{"one", 1, true}, {"lone", 1, false}}};
  auto s = make_searcher("bo", p, testing::kDefaults, 1);
  const SearchResult r = run_search(*s, batch_of([](const Point&) { return valid(3.0); }), 50);
  EXPECT_EQ(r.samples, 1);
  EXPECT_TRUE(r.exhausted);
  EXPECT_EQ(r.best_point, (Point{0, 0}));
  EXPECT_EQ(s->describe()["variables"], 0);
}

}  // namespace
}  // namespace mapwright::search
