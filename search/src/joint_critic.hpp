#pragma once
// marl's joint-action critic (`marl.critic: joint`): a small network that predicts the team
// reward from the whole joint action (every parameter, binned), the centralized critic of
// CTDE / MAPPO for one-step episodes, and the COMA-style baseline it gives each agent. The
// network lives in the torch module (joint_critic.cpp); this wrapper and the baseline are
// torch-free (critic.cpp). Internal to search/.

#include <cstdint>
#include <memory>
#include <vector>

#include "mapwright/search/searcher.hpp"
#include "policy.hpp"

namespace mapwright::search::detail {

/// The critic's operations, implemented on LibTorch in the torch module.
class JointCriticBackend {
 public:
  virtual ~JointCriticBackend() = default;
  /// See JointCritic::fit.
  virtual void fit(const std::vector<Point>& points, const std::vector<double>& rewards) = 0;
  /// Predicted reward of each point.
  virtual std::vector<double> predict(const std::vector<Point>& points) = 0;
  /// Trainable scalars.
  virtual int64_t parameter_count() const = 0;
};

/// Joint-action critic Q(a) ~ team reward: per parameter an embedding of its value's bin (the
/// parameter's values split into min(card, bins) equal index ranges, as the additive critic),
/// concatenated, one tanh hidden layer, a linear output. Persistent: each fit continues
/// training from the last (a fixed number of full-batch Adam steps on the squared error).
class JointCritic {
 public:
  /// Builds the network with torch seeded by torch_seed (under the learners' lock).
  JointCritic(const Problem& problem, int64_t bins, uint64_t torch_seed);
  ~JointCritic();
  JointCritic(const JointCritic&) = delete;
  JointCritic& operator=(const JointCritic&) = delete;

  /// Trains on these samples (their team rewards, log-cost units).
  void fit(const std::vector<Point>& points, const std::vector<double>& rewards);

  /// Baseline of agent a (owning parameters clusters[a]) for point s of the batch: the mean
  /// over the batch's other points s' of Q(point s with agent a's parameters taken from s').
  /// The agents sample independently, so s' draws agent a's part from its current policy and
  /// the baseline does not depend on point s's own part: an unbiased, leave-one-out Monte
  /// Carlo form of COMA's counterfactual baseline. A batch of one point gets Q(point).
  AgentBaselines marginal_baselines(const std::vector<Point>& pts,
                                    const std::vector<std::vector<int64_t>>& clusters);

  /// Trainable scalars of the network.
  int64_t parameter_count() const;

 private:
  std::unique_ptr<JointCriticBackend> impl_;  ///< The torch module's network.
};

}  // namespace mapwright::search::detail
