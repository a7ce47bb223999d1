#pragma once
/// \file study_state.hpp
/// A study's setup and its state on disk: what the options and the suite resolve to (the
/// architecture, objective, search options, uniquely named layers, folder and bootstrap
/// settings), the fingerprint a resumed study must match, the optimum of every layer (from
/// the exact mapper once, then from study-state.json) and the planned searcher runs, those
/// finished in an earlier session taken from the trial log.

#include <cstddef>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/flows/objective.hpp"
#include "mapwright/flows/study.hpp"
#include "mapwright/search/options.hpp"
#include "study/study_stats.hpp"
#include "study/study_store.hpp"

namespace mapwright::flows {

/// What a study is made of, resolved once from its options and suite.
struct StudySetup {
  StudyOptions options;             ///< Command-line options.
  StudySuite suite;                 ///< The suite (options_file replaced by --options).
  core::Arch arch;                  ///< The suite's architecture.
  core::Objective objective;        ///< The suite's objective.
  search::SearchOptions search;     ///< The searchers' options.
  std::vector<core::Layer> layers;  ///< The suite's layers, each with a unique name.
  std::filesystem::path dir;        ///< The study folder.
  BootstrapSettings boot;           ///< The suite's bootstrap settings.
};
/// Loads the architecture, objective and search options of `suite` and names its layers (an
/// inline layer after its spec, a repeated name gets "#<index>"); errors name file and key.
StudySetup make_study_setup(const StudyOptions& options, StudySuite suite);

/// One searcher run of the study: what it is, and once finished (`done`), what it found.
struct Job : Trial {
  bool done = false;  ///< Finished (not interrupted), here or in an earlier session.
};

/// The study folder's state: study-state.json (fingerprint, optima) and the trial log.
class StudyState {
 public:
  /// Reads study-state.json for --resume (refusing a changed suite) or makes sure the folder
  /// holds no study yet.
  explicit StudyState(const StudySetup& setup);
  ~StudyState();
  StudyState(const StudyState&) = delete;
  StudyState& operator=(const StudyState&) = delete;

  /// The optimum of every layer: from the state of the first session when resuming (a
  /// time-limited exact search is not repeatable), else from the exact mapper, then saved.
  void find_optima();
  /// Every searcher run of the suite; runs finished in earlier sessions come from the trial log
  /// (opened here).
  void plan_jobs();

  const std::vector<StudyOptimum>& optimum() const { return optimum_; }  ///< Per layer.
  double exact_seconds() const { return exact_seconds_; }  ///< The exact mapper's wall time.
  std::vector<Job>& jobs() { return jobs_; }               ///< The planned runs.
  TrialLog* log() { return log_.get(); }                   ///< The trial log (after plan_jobs).
  size_t from_log() const { return from_log_; }            ///< Runs finished earlier.

 private:
  const StudySetup& setup_;            ///< The study.
  std::string print_;                  ///< Fingerprint of suite, options and architecture.
  nlohmann::json state_;               ///< study-state.json of an earlier session (null: new).
  std::vector<StudyOptimum> optimum_;  ///< Per layer.
  double exact_seconds_ = 0;           ///< The exact mapper's wall time over all layers.
  std::vector<Job> jobs_;              ///< The planned runs.
  std::unique_ptr<TrialLog> log_;      ///< trials.jsonl.
  size_t from_log_ = 0;                ///< Runs finished in earlier sessions.
};

}  // namespace mapwright::flows
