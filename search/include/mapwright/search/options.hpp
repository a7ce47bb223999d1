#pragma once
/// \file options.hpp
/// Hyper-parameters of every searcher, one plain struct each, loaded from
/// configs/search/*.yaml. The defaults here equal configs/search/default.yaml: every searcher's
/// winner of the equal-effort tuning on the tuning layers (docs/study.md, "Equal-effort
/// tuning"; configs/search/tuned.yaml is that run's output), so the product's defaults are what
/// the studies measured.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/search/clustering.hpp"

namespace mapwright::search {

/// Uniform random sampling.
struct RandomOptions {
  int64_t batch = 32;  ///< Points proposed per ask().
};

/// Generational genetic algorithm with tournament selection and elitism.
struct GaOptions {
  int64_t population = 18;       ///< Individuals per generation (>= 2).
  double mutation_prob = 0.131;  ///< Per-gene probability of a mutation, in [0, 1].
  double crossover_prob = 0.9;   ///< Probability that a child is a uniform crossover of two
                                 ///< parents (else a copy of one), in [0, 1].
  int64_t tournament = 6;        ///< Tournament size for parent selection (>= 1).
  int64_t elitism = 2;           ///< Best individuals copied unchanged (0 <= e < population).
  double radius = 0.147;         ///< Ordinal mutation step bound, as a fraction of the
                                 ///< cardinality (at least 1 step), in (0, 1].
};

/// Simulated annealing on log-cost with Metropolis acceptance.
struct SaOptions {
  double initial_temperature = 0.13;  ///< T0 in log-cost units: a move that makes the cost
                                      ///< e times worse is accepted with p = exp(-1/T0).
  double cooling = 0.984;             ///< T <- T * cooling after every evaluated point, (0, 1].
  double min_temperature = 1e-3;      ///< Lower bound of T (> 0).
  double radius = 0.0104;             ///< Ordinal move bound as a fraction of the cardinality.
  int64_t params_per_move = 1;        ///< Parameters changed by one move (>= 1).
  int64_t restart_after = 122;        ///< Jump back to the best point after this many samples
                                      ///< without improvement (0 = never).
};

/// One policy-gradient learner (used by ppo, and by each marl agent).
struct LearnerOptions {
  std::string algorithm = "ppo";     ///< "ppo" (clipped surrogate, several epochs) or
                                     ///< "reinforce" (REINFORCE with a learned baseline).
  double lr = 0.02;                  ///< Adam learning rate.
  int64_t batch = 32;                ///< Points sampled per policy update.
  int64_t epochs = 4;                ///< Gradient steps per batch (ppo; reinforce uses 1).
  double clip = 0.2;                 ///< PPO ratio clip epsilon (> 0).
  double entropy_coef = 0.1;         ///< Entropy bonus weight (>= 0), per parameter head.
  double value_coef = 0.5;           ///< Critic (baseline) loss weight (>= 0).
  double max_grad_norm = 1.0;        ///< Gradient norm clip (> 0).
  int64_t hidden = 32;               ///< Hidden width of the policy network (>= 1).
  int64_t layers = 1;                ///< Hidden layers after the learned input (>= 0).
  int64_t ordinal_basis = 8;         ///< Smooth basis functions added to each ordinal head so
                                     ///< that neighbouring values share credit (0 = off).
  bool autoregressive = false;       ///< Heads of one policy condition on the values already
                                     ///< chosen by the heads before them (joint distribution
                                     ///< inside a policy) instead of being independent.
  std::string advantage = "critic";  ///< "batch": reward minus the batch mean; "critic":
                                     ///< reward minus the learned value. Both divided by the
                                     ///< batch standard deviation.
  double invalid_penalty = 1.0;      ///< Reward of an invalid point: the worst valid reward
                                     ///< seen so far minus this (log-cost units, > 0).
  int64_t elite = 8;                 ///< Self-imitation: size of the archive of the best
                                     ///< (action, reward) pairs seen so far (0 = off).
  double imitation_coef = 0.3;       ///< Weight of the self-imitation loss (>= 0).
  double repeat_penalty = 0.5;       ///< Subtracted from the reward of a point proposed again
                                     ///< (log-cost units, >= 0; 0 = repeats are rewarded as
                                     ///< their first evaluation was). Chosen among 0, 0.5 and 2
                                     ///< on ResNet-18 and BERT layers (docs/study.md).
  std::string reward = "log";        ///< Cost -> reward: "log" (log(ref / cost), invalid the
                                     ///< worst seen minus invalid_penalty; ours) or "inverse"
                                     ///< (ArchGym's MAESTRO env: 1 / (cost * inverse_scale),
                                     ///< invalid invalid_reward; docs/study.md "The paper's
                                     ///< setting").
  double inverse_scale = 10.0;       ///< "inverse": cost multiplier (10 turns an EDP in pJ x
                                     ///< cycles into ArchGym's nJ x cycles x 1e4).
  double invalid_reward = -1.0;      ///< "inverse": the reward of an invalid point (ArchGym:
                                     ///< -1 for EDP, about 1e-20 for latency).
  bool value_norm = false;           ///< Value normalization (MAPPO's ValueNorm): the value
                                     ///< head learns the reward standardized by the running
                                     ///< mean and standard deviation of every reward seen, so
                                     ///< its loss has the same scale on every layer.
};

/// Single-agent PPO over all parameters: one LearnerOptions.
using PpoOptions = LearnerOptions;

/// The paper's single-agent baseline (searcher kind "ppo-box"): ArchGym-style PPO with ONE
/// continuous action vector over all parameters, a diagonal tanh-squashed Gaussian policy,
/// each dimension decoded to its parameter's value index by equal-width bins of (-1, 1).
/// Sources of the defaults: Acme JAX PPO as configured by ArchGym's
/// train_single_agent_maestro.py (research notes on the paper, "Most likely setup") unless the
/// comment says "ours"; search/README.md ("ppo-box") lists every default with its source.
struct PpoBoxOptions {
  double lr = 0.0109;               ///< Adam learning rate. ArchGym: 2e-5, which barely moves the
                                    ///< policy in ~30 updates of a 1000-sample run; ours, tuned.
  int64_t batch = 19;               ///< Points per update (Acme: 256 x unroll 8; ours, tuned).
  int64_t epochs = 4;               ///< Passes over the batch per update (Acme num_epochs 2,
                                    ///< x 8 minibatches = 16 steps; ours 4, as ppo).
  int64_t minibatches = 1;          ///< Minibatches per pass (Acme 8 of a 2048 batch; ours 1).
  double clip = 0.2;                ///< PPO ratio clip epsilon (ArchGym ppo_clipping_epsilon).
  double entropy_coef = 0.00469;    ///< Entropy bonus weight (ArchGym entropy_cost 0.1; ours,
                                    ///< tuned), per update on the summed (estimated) entropy of
                                    ///< the squashed policy.
  double value_coef = 1.0;          ///< Value loss weight (Acme value_cost).
  double max_grad_norm = 0.5;       ///< Gradient norm clip (Acme max_gradient_norm).
  double adam_epsilon = 1e-7;       ///< Adam epsilon (Acme adam_epsilon).
  int64_t hidden = 32;              ///< Hidden width (ArchGym layer_sizes 32).
  int64_t layers = 3;               ///< Hidden tanh layers (ArchGym layer_sizes (32,32,32)).
  double init_std = 0.95;           ///< Initial pre-tanh standard deviation (ours, tuned; Acme's
                                    ///< NormalTanhDistribution scale at a zero input is 0.7).
  double min_std = 1e-3;            ///< Floor of the standard deviation (Acme min_scale).
  bool normalize_advantage = true;  ///< Divide (reward - value) by the batch reward std
                                    ///< (Acme PPOConfig.normalize_advantage, from Acme's
                                    ///< source, not the research notes; no centring, as ppo).
  double invalid_penalty = 1.0;     ///< Reward of an invalid point, as in ppo (log-cost units).
  std::string reward = "log";       ///< Cost -> reward: "log" (log(ref / cost), invalid the
                                    ///< worst seen minus invalid_penalty; ours) or "inverse"
                                    ///< (ArchGym's MAESTRO env: 1 / (cost * inverse_scale),
                                    ///< invalid invalid_reward; docs/study.md "The paper's
                                    ///< setting").
  double inverse_scale = 10.0;      ///< "inverse": cost multiplier (10 turns an EDP in pJ x
                                    ///< cycles into ArchGym's nJ x cycles x 1e4).
  double invalid_reward = -1.0;     ///< "inverse": the reward of an invalid point (ArchGym:
                                    ///< -1 for EDP, about 1e-20 for latency).
};

/// Bayesian-optimization-style baseline (searcher kind "bo"): dlib's global_function_search
/// (MaxLIPO upper-bound model for global steps, alternating with a quadratic trust-region
/// model around the best point), asked and told point by point; search/README.md ("bo").
struct BoOptions {
  int64_t batch = 1;                           ///< Points proposed per ask (outstanding dlib
                                               ///< requests: 1 local step + batch - 1 global).
  double invalid_penalty = 1.0;                ///< Value of an invalid point: the worst valid
                                               ///< value seen so far minus this (log-cost units,
                                               ///< > 0), as for ppo.
  bool ordinal_continuous = true;              ///< Ordinal parameters are real variables of
                                               ///< dlib, rounded to the nearest index (so the
                                               ///< trust-region step can work on them); false:
                                               ///< integer variables, as categoricals are.
  double solver_epsilon = 0.000996;            ///< Least predicted improvement (log-cost
                                               ///< units) for a trust-region step (dlib
                                               ///< set_solver_epsilon, >= 0).
  double relative_noise_magnitude = 0.000338;  ///< Noise term of the upper-bound model (dlib
                                               ///< set_relative_noise_magnitude, > 0).
  double pure_random_search_probability = 0.0226;  ///< Probability that a global step is uniformly
                                                   ///< random (dlib, in [0, 1]).
};

/// The default learner of a marl agent: autoregressive heads, so that an agent can coordinate
/// the parameters it owns (the reason for grouping interacting parameters).
inline LearnerOptions default_marl_learner() {
  LearnerOptions o;
  o.autoregressive = true;
  o.lr = 0.0288;
  o.batch = 10;
  o.entropy_coef = 0.124;
  o.repeat_penalty = 1.06;
  o.elite = 4;
  o.imitation_coef = 0.3;
  return o;
}

/// The fewest points marl clusters on: the least marl.initial_samples, and the least prior
/// (Searcher::prime) marl takes instead of its initial sample.
constexpr int64_t kMarlMinInitialSamples = 8;

/// Decentralized multi-agent RL with correlation-based agent clustering.
struct MarlOptions {
  LearnerOptions learner = default_marl_learner();  ///< Knobs of every agent's learner.
  int64_t initial_samples = 26;           ///< Uniform random points evaluated before clustering
                                          ///< (counted against the budget; also the first update).
  std::string mode = "correlation";       ///< Agent assignment: "correlation" (clustering),
                                          ///< "per-param", "random" (random clusters of the
                                          ///< correlation sizes) or "single" (ablations).
  std::string agents = "clustered";       ///< "clustered": agents from `mode`; "per-buffer":
                                          ///< domain-informed, one agent per ParamSpec::group
                                          ///< (tiles sharing buffers; buffer_clusters), with
                                          ///< `mode` left at "correlation".
  ClusteringOptions clustering;           ///< Association measure and cut rule.
  int64_t recluster_at = 0;               ///< "correlation" mode: cluster again once this many
                                          ///< samples are known, on all of them (0 = never).
  std::string credit = "counterfactual";  ///< "team": every agent's advantage is the team
                                          ///< reward minus its own baseline; "counterfactual": the
                                          ///< team reward minus a factored critic's estimate of the
                                          ///< other agents' contribution (search/README.md).
  int64_t critic_bins = 16;         ///< Counterfactual critic: value bins per parameter (>= 1).
  int64_t critic_window = 1024;     ///< Counterfactual critic: fitted on the last N samples.
  double critic_ridge = 1.0;        ///< Counterfactual critic: ridge weight per bin (>= 0).
  std::string sharing = "none";     ///< "none": one network per agent; "all": one network for
                                    ///< every agent, with a one-hot agent-id input (parameter
                                    ///< sharing, MAPPO), one optimizer and per-agent PPO ratios.
  std::string critic = "additive";  ///< Counterfactual credit's centralized critic: "additive"
                                    ///< (binned main effects) or "joint" (a network over the
                                    ///< whole joint action, COMA-style marginal baseline).
};

/// Options of every searcher; make_searcher picks the struct of the requested kind.
struct SearchOptions {
  RandomOptions random;   ///< Key "random".
  GaOptions ga;           ///< Key "ga".
  SaOptions sa;           ///< Key "sa".
  PpoOptions ppo;         ///< Key "ppo".
  MarlOptions marl;       ///< Key "marl".
  PpoBoxOptions ppo_box;  ///< Key "ppo_box" (searcher kind "ppo-box"); after the others, so
                          ///< that their positional initializers keep their meaning.
  BoOptions bo;           ///< Key "bo"; last, for the same reason.
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
nlohmann::json to_json(const LearnerOptions& options);     ///< One learner.
nlohmann::json to_json(const PpoBoxOptions& options);      ///< The ppo-box baseline.
nlohmann::json to_json(const BoOptions& options);          ///< The bo baseline.
nlohmann::json to_json(const ClusteringOptions& options);  ///< Clustering knobs.

/// The searcher kinds make_searcher accepts (each has its options section above), in a stable
/// order.
const std::vector<std::string>& searcher_kinds();

}  // namespace mapwright::search
