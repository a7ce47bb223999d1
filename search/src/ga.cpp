// Genetic algorithm: generational replacement with elitism, tournament selection, uniform
// crossover and per-gene mutation (ordinal genes take bounded steps, categorical genes jump).
// Fitness is log-cost; invalid individuals rank below every valid one. A child equal to a point
// already evaluated is mutated again, so the budget is not spent on duplicates.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace mapwright::search::detail {
namespace {

constexpr double kInvalid = std::numeric_limits<double>::infinity();

class GaSearcher final : public Searcher {
 public:
  GaSearcher(const Problem& problem, const GaOptions& options, uint64_t seed)
      : problem_(problem), options_(options), seed_(seed), rng_(seed) {}

  std::vector<Point> ask(int n) override {
    if (next_ >= brood_.size()) start_generation();
    std::vector<Point> pts;
    while (static_cast<int>(pts.size()) < n && next_ + pts.size() < brood_.size())
      pts.push_back(brood_[next_ + pts.size()]);
    return pts;
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    for (size_t i = 0; i < pts.size(); ++i)
      brood_fit_[next_ + i] = out[i].valid ? std::log(out[i].cost) : kInvalid;
    next_ += pts.size();
    if (next_ < brood_.size()) return;
    // Generation complete: elites of the old population plus the evaluated children.
    std::vector<size_t> order = ranking();
    std::vector<Point> pop;
    std::vector<double> fit;
    const size_t elites = std::min<size_t>(static_cast<size_t>(options_.elitism), pop_.size());
    for (size_t i = 0; i < elites; ++i) {
      pop.push_back(pop_[order[i]]);
      fit.push_back(fit_[order[i]]);
    }
    for (size_t i = 0; i < brood_.size(); ++i) {
      pop.push_back(brood_[i]);
      fit.push_back(brood_fit_[i]);
    }
    pop_ = std::move(pop);
    fit_ = std::move(fit);
    ++generation_;
  }

  /// The prior's best `population` points (by log-cost, invalid last) are the first
  /// population, with their prior fitness: the first generation is bred from them.
  void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (pts.empty() || !pop_.empty() || !brood_.empty()) return;
    std::vector<double> fit(pts.size());
    for (size_t i = 0; i < pts.size(); ++i)
      fit[i] = out[i].valid ? std::log(out[i].cost) : kInvalid;
    std::vector<size_t> order(pts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return fit[a] < fit[b]; });
    for (size_t i = 0; i < std::min(order.size(), static_cast<size_t>(options_.population)); ++i) {
      pop_.push_back(pts[order[i]]);
      fit_.push_back(fit[order[i]]);
    }
    primed_ = static_cast<int64_t>(pts.size());
  }

  std::string name() const override { return "ga"; }

  nlohmann::json describe() const override {
    return {{"kind", name()},
            {"seed", seed_},
            {"options", to_json(SearchOptions{{}, options_, {}, {}, {}, {}, {}})["ga"]},
            {"generations", generation_},
            {"problem", problem_json(problem_)}};
  }

 private:
  /// Indices of pop_ sorted best first (stable, so ties keep population order).
  std::vector<size_t> ranking() const {
    std::vector<size_t> order(pop_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return fit_[a] < fit_[b]; });
    return order;
  }

  const Point& tournament() {
    size_t best = static_cast<size_t>(uniform_index(rng_, static_cast<int64_t>(pop_.size())));
    for (int64_t t = 1; t < options_.tournament; ++t) {
      const size_t c = static_cast<size_t>(uniform_index(rng_, static_cast<int64_t>(pop_.size())));
      if (fit_[c] < fit_[best]) best = c;
    }
    return pop_[best];
  }

  Point make_child() {
    Point child = tournament();
    if (uniform01(rng_) < options_.crossover_prob) {
      const Point& other = tournament();
      for (size_t g = 0; g < child.size(); ++g)
        if (uniform01(rng_) < 0.5) child[g] = other[g];
    }
    for (size_t g = 0; g < child.size(); ++g)
      if (uniform01(rng_) < options_.mutation_prob)
        child[g] = mutate_value(problem_.params[g], child[g], options_.radius, rng_);
    return child;
  }

  void start_generation() {
    brood_.clear();
    next_ = 0;
    if (pop_.empty()) {
      for (int64_t i = 0; i < options_.population; ++i)
        brood_.push_back(fresh(random_point(problem_, rng_)));
    } else {
      for (int64_t i = options_.elitism; i < options_.population; ++i)
        brood_.push_back(fresh(make_child()));
    }
    brood_fit_.assign(brood_.size(), kInvalid);
  }

  /// Mutates p until it is new (a bounded number of times), then marks it seen.
  Point fresh(Point p) {
    for (int tries = 0; tries < 20 && seen_.count(p); ++tries) {
      const size_t g = static_cast<size_t>(uniform_index(rng_, static_cast<int64_t>(p.size())));
      p[g] = mutate_value(problem_.params[g], p[g], options_.radius, rng_);
    }
    seen_.insert(p);
    return p;
  }

  Problem problem_;                ///< The space.
  GaOptions options_;              ///< Hyper-parameters.
  uint64_t seed_;                  ///< Seed, for the record.
  std::mt19937_64 rng_;            ///< All randomness.
  std::vector<Point> pop_;         ///< Current population.
  std::vector<double> fit_;        ///< Log-cost of pop_ (infinity = invalid).
  std::vector<Point> brood_;       ///< Points of the generation being evaluated.
  std::vector<double> brood_fit_;  ///< Their log-costs as they are told.
  size_t next_ = 0;                ///< brood_[0..next_) have been told.
  int64_t generation_ = 0;         ///< Completed generations.
  std::set<Point> seen_;           ///< Every point proposed so far.
};

}  // namespace

std::unique_ptr<Searcher> make_ga(const Problem& problem, const GaOptions& options, uint64_t seed) {
  return std::make_unique<GaSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
