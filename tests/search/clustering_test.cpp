// Agent clustering: the interaction measure recovers planted parameter groups of
// f = g1(x0,x1,x2) * g2(x3,x4) * g3(x5), finds no group in a separable objective, and the
// linkage cut, the k override and the ablation modes behave as documented.
#include "mapwright/search/clustering.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "mapwright/search/searcher.hpp"
#include "problems.hpp"

namespace mapwright::search {
namespace {

using testing::invalid;
using testing::valid;

using Groups = std::vector<std::vector<int64_t>>;

/// n uniform random points of a problem (fixed seed) and their outcomes.
template <class F>
std::pair<std::vector<Point>, std::vector<Outcome>> sample(const Problem& p, F f, int n,
                                                           uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Point> pts;
  std::vector<Outcome> out;
  for (int i = 0; i < n; ++i) {
    Point x;
    for (const auto& q : p.params)
      x.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(q.cardinality)));
    out.push_back(f(x));
    pts.push_back(std::move(x));
  }
  return {pts, out};
}

TEST(Clustering, RecoversPlantedGroups) {
  const Problem p = testing::grouped_problem();
  for (uint64_t seed = 0; seed < 5; ++seed) {
    auto [pts, out] = sample(p, testing::grouped_cost, 192, seed);
    const Clustering c = cluster_parameters(p, pts, out, ClusteringOptions{}, "correlation", 1);
    EXPECT_EQ(c.clusters, (Groups{{0, 1, 2}, {3, 4}, {5}})) << "seed " << seed << "\n"
                                                            << c.to_string(p);
    // The association is symmetric, zero on the diagonal and zero across groups.
    for (size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(c.association[i][i], 0.0);
      for (size_t j = 0; j < 6; ++j) EXPECT_EQ(c.association[i][j], c.association[j][i]);
    }
    EXPECT_EQ(c.association[0][3], 0.0);
    EXPECT_EQ(c.association[4][5], 0.0);
    EXPECT_GT(c.association[3][4], 0.0);
  }
}

TEST(Clustering, SeparableObjectiveGivesOneAgentPerParameter) {
  const Problem p = testing::separable_problem();
  auto [pts, out] = sample(p, testing::separable_cost, 256, 3);
  const Clustering c = cluster_parameters(p, pts, out, ClusteringOptions{}, "correlation", 1);
  EXPECT_EQ(c.clusters, (Groups{{0}, {1}, {2}, {3}, {4}, {5}}));
}

TEST(Clustering, TileSizesSharingABufferAreGrouped) {
  const Problem p = testing::mapping_problem();
  auto [pts, out] = sample(p, testing::mapping_cost, 256, 5);
  const Clustering c = cluster_parameters(p, pts, out, ClusteringOptions{}, "correlation", 1);
  EXPECT_EQ(c.clusters, (Groups{{0}, {1, 2}, {3}, {4}})) << c.to_string(p);
}

TEST(Clustering, ParametersOfEachFailureClassAreGrouped) {
  // Log-cost is additive over six parameters; two different capacity limits couple
  // (x0, x1) and (x2, x3). Each failure class gets its own interaction test, so both pairs
  // are found although the log-cost response lumps the two kinds of failure together.
  const Problem p{{{"a", 8, true},
                   {"b", 8, true},
                   {"c", 8, true},
                   {"d", 8, true},
                   {"e", 8, true},
                   {"f", 8, true}}};
  auto cost = [](const Point& x) {
    if (x[0] * x[1] > 20) return invalid("left_overflow: needs more", "left_overflow");
    if (x[2] * x[3] > 20) return invalid("right_overflow: needs more", "right_overflow");
    double y = 0;
    for (size_t k = 0; k < x.size(); ++k) y += 0.05 * static_cast<double>((k + 1) * x[k]);
    return valid(std::exp(y));
  };
  int found = 0;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    auto [pts, out] = sample(p, cost, 192, 20 + seed);
    const Clustering c = cluster_parameters(p, pts, out, ClusteringOptions{}, "correlation", 1);
    found += c.clusters == Groups{{0, 1}, {2, 3}, {4}, {5}};
    EXPECT_GT(c.association[0][1], 0.0) << "seed " << seed;
    EXPECT_GT(c.association[2][3], 0.0) << "seed " << seed;
    EXPECT_EQ(c.association[4][5], 0.0) << "seed " << seed;
  }
  EXPECT_GE(found, 4);
}

TEST(Clustering, AgentCountOverride) {
  const Problem p = testing::grouped_problem();
  auto [pts, out] = sample(p, testing::grouped_cost, 192, 0);
  ClusteringOptions o;
  o.agents = 2;
  Clustering c = cluster_parameters(p, pts, out, o, "correlation", 1);
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.merge_values.size(), 5u);  // The full dendrogram is recorded.
  o.agents = 99;                         // More than the parameters: one each.
  c = cluster_parameters(p, pts, out, o, "correlation", 1);
  EXPECT_EQ(c.clusters.size(), 6u);
}

TEST(Clustering, AblationModes) {
  const Problem p = testing::grouped_problem();
  auto [pts, out] = sample(p, testing::grouped_cost, 192, 0);
  const ClusteringOptions o;
  EXPECT_EQ(cluster_parameters(p, pts, out, o, "per-param", 1).clusters,
            (Groups{{0}, {1}, {2}, {3}, {4}, {5}}));
  EXPECT_EQ(cluster_parameters(p, pts, out, o, "single", 1).clusters, (Groups{{0, 1, 2, 3, 4, 5}}));
  // Random: the same cluster sizes as the correlation mode, different members for some seed,
  // and deterministic for a seed.
  bool differs = false;
  for (uint64_t seed = 0; seed < 5; ++seed) {
    const Clustering r = cluster_parameters(p, pts, out, o, "random", seed);
    std::vector<size_t> sizes;
    for (const auto& g : r.clusters) sizes.push_back(g.size());
    std::sort(sizes.begin(), sizes.end());
    EXPECT_EQ(sizes, (std::vector<size_t>{1, 2, 3}));
    differs = differs || r.clusters != Groups{{0, 1, 2}, {3, 4}, {5}};
    EXPECT_EQ(r.clusters, cluster_parameters(p, pts, out, o, "random", seed).clusters);
  }
  EXPECT_TRUE(differs);
}

TEST(Clustering, TooFewSamplesGiveNoGroups) {
  const Problem p = testing::grouped_problem();
  auto [pts, out] = sample(p, testing::grouped_cost, 5, 0);
  const Clustering c = cluster_parameters(p, pts, out, ClusteringOptions{}, "correlation", 1);
  EXPECT_EQ(c.clusters.size(), 6u);
}

TEST(Agglomerate, LinkagesAndThreshold) {
  // Two tight pairs {0,1} and {2,3}, weakly linked through 1-2.
  const std::vector<std::vector<double>> s = {
      {0, 1.0, 0, 0}, {1.0, 0, 0.3, 0}, {0, 0.3, 0, 0.9}, {0, 0, 0.9, 0}};
  std::vector<double> merges;
  EXPECT_EQ(agglomerate(s, "average", 0, 0.2, &merges), (Groups{{0, 1}, {2, 3}}));
  ASSERT_EQ(merges.size(), 3u);
  EXPECT_DOUBLE_EQ(merges[0], 1.0);
  EXPECT_DOUBLE_EQ(merges[1], 0.9);
  EXPECT_DOUBLE_EQ(merges[2], 0.075);  // Average of 0.3 and three zeros.
  EXPECT_EQ(agglomerate(s, "single", 0, 0.2), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(agglomerate(s, "complete", 0, 0.2), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(agglomerate(s, "average", 3, 0.2), (Groups{{0, 1}, {2}, {3}}));
  EXPECT_EQ(agglomerate(s, "average", 1, 0.2), (Groups{{0, 1, 2, 3}}));
  const std::vector<std::vector<double>> zero(3, std::vector<double>(3, 0.0));
  EXPECT_EQ(agglomerate(zero, "average", 0, 0.2), (Groups{{0}, {1}, {2}}));
}

TEST(AgglomerateBad, UnknownLinkageAndMode) {
  try {
    agglomerate({{0}}, "ward", 0, 0.2);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "agglomerate: unknown linkage 'ward' (known: average, single, complete)");
  }
  try {
    cluster_parameters(testing::grouped_problem(), {}, {}, {}, "kmeans", 1);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "cluster_parameters: unknown mode 'kmeans' (known: correlation, per-param, "
                 "random, single)");
  }
}

TEST(Clustering, RecordAndListing) {
  const Problem p = testing::grouped_problem();
  Clustering c;
  c.mode = "correlation";
  c.clusters = {{0, 1, 2}, {3, 4}, {5}};
  EXPECT_EQ(c.to_string(p), "agent 0: x0, x1, x2\nagent 1: x3, x4\nagent 2: x5\n");
  const nlohmann::json j = c.to_json(p);
  EXPECT_EQ(j["agents"], 3);
  EXPECT_EQ(j["clusters"][1], (nlohmann::json{"x3", "x4"}));
}

}  // namespace
}  // namespace mapwright::search
