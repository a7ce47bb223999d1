#pragma once
/// \file rtl_check.hpp
/// The co-design's designs on the RTL: after the search, every unique layer of the chosen design
/// (or of every point of the Pareto front) runs its proven-optimal mapping on the RTL of that
/// design, in worker processes of the RTL pool, each design's model compiled in or taken from the
/// model cache (built there on first use, only for these designs), and is judged by the one
/// cross-check verdict `run` uses (flows/verify/crosscheck.hpp): bit-exact outputs and every
/// access counter equal to the surrogate's.

#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codesign/codesign_search.hpp"
#include "mapwright/rtlpool/sim_limits.hpp"

namespace mapwright::flows::codesign {

class SolveFarm;

/// The designs `--rtl` names (checked by the command): "none", "chosen" (the chosen design) or
/// "front" (every point of the Pareto front, the chosen one among them); none without a design.
std::vector<int> designs_to_check(const std::string& mode, const SearchOutcome& r);

/// How the designs run on the RTL.
struct RtlCheckRequest {
  int jobs = 0;                 ///< RTL worker processes (0 = the number of cores).
  uint64_t seed = 1;            ///< Operand seeds derive from it (flows/seeds.hpp rtl_seed).
  std::string worker_exe;       ///< The worker binary ("" = rtlpool::worker_executable()).
  rtlpool::SimLimits limits;    ///< Per-run limits (the pool's defaults).
  std::ostream* log = nullptr;  ///< Progress lines (model builds, designs); null = quiet.
  /// rtl.jsonl: every layer run that finished with a verdict (passed, or a design failure; not
  /// a worker crash or a limit), one JSON line each, appended as it ends ("" = none).
  std::filesystem::path journal;
  /// Read the journal first: a layer whose design, shape, mapping and seed it holds is answered
  /// from it and not run again (`codesign --resume`); a torn last line is dropped.
  bool resume = false;
  std::string command = "codesign";  ///< The command the progress lines name.
};

/// The YAML of point `i`'s architecture: the base architecture's file with the point's values
/// (what the RTL workers load; loading it gives point_arch(s, i)).
std::string point_arch_yaml(const CodesignSpace& s, const HwIndex& i);

/// Runs the designs `designs` (indices into `points`) on the RTL; their architecture files go
/// to <dir>/archs/. Returns, per design, its "rtl" object: "status" (passed: every layer
/// passed; failed: a layer did not; no_model: the design's RTL model could not be had, with
/// "reason"), "arch_file", "model", "layers_passed" and per unique layer its verification as
/// results.json writes one, and "layers_from_journal" (rq.resume). A design without a model is a
/// typed failure of that design; the others still run. Under mpirun (`farm`, rank 0's), each
/// design goes to one of the other ranks (whichever is free), which checks it with its own RTL
/// worker pool and model cache and sends back its "rtl" object and finished layer runs, kept in
/// rank 0's journal; with rq.resume a design whose every layer the journal holds is answered on
/// rank 0. The verdicts do not depend on where the runs ran.
std::map<int, nlohmann::json> check_on_rtl(PointEvaluator& ev,
                                           const std::vector<PointResult>& points,
                                           const std::vector<int>& designs,
                                           const std::filesystem::path& dir,
                                           const RtlCheckRequest& rq, SolveFarm* farm = nullptr);

/// The message asking a rank to check design `p` on the RTL (check_on_rtl_ranks).
nlohmann::json design_check_request(const PointResult& p, const std::filesystem::path& dir,
                                    const RtlCheckRequest& rq);
/// A rank's answer to a design_check_request: the design checked on `ev`'s space with this
/// process's RTL worker pool; {"rtl": its "rtl" object, "kept": its journal lines}.
nlohmann::json serve_design_check(PointEvaluator& ev, const nlohmann::json& request);

}  // namespace mapwright::flows::codesign
