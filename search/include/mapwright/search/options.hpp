#pragma once
/// \file options.hpp
/// Hyper-parameters of every searcher, one plain struct each, loaded from
/// configs/search/*.yaml. The defaults here equal configs/search/default.yaml.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/search/clustering.hpp"

namespace mapwright::search {

/// Uniform random sampling.
struct RandomOptions {
  int64_t batch = 32;  ///< Points proposed per ask().
};

/// Generational genetic algorithm with tournament selection and elitism.
struct GaOptions {
  int64_t population = 48;      ///< Individuals per generation (>= 2).
  double mutation_prob = 0.1;   ///< Per-gene probability of a mutation, in [0, 1].
  double crossover_prob = 0.9;  ///< Probability that a child is a uniform crossover of two
                                ///< parents (else a copy of one), in [0, 1].
  int64_t tournament = 5;       ///< Tournament size for parent selection (>= 1).
  int64_t elitism = 2;          ///< Best individuals copied unchanged (0 <= e < population).
  double radius = 0.05;         ///< Ordinal mutation step bound, as a fraction of the
                                ///< cardinality (at least 1 step), in (0, 1].
};

/// Simulated annealing on log-cost with Metropolis acceptance.
struct SaOptions {
  double initial_temperature = 1.0;  ///< T0 in log-cost units: a move that makes the cost
                                     ///< e times worse is accepted with p = exp(-1/T0).
  double cooling = 0.995;            ///< T <- T * cooling after every evaluated point, (0, 1].
  double min_temperature = 1e-3;     ///< Lower bound of T (> 0).
  double radius = 0.05;              ///< Ordinal move bound as a fraction of the cardinality.
  int64_t params_per_move = 1;       ///< Parameters changed by one move (>= 1).
  int64_t restart_after = 400;       ///< Jump back to the best point after this many samples
                                     ///< without improvement (0 = never).
};

/// One policy-gradient learner (used by ppo, and by each marl agent).
struct LearnerOptions {
  std::string algorithm = "ppo";  ///< "ppo" (clipped surrogate, several epochs) or
                                  ///< "reinforce" (REINFORCE with a learned baseline).
  double lr = 0.02;               ///< Adam learning rate.
  int64_t batch = 32;             ///< Points sampled per policy update.
  int64_t epochs = 4;             ///< Gradient steps per batch (ppo; reinforce uses 1).
  double clip = 0.2;              ///< PPO ratio clip epsilon (> 0).
  double entropy_coef = 0.1;      ///< Entropy bonus weight (>= 0), per parameter head.
  double value_coef = 0.5;        ///< Critic (baseline) loss weight (>= 0).
  double max_grad_norm = 1.0;     ///< Gradient norm clip (> 0).
  int64_t hidden = 32;            ///< Hidden width of the policy network (>= 1).
  int64_t layers = 1;             ///< Hidden layers after the learned input (>= 0).
  int64_t ordinal_basis = 8;      ///< Smooth basis functions added to each ordinal head so
                                  ///< that neighbouring values share credit (0 = off).
  bool autoregressive = false;    ///< Heads of one policy condition on the values already
                                  ///< chosen by the heads before them (joint distribution
                                  ///< inside a policy) instead of being independent.
  std::string advantage = "critic";  ///< "batch": reward minus the batch mean; "critic":
                                    ///< reward minus the learned value. Both divided by the
                                    ///< batch standard deviation.
  double invalid_penalty = 1.0;     ///< Reward of an invalid point: the worst valid reward
                                    ///< seen so far minus this (log-cost units, > 0).
  int64_t elite = 8;                ///< Self-imitation: size of the archive of the best
                                    ///< (action, reward) pairs seen so far (0 = off).
  double imitation_coef = 0.3;      ///< Weight of the self-imitation loss (>= 0).
};

/// Single-agent PPO over all parameters: one LearnerOptions.
using PpoOptions = LearnerOptions;

/// The default learner of a marl agent: autoregressive heads, so that an agent can coordinate
/// the parameters it owns (the reason for grouping interacting parameters).
inline LearnerOptions default_marl_learner() {
  LearnerOptions o;
  o.autoregressive = true;
  o.batch = 16;
  o.elite = 4;
  o.imitation_coef = 0.3;
  return o;
}

/// Decentralized multi-agent RL with correlation-based agent clustering.
struct MarlOptions {
  LearnerOptions learner = default_marl_learner();  ///< Knobs of every agent's learner.
  int64_t initial_samples = 32;    ///< Uniform random points evaluated before clustering
                                   ///< (counted against the budget; also the first update).
  std::string mode = "correlation";  ///< Agent assignment: "correlation" (clustering),
                                     ///< "per-param", "random" (random clusters of the
                                     ///< correlation sizes) or "single" (ablations).
  ClusteringOptions clustering;    ///< Association measure and cut rule.
  int64_t recluster_at = 0;        ///< "correlation" mode: cluster again once this many
                                   ///< samples are known, on all of them (0 = never).
  std::string credit = "counterfactual";  ///< "team": every agent's advantage is the team
                                   ///< reward minus its own baseline; "counterfactual": the
                                   ///< team reward minus a factored critic's estimate of the
                                   ///< other agents' contribution (search/README.md).
  int64_t critic_bins = 16;        ///< Counterfactual critic: value bins per parameter (>= 1).
  int64_t critic_window = 1024;    ///< Counterfactual critic: fitted on the last N samples.
  double critic_ridge = 1.0;       ///< Counterfactual critic: ridge weight per bin (>= 0).
};

/// Options of every searcher; make_searcher picks the struct of the requested kind.
struct SearchOptions {
  RandomOptions random;  ///< Key "random".
  GaOptions ga;          ///< Key "ga".
  SaOptions sa;          ///< Key "sa".
  PpoOptions ppo;        ///< Key "ppo".
  MarlOptions marl;      ///< Key "marl".
};

/// Load options from a YAML file. Missing keys keep their defaults. Throws
/// std::invalid_argument whose message names the file, the (dotted) key and the value, for
/// malformed YAML, unknown keys, wrong types and out-of-range values.
SearchOptions load_search_options(const std::string& yaml_file);

/// Parse options from YAML text; `where` names the source in error messages.
SearchOptions parse_search_options(const std::string& yaml_text, const std::string& where);

/// Check ranges and enumerations; throws std::invalid_argument "<where>: key '<k>' = '<v>': why".
void validate_options(const SearchOptions& options, const std::string& where = "options");

/// Options as JSON, with the same keys as the YAML file.
nlohmann::json to_json(const SearchOptions& options);
nlohmann::json to_json(const LearnerOptions& options);    ///< One learner.
nlohmann::json to_json(const ClusteringOptions& options); ///< Clustering knobs.

}  // namespace mapwright::search
