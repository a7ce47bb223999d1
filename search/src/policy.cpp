// The policy network and its policy-gradient update. One-step bandit episodes: the network
// input is a learned constant (there is no observation), a few tanh layers form the trunk,
// and one categorical head per parameter gives its logits: a learned logit per value, plus,
// for an ordinal head, a smooth part (the trunk mapped onto Gaussian bumps over the value
// index) so that credit spreads to neighbouring values of large ranges. With autoregressive
// heads, head k also sees the embeddings of the values chosen by heads 0..k-1 (through a
// context -> logits layer), which lets one policy represent a joint distribution over its
// parameters. Output layers start at zero: the
// initial policy is exactly uniform. Sampling uses the caller's std::mt19937_64, never torch
// randomness, so results are bit-identical for a seed.
#include "policy.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "internal.hpp"
#include "torch_module.hpp"

namespace mapwright::search::detail {
std::mutex& torch_seed_mutex() {
  static std::mutex m;
  return m;
}

namespace {

/// Gaussian bumps over the normalized index: [basis, card].
torch::Tensor ordinal_basis(int64_t basis, int64_t card) {
  auto b = torch::zeros({basis, card});
  auto acc = b.accessor<float, 2>();
  const double width = 1.0 / static_cast<double>(basis - 1);
  for (int64_t i = 0; i < basis; ++i) {
    const double centre = static_cast<double>(i) / static_cast<double>(basis - 1);
    for (int64_t v = 0; v < card; ++v) {
      const double x = static_cast<double>(v) / static_cast<double>(card - 1);
      const double z = (x - centre) / width;
      acc[i][v] = static_cast<float>(std::exp(-0.5 * z * z));
    }
  }
  return b;
}

/// Mean of a non-empty batch.
double batch_mean(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m += v;
  return m / static_cast<double>(x.size());
}

/// Population standard deviation of a batch around its mean m.
double batch_std(const std::vector<double>& x, double m) {
  double var = 0;
  for (double v : x) var += (v - m) * (v - m);
  return std::sqrt(var / static_cast<double>(x.size()));
}

/// Draws an index from unnormalized probabilities p[0..card) with one uniform number.
int64_t draw(const float* p, int64_t card, std::mt19937_64& rng) {
  double total = 0;
  for (int64_t v = 0; v < card; ++v) total += p[v];
  const double target = uniform01(rng) * total;
  double acc = 0;
  for (int64_t v = 0; v < card; ++v) {
    acc += p[v];
    if (target < acc) return v;
  }
  for (int64_t v = card - 1; v >= 0; --v)  // Rounding: the last value with mass.
    if (p[v] > 0) return v;
  return card - 1;
}

/// Log-probabilities of a batch of actions: one [N] tensor per agent (the sum over its heads),
/// and the summed per-head entropy [N] over every head.
struct Evaluation {
  std::vector<torch::Tensor> lp;  ///< Per agent, [N].
  torch::Tensor ent;              ///< [N].
  /// Joint log-probability over every agent [N].
  torch::Tensor joint() const {
    torch::Tensor j = lp[0];
    for (size_t a = 1; a < lp.size(); ++a) j = j + lp[a];
    return j;
  }
};

class PolicyNetImpl : public torch::nn::Module {
 public:
  PolicyNetImpl(const std::vector<HeadSpec>& heads, const LearnerOptions& o)
      : heads_(heads), autoregressive_(o.autoregressive && heads.size() > 1) {
    for (size_t k = 0; k < heads.size(); ++k)
      if (heads[k].agent != (k == 0 ? 0 : heads[k - 1].agent + (first(k) ? 1 : 0)))
        throw std::logic_error("PolicyNet: heads of an agent must be contiguous, agents 0, 1, ...");
    agents_ = heads.empty() ? 1 : heads.back().agent + 1;
    const int64_t h = o.hidden;
    input_ = register_parameter("input", torch::rand({1, h}) * 2 - 1);
    for (int64_t l = 0; l < o.layers; ++l)
      trunk_.push_back(register_module("trunk" + std::to_string(l), torch::nn::Linear(h, h)));
    for (size_t k = 0; k < heads.size(); ++k) {
      const int64_t card = heads[k].cardinality;
      bias_.push_back(register_parameter("bias" + std::to_string(k), torch::zeros({1, card})));
      fine_.push_back(nullptr);  // An agent's first head sees only its trunk: bias suffices.
      if (autoregressive_ && !first(k)) {
        fine_.back() =
            register_module("fine" + std::to_string(k),
                            torch::nn::Linear(torch::nn::LinearOptions(h, card).bias(false)));
        torch::nn::init::zeros_(fine_.back()->weight);
      }
      const int64_t nb = std::min(o.ordinal_basis, card);
      if (heads[k].ordinal && nb >= 2 && card >= 3) {
        auto coarse =
            register_module("coarse" + std::to_string(k),
                            torch::nn::Linear(torch::nn::LinearOptions(h, nb).bias(false)));
        torch::nn::init::zeros_(coarse->weight);
        coarse_.push_back(coarse);
        basis_.push_back(register_buffer("basis" + std::to_string(k), ordinal_basis(nb, card)));
      } else {
        coarse_.push_back(nullptr);
        basis_.push_back(torch::Tensor());
      }
      embed_.push_back(nullptr);
      if (autoregressive_ && !last(k)) {
        embed_.back() = register_module("embed" + std::to_string(k), torch::nn::Embedding(card, h));
        torch::nn::init::normal_(embed_.back()->weight, 0.0, 0.5);
      }
    }
    value_ = register_module("value", torch::nn::Linear(h, 1));
    torch::nn::init::zeros_(value_->weight);
    torch::nn::init::zeros_(value_->bias);
    if (agents_ > 1)  // One-hot agent id -> hidden (after the rest: same init with one agent).
      agent_in_ = register_module(
          "agent_in", torch::nn::Linear(torch::nn::LinearOptions(agents_, h).bias(false)));
  }

  /// Number of agents sharing the network.
  int64_t agents() const { return agents_; }

  /// Trunk output of agent a [1, hidden]: the learned input plus (shared network) the agent's
  /// one-hot id through agent_in_, then the tanh layers.
  torch::Tensor trunk(int64_t a = 0) {
    torch::Tensor x = input_;
    if (agent_in_) x = x + agent_in_(torch::one_hot(torch::tensor({a}), agents_).to(x.dtype()));
    for (auto& layer : trunk_) x = torch::tanh(layer(x));
    return x;
  }

  /// Logits of head k for conditioning rows u [rows, hidden] -> [rows, card].
  torch::Tensor logits(size_t k, const torch::Tensor& u) {
    torch::Tensor z = bias_[k].expand({u.size(0), bias_[k].size(1)});
    if (fine_[k]) z = z + fine_[k](u);
    if (coarse_[k]) z = z + torch::matmul(coarse_[k](u), basis_[k]);
    return z;
  }

  /// Per-agent log-probabilities and summed per-head entropy of actions [N, m].
  Evaluation evaluate(const torch::Tensor& actions) {
    const int64_t n = actions.size(0);
    Evaluation e;
    e.ent = torch::zeros({n});
    torch::Tensor h, ctx;
    for (size_t k = 0; k < heads_.size(); ++k) {
      if (first(k)) {
        h = trunk(heads_[k].agent);
        ctx = h.expand({n, h.size(1)});
        e.lp.push_back(torch::zeros({n}));
      }
      torch::Tensor& lp = e.lp.back();
      const torch::Tensor a = actions.select(1, static_cast<int64_t>(k));
      if (!autoregressive_) {
        const torch::Tensor logp = torch::log_softmax(logits(k, h), 1).squeeze(0);  // [card]
        lp = lp + logp.index_select(0, a);
        e.ent = e.ent - (logp.exp() * logp).sum();
      } else {
        const torch::Tensor u = first(k) ? ctx : torch::tanh(ctx);
        const torch::Tensor logp = torch::log_softmax(logits(k, u), 1);  // [n, card]
        lp = lp + logp.gather(1, a.unsqueeze(1)).squeeze(1);
        e.ent = e.ent - (logp.exp() * logp).sum(1);
        if (!last(k)) ctx = ctx + embed_[k](a);
      }
    }
    return e;
  }

  /// n actions drawn with rng: [n][m].
  std::vector<std::vector<int64_t>> sample(int64_t n, std::mt19937_64& rng) {
    torch::NoGradGuard no_grad;
    std::vector<std::vector<int64_t>> out(static_cast<size_t>(n),
                                          std::vector<int64_t>(heads_.size()));
    torch::Tensor h, ctx;
    for (size_t k = 0; k < heads_.size(); ++k) {
      if (first(k)) {
        h = trunk(heads_[k].agent);
        ctx = h.expand({n, h.size(1)});
      }
      const int64_t card = heads_[k].cardinality;
      if (!autoregressive_) {
        const torch::Tensor p = torch::softmax(logits(k, h), 1).contiguous();
        const float* pp = p.data_ptr<float>();
        for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)][k] = draw(pp, card, rng);
      } else {
        const torch::Tensor u = first(k) ? ctx : torch::tanh(ctx);
        const torch::Tensor p = torch::softmax(logits(k, u), 1).contiguous();
        const float* pp = p.data_ptr<float>();
        std::vector<int64_t> chosen(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          chosen[static_cast<size_t>(i)] = draw(pp + i * card, card, rng);
          out[static_cast<size_t>(i)][k] = chosen[static_cast<size_t>(i)];
        }
        if (!last(k)) ctx = ctx + embed_[k](torch::tensor(chosen, torch::kLong));
      }
    }
    return out;
  }

  /// Baseline value of agent a (scalar tensor).
  torch::Tensor value(int64_t a = 0) { return value_(trunk(a)).squeeze(); }

 private:
  /// Head k is its agent's first.
  bool first(size_t k) const { return k == 0 || heads_[k].agent != heads_[k - 1].agent; }
  /// Head k is its agent's last.
  bool last(size_t k) const {
    return k + 1 == heads_.size() || heads_[k + 1].agent != heads_[k].agent;
  }

  std::vector<HeadSpec> heads_;              ///< Value ranges and owning agents.
  bool autoregressive_;                      ///< Heads condition on earlier choices of the agent.
  int64_t agents_ = 1;                       ///< Agents sharing the network.
  torch::Tensor input_;                      ///< Learned constant input [1, hidden].
  std::vector<torch::nn::Linear> trunk_;     ///< Hidden layers.
  std::vector<torch::Tensor> bias_;          ///< Per-value logits per head [1, card].
  std::vector<torch::nn::Linear> fine_;      ///< Context -> per-value logits (autoregressive
                                             ///< heads after their agent's first; else null).
  std::vector<torch::nn::Linear> coarse_;    ///< Basis weights per ordinal head (or null).
  std::vector<torch::Tensor> basis_;         ///< Fixed bump matrices [basis, card].
  std::vector<torch::nn::Embedding> embed_;  ///< Value embeddings (autoregressive heads before
                                             ///< their agent's last; else null).
  torch::nn::Linear value_{nullptr};         ///< Baseline head.
  torch::nn::Linear agent_in_{nullptr};      ///< One-hot agent id -> hidden (shared network).
};
TORCH_MODULE(PolicyNet);

/// Running mean and standard deviation of every reward told (Welford), for value
/// normalization: the value head learns (r - mean) / std, so its loss has one scale on every
/// layer, however far the layer's costs spread.
struct RunningStats {
  int64_t count = 0;  ///< Rewards seen.
  double mean = 0;    ///< Their mean.
  double m2 = 0;      ///< Sum of squared deviations from the mean.
  /// Adds a batch.
  void add(const std::vector<double>& x) {
    for (double v : x) {
      ++count;
      const double d = v - mean;
      mean += d / static_cast<double>(count);
      m2 += d * (v - mean);
    }
  }
  /// Population standard deviation, 1 while it is (nearly) 0.
  double stdev() const {
    const double s = count > 1 ? std::sqrt(m2 / static_cast<double>(count)) : 0.0;
    return s > 1e-6 ? s : 1.0;
  }
};

/// The learner's torch state and its self-imitation archive.
struct LearnerState {
  LearnerOptions options;                     ///< Hyper-parameters.
  std::vector<HeadSpec> heads;                ///< Value ranges.
  PolicyNet net{nullptr};                     ///< Policy and baseline.
  std::unique_ptr<torch::optim::Adam> optim;  ///< Adam over all network parameters.
  int64_t updates = 0;                        ///< Updates done.
  double last_loss = 0;                       ///< Actor loss of the last epoch.
  double last_entropy = 0;                    ///< Mean summed entropy of the last epoch.
  double last_value = 0;                      ///< Baseline value after the last update.
  RunningStats returns;                       ///< Every reward seen (value normalization).
  /// Self-imitation archive: the best (action, reward) pairs seen, best first.
  std::vector<std::pair<std::vector<int64_t>, double>> archive;

  /// Adds a batch to the archive (an action already there keeps its best reward), keeps the
  /// best `options.elite`. Ties keep the earlier entry (stable), so results are deterministic.
  void remember(const std::vector<std::vector<int64_t>>& actions,
                const std::vector<double>& rewards) {
    if (options.elite <= 0) return;
    for (size_t i = 0; i < actions.size(); ++i) {
      if (!std::isfinite(rewards[i])) continue;
      bool found = false;
      for (auto& e : archive)
        if (e.first == actions[i]) {
          e.second = std::max(e.second, rewards[i]);
          found = true;
          break;
        }
      if (!found) archive.emplace_back(actions[i], rewards[i]);
    }
    std::stable_sort(archive.begin(), archive.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (static_cast<int64_t>(archive.size()) > options.elite)
      archive.resize(static_cast<size_t>(options.elite));
  }
};

/// The learner on a PolicyNet: what Learner forwards to.
class TorchLearner final : public LearnerBackend {
 public:
  TorchLearner(const std::vector<HeadSpec>& heads, const LearnerOptions& options,
               uint64_t torch_seed);
  std::vector<std::vector<int64_t>> sample(int64_t n, std::mt19937_64& rng) override;
  void update(const std::vector<std::vector<int64_t>>& actions, const std::vector<double>& rewards,
              const AgentBaselines* baselines) override;
  void warm_start(const std::vector<std::vector<int64_t>>& actions,
                  const std::vector<double>& rewards, int64_t recent, int64_t steps) override;
  nlohmann::json stats() const override;
  int64_t parameter_count() const override;

 private:
  /// Scaled advantages of every agent ([agent] -> [N]) and the self-imitation centre.
  std::vector<torch::Tensor> advantages(const std::vector<double>& rewards,
                                        const AgentBaselines* baselines, double* centre);
  /// Value of agent a in reward units (denormalized under value_norm).
  double value_of(int64_t a);

  std::unique_ptr<LearnerState> impl_;  ///< Torch state.
};

}  // namespace

TorchLearner::TorchLearner(const std::vector<HeadSpec>& heads, const LearnerOptions& options,
                           uint64_t torch_seed)
    : impl_(std::make_unique<LearnerState>()) {
  impl_->options = options;
  impl_->heads = heads;
  torch::set_num_threads(1);
  std::lock_guard<std::mutex> lock(torch_seed_mutex());
  torch::manual_seed(torch_seed);
  impl_->net = PolicyNet(heads, options);
  impl_->optim = std::make_unique<torch::optim::Adam>(impl_->net->parameters(),
                                                      torch::optim::AdamOptions(options.lr));
}

std::vector<std::vector<int64_t>> TorchLearner::sample(int64_t n, std::mt19937_64& rng) {
  return impl_->net->sample(n, rng);
}

double TorchLearner::value_of(int64_t a) {
  torch::NoGradGuard no_grad;
  const double v = impl_->net->value(a).item<double>();
  if (!impl_->options.value_norm) return v;
  return impl_->returns.mean + impl_->returns.stdev() * v;
}

std::vector<torch::Tensor> TorchLearner::advantages(const std::vector<double>& rewards,
                                                    const AgentBaselines* baselines,
                                                    double* centre) {
  // Advantages: batch-centred or critic-centred, scaled by the batch standard deviation
  // (computed in double, so that a batch of equal rewards gives exactly zero advantages).
  // With per-action baselines: reward minus baseline, scaled by the standard deviation of
  // those differences.
  const int64_t agents = impl_->net->agents();
  const double mean = batch_mean(rewards);
  const double std_r = batch_std(rewards, mean);
  const double scale = std_r > 1e-9 ? 1.0 / std_r : 0.0;
  std::vector<torch::Tensor> adv;
  *centre = 0;
  for (int64_t a = 0; a < agents; ++a) {
    std::vector<float> af(rewards.size());
    if (baselines != nullptr) {
      if (static_cast<int64_t>(baselines->size()) != agents ||
          (*baselines)[static_cast<size_t>(a)].size() != rewards.size())
        throw std::logic_error("Learner::update: baselines do not match the agents and rewards");
      const auto& b = (*baselines)[static_cast<size_t>(a)];
      std::vector<double> d(rewards.size());
      for (size_t i = 0; i < d.size(); ++i) d[i] = rewards[i] - b[i];
      const double std_d = batch_std(d, batch_mean(d));
      const double scale_d = std_d > 1e-9 ? 1.0 / std_d : 0.0;
      for (size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>(d[i] * scale_d);
    } else {
      const double c = impl_->options.advantage == "critic" ? value_of(a) : mean;
      for (size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>((rewards[i] - c) * scale);
    }
    adv.push_back(torch::tensor(af));
  }
  // Self-imitation centre: the (mean) learned value when it centres the advantages, else the
  // batch mean.
  if (impl_->options.advantage == "critic" && baselines == nullptr) {
    for (int64_t a = 0; a < agents; ++a) *centre += value_of(a);
    *centre /= static_cast<double>(agents);
  } else {
    *centre = mean;
  }
  return adv;
}

void TorchLearner::update(const std::vector<std::vector<int64_t>>& actions,
                          const std::vector<double>& rewards, const AgentBaselines* baselines) {
  const int64_t n = static_cast<int64_t>(actions.size());
  if (n < 2) return;
  const int64_t m = static_cast<int64_t>(impl_->heads.size());
  const int64_t agents = impl_->net->agents();
  auto& o = impl_->options;
  torch::Tensor act = torch::empty({n, m}, torch::kLong);
  auto acc = act.accessor<int64_t, 2>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < m; ++k)
      acc[i][k] = actions[static_cast<size_t>(i)][static_cast<size_t>(k)];
  if (o.value_norm) impl_->returns.add(rewards);
  std::vector<float> rf(rewards.begin(), rewards.end());
  if (o.value_norm)
    for (float& v : rf) v = static_cast<float>((v - impl_->returns.mean) / impl_->returns.stdev());
  const torch::Tensor r = torch::tensor(rf);  // The value head's target.
  double centre = 0;
  const std::vector<torch::Tensor> adv = advantages(rewards, baselines, &centre);
  const double std_r = batch_std(rewards, batch_mean(rewards));
  const double scale = std_r > 1e-9 ? 1.0 / std_r : 0.0;  // Scales self-imitation margins.
  std::vector<torch::Tensor> old_lp;
  {
    torch::NoGradGuard no_grad;
    old_lp = impl_->net->evaluate(act).lp;
  }
  // Self-imitation (Oh et al., ICML 2018): the policy is also pulled towards the archived
  // best actions whose reward beats the current baseline, weighted by that margin (in the
  // same scaled units as the advantages).
  impl_->remember(actions, rewards);
  torch::Tensor elite_act, elite_w;
  bool imitate = false;
  if (o.imitation_coef > 0 && !impl_->archive.empty()) {
    const double sc = scale > 0 ? scale : 1.0;
    std::vector<float> w;
    std::vector<int64_t> flat;
    for (const auto& [a, rew] : impl_->archive) {
      const double margin = (rew - centre) * sc;
      if (margin <= 0) continue;
      w.push_back(static_cast<float>(margin));
      flat.insert(flat.end(), a.begin(), a.end());
    }
    if (!w.empty()) {
      imitate = true;
      elite_w = torch::tensor(w);
      elite_act = torch::tensor(flat, torch::kLong).view({static_cast<int64_t>(w.size()), m});
    }
  }
  const bool ppo = o.algorithm == "ppo";
  const int64_t epochs = ppo ? o.epochs : 1;
  for (int64_t e = 0; e < epochs; ++e) {
    const Evaluation ev = impl_->net->evaluate(act);
    torch::Tensor actor, critic;  // Sums over the agents (one agent: its terms).
    for (int64_t a = 0; a < agents; ++a) {
      const auto ua = static_cast<size_t>(a);
      torch::Tensor term;
      if (ppo) {
        const torch::Tensor ratio = torch::exp(ev.lp[ua] - old_lp[ua]);
        const torch::Tensor clipped = torch::clamp(ratio, 1.0 - o.clip, 1.0 + o.clip);
        term = -torch::min(ratio * adv[ua], clipped * adv[ua]).mean();
      } else {
        term = -(ev.lp[ua] * adv[ua]).mean();
      }
      const torch::Tensor c = (impl_->net->value(a) - r).pow(2).mean();
      actor = a == 0 ? term : actor + term;
      critic = a == 0 ? c : critic + c;
    }
    if (agents > 1) critic = critic / static_cast<double>(agents);
    torch::Tensor loss = actor - o.entropy_coef * ev.ent.mean() + o.value_coef * critic;
    if (imitate)
      loss = loss - o.imitation_coef * (impl_->net->evaluate(elite_act).joint() * elite_w).mean();
    impl_->optim->zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(impl_->net->parameters(), o.max_grad_norm);
    impl_->optim->step();
    impl_->last_loss = actor.item<double>();
    impl_->last_entropy = ev.ent.mean().item<double>();
  }
  impl_->last_value = value_of(0);
  ++impl_->updates;
}

void TorchLearner::warm_start(const std::vector<std::vector<int64_t>>& actions,
                              const std::vector<double>& rewards, int64_t recent, int64_t steps) {
  impl_->remember(actions, rewards);
  const int64_t n = std::min<int64_t>(recent, static_cast<int64_t>(actions.size()));
  if (n < 1 || steps < 1) return;
  const int64_t m = static_cast<int64_t>(impl_->heads.size());
  torch::Tensor act = torch::empty({n, m}, torch::kLong);
  auto acc = act.accessor<int64_t, 2>();
  const size_t first = actions.size() - static_cast<size_t>(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < m; ++k)
      acc[i][k] = actions[first + static_cast<size_t>(i)][static_cast<size_t>(k)];
  for (int64_t e = 0; e < steps; ++e) {
    const torch::Tensor loss = -impl_->net->evaluate(act).joint().mean();
    impl_->optim->zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(impl_->net->parameters(), impl_->options.max_grad_norm);
    impl_->optim->step();
  }
}

int64_t TorchLearner::parameter_count() const {
  int64_t count = 0;
  for (const auto& p : impl_->net->parameters()) count += p.numel();
  return count;
}

nlohmann::json TorchLearner::stats() const {
  return {{"updates", impl_->updates},
          {"parameters", parameter_count()},
          {"last_actor_loss", impl_->last_loss},
          {"last_entropy", impl_->last_entropy},
          {"baseline_value", impl_->last_value},
          {"elite_archive", impl_->archive.size()},
          {"best_archived_reward", impl_->archive.empty()
                                       ? nlohmann::json(nullptr)
                                       : nlohmann::json(impl_->archive.front().second)}};
}

std::unique_ptr<LearnerBackend> make_torch_learner(const std::vector<HeadSpec>& heads,
                                                   const LearnerOptions& options,
                                                   uint64_t torch_seed) {
  return std::make_unique<TorchLearner>(heads, options, torch_seed);
}

}  // namespace mapwright::search::detail
