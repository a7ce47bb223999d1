// Simulated annealing on log-cost. One point per ask: a neighbour of the current point that
// changes params_per_move parameters (ordinal ones by bounded steps). Metropolis acceptance
// with temperature T in log-cost units, T decaying geometrically per evaluated point. Random
// points are proposed until a first valid one is found; invalid neighbours are always
// rejected. A neighbour whose cost is already known is judged without spending budget, and
// after restart_after samples without a new best the walk jumps back to the best point.
#include "internal.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace mapwright::search::detail {
namespace {

class SaSearcher final : public Searcher {
 public:
  SaSearcher(const Problem& problem, const SaOptions& options, uint64_t seed)
      : problem_(problem),
        options_(options),
        seed_(seed),
        rng_(seed),
        temperature_(options.initial_temperature) {}

  std::vector<Point> ask(int) override {
    if (!has_current_) {
      Point p = random_point(problem_, rng_);
      for (int tries = 0; tries < 20 && known_.count(p); ++tries) p = random_point(problem_, rng_);
      return {p};
    }
    // Walk through already-known neighbours for free (bounded), then propose a new one.
    for (int free_steps = 0; free_steps < 100; ++free_steps) {
      Point p = neighbour(current_);
      auto it = known_.find(p);
      if (it == known_.end()) return {p};
      step(p, it->second);
    }
    return {neighbour(current_)};
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    for (size_t i = 0; i < pts.size(); ++i) {
      const double lc = out[i].valid ? std::log(out[i].cost) : kInvalid;
      known_[pts[i]] = lc;
      ++samples_;
      if (!has_current_) {
        if (out[i].valid) {
          current_ = pts[i];
          current_cost_ = lc;
          has_current_ = true;
          best_ = current_;
          best_cost_ = lc;
          last_improvement_ = samples_;
        }
      } else {
        step(pts[i], lc);
      }
      temperature_ = std::max(options_.min_temperature, temperature_ * options_.cooling);
      if (has_current_ && options_.restart_after > 0 &&
          samples_ - last_improvement_ >= options_.restart_after) {
        current_ = best_;
        current_cost_ = best_cost_;
        last_improvement_ = samples_;
        ++restarts_;
      }
    }
  }

  /// The walk starts at the prior's best valid point (with its prior log-cost).
  void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (has_current_) return;
    for (size_t i = 0; i < pts.size(); ++i)
      if (out[i].valid && (!has_current_ || std::log(out[i].cost) < current_cost_)) {
        current_ = best_ = pts[i];
        current_cost_ = best_cost_ = std::log(out[i].cost);
        has_current_ = true;
      }
    if (has_current_) primed_ = static_cast<int64_t>(pts.size());
  }

  std::string name() const override { return "sa"; }

  nlohmann::json describe() const override {
    return {{"kind", name()},
            {"seed", seed_},
            {"options", to_json(SearchOptions{{}, {}, options_, {}, {}, {}, {}})["sa"]},
            {"temperature", temperature_},
            {"restarts", restarts_},
            {"problem", problem_json(problem_)}};
  }

 private:
  static constexpr double kInvalid = 1e300;  ///< Log-cost recorded for invalid points.

  Point neighbour(const Point& from) {
    Point p = from;
    const int64_t np = static_cast<int64_t>(p.size());
    const int64_t moves = std::min<int64_t>(options_.params_per_move, np);
    std::vector<int64_t> idx(p.size());
    for (int64_t i = 0; i < np; ++i) idx[static_cast<size_t>(i)] = i;
    for (int64_t m = 0; m < moves; ++m) {  // Partial Fisher-Yates: distinct parameters.
      const int64_t j = m + uniform_index(rng_, np - m);
      std::swap(idx[static_cast<size_t>(m)], idx[static_cast<size_t>(j)]);
      const size_t g = static_cast<size_t>(idx[static_cast<size_t>(m)]);
      p[g] = mutate_value(problem_.params[g], p[g], options_.radius, rng_);
    }
    return p;
  }

  /// Metropolis step from the current point to p with log-cost lc.
  void step(const Point& p, double lc) {
    if (lc >= kInvalid) return;
    const double delta = lc - current_cost_;
    if (delta <= 0 || uniform01(rng_) < std::exp(-delta / temperature_)) {
      current_ = p;
      current_cost_ = lc;
    }
    if (lc < best_cost_) {
      best_ = p;
      best_cost_ = lc;
      last_improvement_ = samples_;
    }
  }

  Problem problem_;                ///< The space.
  SaOptions options_;              ///< Hyper-parameters.
  uint64_t seed_;                  ///< Seed, for the record.
  std::mt19937_64 rng_;            ///< All randomness.
  double temperature_;             ///< Current T (log-cost units).
  bool has_current_ = false;       ///< A valid current point exists.
  Point current_;                  ///< Current point of the walk.
  double current_cost_ = 0;        ///< Its log-cost.
  Point best_;                     ///< Best valid point seen.
  double best_cost_ = kInvalid;    ///< Its log-cost.
  int64_t samples_ = 0;            ///< Points told so far.
  int64_t last_improvement_ = 0;   ///< samples_ when best_ last improved (or restarted).
  int64_t restarts_ = 0;           ///< Jumps back to best_.
  std::map<Point, double> known_;  ///< Log-cost of every evaluated point.
};

}  // namespace

std::unique_ptr<Searcher> make_sa(const Problem& problem, const SaOptions& options, uint64_t seed) {
  return std::make_unique<SaSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
