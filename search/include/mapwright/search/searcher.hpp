#pragma once
/// \file searcher.hpp
/// The search contract: an abstract discrete problem (one value index per parameter), an
/// ask/tell searcher, a factory that builds any searcher by name, and the driver that spends a
/// sample budget. Search never sees the hardware or the cost model: the caller turns a Point
/// into an Outcome.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/search/options.hpp"

namespace mapwright::search {

/// One discrete parameter of the problem.
struct ParamSpec {
  std::string name;         ///< Unique name, used in run records and cluster listings.
  int64_t cardinality = 0;  ///< Number of values; a value is an index 0..cardinality-1.
  bool ordinal = false;     ///< True: neighbouring indices are similar (tile sizes). False:
                            ///< categorical (loop-order index, dataflow).
  std::string group{};      ///< Domain knowledge from the caller (empty: none): parameters with
                            ///< the same label are coupled by the domain, e.g. the tile sizes
                            ///< whose values enter the same buffers' footprints. marl's
                            ///< "per-buffer" mode makes one agent per label.
};

/// The whole search space: the product of the parameters' value ranges.
struct Problem {
  std::vector<ParamSpec> params;  ///< In point order.
};

/// One candidate: a value index per parameter, in Problem::params order.
using Point = std::vector<int64_t>;

/// The result of evaluating one point.
struct Outcome {
  bool valid = false;  ///< False: a typed failure (see reason), not an error.
  double cost = 0;     ///< Objective when valid; finite and > 0, lower is better.
  std::string reason;  ///< Why the point is invalid, e.g. "does not fit: ...".
  /// Set by the evaluator when this point is a new encoding of something it has already
  /// evaluated (e.g. two points that decode to the same mapping): the outcome is that of the
  /// earlier evaluation, and the run counts it as a duplicate, not as a sample. run_search also
  /// sets it on what it tells a searcher for a point proposed again (answered from its cache),
  /// so that a learner can tell repeats from new samples (LearnerOptions::repeat_penalty).
  bool repeat = false;
  /// The class of an invalid outcome, set by the evaluator (e.g. "input_overflow",
  /// "rtl:watchdog"): runs count failures per class and the clustering groups by it; `reason`
  /// is only the message. Empty on an invalid outcome counts as "invalid".
  std::string failure_class;
};

/// Ask/tell searcher. ask() proposes points, tell() reports their outcomes in the same order.
/// Every call to ask() is followed by exactly one tell() with the same points.
class Searcher {
 public:
  virtual ~Searcher() = default;
  /// Propose between 1 and n points (n >= 1); fewer than n is normal (a natural batch).
  virtual std::vector<Point> ask(int n) = 0;
  /// Report the outcomes of the points of the last ask(), in the same order.
  virtual void tell(const std::vector<Point>& pts, const std::vector<Outcome>& out) = 0;
  /// Kind name: one of searcher_kinds().
  virtual std::string name() const = 0;
  /// Hyper-parameters, seed, clusters and other facts for the run record.
  virtual nlohmann::json describe() const = 0;
  /// A prior: observations that are not samples, e.g. prior_points() scored by a cheaper
  /// evaluator (the surrogate before an RTL-scored search). Called at most once, before the
  /// first ask(); the outcomes' `repeat` flags are ignored. Each searcher uses the prior as its
  /// algorithm uses observations (search/README.md, "Prior"): ga breeds its first generation
  /// from the prior's best, sa starts its walk at the prior's best, ppo and marl take it as
  /// their first on-policy batch (their initial policies are uniform, as the prior is), marl
  /// clusters on it instead of spending initial_samples, ppo-box moves its mean toward the
  /// prior's best quarter, bo hands it to dlib as initial evaluations; random ignores it.
  virtual void prime(const std::vector<Point>& pts, const std::vector<Outcome>& out) {
    (void)pts;
    (void)out;
  }
  /// Points of the prior that prime() has taken (0 for a searcher that ignores it).
  int64_t primed() const { return primed_; }

 protected:
  int64_t primed_ = 0;  ///< Set by prime() implementations that use the prior.
};

/// `n` distinct points drawn uniformly at random from `problem` (fewer if the space is
/// smaller), seeded: a prior for Searcher::prime.
std::vector<Point> prior_points(const Problem& problem, int64_t n, uint64_t seed);

/// Check that a problem is well formed (at least one parameter, unique non-empty names,
/// cardinality >= 1); throws std::invalid_argument naming the parameter otherwise.
void validate_problem(const Problem& problem);

/// Build a searcher. kind is one of searcher_kinds(): random, ga, sa, ppo, ppo-box, marl, bo.
/// The options are validated.
/// Throws std::invalid_argument for an unknown kind (listing the known ones), a bad problem or
/// bad options. Same kind, problem, options and seed give bit-identical proposals for
/// identical outcomes.
std::unique_ptr<Searcher> make_searcher(const std::string& kind, const Problem& problem,
                                        const SearchOptions& options, uint64_t seed);

/// State of a run, given to the progress callback after every evaluated batch.
struct SearchProgress {
  int64_t samples = 0;   ///< Distinct points evaluated so far (valid or not).
  int64_t budget = 0;    ///< Total budget of the run.
  int64_t valid = 0;     ///< Valid outcomes so far.
  int64_t invalid = 0;   ///< Invalid outcomes so far.
  bool found = false;    ///< True once a valid point was seen.
  double best_cost = 0;  ///< Best valid cost so far (meaningful when found).
};

/// Called after each batch; return false to stop the run early (e.g. on Ctrl-C). The batch
/// in flight is always finished and told to the searcher.
using ProgressFn = std::function<bool(const SearchProgress&)>;

/// Evaluates a batch of points, returning one outcome per point, in order.
using EvaluateFn = std::function<std::vector<Outcome>(const std::vector<Point>&)>;

/// Everything a run produced.
struct SearchResult {
  bool found = false;               ///< True if at least one valid point was evaluated.
  Point best_point;                 ///< Lowest-cost valid point (first one on ties).
  double best_cost = 0;             ///< Its cost (meaningful when found).
  int64_t best_sample = -1;         ///< 0-based sample index at which best_point was evaluated.
  std::vector<double> best_so_far;  ///< best_so_far[i]: best valid cost among samples 0..i;
                                    ///< +infinity before the first valid sample.
  int64_t samples = 0;              ///< Distinct points evaluated (== budget unless stopped
                                    ///< early or exhausted).
  int64_t valid = 0;                ///< Valid outcomes.
  int64_t invalid = 0;              ///< Invalid outcomes.
  std::map<std::string, int64_t> failures;  ///< Invalid outcomes per Outcome::failure_class.
  int64_t duplicates = 0;      ///< Proposals of already evaluated points: answered from
                               ///< the cache, told to the searcher, not counted in samples.
  bool exhausted = false;      ///< True if the run ended before the budget because the
                               ///< searcher kept proposing evaluated points (more than
                               ///< duplicate_limit(budget) of them): a small space, or a
                               ///< searcher that has converged.
  bool stopped_early = false;  ///< True if the progress callback asked to stop.
  /// JSON for the run record; infinite curve entries become null.
  nlohmann::json to_json() const;
};

/// Most duplicate proposals a run of `budget` samples answers before it ends as exhausted.
int64_t duplicate_limit(int64_t budget);

/// Run a searcher until `budget` distinct points have been evaluated (every distinct point
/// counts, valid or not). A point proposed again is answered from a cache of every outcome so
/// far: the searcher is told its outcome, the evaluator is not called and the budget is not
/// charged (SearchResult::duplicates counts them); so is a point the evaluator marks as a
/// repeat (Outcome::repeat). Asks for at most the remaining budget each round. Throws
/// std::invalid_argument if budget <= 0, std::runtime_error if the evaluator returns the wrong
/// number of outcomes or a valid outcome with a non-finite or non-positive cost, or if the searcher
/// proposes no point.
SearchResult run_search(Searcher& searcher, const EvaluateFn& evaluate, int64_t budget,
                        ProgressFn progress = {});

}  // namespace mapwright::search
