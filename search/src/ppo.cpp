// Single-agent PPO: one policy over all parameters with independent (factorized) categorical
// heads, one-step bandit episodes (action = a full point), and the normalized team reward.
// Every ask samples a batch from the current policy; every tell performs one update.
#include "internal.hpp"
#include "policy.hpp"

namespace mapwright::search::detail {
namespace {

class PpoSearcher final : public Searcher {
 public:
  PpoSearcher(const Problem& problem, const PpoOptions& options, uint64_t seed)
      : problem_(problem),
        options_(options),
        seed_(seed),
        torch_seed_(mix_seed(seed)),
        rng_(seed),
        rewards_(options.invalid_penalty, options.repeat_penalty),
        learner_(heads(problem), options, torch_seed_) {}

  std::vector<Point> ask(int n) override {
    return learner_.sample(std::min<int64_t>(n, options_.batch), rng_);
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    learner_.update(pts, rewards_.rewards(out));
  }

  std::string name() const override { return "ppo"; }

  nlohmann::json describe() const override {
    return {{"kind", name()},
            {"seed", seed_},
            {"torch_seed", torch_seed_},
            {"options", to_json(options_)},
            {"reference_cost", rewards_.has_reference() ? nlohmann::json(rewards_.reference())
                                                        : nlohmann::json(nullptr)},
            {"learner", learner_.stats()},
            {"problem", problem_json(problem_)}};
  }

 private:
  static std::vector<HeadSpec> heads(const Problem& problem) {
    std::vector<HeadSpec> h;
    for (const auto& p : problem.params) h.push_back({p.cardinality, p.ordinal});
    return h;
  }

  Problem problem_;           ///< The space.
  PpoOptions options_;        ///< Hyper-parameters.
  uint64_t seed_;             ///< Seed of the run.
  uint64_t torch_seed_;       ///< Seed given to torch::manual_seed (derived from seed_).
  std::mt19937_64 rng_;       ///< Action sampling.
  RewardNormalizer rewards_;  ///< Cost -> reward.
  Learner learner_;           ///< The policy.
};

}  // namespace

std::unique_ptr<Searcher> make_ppo(const Problem& problem, const PpoOptions& options,
                                   uint64_t seed) {
  return std::make_unique<PpoSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
