// marl's multi-agent options (search/README.md, "Multi-agent options"): parameter sharing
// (one network, one-hot agent id, one parameter set), the joint-action critic, domain-informed
// per-buffer agents and value normalization. Each option changes the run, every run is
// deterministic for its seed, and the bad values are refused naming file, key and value. Tiny
// problems and short budgets keep the file fast.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mapwright/search/clustering.hpp"
#include "mapwright/search/searcher.hpp"
#include "problems.hpp"

namespace mapwright::search {
namespace {

using testing::batch_of;

/// The grouped problem with group labels {x0 x1 x2} {x3 x4} and none on x5.
Problem labelled_grouped_problem() {
  Problem p = testing::grouped_problem();
  for (int i = 0; i < 3; ++i) p.params[static_cast<size_t>(i)].group = "a";
  for (int i = 3; i < 5; ++i) p.params[static_cast<size_t>(i)].group = "b";
  return p;
}

/// A run of marl on the labelled grouped problem: its best-so-far curve and describe().
std::pair<std::vector<double>, nlohmann::json> marl_run(const SearchOptions& o, uint64_t seed,
                                                        int64_t budget = 96) {
  auto s = make_searcher("marl", labelled_grouped_problem(), o, seed);
  const SearchResult r = run_search(*s, batch_of(testing::grouped_cost), budget);
  return {r.best_so_far, s->describe()};
}

TEST(MarlSharing, OneNetworkHoldsEveryAgentWithOneParameterSet) {
  SearchOptions o;
  o.marl.mode = "per-param";  // Six one-parameter agents.
  o.marl.initial_samples = 16;
  const auto separate = marl_run(o, 5, 64).second;
  o.marl.sharing = "all";
  const auto shared = marl_run(o, 5, 64).second;
  ASSERT_EQ(separate["agents"].size(), 6u);
  ASSERT_EQ(shared["agents"].size(), 6u);  // Six agents, one network.
  EXPECT_EQ(shared["agents"][0]["shared_by"], 6);
  EXPECT_EQ(shared["agents"][0]["learner"], shared["agents"][5]["learner"]);
  // Hidden width h = 32, one trunk layer, six ordinal heads of 8 values with 8 basis bumps,
  // no autoregressive parts (one head per agent). Per network: input h, trunk h*h + h, value
  // h + 1, per head 8 logits + 8*h basis weights. Shared: one copy plus the one-hot agent-id
  // input (6 x h).
  const int64_t h = 32, head = 8 + 8 * h, base = h + h * h + h + h + 1;
  EXPECT_EQ(shared["agents"][0]["learner"]["parameters"], base + 6 * head + 6 * h);
  for (const auto& a : separate["agents"]) EXPECT_EQ(a["learner"]["parameters"], base + head);
}

TEST(MarlSharing, SharedNetworkWithAutoregressiveClustersLearns) {
  // Per-buffer agents {x0 x1 x2} {x3 x4} {x5} in one shared network (autoregressive inside
  // each agent): the run improves on its initial sample and is reproducible.
  SearchOptions o;
  o.marl.agents = "per-buffer";
  o.marl.sharing = "all";
  o.marl.initial_samples = 16;
  const auto [curve, d] = marl_run(o, 3, 160);
  EXPECT_LT(curve.back(), curve[15]);
  EXPECT_EQ(marl_run(o, 3, 160).first, curve);
}

TEST(MarlSharing, ReclusteringRebuildsTheSharedNetwork) {
  // 32 initial points give one agent per parameter; at 192 samples the clustering runs again
  // on the shared network's samples, and the agents of the new clusters share a new network.
  SearchOptions o;
  o.marl.sharing = "all";
  o.marl.initial_samples = 32;
  o.marl.recluster_at = 192;
  auto s = make_searcher("marl", testing::grouped_problem(), o, 4);
  run_search(*s, batch_of(testing::grouped_cost), 224);
  const nlohmann::json d = s->describe();
  EXPECT_EQ(d["reclustered_at"], 192);
  ASSERT_TRUE(d["reclustering_changed_agents"].get<bool>()) << d["clustering"].dump();
  const size_t agents = d["clustering"]["clusters"].size();
  EXPECT_LT(agents, 6u);
  ASSERT_EQ(d["agents"].size(), agents);
  EXPECT_EQ(d["agents"][0]["shared_by"], agents);
  // The six one-parameter agents' network had 2897 parameters (see the test above); the new
  // one has the new agents' one-hot inputs and autoregressive parts.
  EXPECT_NE(d["agents"][0]["learner"]["parameters"], 2897);
}

TEST(MarlAgents, PerBufferAgentsFollowTheGroupLabels) {
  SearchOptions o;
  o.marl.agents = "per-buffer";
  const auto d = marl_run(o, 1, 64).second;
  EXPECT_EQ(d["clustering"]["mode"], "per-buffer");
  EXPECT_EQ(d["clustering"]["cluster_indices"], nlohmann::json::parse("[[0, 1, 2], [3, 4], [5]]"));
  EXPECT_EQ(d["agents"].size(), 3u);
}

TEST(MarlAgents, BufferClustersPutUnlabelledParametersAlone) {
  Problem p = testing::separable_problem();
  p.params[1].group = "w";
  p.params[4].group = "w";
  p.params[2].group = "i";
  const Clustering c = buffer_clusters(p);
  EXPECT_EQ(c.clusters, (std::vector<std::vector<int64_t>>{{0}, {1, 4}, {2}, {3}, {5}}));
}

TEST(MarlOptions, EveryOptionChangesTheRunAndEachRunIsDeterministic) {
  const SearchOptions defaults;
  const auto base = marl_run(defaults, 7).first;
  std::vector<std::pair<std::string, SearchOptions>> variants(4, {"", defaults});
  variants[0].first = "sharing all";
  variants[0].second.marl.sharing = "all";
  variants[1].first = "critic joint";
  variants[1].second.marl.critic = "joint";
  variants[2].first = "agents per-buffer";
  variants[2].second.marl.agents = "per-buffer";
  variants[3].first = "value_norm";
  variants[3].second.marl.learner.value_norm = true;
  variants[3].second.marl.credit = "team";  // The value centres the advantages under team credit.
  SearchOptions team = defaults;
  team.marl.credit = "team";
  const auto team_base = marl_run(team, 7).first;
  for (const auto& [name, o] : variants) {
    const auto a = marl_run(o, 7).first;
    EXPECT_EQ(a, marl_run(o, 7).first) << name << ": same seed, same run";
    EXPECT_NE(a, name == "value_norm" ? team_base : base) << name << " changes nothing";
  }
}

TEST(MarlOptions, JointCriticIsRecorded) {
  SearchOptions o;
  o.marl.critic = "joint";
  const auto d = marl_run(o, 2, 64).second;
  // Six parameters of 8 values (8 bins each, embedding width 4), 64 hidden units, one output.
  EXPECT_EQ(d["joint_critic_parameters"], 6 * 8 * 4 + (6 * 4 * 64 + 64) + (64 + 1));
  EXPECT_TRUE(marl_run(SearchOptions{}, 2, 64).second["joint_critic_parameters"].is_null());
}

/// The message of the std::invalid_argument that parsing `yaml` throws.
std::string error_of(const std::string& yaml) {
  try {
    parse_search_options(yaml, "o.yaml");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MarlOptionsBad, NamesFileKeyAndValue) {
  EXPECT_EQ(error_of("marl: {sharing: some}\n"),
            "o.yaml: key 'marl.sharing' = 'some': expected one of: none, all");
  EXPECT_EQ(error_of("marl: {critic: central}\n"),
            "o.yaml: key 'marl.critic' = 'central': expected one of: additive, joint");
  EXPECT_EQ(error_of("marl: {agents: buffers}\n"),
            "o.yaml: key 'marl.agents' = 'buffers': expected one of: clustered, per-buffer");
  EXPECT_EQ(error_of("marl: {agents: per-buffer, mode: single}\n"),
            "o.yaml: key 'marl.mode' = 'single': expected correlation (the default) with "
            "marl.agents 'per-buffer', which replaces it");
  EXPECT_EQ(error_of("marl: {learner: {value_norm: 3}}\n")
                .rfind("o.yaml: key 'marl.learner.value_norm' = '3'", 0),
            0u);
  EXPECT_EQ(
      error_of("marl: {shared: all}\n").rfind("o.yaml: key 'marl.shared' = 'all': unknown key", 0),
      0u);
}

}  // namespace
}  // namespace mapwright::search
