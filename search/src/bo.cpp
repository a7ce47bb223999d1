// Bayesian-optimization-style baseline, searcher kind "bo": dlib's global_function_search
// drives the search through its own ask/tell interface (get_next_x() hands out a request,
// function_evaluation_request::set() reports its value). dlib alternates a global step, the
// maximum of a MaxLIPO-style upper bound of the objective over all evaluations (Malherbe and
// Vayatis, ICML 2017, with dlib's per-dimension Lipschitz constants and noise term), with a
// local step from a quadratic trust-region model around the best point (Powell's NEWUOA); with
// a small probability a global step is uniformly random. There is no Gaussian process: this
// is a model-based global optimizer of the same family, used as a baseline.
//
// Encoding (search/README.md, "bo"). Each parameter with more than one value is one dlib
// variable; parameters with a single value are left out (dlib needs lower < upper) and fixed
// at index 0. Categorical parameters are integer variables over their value indices: a
// named simplification, since dlib's models assume that nearby indices behave alike, which a
// categorical domain (a loop-order index) does not promise. Ordinal parameters are real
// variables over [-0.5, card - 0.5], rounded to the nearest index (default), so that the
// trust-region step, which dlib runs on real variables only, works on tile sizes and PE
// counts; with ordinal_continuous: false they are integer variables too.
//
// Values: dlib maximizes the reward of the other learners' normalization (search/README.md,
// "Reward normalization"): log(ref / cost) for a valid point, the worst valid value seen so
// far minus invalid_penalty for an invalid one, and -invalid_penalty before any valid point.
//
// dlib may propose a point again (two real vectors that round to one point, or a known integer
// point): it is returned like any other and run_search answers it from its cache without
// spending budget. dlib cannot be told to avoid known points, and each value it is told makes
// its next proposal dearer (O(evaluations) per proposal), so on a small space it may keep
// proposing known points at a growing cost. Three rules bound that: a known point's value is
// told to dlib again only while repeats told are fewer than distinct points (else the request
// is withdrawn); once every point of the space is known, or when fewer than kMinFresh of the
// last kWindow proposals were new points, bo stops asking dlib and proposes its best point
// again, and run_search ends the run as exhausted after its duplicate limit.
//
// Determinism: dlib's generator is seeded with the run seed (set_seed); the only other
// randomness in dlib's search, the shuffles of its QP solver, has a fixed seed.
#include "internal.hpp"

#include <dlib/global_optimization.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <deque>
#include <optional>
#include <set>
#include <stdexcept>

namespace mapwright::search::detail {
namespace {

/// dlib is taken to have converged when fewer than kMinFresh of its last kWindow proposals were
/// new points (on the layers measured in search/README.md 87-98 % of its proposals are new).
constexpr size_t kWindow = 200;
constexpr int64_t kMinFresh = 20;

class BoSearcher final : public Searcher {
 public:
  BoSearcher(const Problem& problem, const BoOptions& options, uint64_t seed)
      : problem_(problem),
        options_(options),
        seed_(seed),
        size_(space_size(problem)),
        rewards_(options.invalid_penalty) {
    std::vector<double> lower, upper;
    std::vector<bool> integer;
    for (size_t k = 0; k < problem_.params.size(); ++k) {
      const ParamSpec& p = problem_.params[k];
      if (p.cardinality < 2) continue;  // A single value: fixed at index 0.
      free_.push_back(k);
      const double top = static_cast<double>(p.cardinality - 1);
      const bool real = p.ordinal && options_.ordinal_continuous;
      lower.push_back(real ? -0.5 : 0.0);
      upper.push_back(real ? top + 0.5 : top);
      integer.push_back(!real);
    }
    if (free_.empty()) return;  // One point in the whole space: nothing to optimize.
    dlib::matrix<double, 0, 1> lo(static_cast<long>(free_.size())),
        hi(static_cast<long>(free_.size()));
    for (size_t i = 0; i < free_.size(); ++i) {
      lo(static_cast<long>(i)) = lower[i];
      hi(static_cast<long>(i)) = upper[i];
    }
    spec_.emplace_back(lo, hi, integer);
    opt_.emplace(spec_.front());
    configure();
  }

  /// The prior goes to dlib as initial evaluations (its values normalized as every later one),
  /// so its first proposals already use the upper bound and the trust region around the
  /// prior's best.
  void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (!opt_ || proposals_ > 0 || pts.empty()) return;
    const std::vector<double> r = rewards_.rewards(prior_outcomes(out));
    std::vector<dlib::function_evaluation> evals;
    for (size_t i = 0; i < pts.size(); ++i) {
      dlib::matrix<double, 0, 1> x(static_cast<long>(free_.size()));
      for (size_t j = 0; j < free_.size(); ++j)
        x(static_cast<long>(j)) = static_cast<double>(pts[i][free_[j]]);
      evals.emplace_back(x, r[i]);
    }
    opt_.reset();
    opt_.emplace(spec_, std::vector<std::vector<dlib::function_evaluation>>{evals},
                 options_.relative_noise_magnitude);
    configure();
    primed_ = static_cast<int64_t>(pts.size());
  }

  std::vector<Point> ask(int n) override {
    pending_.clear();  // A request dropped unanswered is withdrawn from dlib.
    asked_.clear();
    if (!opt_ || static_cast<int64_t>(known_.size()) >= size_ ||
        (recent_.size() == kWindow && fresh_in_window_ < kMinFresh)) {
      // One point in the space, every point known, or dlib proposes known points only.
      if (opt_ && converged_at_ < 0) converged_at_ = proposals_;
      asked_.push_back(found_ ? best_ : Point(problem_.params.size(), 0));
      return asked_;
    }
    const int64_t count = std::min<int64_t>(n, options_.batch);
    while (static_cast<int64_t>(asked_.size()) < count) {
      pending_.push_back(opt_->get_next_x());
      asked_.push_back(decode(pending_.back().x()));
      ++proposals_;
    }
    return asked_;
  }

  void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) override {
    if (pts != asked_ || out.size() != pts.size())
      throw std::logic_error("bo: tell() must report the points of the last ask()");
    const std::vector<double> r = rewards_.rewards(out);
    for (size_t i = 0; i < pts.size(); ++i) {
      const bool fresh = known_.insert(pts[i]).second;
      if (!fresh) ++repeats_;
      recent_.push_back(fresh);
      fresh_in_window_ += fresh;
      if (recent_.size() > kWindow) {
        fresh_in_window_ -= recent_.front();
        recent_.pop_front();
      }
      // A known point is told again (it shows dlib a plateau, and its trust region shrinks)
      // while repeats are fewer than distinct points; past that it is withdrawn (below), so
      // that dlib's cost stays bounded by twice the distinct points.
      if (i < pending_.size() && (fresh || told_repeats_ < static_cast<int64_t>(known_.size()))) {
        pending_[i].set(r[i]);
        if (!fresh) ++told_repeats_;
      }
      if (out[i].valid && (!found_ || out[i].cost < best_cost_)) {
        found_ = true;
        best_ = pts[i];
        best_cost_ = out[i].cost;
      }
    }
    pending_.clear();  // Withdraws the requests not answered above.
    asked_.clear();
  }

  std::string name() const override { return "bo"; }

  nlohmann::json describe() const override {
    nlohmann::json fixed = nlohmann::json::array();
    for (const auto& p : problem_.params)
      if (p.cardinality < 2) fixed.push_back(p.name);
    return {{"kind", name()},
            {"seed", seed_},
            {"options", to_json(options_)},
            {"method", "dlib global_function_search (MaxLIPO + trust region)"},
            {"variables", free_.size()},
            {"fixed_parameters", fixed},
            {"proposals", proposals_},
            {"repeated_proposals", repeats_},
            {"repeats_told_to_dlib", told_repeats_},
            {"converged_at",
             converged_at_ < 0 ? nlohmann::json(nullptr) : nlohmann::json(converged_at_)},
            {"reference_cost", rewards_.has_reference() ? nlohmann::json(rewards_.reference())
                                                        : nlohmann::json(nullptr)},
            {"problem", problem_json(problem_)}};
  }

 private:
  /// The run's seed and the options' dlib settings.
  void configure() {
    // time_t is 64 bits here; the cast keeps every bit of the seed.
    opt_->set_seed(static_cast<time_t>(seed_));
    opt_->set_solver_epsilon(options_.solver_epsilon);
    opt_->set_relative_noise_magnitude(options_.relative_noise_magnitude);
    opt_->set_pure_random_search_probability(options_.pure_random_search_probability);
  }

  /// The point of a dlib vector: nearest index per free parameter, clamped to its range.
  Point decode(const dlib::matrix<double, 0, 1>& x) const {
    Point p(problem_.params.size(), 0);
    for (size_t i = 0; i < free_.size(); ++i) {
      const int64_t card = problem_.params[free_[i]].cardinality;
      const int64_t v = std::llround(x(static_cast<long>(i)));
      p[free_[i]] = std::clamp<int64_t>(v, 0, card - 1);
    }
    return p;
  }

  Problem problem_;           ///< The space.
  BoOptions options_;         ///< Knobs.
  uint64_t seed_;             ///< Seed, for the record.
  int64_t size_;              ///< Points in the space (saturated).
  RewardNormalizer rewards_;  ///< Outcome -> value told to dlib.
  std::vector<size_t> free_;  ///< Parameters that are dlib variables (cardinality > 1), in
                              ///< point order.
  std::vector<dlib::function_spec> spec_;                   ///< dlib's variables (none or one).
  std::optional<dlib::global_function_search> opt_;         ///< The optimizer (none if every
                                                            ///< parameter has one value).
  std::vector<dlib::function_evaluation_request> pending_;  ///< Requests of the last ask, in
                                                            ///< order.
  std::vector<Point> asked_;                                ///< Points of the last ask, in order.
  std::set<Point> known_;                                   ///< Every point told so far.
  bool found_ = false;                                      ///< A valid point was told.
  Point best_;                   ///< Lowest-cost valid point told (first on ties).
  double best_cost_ = 0;         ///< Its cost.
  int64_t proposals_ = 0;        ///< Requests taken from dlib.
  int64_t repeats_ = 0;          ///< Points told that were already known.
  int64_t told_repeats_ = 0;     ///< Of those, told to dlib (the others were withdrawn).
  std::deque<bool> recent_;      ///< Of the last (up to kWindow) points told: new or not.
  int64_t fresh_in_window_ = 0;  ///< New points among them.
  int64_t converged_at_ = -1;    ///< Proposals taken from dlib when bo stopped asking it (-1:
                                 ///< still asking).
};

}  // namespace

std::unique_ptr<Searcher> make_bo(const Problem& problem, const BoOptions& options, uint64_t seed) {
  return std::make_unique<BoSearcher>(problem, options, seed);
}

}  // namespace mapwright::search::detail
