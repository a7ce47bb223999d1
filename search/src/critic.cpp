// The factored critic of marl's counterfactual credit: an additive model of the team reward
// over binned parameter values, r ~ b + sum_k t_k[bin_k(a_k)], fitted by ridge backfitting on
// the most recent samples. It is centralized (it sees every agent's choices) but only used
// in training; the agents still act independently.
#include <algorithm>
#include <stdexcept>

#include "internal.hpp"

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

}  // namespace mapwright::search::detail
