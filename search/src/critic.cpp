// The centralized critics of marl's counterfactual credit, only used in training (the agents
// still act independently). The factored critic: an additive model of the team reward over
// binned parameter values, r ~ b + sum_k t_k[bin_k(a_k)], fitted by ridge backfitting on the
// most recent samples. The joint-action critic's torch-free side: the forwarding wrapper of
// the torch module's network and the leave-one-out marginal baselines computed from it.
#include "joint_critic.hpp"

#include <algorithm>
#include <stdexcept>

#include "internal.hpp"
#include "torch_module.hpp"

namespace mapwright::search::detail {

AdditiveCritic::AdditiveCritic(const Problem& problem, int64_t bins, double ridge) : ridge_(ridge) {
  for (const auto& p : problem.params) {
    cards_.push_back(p.cardinality);
    bins_.push_back(std::max<int64_t>(1, std::min<int64_t>(p.cardinality, bins)));
  }
  tables_.resize(cards_.size());
  for (size_t k = 0; k < cards_.size(); ++k) tables_[k].assign(static_cast<size_t>(bins_[k]), 0.0);
}

int64_t AdditiveCritic::bin(size_t k, int64_t value) const {
  return value * bins_[k] / cards_[k];
}

void AdditiveCritic::fit(const std::vector<Point>& points, const std::vector<double>& rewards,
                         int sweeps) {
  const size_t n = points.size(), p = cards_.size();
  if (rewards.size() != n) throw std::logic_error("AdditiveCritic::fit: size mismatch");
  for (auto& t : tables_) std::fill(t.begin(), t.end(), 0.0);
  bias_ = 0;
  if (n == 0) return;
  for (double r : rewards) bias_ += r;
  bias_ /= static_cast<double>(n);
  std::vector<std::vector<int64_t>> b(p, std::vector<int64_t>(n));
  for (size_t k = 0; k < p; ++k)
    for (size_t s = 0; s < n; ++s) b[k][s] = bin(k, points[s][k]);
  std::vector<double> e(n);  // Residual of the current fit.
  for (size_t s = 0; s < n; ++s) e[s] = rewards[s] - bias_;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (size_t k = 0; k < p; ++k) {
      if (bins_[k] < 2) continue;
      auto& t = tables_[k];
      std::vector<double> sum(t.size(), 0.0), cnt(t.size(), 0.0);
      for (size_t s = 0; s < n; ++s) {
        const size_t j = static_cast<size_t>(b[k][s]);
        sum[j] += e[s] + t[j];  // Partial residual without parameter k.
        cnt[j] += 1;
      }
      std::vector<double> next(t.size());
      for (size_t j = 0; j < t.size(); ++j) next[j] = sum[j] / (cnt[j] + ridge_ + 1e-12);
      for (size_t s = 0; s < n; ++s) {
        const size_t j = static_cast<size_t>(b[k][s]);
        e[s] -= next[j] - t[j];
      }
      t = std::move(next);
    }
  }
}

double AdditiveCritic::part(size_t k, int64_t value) const {
  return tables_[k][static_cast<size_t>(bin(k, value))];
}

JointCritic::JointCritic(const Problem& problem, int64_t bins, uint64_t torch_seed)
    : impl_(torch_module().make_joint_critic(problem, bins, torch_seed)) {}

JointCritic::~JointCritic() = default;

void JointCritic::fit(const std::vector<Point>& points, const std::vector<double>& rewards) {
  impl_->fit(points, rewards);
}

int64_t JointCritic::parameter_count() const {
  return impl_->parameter_count();
}

AgentBaselines JointCritic::marginal_baselines(const std::vector<Point>& pts,
                                               const std::vector<std::vector<int64_t>>& clusters) {
  const size_t n = pts.size();
  if (n < 2) {
    const std::vector<double> q = impl_->predict(pts);
    return AgentBaselines(clusters.size(), q);
  }
  std::vector<Point> swapped;  // [agent][s][s' != s], in that order.
  swapped.reserve(clusters.size() * n * (n - 1));
  for (const auto& params : clusters)
    for (size_t s = 0; s < n; ++s)
      for (size_t t = 0; t < n; ++t) {
        if (t == s) continue;
        Point x = pts[s];
        for (int64_t k : params) x[static_cast<size_t>(k)] = pts[t][static_cast<size_t>(k)];
        swapped.push_back(std::move(x));
      }
  const std::vector<double> q = impl_->predict(swapped);
  AgentBaselines b(clusters.size(), std::vector<double>(n, 0.0));
  size_t at = 0;
  for (size_t a = 0; a < clusters.size(); ++a)
    for (size_t s = 0; s < n; ++s) {
      for (size_t t = 0; t + 1 < n; ++t) b[a][s] += q[at++];
      b[a][s] /= static_cast<double>(n - 1);
    }
  return b;
}

}  // namespace mapwright::search::detail
