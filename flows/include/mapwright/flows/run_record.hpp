#pragma once
/// \file run_record.hpp
/// The record of a `mapwright run`, typed: settings, layers, candidates, verifications and the
/// choice of each layer, with typed statuses and failure kinds. The run works on this record
/// and converts it to JSON only at the file boundary (results.json, written after every step;
/// read back by `--resume` and `report`); totals, the verification summary and the
/// surrogate/RTL parity are derived from it when it is written.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/core/rtl_failure.hpp"
#include "mapwright/flows/run_settings.hpp"

namespace mapwright::flows {

/// Where a layer is: pending (not searched), searched (candidates known, verifications
/// outstanding), done (its best is chosen).
enum class LayerStatus { Pending, Searched, Done };
const char* layer_status_name(LayerStatus s);

/// The whole run: running (a session holds it), interrupted (resumable), complete.
enum class RunStatus { Running, Interrupted, Complete };
const char* run_status_name(RunStatus s);

/// The outcome of one RTL verification. Passed; Design (a verdict on the mapping or the
/// hardware: functional mismatch, counters unequal to the surrogate, watchdog, RTL error);
/// Limit (not simulated, or stopped: over a --sim-max-* limit; no verdict); Infrastructure
/// (the worker process crashed on every try: no verdict, --resume runs it again).
enum class VerificationKind { Passed, Design, Limit, Infrastructure };
const char* verification_kind_name(VerificationKind k);

/// One counter of an RTL run beside the surrogate's (verify/crosscheck.hpp compares them; a
/// Verification keeps those that differ).
struct CountDiff {
  std::string name;         ///< AccessCounts field name (or input/weight/accum_bank_stalls).
  long long rtl = 0;        ///< The hardware counter.
  long long surrogate = 0;  ///< The surrogate's count.
};

/// One candidate's RTL verification.
struct Verification {
  uint64_t seed = 0;                                       ///< Seed of the random operands.
  core::RtlFailure failure_kind = core::RtlFailure::None;  ///< Why it has no clean run.
  std::string failure;                                     ///< Its message ("" when None).
  int retries = 0;                                         ///< Re-runs after worker crashes.
  bool functional_ok = false;  ///< Outputs equal the C++ reference bit for bit.
  long long mismatches = 0;    ///< Output bytes that differ.
  double sim_seconds = 0;      ///< Wall time of the simulation.
  /// The harness that simulated it ("pin-level SystemC" or "decoupled SystemC"; "" = not run or an
  /// older record).
  std::string harness;
  /// When the run completed (failure_kind None): the RTL metrics, the surrogate's cycle error
  /// in percent of the RTL cycles, and the counters that differ.
  std::optional<core::Metrics> rtl;
  double cycle_error_pct = 0;
  std::vector<CountDiff> count_diffs;
  bool counts_equal = false;  ///< The run completed and every counter equals the surrogate's.
  bool passed = false;        ///< Completed, functionally exact and counters equal.
  /// Over a limit: the estimates that were compared with it.
  long long predicted_cycles = 0;
  double estimated_memory_mb = 0;
  VerificationKind kind = VerificationKind::Design;
};

/// One of a layer's top-K distinct surrogate candidates.
struct Candidate {
  int rank = 0;             ///< 0 = the surrogate's best.
  int64_t sample = -1;      ///< Sample index at which the search saw it.
  double cost = 0;          ///< Surrogate objective.
  core::Mapping mapping;    ///< The mapping (YAML in results.json).
  core::Metrics surrogate;  ///< Surrogate metrics.
  /// The refined cycle estimate (model/refined.hpp); 0 in runs written before it existed.
  long long refined_cycles = 0;
  std::optional<Verification> verification;  ///< Empty until its RTL run came back.
};

/// Who chose a layer's mapping.
enum class ChosenBy { Rtl, Surrogate };
const char* chosen_by_name(ChosenBy c);

/// A layer's chosen mapping and its numbers (RTL numbers when chosen by RTL).
struct Choice {
  int rank = 0;  ///< The candidate's rank.
  ChosenBy chosen_by = ChosenBy::Surrogate;
  core::Mapping mapping;  ///< YAML in results.json.
  long long cycles = 0;
  double energy_pj = 0;
  double edp = 0;
  double utilization = 0;
  double cost = 0;   ///< Objective of the numbers above.
  std::string note;  ///< Why surrogate numbers, when the run has RTL.
};

/// One unique layer of the run.
struct LayerRecord {
  size_t index = 0;   ///< Position in the run.
  core::Layer layer;  ///< The layer (its name is the record's name).
  int count = 1;      ///< Occurrences in the network.
  uint64_t seed = 0;  ///< Search seed.
  LayerStatus status = LayerStatus::Pending;
  /// The search's record (SearchResult::to_json without the curve, plus seconds, the
  /// searcher's description and the exact mapper's proof); null until searched.
  nlohmann::json search;
  std::string curve_csv;     ///< curves/<stem>.csv, once searched.
  std::string mapping_file;  ///< mappings/<stem>.yaml, once chosen.
  std::vector<Candidate> candidates;
  std::optional<Choice> best;
};

/// The architecture's parameters a run's reports show.
struct ArchInfo {
  std::string name;
  int rows = 0, cols = 0;
  double clock_mhz = 0;
  long long input_kib = 0, weight_kib = 0, accum_kib = 0;
  double dram_bytes_per_cycle = 0;
  int dram_latency_cycles = 0;
  std::string dram_port = "packed";  ///< core::dram_port_name.
};
ArchInfo arch_info_of(const core::Arch& a);

/// A `mapwright run`.
struct RunRecord {
  int format = 1;                ///< Version of the record's form.
  std::string run_id;            ///< Folder name and creation time.
  std::string created, updated;  ///< ISO times of creation and last save.
  std::string mapwright;         ///< Version that wrote it.
  std::string target;            ///< Network or layer name.
  RunSettings settings;          ///< What the run is (see run_settings.hpp).
  /// ONNX: the nodes that are not layers, by op type with counts, and what could not be mapped.
  std::vector<std::pair<std::string, int>> import_skipped;
  std::vector<std::string> import_warnings;
  ArchInfo arch;             ///< The architecture's name and the parameters reports show.
  std::string options_file;  ///< The search options file used (settings' or the default).
  std::string run_dir;       ///< The run folder.
  std::string db;            ///< The SQLite store.
  std::string rtl_note;      ///< What the RTL verification of this run does, in words.
  RunStatus status = RunStatus::Running;
  int jobs = 0;  ///< RTL worker processes of the last session.
  std::optional<double> wall_seconds_last_session;
  std::vector<LayerRecord> layers;
  /// --synth: the synthesis of the run's architecture (flows::synth_record: done with its
  /// figures, or failed with the reason), null when not asked for.
  nlohmann::json synthesis;
  /// --synth: the area model's parts of the architecture (flows::area_parts_json, with total).
  nlohmann::json area;
};

/// Network totals, verification summary and parity, derived from the record.
struct RunSummary {
  double cycles = 0, seconds = 0, energy_pj = 0, edp = 0, utilization = 0, macs = 0;
  size_t layers_done = 0, layers_total = 0;
  std::string source;  ///< none | rtl | mixed | surrogate.
  size_t planned = 0, done = 0, passed = 0, failed = 0, infrastructure_failed = 0, pending = 0;
  /// Failed verifications: (layer index, candidate index).
  std::vector<std::pair<size_t, size_t>> failures;
  size_t parity_n = 0;             ///< Verifications with RTL cycles.
  double mape_pct = 0;             ///< Mean |cycle error| in percent.
  double max_error_pct = 0;        ///< Largest |cycle error|.
  std::optional<double> spearman;  ///< Rank correlation of RTL and surrogate cycles.
  /// The same for the refined estimate, over the verifications whose candidate has one.
  size_t refined_n = 0;
  double refined_mape_pct = 0;
  double refined_max_error_pct = 0;
};
RunSummary summarize(const RunRecord& r);

/// results.json: the record plus its summary (totals, verification_summary, parity).
nlohmann::json run_record_to_json(const RunRecord& r);
/// The same with the summary already derived (summarize(r)), so a caller that needs it too
/// derives it once.
nlohmann::json run_record_to_json(const RunRecord& r, const RunSummary& s);
/// Reads results.json after check_run_record accepted it; `file` names it in errors.
RunRecord run_record_from_json(const nlohmann::json& j, const std::string& file);

/// One RTL verification as results.json holds it (a candidate's "verification").
nlohmann::json verification_to_json(const Verification& v);
/// Reads one verification written by verification_to_json; `file` names its source in errors.
Verification verification_from_json(const nlohmann::json& j, const std::string& file);
/// One layer as results.json's "layers" holds it (`rtl`: the run verifies on the RTL, so a
/// layer chosen by the surrogate carries its note); what an MPI rank sends for a layer.
nlohmann::json layer_record_to_json(const LayerRecord& layer, bool rtl);
/// Reads one layer written by layer_record_to_json; `file` names its source in errors.
LayerRecord layer_record_from_json(const nlohmann::json& j, const std::string& file);

/// Checks that `r` has the shape of a `mapwright run` results.json (keys, types, ranges,
/// enumerations), as `report` and `run --resume` do before using one; anything else is a
/// core::SpecError naming `file`, the key path and the value.
void check_run_record(const nlohmann::json& r, const std::string& file);

}  // namespace mapwright::flows
