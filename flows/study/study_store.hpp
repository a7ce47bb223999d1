#pragma once
/// \file study_store.hpp
/// What a study keeps on disk so that it can be resumed: study-state.json (the suite's
/// fingerprint and every layer's optimum, written once the exact mapper is done) and
/// trials.jsonl (one line per finished searcher run, appended and synced as each finishes).
/// A study killed at any point resumes from these to the result an uninterrupted study gives.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

namespace mapwright::flows {

/// One finished searcher run of a study.
struct Trial {
  size_t layer = 0;           ///< Index into the suite's layers.
  std::string searcher;       ///< Kind.
  uint64_t seed = 0;          ///< Seed.
  bool reference = false;     ///< A long reference run.
  int64_t budget = 0;         ///< Samples asked for.
  int64_t samples = 0;        ///< Samples evaluated (below the budget when the searcher ran
                              ///< out of new points; records without it: the curve's length).
  int64_t duplicates = 0;     ///< Repeated proposals answered from the cache.
  int64_t invalid = 0;        ///< Distinct samples that were invalid.
  int64_t rtl_samples = 0;    ///< Samples scored by the RTL (reward: rtl), 0 otherwise.
  std::vector<double> curve;  ///< Best-so-far cost after each sample (inf before the first valid).
  double best = std::numeric_limits<double>::infinity();  ///< Best cost (inf: none found).
  double seconds = 0;                                     ///< Wall time.
  /// Identity of the run within the study.
  std::tuple<size_t, std::string, uint64_t, bool, int64_t> key() const {
    return {layer, searcher, seed, reference, budget};
  }
};

nlohmann::json trial_to_json(const Trial& t);
/// Parses one trials.jsonl record; a SpecError names `where` on a malformed record.
Trial trial_from_json(const nlohmann::json& j, const std::string& where);

/// FNV's 64-bit offset basis.
constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ULL;
/// The 64-bit FNV-1a hash of `text`'s bytes (prime 1099511628211), started from `basis`:
/// defined by its formula, the same with every compiler and standard library.
uint64_t fnv1a_64(const std::string& text, uint64_t basis = kFnvOffsetBasis);
/// A stable 64-bit fingerprint of `text`, as 16 hex digits: fnv1a_64 started from
/// 1469598103934665603, FNV's offset basis without its last digit. Kept so, because the
/// fingerprints in existing study-state.json files and every bootstrap seed (statistic_seed)
/// derive from it.
std::string fingerprint(const std::string& text);

/// The append-only trial log of a study folder.
class TrialLog {
 public:
  /// Opens (creating) `file`. Reads the records already there: a last line cut short by a
  /// crash is dropped and the file truncated to the records that are whole; a malformed
  /// complete line is a SpecError naming the file and line.
  explicit TrialLog(const std::filesystem::path& file);
  ~TrialLog();
  TrialLog(const TrialLog&) = delete;
  TrialLog& operator=(const TrialLog&) = delete;

  const std::vector<Trial>& loaded() const { return loaded_; }  ///< Records found on open.
  bool dropped_torn_line() const { return dropped_; }           ///< A cut-short line was dropped.
  /// Appends one record (thread-safe) and syncs it to disk; a failure is a SpecError.
  void append(const Trial& t);

 private:
  std::filesystem::path file_;
  int fd_ = -1;
  std::mutex mu_;
  std::vector<Trial> loaded_;
  bool dropped_ = false;
};

}  // namespace mapwright::flows
