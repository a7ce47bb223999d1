// Single-agent PPO: one policy over all parameters with independent (factorized) categorical
// heads, one-step bandit episodes (action = a full point), and the normalized team reward.
// Every ask samples a batch from the current policy; every tell performs one update.
#include "internal.hpp"
#include "policy.hpp"

namespace mapwright::search::detail {
namespace {

class PpoSearcher final : public PolicySearcher<PpoOptions> {
 public:
  PpoSearcher(const Problem& problem, const PpoOptions& options, uint64_t seed)
      : PolicySearcher(problem, options, seed,
                       RewardNormalizer(options.invalid_penalty, options.repeat_penalty,
                                        RewardForm::of(options.reward, options.inverse_scale,
                                                       options.invalid_reward))),
        learner_(heads(problem), options, torch_seed_) {}

  std::vector<Point> ask(int n) override {
    return learner_.sample(std::min<int64_t>(n, options_.batch), rng_);
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    learner_.update(pts, rewards_.rewards(out));
  }

  /// The prior is the first batch: drawn uniformly, as the initial policy draws.
  void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (pts.size() < 2) return;
    learner_.update(pts, rewards_.rewards(prior_outcomes(out)));
    primed_ = static_cast<int64_t>(pts.size());
  }

  std::string name() const override { return "ppo"; }

 private:
  nlohmann::json learner_json() const override { return learner_.stats(); }

  static std::vector<HeadSpec> heads(const Problem& problem) {
    std::vector<HeadSpec> h;
    for (const auto& p : problem.params) h.push_back({p.cardinality, p.ordinal});
    return h;
  }

  Learner learner_;  ///< The policy.
};

}  // namespace

std::unique_ptr<Searcher> make_ppo(const Problem& problem, const PpoOptions& options,
                                   uint64_t seed) {
  return std::make_unique<PpoSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
