// The network of marl's joint-action critic (joint_critic.hpp), in the torch module: an
// embedding of each parameter's binned value (one table, offset per parameter), concatenated,
// one tanh hidden layer and a linear output that starts at zero (the first predictions are 0,
// the reward of the reference cost). Each fit runs a fixed number of full-batch Adam steps on
// the squared error, continuing from the previous fit. The sizes and step counts are fixed,
// not tuned (search/README.md, "Joint critic").
#include "joint_critic.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "torch_module.hpp"

namespace mapwright::search::detail {
namespace {

constexpr int64_t kEmbed = 4;    ///< Embedding width per parameter.
constexpr int64_t kHidden = 64;  ///< Hidden width.
constexpr int64_t kSteps = 20;   ///< Adam steps per fit.
constexpr double kLr = 0.01;     ///< Adam learning rate.

class TorchJointCritic final : public JointCriticBackend {
 public:
  TorchJointCritic(const Problem& problem, int64_t bins) {
    for (const auto& p : problem.params) {
      cards_.push_back(p.cardinality);
      bins_.push_back(std::max<int64_t>(1, std::min<int64_t>(p.cardinality, bins)));
      offsets_.push_back(total_);
      total_ += bins_.back();
    }
    const auto p = static_cast<int64_t>(cards_.size());
    embed_ = torch::nn::Embedding(total_, kEmbed);
    hidden_ = torch::nn::Linear(p * kEmbed, kHidden);
    out_ = torch::nn::Linear(kHidden, 1);
    torch::nn::init::zeros_(out_->weight);
    torch::nn::init::zeros_(out_->bias);
    std::vector<torch::Tensor> params = embed_->parameters();
    for (const auto& t : hidden_->parameters()) params.push_back(t);
    for (const auto& t : out_->parameters()) params.push_back(t);
    params_ = params;
    optim_ = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(kLr));
  }

  void fit(const std::vector<Point>& points, const std::vector<double>& rewards) override {
    if (points.size() != rewards.size()) throw std::logic_error("JointCritic::fit: sizes differ");
    if (points.empty()) return;
    const torch::Tensor x = encode(points);
    const torch::Tensor y = torch::tensor(std::vector<float>(rewards.begin(), rewards.end()));
    for (int64_t s = 0; s < kSteps; ++s) {
      const torch::Tensor loss = (forward(x) - y).pow(2).mean();
      optim_->zero_grad();
      loss.backward();
      optim_->step();
    }
  }

  std::vector<double> predict(const std::vector<Point>& points) override {
    if (points.empty()) return {};
    torch::NoGradGuard no_grad;
    const torch::Tensor q = forward(encode(points)).contiguous();
    const float* p = q.data_ptr<float>();
    return std::vector<double>(p, p + q.size(0));
  }

  int64_t parameter_count() const override {
    int64_t n = 0;
    for (const auto& t : params_) n += t.numel();
    return n;
  }

 private:
  /// Bin indices (offset per parameter) of points: [n, p].
  torch::Tensor encode(const std::vector<Point>& points) const {
    const auto n = static_cast<int64_t>(points.size());
    const auto p = static_cast<int64_t>(cards_.size());
    torch::Tensor idx = torch::empty({n, p}, torch::kLong);
    auto acc = idx.accessor<int64_t, 2>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < p; ++k) {
        const auto uk = static_cast<size_t>(k);
        acc[i][k] = offsets_[uk] + points[static_cast<size_t>(i)][uk] * bins_[uk] / cards_[uk];
      }
    return idx;
  }

  /// Q of encoded points [n].
  torch::Tensor forward(const torch::Tensor& idx) {
    const torch::Tensor e = embed_(idx).view({idx.size(0), -1});
    return out_(torch::tanh(hidden_(e))).squeeze(1);
  }

  std::vector<int64_t> cards_, bins_, offsets_;  ///< Per parameter: values, bins, table offset.
  int64_t total_ = 0;                            ///< Embedding rows (all bins).
  torch::nn::Embedding embed_{nullptr};          ///< Bin embeddings.
  torch::nn::Linear hidden_{nullptr};            ///< Concatenated embeddings -> hidden.
  torch::nn::Linear out_{nullptr};               ///< Hidden -> Q.
  std::vector<torch::Tensor> params_;            ///< Every trainable tensor.
  std::unique_ptr<torch::optim::Adam> optim_;    ///< Adam over params_.
};

}  // namespace

std::unique_ptr<JointCriticBackend> make_torch_joint_critic(const Problem& problem, int64_t bins,
                                                            uint64_t torch_seed) {
  torch::set_num_threads(1);
  std::lock_guard<std::mutex> lock(torch_seed_mutex());
  torch::manual_seed(torch_seed);
  return std::make_unique<TorchJointCritic>(problem, bins);
}

}  // namespace mapwright::search::detail
