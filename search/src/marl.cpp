// Decentralized multi-agent RL. First, initial_samples uniform random points are evaluated
// (they count against the budget); the parameters are then split into agents by
// cluster_parameters (correlation clustering or an ablation). Each agent owns a small policy
// with heads for its own parameters only, its own optimizer and its own baseline; the joint
// point is the concatenation of the agents' choices and every agent is updated with the same
// normalized team reward. The initial policies are uniform, so the initial sample is also the
// agents' first on-policy batch.
#include "internal.hpp"
#include "policy.hpp"

namespace mapwright::search::detail {
namespace {

class MarlSearcher final : public Searcher {
 public:
  MarlSearcher(const Problem& problem, const MarlOptions& options, uint64_t seed)
      : problem_(problem), options_(options), seed_(seed), rng_(seed),
        rewards_(options.learner.invalid_penalty) {}

  std::vector<Point> ask(int n) override {
    if (agents_.empty()) {
      const int64_t left = options_.initial_samples - static_cast<int64_t>(init_points_.size());
      std::vector<Point> pts;
      for (int64_t i = 0; i < std::min<int64_t>(n, left); ++i) pts.push_back(random_point(problem_, rng_));
      return pts;
    }
    const int64_t count = std::min<int64_t>(n, options_.learner.batch);
    std::vector<Point> pts(static_cast<size_t>(count), Point(problem_.params.size()));
    for (size_t a = 0; a < agents_.size(); ++a) {
      const auto local = agents_[a]->sample(count, rng_);
      const auto& params = clustering_.clusters[a];
      for (size_t i = 0; i < pts.size(); ++i)
        for (size_t k = 0; k < params.size(); ++k) pts[i][static_cast<size_t>(params[k])] = local[i][k];
    }
    return pts;
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (agents_.empty()) {
      init_points_.insert(init_points_.end(), pts.begin(), pts.end());
      init_outcomes_.insert(init_outcomes_.end(), out.begin(), out.end());
      if (static_cast<int64_t>(init_points_.size()) < options_.initial_samples) return;
      build_agents();
      update(init_points_, init_outcomes_);
      return;
    }
    update(pts, out);
  }

  std::string name() const override { return "marl"; }

  nlohmann::json describe() const override {
    nlohmann::json agents = nlohmann::json::array();
    for (size_t a = 0; a < agents_.size(); ++a)
      agents.push_back({{"torch_seed", torch_seeds_[a]}, {"learner", agents_[a]->stats()}});
    return {{"kind", name()},
            {"seed", seed_},
            {"options", to_json(SearchOptions{{}, {}, {}, {}, options_})["marl"]},
            {"clustering", agents_.empty() ? nlohmann::json(nullptr) : clustering_.to_json(problem_)},
            {"reference_cost", rewards_.has_reference() ? nlohmann::json(rewards_.reference())
                                                        : nlohmann::json(nullptr)},
            {"agents", agents},
            {"problem", problem_json(problem_)}};
  }

 private:
  void build_agents() {
    clustering_ = cluster_parameters(problem_, init_points_, init_outcomes_, options_.clustering,
                                     options_.mode, mix_seed(seed_ ^ 0x636c7573ULL));
    for (size_t a = 0; a < clustering_.clusters.size(); ++a) {
      std::vector<HeadSpec> heads;
      for (int64_t i : clustering_.clusters[a]) {
        const auto& p = problem_.params[static_cast<size_t>(i)];
        heads.push_back({p.cardinality, p.ordinal});
      }
      torch_seeds_.push_back(mix_seed(seed_ + a + 1));
      agents_.push_back(std::make_unique<Learner>(heads, options_.learner, torch_seeds_.back()));
    }
  }

  /// Every agent learns from its own part of the points and the shared team reward.
  void update(const std::vector<Point>& pts, const std::vector<Outcome>& out) {
    const std::vector<double> r = rewards_.rewards(out);
    for (size_t a = 0; a < agents_.size(); ++a) {
      const auto& params = clustering_.clusters[a];
      std::vector<std::vector<int64_t>> local(pts.size(), std::vector<int64_t>(params.size()));
      for (size_t i = 0; i < pts.size(); ++i)
        for (size_t k = 0; k < params.size(); ++k) local[i][k] = pts[i][static_cast<size_t>(params[k])];
      agents_[a]->update(local, r);
    }
  }

  Problem problem_;                                ///< The space.
  MarlOptions options_;                            ///< Hyper-parameters.
  uint64_t seed_;                                  ///< Seed of the run.
  std::mt19937_64 rng_;                            ///< Initial sample and action sampling.
  RewardNormalizer rewards_;                       ///< Cost -> team reward.
  std::vector<Point> init_points_;                 ///< Initial sample.
  std::vector<Outcome> init_outcomes_;             ///< Its outcomes.
  Clustering clustering_;                          ///< Parameter -> agent assignment.
  std::vector<std::unique_ptr<Learner>> agents_;   ///< One learner per cluster.
  std::vector<uint64_t> torch_seeds_;              ///< Torch seed of each agent.
};

}  // namespace

std::unique_ptr<Searcher> make_marl(const Problem& problem, const MarlOptions& options,
                                    uint64_t seed) {
  return std::make_unique<MarlSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
