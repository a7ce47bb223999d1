// Tests of the study's statistics (support/stats.hpp): the inverse-ECDF quantile, the percentile
// bootstrap against hand-computed and fully enumerated bootstrap distributions, and the
// Kaplan-Meier estimator against hand-computed curves, the empirical median (no censoring)
// and Efron's redistribute-to-the-right construction (random censored data).
#include "mapwright/support/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

namespace mc = mapwright::core;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

/// S(t) by Efron's redistribute-to-the-right: every observation starts with mass 1/n; in time
/// order (events before censorings at a tie) a censored observation hands its mass in equal
/// parts to the observations with a later time. S(t) = 1 - mass of the events at times <= t.
/// An independent construction of the Kaplan-Meier estimate.
double survival_by_redistribution(std::vector<mc::TimeToEvent> d, double t) {
  std::sort(d.begin(), d.end(), [](const mc::TimeToEvent& a, const mc::TimeToEvent& b) {
    return a.time < b.time || (a.time == b.time && a.observed && !b.observed);
  });
  std::vector<double> mass(d.size(), 1.0 / static_cast<double>(d.size()));
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i].observed) continue;
    std::vector<size_t> later;
    for (size_t j = i + 1; j < d.size(); ++j)
      if (d[j].time > d[i].time) later.push_back(j);
    if (later.empty()) continue;  // censored last: its mass never reaches an event
    for (size_t j : later) mass[j] += mass[i] / static_cast<double>(later.size());
    mass[i] = 0;
  }
  double dead = 0;
  for (size_t i = 0; i < d.size(); ++i)
    if (d[i].observed && d[i].time <= t) dead += mass[i];
  return 1 - dead;
}

}  // namespace

TEST(Quantile, InverseEcdfPicksAValueNeverAnInterpolation) {
  const std::vector<double> v = {5, 1, 3, 2, 4};
  EXPECT_EQ(mc::quantile_inverse_ecdf(v, 0), 1);
  EXPECT_EQ(mc::quantile_inverse_ecdf(v, 0.2), 1);   // F(1) = 0.2
  EXPECT_EQ(mc::quantile_inverse_ecdf(v, 0.21), 2);  // just above: the next value
  EXPECT_EQ(mc::quantile_inverse_ecdf(v, 0.5), 3);
  EXPECT_EQ(mc::quantile_inverse_ecdf(v, 1), 5);
  EXPECT_EQ(mc::quantile_inverse_ecdf({1, 2, kInf, kInf}, 0.75), kInf);
  EXPECT_EQ(mc::quantile_inverse_ecdf({1, 2, kInf, kInf}, 0.5), 2);
  // 0.025 x 2000 is 50 up to rounding: the 50th smallest, not the 51st.
  std::vector<double> w(2000);
  std::iota(w.begin(), w.end(), 1.0);
  EXPECT_EQ(mc::quantile_inverse_ecdf(w, 0.025), 50);
  EXPECT_EQ(mc::quantile_inverse_ecdf(w, 0.975), 1950);
  // (1 - 0.95) / 2 is 0.025000000000000022: times 2000 it is just above 50.
  EXPECT_EQ(mc::quantile_inverse_ecdf(w, (1 - 0.95) / 2), 50);
  EXPECT_TRUE(std::isnan(mc::quantile_inverse_ecdf({}, 0.5)));
  EXPECT_TRUE(std::isnan(mc::quantile_inverse_ecdf({1, std::nan("")}, 0.5)));
}

TEST(Bootstrap, ConstantSampleHasAZeroWidthInterval) {
  const auto ci = mc::bootstrap_ci({7, 7, 7, 7}, mean, 500, 0.95, 1);
  EXPECT_EQ(ci.estimate, 7);
  EXPECT_EQ(ci.lo, 7);
  EXPECT_EQ(ci.hi, 7);
}

TEST(Bootstrap, SameSeedSameIntervalOtherSeedOtherReplicates) {
  std::vector<double> v;
  std::mt19937_64 g(3);
  for (int i = 0; i < 30; ++i) v.push_back(static_cast<double>(g() % 1000));
  const auto a = mc::bootstrap_ci(v, mean, 1000, 0.9, 42);
  const auto b = mc::bootstrap_ci(v, mean, 1000, 0.9, 42);
  EXPECT_EQ(a.estimate, mean(v));
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_LT(a.lo, a.estimate);
  EXPECT_GT(a.hi, a.estimate);
  const auto c = mc::bootstrap_ci(v, mean, 1000, 0.9, 43);
  EXPECT_TRUE(c.lo != a.lo || c.hi != a.hi);
}

// The bootstrap distribution of the mean of {1, 2, 4} has 27 equally likely resamples; its
// 5 % and 95 % quantiles are 4/3 (F(1) = 1/27 < 0.05 <= F(4/3) = 4/27) and 10/3
// (F(3) = 23/27 < 0.95 <= F(10/3) = 26/27). With 20000 resamples the Monte-Carlo interval is
// exactly that (both CDF steps are about 10 standard errors away from 0.05 and 0.95).
TEST(Bootstrap, MatchesTheEnumeratedBootstrapDistribution) {
  const std::vector<double> s = {1, 2, 4};
  std::vector<double> all;
  for (double a : s)
    for (double b : s)
      for (double c : s) all.push_back((a + b + c) / 3);
  const double lo = mc::quantile_inverse_ecdf(all, 0.05), hi = mc::quantile_inverse_ecdf(all, 0.95);
  EXPECT_DOUBLE_EQ(lo, 4.0 / 3);
  EXPECT_DOUBLE_EQ(hi, 10.0 / 3);
  const auto ci = mc::bootstrap_ci(s, mean, 20000, 0.9, 7);
  EXPECT_DOUBLE_EQ(ci.estimate, 7.0 / 3);
  EXPECT_DOUBLE_EQ(ci.lo, lo);
  EXPECT_DOUBLE_EQ(ci.hi, hi);
}

// The statistic "first drawn value" is uniform over the sample 1..10 in every replicate, so the
// 50 % interval is the 25 % and 75 % quantiles of that distribution: 3 and 8 (F(2) = 0.2 <
// 0.25 <= F(3) = 0.3, F(7) = 0.7 < 0.75 <= F(8) = 0.8; 20000 resamples put the Monte-Carlo
// CDF within 0.01 of these).
TEST(Bootstrap, IntervalEndsAreTheTailQuantilesOfTheReplicates) {
  std::vector<double> v(10);
  std::iota(v.begin(), v.end(), 1.0);
  const auto ci = mc::bootstrap_ci(
      v, [](const std::vector<double>& d) { return d[0]; }, 20000, 0.5, 9);
  EXPECT_EQ(ci.estimate, 1);
  EXPECT_EQ(ci.lo, 3);
  EXPECT_EQ(ci.hi, 8);
}

// A sanity check of the interval's meaning: over 200 normal samples of 40 values, the 95 %
// interval of the mean covers the true mean about 95 % of the time (percentile intervals run a
// little short at n = 40); swapped or mis-indexed quantiles would cover far less.
TEST(Bootstrap, NinetyFivePercentIntervalsCoverTheMeanAboutThatOften) {
  std::mt19937_64 g(11);
  std::normal_distribution<double> n01(0, 1);
  int covered = 0;
  for (int k = 0; k < 200; ++k) {
    std::vector<double> v(40);
    for (double& x : v) x = n01(g);
    const auto ci = mc::bootstrap_ci(v, mean, 1000, 0.95, 100 + k);
    covered += ci.lo <= 0 && 0 <= ci.hi;
  }
  EXPECT_GE(covered, 176);  // 88 %
  EXPECT_LE(covered, 199);
}

TEST(Bootstrap, StrataKeepTheirSizesAndAreResampledApart) {
  int calls = 0;
  bool bad = false;
  const auto ci = mc::bootstrap_ci_strata(
      {3, 1, 2},
      [&](const std::vector<std::vector<size_t>>& idx) {
        ++calls;
        bad |= idx.size() != 3 || idx[0].size() != 3 || idx[1].size() != 1 || idx[2].size() != 2;
        for (size_t s = 0; s < idx.size(); ++s)
          for (size_t i : idx[s]) bad |= i >= (s == 0 ? 3u : s == 1 ? 1u : 2u);
        // Stratum 1 has one member: it is always drawn.
        return static_cast<double>(idx[0][0] + 10 * idx[2][1]);
      },
      300, 0.95, 5);
  EXPECT_FALSE(bad);
  EXPECT_EQ(calls, 301);       // the identity draw plus every replicate
  EXPECT_EQ(ci.estimate, 10);  // idx[0][0] = 0, idx[2][1] = 1
  EXPECT_EQ(ci.lo, 0);
  EXPECT_EQ(ci.hi, 12);
}

TEST(Bootstrap, InfiniteReplicatesGiveAnOpenUpperEnd) {
  // The statistic is +inf ("not reached") whenever the resample has no 1 in it: (2/3)^3 = 30 %.
  const auto ci = mc::bootstrap_ci(
      {1, 0, 0},
      [](const std::vector<double>& v) {
        return std::find(v.begin(), v.end(), 1.0) != v.end() ? 1.0 : kInf;
      },
      2000, 0.9, 3);
  EXPECT_EQ(ci.estimate, 1);
  EXPECT_EQ(ci.lo, 1);
  EXPECT_EQ(ci.hi, kInf);
}

TEST(Bootstrap, BadArgumentsAreRefused_bad) {
  EXPECT_THROW(mc::bootstrap_ci({1, 2}, mean, 0, 0.95, 1), std::invalid_argument);
  EXPECT_THROW(mc::bootstrap_ci({1, 2}, mean, 10, 1.0, 1), std::invalid_argument);
  EXPECT_THROW(mc::bootstrap_ci({1, 2}, mean, 10, 0.0, 1), std::invalid_argument);
  const auto empty = mc::bootstrap_ci({}, mean, 10, 0.95, 1);
  EXPECT_TRUE(std::isnan(empty.estimate) && std::isnan(empty.lo) && std::isnan(empty.hi));
  const auto nan = mc::bootstrap_ci(
      {1, 2}, [](const std::vector<double>&) { return std::nan(""); }, 10, 0.95, 1);
  EXPECT_TRUE(std::isnan(nan.lo) && std::isnan(nan.hi));
}

// Times 1, 2+, 3, 3, 4+, 5 (+ = censored). S(1) = 5/6; 2+ leaves 4 at risk; S(3) = 5/6 * 2/4 =
// 5/12 <= 1/2, so the median is 3; 4+ leaves 1 at risk; S(5) = 0.
TEST(KaplanMeier, HandComputedCurveAndMedian) {
  const auto km =
      mc::kaplan_meier({{3, true}, {1, true}, {4, false}, {2, false}, {5, true}, {3, true}});
  ASSERT_EQ(km.steps.size(), 5u);
  const double t[] = {1, 2, 3, 4, 5};
  const int risk[] = {6, 5, 4, 2, 1}, ev[] = {1, 0, 2, 0, 1}, cen[] = {0, 1, 0, 1, 0};
  const double s[] = {5.0 / 6, 5.0 / 6, 5.0 / 12, 5.0 / 12, 0};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(km.steps[i].time, t[i]) << i;
    EXPECT_EQ(km.steps[i].at_risk, risk[i]) << i;
    EXPECT_EQ(km.steps[i].events, ev[i]) << i;
    EXPECT_EQ(km.steps[i].censored, cen[i]) << i;
    EXPECT_NEAR(km.steps[i].survival, s[i], 1e-15) << i;
  }
  ASSERT_TRUE(km.median.has_value());
  EXPECT_EQ(*km.median, 3);
  EXPECT_EQ(km.survival_at(0.5), 1);
  EXPECT_NEAR(km.survival_at(3.5), 5.0 / 12, 1e-15);
}

TEST(KaplanMeier, MedianNotReachedWhenHalfAreCensoredFirst) {
  // S(1) = 3/4 and nothing else is an event: S never drops to 1/2.
  const auto km = mc::kaplan_meier({{1, true}, {2, false}, {3, false}, {4, false}});
  EXPECT_FALSE(km.median.has_value());
  EXPECT_EQ(km.survival_at(10), 0.75);
  // Exactly one half is reached: S(2) = 3/4 * 2/3 = 1/2.
  const auto half = mc::kaplan_meier({{1, true}, {2, true}, {3, false}, {4, false}});
  ASSERT_TRUE(half.median.has_value());
  EXPECT_EQ(*half.median, 2);
  EXPECT_FALSE(mc::kaplan_meier({}).median.has_value());
  EXPECT_TRUE(mc::kaplan_meier({}).steps.empty());
}

TEST(KaplanMeier, EventsComeBeforeCensoringsAtATie) {
  // At t = 2 all three are at risk (S = 2/3); had the censoring gone first, S(2) would be 1/2
  // and the median 2 instead of 3.
  const auto km = mc::kaplan_meier({{2, true}, {2, false}, {3, true}});
  EXPECT_EQ(km.steps[0].at_risk, 3);
  EXPECT_NEAR(km.steps[0].survival, 2.0 / 3, 1e-15);
  ASSERT_TRUE(km.median.has_value());
  EXPECT_EQ(*km.median, 3);
}

TEST(KaplanMeier, WithoutCensoringTheMedianIsTheLowerEmpiricalMedian) {
  std::mt19937_64 g(19);
  for (int trial = 0; trial < 500; ++trial) {
    const size_t n = 1 + g() % 50;
    std::vector<mc::TimeToEvent> d;
    std::vector<double> times;
    for (size_t i = 0; i < n; ++i) {
      times.push_back(static_cast<double>(1 + g() % 20));  // ties are frequent
      d.push_back({times.back(), true});
    }
    const auto km = mc::kaplan_meier(d);
    std::sort(times.begin(), times.end());
    ASSERT_TRUE(km.median.has_value()) << trial;
    EXPECT_EQ(*km.median, times[(n - 1) / 2]) << "n = " << n << ", trial " << trial;
    for (double t = 0; t <= 21; t += 0.5) {
      const double above =
          static_cast<double>(times.end() - std::upper_bound(times.begin(), times.end(), t));
      EXPECT_NEAR(km.survival_at(t), above / static_cast<double>(n), 1e-12) << t;
    }
  }
}

TEST(KaplanMeier, AgreesWithRedistributionToTheRight) {
  std::mt19937_64 g(23);
  for (int trial = 0; trial < 500; ++trial) {
    const size_t n = 1 + g() % 10;
    std::vector<mc::TimeToEvent> d;
    for (size_t i = 0; i < n; ++i) d.push_back({static_cast<double>(1 + g() % 8), g() % 3 != 0});
    const auto km = mc::kaplan_meier(d);
    std::optional<double> median;
    for (double t = 0; t <= 9; t += 0.5) {
      const double s = survival_by_redistribution(d, t);
      EXPECT_NEAR(km.survival_at(t), s, 1e-12) << "trial " << trial << ", t = " << t;
      if (!median && s <= 0.5 + 1e-9 && t == std::floor(t)) median = t;
    }
    EXPECT_EQ(km.median, median) << "trial " << trial;
  }
}

TEST(KaplanMeier, NanTimeIsRefused_bad) {
  EXPECT_THROW(mc::kaplan_meier({{1, true}, {std::nan(""), false}}), std::invalid_argument);
}
