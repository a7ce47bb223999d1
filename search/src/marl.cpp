// Decentralized multi-agent RL. First, initial_samples uniform random points are evaluated
// (they count against the budget; a prior given to prime() replaces them); the parameters are then
// split into agents by cluster_parameters (correlation clustering or an ablation). Each agent owns
// a small policy with heads for its own parameters only, its own optimizer and its own baseline;
// the joint point is the concatenation of the agents' choices and every agent is updated with the
// same normalized team reward. The initial policies are uniform, so the initial sample is also the
// agents' first on-policy batch.
//
// Credit ("counterfactual", default): the team reward of a sample is the same for every agent,
// but most of its variance comes from the other agents' choices. A factored critic (an
// additive model of the reward over all parameters, fitted on the recent samples) estimates
// the other agents' contribution, and agent i's advantage is the reward minus that estimate
// (minus the batch mean of its own part). Since that baseline does not depend on agent i's
// own action, and the agents sample independently, agent i's policy gradient stays unbiased;
// only its variance drops (difference rewards / COMA-style counterfactual baselines with a
// VDN-like additive critic).
#include <algorithm>

#include "internal.hpp"
#include "joint_critic.hpp"
#include "policy.hpp"

namespace mapwright::search::detail {
namespace {

class MarlSearcher final : public Searcher {
 public:
  MarlSearcher(const Problem& problem, const MarlOptions& options, uint64_t seed)
      : problem_(problem),
        options_(options),
        seed_(seed),
        rng_(seed),
        rewards_(options.learner.invalid_penalty, options.learner.repeat_penalty,
                 RewardForm::of(options.learner.reward, options.learner.inverse_scale,
                                options.learner.invalid_reward)),
        critic_(problem, options.critic_bins, options.critic_ridge) {
    if (options.credit == "counterfactual" && options.critic == "joint")
      joint_critic_ = std::make_unique<JointCritic>(problem, options.critic_bins,
                                                    mix_seed(seed ^ 0x6a6f696eULL));
  }

  std::vector<Point> ask(int n) override {
    if (!started()) {
      const int64_t left = options_.initial_samples - static_cast<int64_t>(all_points_.size());
      std::vector<Point> pts;
      for (int64_t i = 0; i < std::min<int64_t>(n, left); ++i)
        pts.push_back(random_point(problem_, rng_));
      return pts;
    }
    const int64_t count = std::min<int64_t>(n, options_.learner.batch);
    std::vector<Point> pts(static_cast<size_t>(count), Point(problem_.params.size()));
    if (shared_) {  // One network: every agent's heads, in cluster order (order_).
      const auto joint = shared_->sample(count, rng_);
      for (size_t i = 0; i < pts.size(); ++i)
        for (size_t k = 0; k < order_.size(); ++k)
          pts[i][static_cast<size_t>(order_[k])] = joint[i][k];
      return pts;
    }
    for (size_t a = 0; a < agents_.size(); ++a) {
      const auto local = agents_[a]->sample(count, rng_);
      const auto& params = clustering_.clusters[a];
      for (size_t i = 0; i < pts.size(); ++i)
        for (size_t k = 0; k < params.size(); ++k)
          pts[i][static_cast<size_t>(params[k])] = local[i][k];
    }
    return pts;
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    all_points_.insert(all_points_.end(), pts.begin(), pts.end());
    all_outcomes_.insert(all_outcomes_.end(), out.begin(), out.end());
    if (!started()) {  // Everything so far is the initial sample.
      if (static_cast<int64_t>(all_points_.size()) < options_.initial_samples) return;
      start();
      return;
    }
    update(pts, out);
    if (options_.mode == "correlation" && options_.recluster_at > 0 && reclustered_at_ == 0 &&
        static_cast<int64_t>(all_points_.size()) >= options_.recluster_at)
      recluster();
  }

  /// The prior replaces the initial sample: the parameters are clustered on it and it is the
  /// agents' first batch (uniform, as their initial policies); no initial_samples are spent.
  /// A prior smaller than kMarlMinInitialSamples points is ignored.
  void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (started() || !all_points_.empty() ||
        static_cast<int64_t>(pts.size()) < kMarlMinInitialSamples)
      return;
    all_points_ = pts;
    all_outcomes_ = prior_outcomes(out);
    start();
    primed_ = static_cast<int64_t>(pts.size());
  }

  std::string name() const override { return "marl"; }

  nlohmann::json describe() const override {
    nlohmann::json agents = nlohmann::json::array();
    for (size_t a = 0; a < agents_.size(); ++a)
      agents.push_back({{"torch_seed", torch_seeds_[a]}, {"learner", agents_[a]->stats()}});
    for (size_t a = 0; shared_ && a < clustering_.clusters.size(); ++a)  // One network.
      agents.push_back({{"torch_seed", torch_seeds_.back()},
                        {"shared_by", clustering_.clusters.size()},
                        {"learner", shared_->stats()}});
    return {
        {"kind", name()},
        {"seed", seed_},
        {"options", to_json(SearchOptions{{}, {}, {}, {}, options_, {}, {}})["marl"]},
        {"clustering", started() ? clustering_.to_json(problem_) : nlohmann::json(nullptr)},
        {"reclustered_at",
         reclustered_at_ > 0 ? nlohmann::json(reclustered_at_) : nlohmann::json(nullptr)},
        {"reclustering_changed_agents", reclusterings_ > 0},
        {"reference_cost",
         rewards_.has_reference() ? nlohmann::json(rewards_.reference()) : nlohmann::json(nullptr)},
        {"agents", agents},
        {"joint_critic_parameters", joint_critic_ ? nlohmann::json(joint_critic_->parameter_count())
                                                  : nlohmann::json(nullptr)},
        {"problem", problem_json(problem_)}};
  }

 private:
  /// The values of `params` in every point: an agent's part of the joint actions.
  static std::vector<std::vector<int64_t>> project(const std::vector<Point>& pts,
                                                   const std::vector<int64_t>& params) {
    std::vector<std::vector<int64_t>> local(pts.size(), std::vector<int64_t>(params.size()));
    for (size_t i = 0; i < pts.size(); ++i)
      for (size_t k = 0; k < params.size(); ++k)
        local[i][k] = pts[i][static_cast<size_t>(params[k])];
    return local;
  }

  /// A fresh learner for cluster a of clustering_ (its torch seed derived from the run seed).
  std::unique_ptr<Learner> new_agent(size_t a) {
    std::vector<HeadSpec> heads;
    for (int64_t i : clustering_.clusters[a]) {
      const auto& p = problem_.params[static_cast<size_t>(i)];
      heads.push_back({p.cardinality, p.ordinal});
    }
    torch_seeds_.push_back(mix_seed(seed_ + torch_seeds_.size() + 1));
    return std::make_unique<Learner>(heads, options_.learner, torch_seeds_.back());
  }

  /// Clusters the parameters on every point so far (the initial sample or the prior), builds
  /// the agents and makes those points their first update.
  void start() {
    clustering_ =
        options_.agents == "per-buffer"
            ? buffer_clusters(problem_)
            : cluster_parameters(problem_, all_points_, all_outcomes_, options_.clustering,
                                 options_.mode, mix_seed(seed_ ^ 0x636c7573ULL));
    if (options_.sharing == "all")
      shared_ = new_shared();
    else
      for (size_t a = 0; a < clustering_.clusters.size(); ++a) agents_.push_back(new_agent(a));
    update(all_points_, all_outcomes_);
  }

  /// True once the agents exist (the initial sample is done).
  bool started() const { return shared_ != nullptr || !agents_.empty(); }

  /// The shared network (sharing "all"): the heads of every cluster, cluster after cluster
  /// (order_), each tagged with its agent; the first is seeded as agent 0 would be.
  std::unique_ptr<Learner> new_shared() {
    std::vector<HeadSpec> heads;
    for (size_t a = 0; a < clustering_.clusters.size(); ++a)
      for (int64_t i : clustering_.clusters[a]) {
        const auto& p = problem_.params[static_cast<size_t>(i)];
        heads.push_back({p.cardinality, p.ordinal, static_cast<int64_t>(a)});
        order_.push_back(i);
      }
    torch_seeds_.push_back(mix_seed(seed_ + torch_seeds_.size() + 1));
    return std::make_unique<Learner>(heads, options_.learner, torch_seeds_.back());
  }

  /// Clusters again on every sample so far (the agents sample independently of each other,
  /// so the interaction tests stay valid on their on-policy points). Agents whose cluster is
  /// unchanged are kept; a new cluster's agent is warm-started by behaviour cloning of the
  /// last samples (the current agents' joint behaviour on its parameters) and gets the best
  /// samples so far in its self-imitation archive.
  void recluster() {
    reclustered_at_ = static_cast<int64_t>(all_points_.size());
    Clustering next = cluster_parameters(problem_, all_points_, all_outcomes_, options_.clustering,
                                         "correlation", mix_seed(seed_ ^ 0x72636c73ULL));
    if (next.clusters == clustering_.clusters) return;
    const std::vector<double>& r = all_rewards_;
    if (shared_) {  // A new shared network for the new agents, warm-started as new agents are.
      clustering_ = next;
      order_.clear();
      shared_ = new_shared();
      shared_->warm_start(project(all_points_, order_), r, 4 * options_.learner.batch, 50);
      ++reclusterings_;
      return;
    }
    std::vector<std::unique_ptr<Learner>> agents;
    const Clustering old = clustering_;
    clustering_ = next;
    for (size_t a = 0; a < clustering_.clusters.size(); ++a) {
      const auto& params = clustering_.clusters[a];
      const auto same = std::find(old.clusters.begin(), old.clusters.end(), params);
      if (same != old.clusters.end()) {
        agents.push_back(std::move(agents_[static_cast<size_t>(same - old.clusters.begin())]));
        continue;
      }
      agents.push_back(new_agent(a));
      agents.back()->warm_start(project(all_points_, params), r, 4 * options_.learner.batch, 50);
    }
    agents_ = std::move(agents);
    ++reclusterings_;
  }

  /// Every agent learns from its own part of the points and the shared team reward (with
  /// counterfactual credit: minus the critic's estimate of the other agents' part).
  void update(const std::vector<Point>& pts, const std::vector<Outcome>& out) {
    const std::vector<double> r = rewards_.rewards(out);
    const size_t earlier = all_rewards_.size();  // Samples told before this batch.
    all_rewards_.insert(all_rewards_.end(), r.begin(), r.end());
    // The critic is fitted on the last critic_window earlier samples only, so that a sample's
    // own reward never leaks into its baseline; the first batch (none earlier) uses team credit.
    const bool counterfactual =
        options_.credit == "counterfactual" && clustering_.clusters.size() > 1 && earlier > 0;
    const AgentBaselines baselines =
        counterfactual ? counterfactual_baselines(pts, earlier) : AgentBaselines{};
    if (shared_) {
      shared_->update(project(pts, order_), r, counterfactual ? &baselines : nullptr);
      return;
    }
    for (size_t a = 0; a < agents_.size(); ++a) {
      const auto local = project(pts, clustering_.clusters[a]);
      if (!counterfactual) {
        agents_[a]->update(local, r);
        continue;
      }
      const AgentBaselines own{baselines[a]};
      agents_[a]->update(local, r, &own);
    }
  }

  /// Each agent's baseline for each point of the batch: the centralized critic's estimate of
  /// the team reward with the agent's own part marginalized (additive critic: the other agents'
  /// parts plus the batch mean of its own part; joint critic: the mean over the batch's other
  /// draws of the agent's parameters), fitted on the samples told before the batch.
  AgentBaselines counterfactual_baselines(const std::vector<Point>& pts, size_t earlier) {
    const size_t from = earlier - std::min(earlier, static_cast<size_t>(options_.critic_window));
    const auto d_from = static_cast<std::ptrdiff_t>(from),
               d_to = static_cast<std::ptrdiff_t>(earlier);
    const std::vector<Point> hist(all_points_.begin() + d_from, all_points_.begin() + d_to);
    const std::vector<double> hist_r(all_rewards_.begin() + d_from, all_rewards_.begin() + d_to);
    const size_t agents = clustering_.clusters.size();
    if (joint_critic_) {
      joint_critic_->fit(hist, hist_r);
      return joint_critic_->marginal_baselines(pts, clustering_.clusters);
    }
    critic_.fit(hist, hist_r);
    std::vector<std::vector<double>> parts(agents, std::vector<double>(pts.size(), 0.0));
    for (size_t a = 0; a < agents; ++a)  // [agent][sample]: critic part of the agent.
      for (size_t i = 0; i < pts.size(); ++i)
        for (int64_t k : clustering_.clusters[a])
          parts[a][i] += critic_.part(static_cast<size_t>(k), pts[i][static_cast<size_t>(k)]);
    AgentBaselines baselines(agents, std::vector<double>(pts.size()));
    for (size_t a = 0; a < agents; ++a) {
      double own_mean = 0;
      for (double v : parts[a]) own_mean += v;
      own_mean /= static_cast<double>(pts.size());
      for (size_t i = 0; i < pts.size(); ++i) {
        double others = 0;
        for (size_t b = 0; b < agents; ++b)
          if (b != a) others += parts[b][i];
        baselines[a][i] = critic_.bias() + others + own_mean;
      }
    }
    return baselines;
  }

  Problem problem_;                               ///< The space.
  MarlOptions options_;                           ///< Hyper-parameters.
  uint64_t seed_;                                 ///< Seed of the run.
  std::mt19937_64 rng_;                           ///< Initial sample and action sampling.
  RewardNormalizer rewards_;                      ///< Cost -> team reward.
  std::vector<Point> all_points_;                 ///< Every sample told so far.
  std::vector<Outcome> all_outcomes_;             ///< Their outcomes.
  std::vector<double> all_rewards_;               ///< Their team rewards (as given).
  int64_t reclustered_at_ = 0;                    ///< Samples when re-clustered (0 = not yet).
  int reclusterings_ = 0;                         ///< 1 if re-clustering changed the agents.
  Clustering clustering_;                         ///< Parameter -> agent assignment.
  std::vector<std::unique_ptr<Learner>> agents_;  ///< One learner per cluster (sharing none).
  std::unique_ptr<Learner> shared_;               ///< The one network (sharing all).
  std::vector<int64_t> order_;                    ///< Parameter of each head of shared_.
  std::vector<uint64_t> torch_seeds_;             ///< Torch seed of each agent.
  AdditiveCritic critic_;                         ///< Factored critic (counterfactual credit).
  std::unique_ptr<JointCritic> joint_critic_;     ///< Joint-action critic (critic "joint").
};

}  // namespace

std::unique_ptr<Searcher> make_marl(const Problem& problem, const MarlOptions& options,
                                    uint64_t seed) {
  return std::make_unique<MarlSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
