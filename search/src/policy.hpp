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
  int64_t agent = 0;        ///< Agent that owns the head in a shared network (marl's parameter
                            ///< sharing): heads of one agent are contiguous, agents numbered
                            ///< 0, 1, ... in head order; with more than one agent the network
                            ///< gets a one-hot agent-id input. 0 for a network of one agent.
};

/// Per-agent baselines of one batch: [agent][sample] (one row for a network of one agent).
using AgentBaselines = std::vector<std::vector<double>>;

/// The learner's operations, implemented on LibTorch in the torch module (torch_module.hpp).
class LearnerBackend {
 public:
  virtual ~LearnerBackend() = default;
  /// See Learner::sample.
  virtual std::vector<std::vector<int64_t>> sample(int64_t n, std::mt19937_64& rng) = 0;
  /// See Learner::update.
  virtual void update(const std::vector<std::vector<int64_t>>& actions,
                      const std::vector<double>& rewards, const AgentBaselines* baselines) = 0;
  /// See Learner::warm_start.
  virtual void warm_start(const std::vector<std::vector<int64_t>>& actions,
                          const std::vector<double>& rewards, int64_t recent, int64_t steps) = 0;
  /// See Learner::stats.
  virtual nlohmann::json stats() const = 0;
  /// See Learner::parameter_count.
  virtual int64_t parameter_count() const = 0;
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
  /// With `baselines` ((*baselines)[a][s] for agent a and action s), agent a's advantage of
  /// action s is rewards[s] - (*baselines)[a][s] (scaled by the batch standard deviation of
  /// those differences) instead of the reward minus the learned value: marl's counterfactual
  /// credit. Each agent of a shared network has its own PPO ratio over its own heads.
  void update(const std::vector<std::vector<int64_t>>& actions, const std::vector<double>& rewards,
              const AgentBaselines* baselines = nullptr);

  /// Number of trainable scalars of the network (the shared network counts once).
  int64_t parameter_count() const;

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
