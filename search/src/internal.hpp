#pragma once
// Shared helpers of the searcher implementations: factories of each kind, random points and
// mutations on the abstract problem, and the reward normalization of the RL searchers. Not
// installed; no torch types here.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mapwright/support/stats.hpp"
#include "mapwright/search/searcher.hpp"

namespace mapwright::search::detail {

std::unique_ptr<Searcher> make_random(const Problem& problem, const RandomOptions& options,
                                      uint64_t seed);
std::unique_ptr<Searcher> make_ga(const Problem& problem, const GaOptions& options, uint64_t seed);
std::unique_ptr<Searcher> make_sa(const Problem& problem, const SaOptions& options, uint64_t seed);
std::unique_ptr<Searcher> make_ppo(const Problem& problem, const PpoOptions& options,
                                   uint64_t seed);
std::unique_ptr<Searcher> make_ppo_box(const Problem& problem, const PpoBoxOptions& options,
                                       uint64_t seed);
std::unique_ptr<Searcher> make_marl(const Problem& problem, const MarlOptions& options,
                                    uint64_t seed);
std::unique_ptr<Searcher> make_bo(const Problem& problem, const BoOptions& options, uint64_t seed);

/// splitmix64 step: derives independent seeds from one.
uint64_t mix_seed(uint64_t x);

/// Uniform integer in [0, n) from our own generator (std::uniform_int_distribution is not
/// specified bit-for-bit across standard libraries; this is).
int64_t uniform_index(std::mt19937_64& rng, int64_t n);
/// Uniform double in [0, 1) with 53 random bits.
double uniform01(std::mt19937_64& rng);

/// A uniformly random point.
Point random_point(const Problem& problem, std::mt19937_64& rng);

/// Number of points of the problem, saturated at INT64_MAX.
int64_t space_size(const Problem& problem);

/// The prior's outcomes as the searchers' normalizers read them: `repeat` cleared (a prior
/// point is an observation, never a proposal of the searcher). Inline: the torch module uses it.
inline std::vector<Outcome> prior_outcomes(const std::vector<Outcome>& out) {
  std::vector<Outcome> o = out;
  for (Outcome& x : o) x.repeat = false;
  return o;
}

/// A different value for one parameter: ordinal parameters move by 1..max(1, radius*card)
/// steps up or down (reflected at the ends) with probability 0.8, else jump uniformly;
/// categorical parameters jump to a uniformly chosen other value. Returns v if card == 1.
int64_t mutate_value(const ParamSpec& spec, int64_t v, double radius, std::mt19937_64& rng);

/// Problem and seed facts for describe().
nlohmann::json problem_json(const Problem& problem);

/// Turns team outcomes into rewards (search/README.md, "Reward normalization"):
/// r = log(ref / cost) with ref the median valid cost of the first batch that has a valid
/// outcome; an invalid outcome gets (worst valid reward seen so far) - penalty, or -penalty
/// before any valid outcome.
/// With the "inverse" form (ArchGym's MAESTRO environment) instead: r = 1 / (cost * scale), an
/// invalid outcome `invalid_reward`, with no reference and no normalization.
struct RewardForm {
  bool inverse = false;        ///< "inverse" (else "log").
  double scale = 10.0;         ///< Cost multiplier of the inverse form.
  double invalid_reward = -1;  ///< The inverse form's reward of an invalid outcome.
  /// The form an options section names (reward, inverse_scale, invalid_reward).
  static RewardForm of(const std::string& reward, double scale, double invalid_reward) {
    return {reward == "inverse", scale, invalid_reward};
  }
};
class RewardNormalizer {
 public:
  /// `repeat_penalty` is subtracted from the reward of an outcome marked as a repeat.
  explicit RewardNormalizer(double penalty, double repeat_penalty = 0, RewardForm form = {})
      : penalty_(penalty), repeat_penalty_(repeat_penalty), form_(form) {}
  /// Rewards of one batch, in order. Updates the reference and the worst reward seen.
  std::vector<double> rewards(const std::vector<Outcome>& outcomes);
  bool has_reference() const { return has_ref_; }  ///< True once ref is set.
  double reference() const { return ref_; }        ///< ref (cost units).

 private:
  double penalty_;           ///< Invalid penalty in log units.
  double repeat_penalty_;    ///< Repeat penalty in log units.
  RewardForm form_;          ///< log (normalized) or inverse (ArchGym).
  bool has_ref_ = false;     ///< Reference set.
  double ref_ = 1.0;         ///< Reference cost.
  double worst_ = 0.0;       ///< Lowest valid reward seen (0 before any).
  bool seen_valid_ = false;  ///< A valid reward has been seen.
};

/// The state and describe() of the single-policy RL searchers (ppo, ppo-box): the problem, the
/// options, the run seed and the torch seed derived from it, the generator of the actions and
/// the reward normalization. A subclass adds its learner and reports it in learner_json().
template <class Options>
class PolicySearcher : public Searcher {
 public:
  nlohmann::json describe() const override {
    return {{"kind", name()},
            {"seed", seed_},
            {"torch_seed", torch_seed_},
            {"options", to_json(options_)},
            {"reference_cost", rewards_.has_reference() ? nlohmann::json(rewards_.reference())
                                                        : nlohmann::json(nullptr)},
            {"learner", learner_json()},
            {"problem", problem_json(problem_)}};
  }

 protected:
  PolicySearcher(const Problem& problem, const Options& options, uint64_t seed,
                 RewardNormalizer rewards)
      : problem_(problem),
        options_(options),
        seed_(seed),
        torch_seed_(mix_seed(seed)),
        rng_(seed),
        rewards_(rewards) {}

  /// The learner's state and statistics, describe()'s "learner".
  virtual nlohmann::json learner_json() const = 0;

  Problem problem_;           ///< The space.
  Options options_;           ///< Hyper-parameters.
  uint64_t seed_;             ///< Seed of the run.
  uint64_t torch_seed_;       ///< Seed of the learner's torch state (derived from seed_).
  std::mt19937_64 rng_;       ///< Action sampling (and ppo-box's minibatch shuffles).
  RewardNormalizer rewards_;  ///< Cost -> reward.
};

/// Additive model of a reward over binned parameter values, r ~ bias + sum_k t_k[bin(a_k)]
/// (parameter k's values split into min(card, bins) equal index ranges), fitted by ridge
/// backfitting. marl's counterfactual credit uses it as a factored, centralized critic.
class AdditiveCritic {
 public:
  AdditiveCritic(const Problem& problem, int64_t bins, double ridge);
  /// Refits from scratch on these samples (sweeps of backfitting).
  void fit(const std::vector<Point>& points, const std::vector<double>& rewards, int sweeps = 6);
  double bias() const { return bias_; }        ///< Mean reward of the fitted samples.
  double part(size_t k, int64_t value) const;  ///< t_k of value's bin.

 private:
  int64_t bin(size_t k, int64_t value) const;  ///< Bin of a value of parameter k.
  double ridge_;                               ///< Shrinkage per bin.
  std::vector<int64_t> cards_, bins_;          ///< Cardinality and bin count per parameter.
  std::vector<std::vector<double>> tables_;    ///< t_k per bin.
  double bias_ = 0;                            ///< Intercept.
};

using core::median;  ///< (support/stats.hpp)

}  // namespace mapwright::search::detail
