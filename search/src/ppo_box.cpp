// The paper's single-agent baseline, searcher kind "ppo-box": ArchGym-style PPO on ONE
// continuous (box) action vector over all parameters at once. The policy is a diagonal
// Gaussian over R^n (n = number of parameters) squashed by tanh into (-1, 1)^n, Acme's
// NormalTanhDistribution: mean and scale (softplus + min_std) come from an MLP on a learned
// constant input (one-step episodes have no observation), with a value head on the same trunk.
// Dimension k of an action a is decoded to a value index of parameter k by equal-width bins,
// floor((a_k + 1) / 2 * card_k) clipped to card_k - 1 (ArchGym's decode, int(x * n) clipped,
// on [0, 1]). One-step episodes: GAE reduces to advantage = reward - value. Each ask samples a
// batch, each tell does `epochs` passes of `minibatches` Adam steps on the clipped PPO
// objective + value_coef x value MSE - entropy_coef x entropy, where the entropy of the
// squashed Gaussian is estimated from the batch's own (reparameterized) samples, as Acme does.
//
// Randomness: actions (Box-Muller from the searcher's std::mt19937_64), minibatch shuffles and
// the initial weights (Acme's VarianceScaling(1, fan_in, uniform)) all come from generators
// seeded by the run seed; torch's global generator is never used, so runs are bit-identical
// for a seed on CPU even when other searchers are built on other threads at the same time.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "internal.hpp"
#include "policy.hpp"
#include "torch_module.hpp"

namespace mapwright::search::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A standard normal draw (Box-Muller, one of the pair) from our portable uniform numbers.
double normal01(std::mt19937_64& rng) {
  const double u1 = 1.0 - uniform01(rng);  // (0, 1]: log is finite.
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

/// inverse of softplus: log(exp(y) - 1), for y > 0.
double inv_softplus(double y) {
  return y > 20 ? y : std::log(std::expm1(y));
}

/// log(1 - tanh(x)^2), numerically stable: 2 (log 2 - x - softplus(-2x)).
torch::Tensor log1m_tanh2(const torch::Tensor& x) {
  return 2.0 * (std::log(2.0) - x - torch::nn::functional::softplus(-2.0 * x));
}

/// Policy and value network. Every weight is drawn from `rng` (no torch randomness).
class BoxPolicyImpl : public torch::nn::Module {
 public:
  BoxPolicyImpl(int64_t n, const PpoBoxOptions& o, std::mt19937_64& rng) {
    const int64_t h = o.hidden;
    input_ = register_parameter("input", uniform({1, h}, 1.0, rng));
    for (int64_t l = 0; l < o.layers; ++l) {
      const double bound = std::sqrt(3.0 / static_cast<double>(h));  // VarianceScaling fan_in.
      w_.push_back(register_parameter("w" + std::to_string(l), uniform({h, h}, bound, rng)));
      b_.push_back(register_parameter("b" + std::to_string(l), torch::zeros({h})));
    }
    // Output layers start at zero: mean 0 (the middle of every range), scale init_std.
    mean_w_ = register_parameter("mean_w", torch::zeros({h, n}));
    mean_b_ = register_parameter("mean_b", torch::zeros({n}));
    scale_w_ = register_parameter("scale_w", torch::zeros({h, n}));
    scale_b_ =
        register_parameter("scale_b", torch::full({n}, inv_softplus(o.init_std - o.min_std)));
    value_w_ = register_parameter("value_w", torch::zeros({h, 1}));
    value_b_ = register_parameter("value_b", torch::zeros({1}));
    min_std_ = o.min_std;
  }

  /// Trunk output [1, hidden].
  torch::Tensor trunk() {
    torch::Tensor x = input_;
    for (size_t l = 0; l < w_.size(); ++l) x = torch::tanh(torch::matmul(x, w_[l]) + b_[l]);
    return x;
  }

  /// Pre-tanh mean [n], standard deviation [n] and value (scalar) of the policy.
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor> forward() {
    const torch::Tensor x = trunk();
    const torch::Tensor mu = (torch::matmul(x, mean_w_) + mean_b_).squeeze(0);
    const torch::Tensor sd =
        torch::nn::functional::softplus(torch::matmul(x, scale_w_) + scale_b_).squeeze(0) +
        min_std_;
    const torch::Tensor v = (torch::matmul(x, value_w_) + value_b_).squeeze();
    return {mu, sd, v};
  }

 private:
  /// Uniform tensor in [-bound, bound] from rng.
  static torch::Tensor uniform(std::vector<int64_t> shape, double bound, std::mt19937_64& rng) {
    torch::Tensor t = torch::empty(shape);
    float* p = t.data_ptr<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
      p[i] = static_cast<float>((2.0 * uniform01(rng) - 1.0) * bound);
    return t;
  }

  torch::Tensor input_;              ///< Learned constant input [1, hidden].
  std::vector<torch::Tensor> w_;     ///< Hidden layer weights [hidden, hidden].
  std::vector<torch::Tensor> b_;     ///< Hidden layer biases [hidden].
  torch::Tensor mean_w_, mean_b_;    ///< Mean head [hidden, n], [n].
  torch::Tensor scale_w_, scale_b_;  ///< Scale head (before softplus) [hidden, n], [n].
  torch::Tensor value_w_, value_b_;  ///< Value head [hidden, 1], [1].
  double min_std_ = 1e-3;            ///< Added to the softplus scale.
};
TORCH_MODULE(BoxPolicy);

/// Diagonal-Gaussian log density of u [B, n] under (mu, sd) [n], summed over dimensions: [B].
torch::Tensor gaussian_log_prob(const torch::Tensor& u, const torch::Tensor& mu,
                                const torch::Tensor& sd) {
  const torch::Tensor z = (u - mu) / sd;
  return (-0.5 * z.pow(2) - torch::log(sd) - 0.5 * std::log(2.0 * kPi)).sum(1);
}

class PpoBoxSearcher final : public PolicySearcher<PpoBoxOptions> {
 public:
  PpoBoxSearcher(const Problem& problem, const PpoBoxOptions& options, uint64_t seed)
      : PolicySearcher(problem, options, seed,
                       RewardNormalizer(options.invalid_penalty, 0,
                                        RewardForm::of(options.reward, options.inverse_scale,
                                                       options.invalid_reward))),
        init_rng_(torch_seed_) {
    torch::set_num_threads(1);
    net_ = BoxPolicy(static_cast<int64_t>(problem.params.size()), options, init_rng_);
    optim_ = std::make_unique<torch::optim::Adam>(
        net_->parameters(), torch::optim::AdamOptions(options.lr).eps(options.adam_epsilon));
  }

  std::vector<Point> ask(int n) override {
    const int64_t count = std::min<int64_t>(n, options_.batch);
    const size_t dims = problem_.params.size();
    std::vector<float> mu, sd;
    {
      torch::NoGradGuard no_grad;
      auto [m, s, v] = net_->forward();
      mu.assign(m.data_ptr<float>(), m.data_ptr<float>() + dims);
      sd.assign(s.data_ptr<float>(), s.data_ptr<float>() + dims);
    }
    raw_.assign(static_cast<size_t>(count) * dims, 0.0f);
    std::vector<Point> pts(static_cast<size_t>(count), Point(dims));
    for (size_t i = 0; i < pts.size(); ++i)
      for (size_t k = 0; k < dims; ++k) {
        const float u = mu[k] + sd[k] * static_cast<float>(normal01(rng_));
        raw_[i * dims + k] = u;
        pts[i][k] = decode(k, u);
      }
    asked_ = pts;
    return pts;
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (pts != asked_ || out.size() != pts.size())
      throw std::logic_error("ppo-box: tell() must report the points of the last ask()");
    update(rewards_.rewards(out));
  }

  /// The prior was not drawn by this policy (a Gaussian around the middle of every range), so
  /// it is not a PPO batch: the policy mean is moved toward the prior's best quarter (at least
  /// 2 valid points) by 50 Adam steps of a Gaussian fit of their pre-tanh bin centres, with the
  /// standard deviation held (exploration is kept). The prior also sets the reward reference.
  void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (updates_ > 0 || !asked_.empty()) return;
    rewards_.rewards(prior_outcomes(out));
    std::vector<size_t> valid;
    for (size_t i = 0; i < pts.size(); ++i)
      if (out[i].valid) valid.push_back(i);
    std::stable_sort(valid.begin(), valid.end(),
                     [&](size_t a, size_t b) { return out[a].cost < out[b].cost; });
    const size_t best = std::max<size_t>(2, valid.size() / 4);
    if (valid.size() < best) return;
    const size_t dims = problem_.params.size();
    std::vector<float> target(best * dims);
    for (size_t i = 0; i < best; ++i)
      for (size_t k = 0; k < dims; ++k) {
        const auto card = static_cast<double>(problem_.params[k].cardinality);
        const double centre = -1.0 + (2.0 * static_cast<double>(pts[valid[i]][k]) + 1.0) / card;
        target[i * dims + k] = static_cast<float>(std::atanh(centre));
      }
    const torch::Tensor u =
        torch::from_blob(target.data(), {static_cast<int64_t>(best), static_cast<int64_t>(dims)},
                         torch::kFloat)
            .clone();
    for (int step = 0; step < 50; ++step) {
      auto [mu, sd, v] = net_->forward();
      const torch::Tensor loss = (0.5 * ((u - mu) / sd.detach()).pow(2)).sum(1).mean();
      optim_->zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(net_->parameters(), options_.max_grad_norm);
      optim_->step();
    }
    primed_ = static_cast<int64_t>(pts.size());
  }

  std::string name() const override { return "ppo-box"; }

 private:
  nlohmann::json learner_json() const override {
    nlohmann::json mean_index = nlohmann::json::array(), std_pre_tanh = nlohmann::json::array();
    {
      torch::NoGradGuard no_grad;
      auto [m, s, v] = net_->forward();
      for (size_t k = 0; k < problem_.params.size(); ++k) {
        mean_index.push_back(decode(k, m[static_cast<int64_t>(k)].item<float>()));
        std_pre_tanh.push_back(s[static_cast<int64_t>(k)].item<double>());
      }
    }
    return {{"updates", updates_},           {"last_actor_loss", last_actor_loss_},
            {"last_entropy", last_entropy_}, {"baseline_value", last_value_},
            {"mean_index", mean_index},      {"std_pre_tanh", std_pre_tanh}};
  }

  /// Value index of parameter k for a pre-tanh action u.
  int64_t decode(size_t k, float u) const {
    const int64_t card = problem_.params[k].cardinality;
    const double a = std::tanh(static_cast<double>(u));  // (-1, 1)
    const auto idx = static_cast<int64_t>(std::floor((a + 1.0) * 0.5 * static_cast<double>(card)));
    return std::clamp<int64_t>(idx, 0, card - 1);
  }

  /// One PPO update on the last asked batch and its rewards.
  void update(const std::vector<double>& rewards) {
    const int64_t b = static_cast<int64_t>(rewards.size());
    if (b < 2) return;
    const int64_t dims = static_cast<int64_t>(problem_.params.size());
    const torch::Tensor u = torch::from_blob(raw_.data(), {b, dims}, torch::kFloat).clone();
    const std::vector<float> rf(rewards.begin(), rewards.end());
    const torch::Tensor r = torch::tensor(rf);
    torch::Tensor old_lp, eps;
    double value = 0;
    {
      torch::NoGradGuard no_grad;
      auto [mu, sd, v] = net_->forward();
      old_lp = gaussian_log_prob(u, mu, sd);
      eps = (u - mu) / sd;  // Reparameterization noise of the batch (entropy estimate).
      value = v.item<double>();
    }
    // Single-step GAE: advantage = reward - value, scaled by the batch reward std (double, so
    // that a batch of equal rewards gives zero advantages).
    double mean = 0, var = 0;
    for (double x : rewards) mean += x / static_cast<double>(b);
    for (double x : rewards) var += (x - mean) * (x - mean) / static_cast<double>(b);
    const double sdev = std::sqrt(var);
    const double scale = !options_.normalize_advantage ? 1.0 : sdev > 1e-9 ? 1.0 / sdev : 0.0;
    std::vector<float> af(rewards.size());
    for (size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>((rewards[i] - value) * scale);
    const torch::Tensor adv = torch::tensor(af);

    std::vector<int64_t> order(static_cast<size_t>(b));
    const int64_t mbs = options_.minibatches;
    for (int64_t e = 0; e < options_.epochs; ++e) {
      std::iota(order.begin(), order.end(), 0);
      if (mbs > 1)  // Fisher-Yates with our portable draws.
        for (int64_t i = b - 1; i > 0; --i)
          std::swap(order[static_cast<size_t>(i)],
                    order[static_cast<size_t>(uniform_index(rng_, i + 1))]);
      for (int64_t m = 0; m < mbs; ++m) {
        const int64_t lo = m * b / mbs, hi = (m + 1) * b / mbs;
        if (hi <= lo) continue;
        const torch::Tensor idx = torch::tensor(
            std::vector<int64_t>(order.begin() + lo, order.begin() + hi), torch::kLong);
        auto [mu, sd, v] = net_->forward();
        const torch::Tensor ui = u.index_select(0, idx), ai = adv.index_select(0, idx);
        const torch::Tensor ratio =
            torch::exp(gaussian_log_prob(ui, mu, sd) - old_lp.index_select(0, idx));
        const torch::Tensor actor =
            -torch::min(ratio * ai,
                        torch::clamp(ratio, 1.0 - options_.clip, 1.0 + options_.clip) * ai)
                 .mean();
        const torch::Tensor critic = (v - r.index_select(0, idx)).pow(2).mean();
        // Entropy of the squashed Gaussian: -log p(tanh(u')) at u' = mu + sd * eps.
        const torch::Tensor ei = eps.index_select(0, idx);
        const torch::Tensor up = mu + sd * ei;
        const torch::Tensor ent =
            (0.5 * ei.pow(2) + torch::log(sd) + 0.5 * std::log(2.0 * kPi) + log1m_tanh2(up))
                .sum(1)
                .mean();
        const torch::Tensor loss =
            actor + options_.value_coef * critic - options_.entropy_coef * ent;
        optim_->zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(net_->parameters(), options_.max_grad_norm);
        optim_->step();
        last_actor_loss_ = actor.item<double>();
        last_entropy_ = ent.item<double>();
      }
    }
    {
      torch::NoGradGuard no_grad;
      last_value_ = std::get<2>(net_->forward()).item<double>();
    }
    ++updates_;
  }

  std::mt19937_64 init_rng_;                   ///< Initial weights (seeded by torch_seed_).
  mutable BoxPolicy net_{nullptr};             ///< Policy and value (forward is non-const).
  std::unique_ptr<torch::optim::Adam> optim_;  ///< Adam over all parameters.
  std::vector<float> raw_;                     ///< Pre-tanh actions of the last ask [b * n].
  std::vector<Point> asked_;                   ///< Points of the last ask.
  int64_t updates_ = 0;                        ///< Updates done.
  double last_actor_loss_ = 0;                 ///< Clipped surrogate of the last step.
  double last_entropy_ = 0;                    ///< Estimated entropy of the last step.
  double last_value_ = 0;                      ///< Value after the last update.
};

}  // namespace

std::unique_ptr<Searcher> make_torch_ppo_box(const Problem& problem, const PpoBoxOptions& options,
                                             uint64_t seed) {
  return std::make_unique<PpoBoxSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
