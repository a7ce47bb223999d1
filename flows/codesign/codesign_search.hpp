#pragma once
/// \file codesign_search.hpp
/// The machinery behind `mapwright codesign`: hardware points and boxes of a space, the
/// point evaluator (every unique layer at its proven-optimal mapping, memoized per layer shape
/// and architecture), the admissible lower bounds of a box, and the searchers (exact
/// branch-and-bound, grid, random, and the search library's sampling searchers through
/// ask/tell).
///
/// How a workload's cost composes (docs/codesign.md): each unique layer takes the mapping that
/// minimizes its own objective on the point's architecture (what `run` does); a network's
/// cycles and energy are the sums over its layers with their counts, its cost is the objective
/// of those sums (cycles^a * energy^b, as `run` reports a network's EDP), and the workload's
/// cost is the weighted sum of its networks' costs.

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/search/options.hpp"

namespace mapwright::flows::codesign {

/// A hardware point: one value index per parameter (HwParam order).
using HwIndex = std::array<int, kNumHwParams>;
/// A box of the space: per parameter the index interval [lo, hi].
struct HwBox {
  HwIndex lo{};  ///< Smallest index per parameter.
  HwIndex hi{};  ///< Largest index per parameter.
  /// Points in the box.
  double size() const;
  /// True when every parameter but the buffer sizes is one value.
  bool fixed_but_buffers() const;
};
/// The whole space as one box.
HwBox whole_space(const CodesignSpace& s);
/// The point's parameter value.
long long value_of(const CodesignSpace& s, const HwIndex& i, HwParam p);

/// The architecture of point `i`: the base with the point's values, named after them.
core::Arch point_arch(const CodesignSpace& s, const HwIndex& i);
/// Why the RTL cannot be built for point `i` ("" when it can): banked buffers need at least
/// max(rows, cols, DRAM bytes per cycle) banks (core/src/arch.cpp check_banks).
std::string unbuildable(const CodesignSpace& s, const HwIndex& i);
/// The box's largest buffers with its smallest buffers' per-access energies (the same as the
/// largest's unless energy.capacity_scaling), everything else as in the box's last point.
core::Arch buffer_relaxed_arch(const CodesignSpace& s, const HwBox& b);
/// The box's relaxed architecture: the largest array, bandwidth and buffers of the box, the
/// union of its dataflow sets, multi-ported buffers (no bank stalls) and the smallest buffers'
/// per-access energies. Every point of the box
/// has a subset of its mappings, each at no lower cost, so its bounds hold for the whole box.
core::Arch relaxed_arch(const CodesignSpace& s, const HwBox& b);

/// Lower bound on the area of every point of `b` (area grows with the array and each buffer;
/// the banks are tried one by one), mm^2.
double area_lower_bound(const CodesignSpace& s, const HwBox& b);
/// The clock of a point with architecture `a`, MHz: the clock model's maximum frequency for its
/// array under `clock: modeled`, else the base architecture's stated clock_mhz.
double point_clock_mhz(const CodesignSpace& s, const core::Arch& a);
/// What a point at `clock_mhz` multiplies its cost by: its cycles count at the base clock, so
/// (base clock_mhz / clock_mhz)^objective.latency (1 under `clock: stated`).
double clock_cost_factor(const CodesignSpace& s, double clock_mhz);
/// The fastest clock of any point of box `b`: the model depends only on rows and cols and does
/// not rise with either (model::estimate_clock), so the clock of the box's smallest array.
double box_clock_mhz(const CodesignSpace& s, const HwBox& b);
/// Lower bounds on one network's cycles and energy over the box (sums over its layers).
struct NetworkBound {
  double cycles = 0;     ///< Lower bound on the network's cycles.
  double energy_pj = 0;  ///< Lower bound on its energy, pJ.
};
/// Closed-form bounds of every network of the workload over box `b`: each layer's compute
/// cycles at the largest PE array any point of the box has, its compulsory DRAM bytes at the
/// largest bandwidth, its smallest access counts (mapper::LowerBound on the relaxed
/// architecture with every mapping field free).
std::vector<NetworkBound> closed_form_bounds(const CodesignSpace& s, const HwBox& b);
/// A lower bound on a network's cost cycles^a * energy^b from lower bounds `layer_cost` on each
/// layer's cost (with counts `count`): Hoelder's inequality gives (sum_i n_i c_i^(1/(a+b)))^(a+b),
/// exact when a or b is 0.
double compose_layer_bounds(const core::Objective& o, const std::vector<double>& layer_cost,
                            const std::vector<int>& count);

/// One layer at one point: the chosen mapping's figures and the proven bound on its cost.
struct LayerFigures {
  bool found = false;      ///< A mapping fits.
  bool optimal = false;    ///< The mapper proved it optimal.
  core::Mapping mapping;   ///< The chosen mapping.
  core::Metrics metrics;   ///< Its surrogate metrics on the point's architecture.
  double cost = 0;         ///< Its objective.
  double lower_bound = 0;  ///< Proven lower bound on the layer's optimum.
};

/// One evaluated hardware point.
struct PointResult {
  HwIndex index{};                ///< The point.
  std::string unbuildable;        ///< Why the RTL cannot have it ("" = buildable).
  double area_mm2 = 0;            ///< model::estimate_area.
  double clock_mhz = 0;           ///< point_clock_mhz: the clock its latency is at.
  std::vector<double> cycles;     ///< Per network.
  std::vector<double> energy_pj;  ///< Per network.
  double cost = 0;                ///< Workload cost of the chosen mappings.
  double lower_bound = 0;         ///< Proven lower bound on the point's cost.
  bool exact = false;             ///< Every layer proved optimal (cost == its bound).
  bool found = false;             ///< Every layer has a mapping.
  bool over_area = false;         ///< Above constraints.max_area_mm2.
  std::string infeasible;         ///< The latency or energy limit it breaks, or no mapping.
  double covers = 1;              ///< Points of the same cost it stands for (exact search).
  double seconds = 0;             ///< Wall time of its evaluation.
  /// Buildable, every layer mapped, within every constraint.
  bool feasible() const { return on_front_axis() && !over_area; }
  /// Buildable, every layer mapped, within the latency and energy limits (any area).
  bool on_front_axis() const { return unbuildable.empty() && found && infeasible.empty(); }
};

/// The mapper's solve of `layer` on `a` for `objective` within `time_limit_s` (one thread), as
/// the evaluator keeps it.
LayerFigures solve_layer(const core::Layer& layer, const core::Arch& a,
                         const core::Objective& objective, double time_limit_s);
/// The memo and journal key of a solve: the layer's shape and every architecture field a solve
/// depends on that a space can change.
std::string solve_key(const core::Layer& layer, const core::Arch& a);
/// `a` with the space's largest buffers.
core::Arch largest_buffers(const CodesignSpace& s, const core::Arch& a);
/// A solve's figures as JSON (the journal's lines and the MPI ranks' answers), and back.
nlohmann::json figures_to_json(const LayerFigures& f);
LayerFigures figures_from_json(const nlohmann::json& j, const std::string& where);

class SolveFarm;

/// Scores hardware points: each unique layer of the workload on the point's architecture,
/// solved by the exact mapper, memoized per (layer shape, architecture). A layer is first
/// solved with the buffers at the space's largest values; if that optimum fits the point's
/// buffers it is the point's optimum too (buffer sizes change which mappings fit, nothing else),
/// so most points cost one surrogate evaluation per layer.
class PointEvaluator {
 public:
  explicit PointEvaluator(const CodesignSpace& s);
  /// The point's figures; `deadline_s` (seconds since the evaluator started, 0 = none) caps each
  /// mapper solve.
  PointResult evaluate(const HwIndex& i, double deadline_s = 0);
  /// Layer `u` (unique id) on architecture `a`: the memoized mapper solve.
  LayerFigures solve(size_t u, const core::Arch& a, double deadline_s = 0);
  /// Layer `u` on point architecture `a` through the largest-buffer solve when it fits; `ok`
  /// is false (and nothing is solved) when it does not.
  LayerFigures from_largest_buffers(size_t u, const core::Arch& a, bool& ok, double deadline_s);
  /// Under mpirun: the solves this evaluator has not made yet go to the other ranks through
  /// `farm` (rank 0's, solve_farm.cpp), a point's at once; the answers are the same.
  void use_farm(SolveFarm* farm) { farm_ = farm; }
  /// Every unique layer, on as many threads as the machine has (each solve on one): through the
  /// largest-buffer solve when its optimum fits `fits` (shortcut[u] then true), else solved on
  /// `fallback`. The answer does not depend on the thread count (the mapper's does not).
  std::vector<LayerFigures> all_layers(const core::Arch& fits, const core::Arch& fallback,
                                       double deadline_s, std::vector<char>& shortcut);
  /// The workload's unique layers (across networks, by shape).
  const std::vector<core::Layer>& layers() const { return layers_; }
  /// Per network: (unique layer id, count) pairs.
  const std::vector<std::vector<std::pair<size_t, int>>>& uses() const { return uses_; }
  /// The point's cost from per-layer figures.
  void compose(PointResult& r, const std::vector<LayerFigures>& f) const;
  /// Keeps the reproducible solves (an optimum the mapper proved, or no mapping at all) in the
  /// journal `path`, one JSON line each, appended and flushed as each is solved, so that a
  /// co-design stopped at any moment (Ctrl-C, a kill, a power cut) loses none of them; with
  /// `load`, first reads the solves an earlier run left there into the memo (a torn last line,
  /// the write a kill interrupted, is dropped). A journal of another objective, or a line that
  /// does not parse, is refused naming the file, the line and the key. Returns the solves loaded.
  long long open_journal(const std::filesystem::path& path, bool load);
  /// The solve journal of a command's folder `dir` (solves.jsonl): refused when the folder holds
  /// one and `resume` is false (naming --out and `command`), read back when it is true.
  void open_folder_journal(const std::filesystem::path& dir, bool resume,
                           const std::string& command);
  /// Solves read from the journal (open_journal).
  long long journal_loaded() const { return loaded_; }
  /// Seconds since construction.
  double elapsed() const;
  long long solves() const { return solves_; }       ///< Mapper solves run.
  long long memo_hits() const { return hits_; }      ///< Solves answered from the memo.
  const CodesignSpace& space() const { return s_; }  ///< The space.

 private:
  /// Appends solve `key` to the journal when it is open and the solve is reproducible (under
  /// memo_mu_).
  void remember(const std::string& key, const LayerFigures& f);
  /// The mapper's time limit of a solve under the search's deadline.
  double solve_limit(double deadline_s) const;
  /// The largest-buffer solve `big` of layer `u` seen on point architecture `a`: its figures
  /// there and `ok` when its optimum fits `a` (then optimal there too).
  LayerFigures fits_point(size_t u, const core::Arch& a, LayerFigures big, bool& ok) const;
  /// With a farm: solves on the other ranks what all_layers(fits, fallback) will ask for and the
  /// memo does not hold yet (the largest-buffer solves, then the fallbacks they leave).
  void prefetch(const core::Arch& fits, const core::Arch& fallback, double deadline_s);
  /// The memo's or the fetched solve `key`, if either holds it (nullptr otherwise; under lock).
  const LayerFigures* peek(const std::string& key);

  const CodesignSpace& s_;                                 ///< The space.
  std::vector<core::Layer> layers_;                        ///< Unique layers.
  std::vector<std::vector<std::pair<size_t, int>>> uses_;  ///< Per network, ids and counts.
  std::map<std::string, LayerFigures> memo_;               ///< (layer, arch) -> solve.
  std::mutex memo_mu_;                                     ///< Guards memo_, the journal and the
                                                           ///< counters.
  std::ofstream journal_;                                  ///< open_journal's file (or closed).
  SolveFarm* farm_ = nullptr;                              ///< The other ranks (mpirun).
  std::map<std::string, LayerFigures> fetched_;            ///< Solved by them, not asked yet.
  long long solves_ = 0;                                   ///< Mapper solves.
  long long hits_ = 0;                                     ///< Memo hits.
  long long loaded_ = 0;                                   ///< Solves loaded from the journal.
  double t0_ = 0;                                          ///< Start, steady-clock seconds.
};

/// What a searcher found.
struct SearchOutcome {
  std::vector<PointResult> points;  ///< Every evaluated point, in evaluation order.
  int best = -1;                    ///< Index in `points` of the chosen design (-1: none).
  double lower_bound = 0;           ///< Proven lower bound over the whole space (exact only).
  bool proved = false;              ///< The whole space was covered, every point exact.
  bool timed_out = false;           ///< The time limit stopped it.
  long long nodes = 0;              ///< exact: boxes bounded.
  long long pruned_bound = 0;       ///< exact: boxes cut by their cost bound.
  long long pruned_area = 0;        ///< exact: boxes cut by the area bound.
  long long pruned_constraint = 0;  ///< exact: boxes cut by the latency or energy bound.
  long long collapsed = 0;          ///< exact: boxes resolved by one evaluation.
  double seconds = 0;               ///< Wall time.
  nlohmann::json searcher;          ///< Sampling searchers: describe() of the searcher (its
                                    ///< options, seeds, clusters), duplicates, exhausted.
};
/// Branch-and-bound over the hardware: boxes split in halves (dataflows, array, bandwidth and
/// banks first, then the buffers), best-first by lower bound; anytime under `time_limit_s`.
SearchOutcome search_exact(PointEvaluator& ev, double time_limit_s);
/// The grid searcher over a list: the points of `points`, in order (the best of them is
/// "proved" among them when the time limit did not cut the list). `mapwright sweep` is this
/// over the points its file lists.
SearchOutcome search_points(PointEvaluator& ev, const std::vector<HwIndex>& points,
                            double time_limit_s);
/// Every point of the space, in index order (search_points over the whole space).
SearchOutcome search_grid(PointEvaluator& ev, double time_limit_s);
/// `samples` distinct points drawn uniformly with `seed`.
SearchOutcome search_random(PointEvaluator& ev, long long samples, uint64_t seed,
                            double time_limit_s);
/// What a sampling searcher of the search library needs.
struct SamplerRequest {
  std::string kind;               ///< A kind of search::searcher_kinds() (sa, ga, bo, marl, ...).
  search::SearchOptions options;  ///< Its options (configs/search/*.yaml).
  long long budget = 100;         ///< Distinct hardware points to evaluate (at most the space).
  uint64_t seed = 1;              ///< The searcher's seed.
  double time_limit_s = 0;        ///< Stops after the batch in flight (0 = none).
};
/// A search-library searcher over the space's varying parameters through ask/tell: each
/// distinct point it proposes is evaluated (infeasible points are typed failures told to it)
/// until `budget` points, the time limit, or the searcher repeats itself (run_search's
/// exhausted). Deterministic per seed (the searchers and the evaluator are).
SearchOutcome search_sampled(PointEvaluator& ev, const SamplerRequest& rq);
/// Sets `out`'s chosen design and bound from its points: the best's own bound, or when
/// `every_point` (the whole space was evaluated: proved) the smallest bound of a feasible point.
void settle(SearchOutcome& out, bool every_point);
/// The chosen design among `points`: the lowest cost, then the smallest area, then the first.
int choose_best(const std::vector<PointResult>& points);
/// Indices of the area-cost Pareto front of the feasible points, by ascending area.
std::vector<int> pareto_front(const std::vector<PointResult>& points);

/// The area model's constants as the records keep them.
nlohmann::json area_constants_json(const model::AreaConstants& c);

}  // namespace mapwright::flows::codesign
