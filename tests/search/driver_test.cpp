// The factory and the budget driver: unknown kinds and bad problems are rejected with clear
// messages, every evaluated point counts against the budget, the best-so-far curve is
// monotone, bad evaluator results are caught, and the progress callback can stop a run.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "mapwright/search/searcher.hpp"
#include "problems.hpp"

namespace mapwright::search {
namespace {

using testing::invalid;
using testing::valid;

using testing::batch_of;
using testing::kDefaults;

template <class E, class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected exception not thrown";
  return "";
}

TEST(SearcherBad, UnknownKindListsKnownKinds) {
  EXPECT_EQ(error_of<std::invalid_argument>(
                [] { make_searcher("bayes", testing::separable_problem(), kDefaults, 1); }),
            "unknown searcher kind 'bayes' (known: random, ga, sa, ppo, ppo-box, marl, bo)");
}

TEST(SearcherBad, BadProblems) {
  EXPECT_EQ(
      error_of<std::invalid_argument>([] { make_searcher("random", Problem{}, kDefaults, 1); }),
      "search problem: no parameters");
  EXPECT_EQ(error_of<std::invalid_argument>([] {
              make_searcher("ga", Problem{{{"a", 4, true}, {"a", 3, false}}}, kDefaults, 1);
            }),
            "search problem: duplicate parameter name 'a'");
  EXPECT_EQ(error_of<std::invalid_argument>([] {
              make_searcher("sa", Problem{{{"a", 0, true}}}, kDefaults, 1);
            }),
            "search problem: parameter 'a' has cardinality 0, expected >= 1");
}

TEST(SearcherBad, BadOptionsInCode) {
  SearchOptions o;
  o.ppo.batch = 1;
  EXPECT_EQ(error_of<std::invalid_argument>(
                [&] { make_searcher("ppo", testing::separable_problem(), o, 1); }),
            "options: key 'ppo.batch' = '1': expected an integer >= 2");
}

TEST(RunSearchBad, ZeroBudget) {
  auto s = make_searcher("random", testing::separable_problem(), kDefaults, 1);
  EXPECT_EQ(error_of<std::invalid_argument>(
                [&] { run_search(*s, batch_of(testing::separable_cost), 0); }),
            "run_search: budget must be positive, got 0");
}

TEST(RunSearchBad, WrongOutcomeCount) {
  auto s = make_searcher("random", testing::separable_problem(), kDefaults, 1);
  EvaluateFn ev = [](const std::vector<Point>&) { return std::vector<Outcome>(1); };
  EXPECT_EQ(error_of<std::runtime_error>([&] { run_search(*s, ev, 10); }),
            "run_search: evaluate returned 1 outcomes for 10 points");
}

TEST(RunSearchBad, NonPositiveCost) {
  auto s = make_searcher("sa", testing::separable_problem(), kDefaults, 1);
  EvaluateFn ev = [](const std::vector<Point>& p) {
    return std::vector<Outcome>(p.size(), valid(0.0));
  };
  EXPECT_EQ(error_of<std::runtime_error>([&] { run_search(*s, ev, 5); }),
            "run_search: evaluate returned a valid outcome with cost 0 (must be finite and > 0) "
            "at sample 0");
}

TEST(RunSearch, CountsEveryPointAndKeepsAMonotoneCurve) {
  // Half the space is invalid; all of it counts against the budget.
  const Problem p = testing::separable_problem();
  EvaluateFn ev = batch_of([](const Point& x) {
    if (x[0] % 2 == 1) return invalid("does not fit: odd o8", "does not fit");
    return testing::separable_cost(x);
  });
  for (const std::string kind : {"random", "ga", "sa", "ppo", "ppo-box", "marl", "bo"}) {
    auto s = make_searcher(kind, p, kDefaults, 7);
    const SearchResult r = run_search(*s, ev, 333);
    EXPECT_EQ(r.samples, 333) << kind;
    EXPECT_EQ(r.valid + r.invalid, 333) << kind;
    EXPECT_GT(r.invalid, 0) << kind;
    EXPECT_EQ(r.failures.at("does not fit"), r.invalid) << kind;
    ASSERT_EQ(r.best_so_far.size(), 333u) << kind;
    ASSERT_TRUE(r.found) << kind;
    for (size_t i = 1; i < r.best_so_far.size(); ++i)
      ASSERT_LE(r.best_so_far[i], r.best_so_far[i - 1]) << kind;
    EXPECT_EQ(r.best_so_far.back(), r.best_cost) << kind;
    EXPECT_EQ(r.best_so_far[static_cast<size_t>(r.best_sample)], r.best_cost) << kind;
    EXPECT_EQ(r.best_point[0] % 2, 0) << kind;
    EXPECT_DOUBLE_EQ(testing::separable_cost(r.best_point).cost, r.best_cost) << kind;
  }
}

TEST(RunSearch, CurveIsInfiniteBeforeTheFirstValidPointAndNullInJson) {
  auto s = make_searcher("random", Problem{{{"a", 100, true}}}, kDefaults, 3);
  int calls = 0;
  EvaluateFn ev = [&](const std::vector<Point>& pts) {
    std::vector<Outcome> out;
    for (size_t i = 0; i < pts.size(); ++i)
      out.push_back(calls++ < 5 ? invalid("too big") : valid(2.0));
    return out;
  };
  const SearchResult r = run_search(*s, ev, 10);
  EXPECT_TRUE(std::isinf(r.best_so_far[4]));
  EXPECT_EQ(r.best_so_far[5], 2.0);
  const nlohmann::json j = r.to_json();
  EXPECT_TRUE(j["best_so_far"][0].is_null());
  EXPECT_EQ(j["best_so_far"][9], 2.0);
  EXPECT_EQ(j["failures"]["invalid"], 5);  // no failure_class: counted as "invalid"
}

TEST(RunSearch, ProgressCanStopEarly) {
  auto s = make_searcher("random", testing::separable_problem(), kDefaults, 1);
  int64_t last = 0;
  const SearchResult r =
      run_search(*s, batch_of(testing::separable_cost), 1000, [&](const SearchProgress& p) {
        last = p.samples;
        EXPECT_EQ(p.budget, 1000);
        return p.samples < 64;
      });
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.samples, 64);  // Two batches of 32.
  EXPECT_EQ(last, 64);
}

TEST(RunSearch, AsksNeverExceedTheRemainingBudget) {
  for (const std::string kind : {"random", "ga", "sa", "ppo", "ppo-box", "marl", "bo"}) {
    auto s = make_searcher(kind, testing::separable_problem(), kDefaults, 1);
    const SearchResult r = run_search(*s, batch_of(testing::separable_cost), 150);
    EXPECT_EQ(r.samples, 150) << kind;
  }
}

TEST(RunSearch, PointsTheEvaluatorMarksAsRepeatsAreNotCharged) {
  // Only the first parameter matters to this evaluator (as when several encodings decode to
  // one mapping): a second point with the same first value is a repeat.
  const Problem p{{{"a", 6, true}, {"b", 50, true}}};
  std::map<int64_t, Outcome> seen;
  int64_t evaluated = 0;
  EvaluateFn ev = [&](const std::vector<Point>& pts) {
    std::vector<Outcome> out;
    for (const auto& x : pts) {
      auto it = seen.find(x[0]);
      if (it != seen.end()) {
        Outcome o = it->second;
        o.repeat = true;
        out.push_back(o);
        continue;
      }
      ++evaluated;
      out.push_back(seen[x[0]] = valid(1.0 + static_cast<double>(x[0])));
    }
    return out;
  };
  auto s = make_searcher("random", p, kDefaults, 2);
  const SearchResult r = run_search(*s, ev, 100);
  EXPECT_EQ(r.samples, evaluated);
  EXPECT_EQ(r.samples, 6);  // Six distinct values of "a": the rest are repeats.
  EXPECT_TRUE(r.exhausted);
  EXPECT_EQ(r.best_cost, 1.0);
  EXPECT_EQ(r.best_so_far.size(), 6u);
}

// A searcher is told which of its proposals were repeats: the outcome of a point proposed
// again (answered from the cache) carries repeat, its first proposal does not.
TEST(RunSearch, ASearcherIsToldWhichProposalsWereRepeats) {
  struct Fixed final : Searcher {
    std::vector<std::vector<Point>> batches{{{1}, {2}}, {{2}, {3}, {3}}};
    size_t next = 0;
    std::vector<Outcome> told;
    std::vector<Point> ask(int) override { return batches[std::min(next++, batches.size() - 1)]; }
    void tell(const std::vector<Point>&, const std::vector<Outcome>& out) override {
      told.insert(told.end(), out.begin(), out.end());
    }
    std::string name() const override { return "fixed"; }
    nlohmann::json describe() const override { return {}; }
  } s;
  EvaluateFn ev = [](const std::vector<Point>& pts) {
    return std::vector<Outcome>(pts.size(), valid(1.0));
  };
  // After its second batch the searcher proposes only known points: the run ends exhausted.
  const SearchResult r = run_search(s, ev, 10);
  EXPECT_EQ(r.samples, 3);
  EXPECT_TRUE(r.exhausted);
  ASSERT_GE(s.told.size(), 8u);
  const bool want[] = {false, false, true, false, true, true, true, true};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(s.told[i].repeat, want[i]) << i;
}

TEST(RunSearch, RepeatedPointsAreAnsweredFromTheCacheAndNotCharged) {
  // 625 points and a budget of 2000: every distinct point is evaluated exactly once, the
  // repeats are duplicates, and the run ends as exhausted when the space is used up.
  const Problem p{{{"a", 5, true}, {"b", 5, true}, {"c", 5, false}, {"d", 5, false}}};
  for (const std::string kind : {"random", "ga", "sa", "ppo", "ppo-box", "marl", "bo"}) {
    std::map<Point, int> calls;
    EvaluateFn ev = [&](const std::vector<Point>& pts) {
      std::vector<Outcome> out;
      for (const auto& x : pts) {
        ++calls[x];
        out.push_back(x[0] == 4 ? invalid("does not fit: a=4", "does not fit")
                                : valid(1.0 + static_cast<double>(x[0] + x[1] + x[2] + x[3])));
      }
      return out;
    };
    auto s = make_searcher(kind, p, kDefaults, 5);
    const SearchResult r = run_search(*s, ev, 2000);
    for (const auto& [pt, n] : calls) ASSERT_EQ(n, 1) << kind << ": a point was evaluated twice";
    EXPECT_EQ(r.samples, static_cast<int64_t>(calls.size())) << kind;
    EXPECT_EQ(r.valid + r.invalid, r.samples) << kind;
    EXPECT_EQ(r.best_so_far.size(), static_cast<size_t>(r.samples)) << kind;
    EXPECT_GT(r.duplicates, 0) << kind;
    EXPECT_TRUE(r.exhausted) << kind;
    EXPECT_LE(r.samples, 625) << kind;
    EXPECT_GT(r.duplicates, duplicate_limit(2000)) << kind;
    const nlohmann::json j = r.to_json();
    EXPECT_EQ(j["duplicates"], r.duplicates) << kind;
    EXPECT_EQ(j["exhausted"], true) << kind;
  }
}

}  // namespace
}  // namespace mapwright::search
