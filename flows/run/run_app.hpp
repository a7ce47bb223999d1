#pragma once
/// \file run_app.hpp
/// The run as an application object: RunApp runs one session of a `mapwright run` on a run
/// folder and returns the typed record. cmd_run (run.cpp) builds it from the command line;
/// `sweep` builds one per point in the same process, with the point's architecture in memory.
/// Under mpirun, rank 0's RunApp hands the pending layers to the other ranks (run_dist.cpp),
/// whose own RunApp searches and verifies one layer per message in a scratch folder.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/run_record.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/search/options.hpp"
#include "record/results_db.hpp"

namespace mapwright::flows {

/// What a run works on, loaded and checked from its settings before any work.
struct RunInputs {
  core::Arch arch;                                  ///< The architecture.
  core::Objective objective;                        ///< The objective of the searches.
  search::SearchOptions search_options;             ///< The sampling searchers' options.
  std::string target;                               ///< The network's (or the layer's) name.
  std::vector<std::pair<core::Layer, int>> layers;  ///< Unique layers with their counts.
  /// ONNX: the nodes that are not layers, by op type with counts.
  std::vector<std::pair<std::string, int>> import_skipped;
  std::vector<std::string> import_warnings;  ///< ONNX: what could not be mapped.
};
/// Loads the run's inputs from `s` (the network's import notes go to `notes` when set); a bad
/// one is a core::SpecError naming its flag.
RunInputs load_run_inputs(const RunSettings& s, std::ostream* notes);

/// The file stem of layer `li`'s curve and mapping files: "<li>_<safe name>".
std::string layer_file_stem(size_t li, const std::string& name);

/// The run folder a session works in.
struct RunFolder {
  std::filesystem::path dir;         ///< The folder.
  std::unique_ptr<FolderLock> lock;  ///< This process's lock on it (none for a rank's scratch).
  std::optional<RunRecord> stored;   ///< The record of the run being resumed.
};
/// runs/run-<target>-<arch>-<searcher>-s<seed>: the folder of a run given no --out.
std::filesystem::path default_run_dir(const RunSettings& s);
/// Locks o.out_dir for a run. With --resume and a results.json there, reads and checks it,
/// refuses explicit flags that differ from it and takes the run's settings from it (into
/// `o.settings`); otherwise makes sure the folder does not already hold a run.
RunFolder open_run_folder(RunOptions& o);
/// Refuses options out of range before any work.
void check_run_options(const RunOptions& o);
/// RTL worker processes of a run: --jobs, or the number of cores.
int run_jobs(const RunOptions& o);
/// The RTL worker pool of `jobs` workers, after the pre-check that o.settings.arch (`arch` once
/// loaded) has an RTL model (compiled in, or from the model cache, built now when absent).
std::unique_ptr<rtlpool::RtlWorkerPool> start_rtl_pool(const RunOptions& o, const core::Arch& arch,
                                                       int jobs);

/// The record of a new run in `dir`: its settings and every layer pending.
RunRecord new_run_record(const RunSettings& s, const std::filesystem::path& dir,
                         const core::Arch& arch, const std::string& target,
                         const std::vector<std::pair<core::Layer, int>>& layers);

/// One session of a run on its folder: searches the pending layers on the surrogate, verifies
/// each layer's top-K candidates on the RTL as they come, chooses the best, and writes
/// results.json and the SQLite store after every step, so that whatever stops the session loses
/// nothing finished; at the end, the CSVs and report.html.
class RunApp {
 public:
  /// `o.settings` are the run's (a resumed run's, see open_run_folder); `pool` verifies on the
  /// RTL (null: surrogate only, as o.settings.no_rtl says).
  RunApp(RunOptions o, RunFolder folder, RunInputs inputs, rtlpool::RtlWorkerPool* pool);
  ~RunApp();
  RunApp(const RunApp&) = delete;
  RunApp& operator=(const RunApp&) = delete;

  /// Runs the session (under mpirun with o.distribute, rank 0's: the other ranks search the
  /// layers) and returns the record as written.
  RunRecord run();
  /// cmd_run's exit code of the session: 0 all good; 3 a layer has no valid mapping; 4 an RTL
  /// verification (or another rank) failed; 130 interrupted.
  int exit_code() const;
  /// Under mpirun: why another rank failed ("" when none did).
  const std::string& rank_failure() const { return rank_failure_; }
  /// Under mpirun, a rank other than 0: searches layer `li`, verifies its candidates on this
  /// rank's RTL workers and returns the layer as rank 0 records it (absorb_layer).
  nlohmann::json search_one(size_t li);

 private:
  enum class LayerOutcome { Searched, NoValid, Stopped };

  // run_session.cpp
  void save();
  void resume_verifications();
  bool search_pending_layers();
  void drain_rtl();
  void finish();
  /// --synth: synthesizes the architecture into <run>/synth and records the figures beside
  /// the area model's (a failure is recorded and reported, never fatal).
  void synthesize_arch();
  void submit_verifications(size_t li);
  void write_best(size_t li);
  void finish_layer_if_verified(size_t li);
  void collect(int timeout_ms);
  void draw(const std::string& what, bool force);
  LayerOutcome search_layer_at(size_t li);
  RtlRewardOptions reward_options() const;
  rtlpool::RtlWorkerPool* reward_pool();
  // run_dist.cpp
  bool dispatch_pending_layers();
  void absorb_layer(size_t li, const nlohmann::json& m);

  RunOptions o_;                   ///< Options (settings final).
  RunFolder folder_;               ///< The folder and its lock.
  RunInputs in_;                   ///< Architecture, objective, search options, layers.
  rtlpool::RtlWorkerPool* pool_;   ///< RTL verifications (null: surrogate only).
  const bool rtl_;                 ///< The run verifies on the RTL.
  const int jobs_;                 ///< RTL worker processes (RTL reward has as many).
  const bool tty_;                 ///< Progress line on a terminal.
  std::unique_ptr<ResultsDb> db_;  ///< The SQLite store.
  RunRecord rec_;                  ///< The record, written after every step.
  const bool resuming_;            ///< The session continues a stored run.
  bool all_valid_ = true;          ///< No layer searched here lacks a valid mapping.
  std::string rank_failure_;       ///< Under mpirun: the first rank's failure.
  const std::chrono::steady_clock::time_point t_start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_;  ///< Last progress line.
  /// Verification jobs in the pool: job id -> (layer, candidate index).
  std::map<size_t, std::pair<size_t, size_t>> job_of_;
  std::vector<EvaluationRow> last_evals_;  ///< The last search's samples (for rank 0, under MPI).
  std::unique_ptr<rtlpool::RtlWorkerPool> reward_pool_;  ///< See reward_pool().
};

/// Under mpirun, a rank other than 0 (cmd_run): asks rank 0 for a layer, searches and verifies
/// it, sends it back, until told to stop. Its own files (curves, mappings, results.json, a
/// scratch SQLite store) go to <out>/.ranks/<rank>/, which it removes before it tells rank 0 it
/// is done; rank 0 writes the run's files.
int run_worker();

}  // namespace mapwright::flows
