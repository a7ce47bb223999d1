#pragma once
// A small LibTorch policy over a few discrete parameters, and its policy-gradient learner
// (PPO or REINFORCE with a learned baseline). Used by the ppo searcher (one learner over all
// parameters) and by every marl agent (one learner over its cluster). Internal: torch types
// never reach the public headers, and the torch code lives in the torch module
// (torch_module.hpp), loaded when the first learner is built.

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/search/options.hpp"

namespace mapwright::search::detail {

/// One categorical head: the value range of one parameter.
struct HeadSpec {
  int64_t cardinality = 1;  ///< Number of values.
  bool ordinal = false;     ///< Adds the smooth basis when options.ordinal_basis > 0.
};

/// The learner's operations, implemented on LibTorch in the torch module (torch_module.hpp).
class LearnerBackend {
 public:
  virtual ~LearnerBackend() = default;
  /// See Learner::sample.
  virtual std::vector<std::vector<int64_t>> sample(int64_t n, std::mt19937_64& rng) = 0;
  /// See Learner::update.
  virtual void update(const std::vector<std::vector<int64_t>>& actions,
                      const std::vector<double>& rewards, const std::vector<double>* baselines) = 0;
  /// See Learner::warm_start.
  virtual void warm_start(const std::vector<std::vector<int64_t>>& actions,
                          const std::vector<double>& rewards, int64_t recent, int64_t steps) = 0;
  /// See Learner::stats.
  virtual nlohmann::json stats() const = 0;
};

/// Policy + optimizer + update rule. Actions are vectors of value indices, one per head.
/// Forwards to the torch module's learner, loading the module on first use.
class Learner {
 public:
  /// Builds the network with torch seeded by torch_seed (under a process-wide lock, since the
  /// torch generator is global) and sets torch to one thread. The initial policy is uniform.
  Learner(const std::vector<HeadSpec>& heads, const LearnerOptions& options, uint64_t torch_seed);
  ~Learner();
  Learner(const Learner&) = delete;
  Learner& operator=(const Learner&) = delete;

  /// Draws n actions from the current policy with rng (no torch randomness).
  std::vector<std::vector<int64_t>> sample(int64_t n, std::mt19937_64& rng);

  /// One policy update from actions sampled by the current policy and their team rewards
  /// (log-cost units). Batches smaller than 2 are ignored.
  /// With `baselines` (one per action), the advantage of action s is rewards[s] -
  /// baselines[s] (scaled by the batch standard deviation of those differences) instead of
  /// the reward minus this learner's own baseline: marl's counterfactual credit.
  void update(const std::vector<std::vector<int64_t>>& actions, const std::vector<double>& rewards,
              const std::vector<double>* baselines = nullptr);

  /// Warm start of a new agent: every (action, reward) enters the self-imitation archive,
  /// then `steps` Adam steps of maximum likelihood on the last `recent` actions (behaviour
  /// cloning of the policy that produced them).
  void warm_start(const std::vector<std::vector<int64_t>>& actions,
                  const std::vector<double>& rewards, int64_t recent, int64_t steps);

  /// Counters and last losses for the run record.
  nlohmann::json stats() const;

 private:
  std::unique_ptr<LearnerBackend> impl_;  ///< The torch module's learner.
};

}  // namespace mapwright::search::detail
