// The co-design's solve journal (solves.jsonl in the output folder): every reproducible layer
// solve of the point evaluator, one JSON line each, appended and flushed as it is solved, and
// read back by `codesign --resume`. A resumed search runs again from its start with the same
// seed; the journal answers every solve the stopped run had finished, so it goes through those
// points in memo time and reaches the same answer an uninterrupted run gives.
//
// Only solves that do not depend on time are kept: an optimum the mapper proved (the space's
// mapper time limit or the search's deadline did not stop it) and a layer that has no mapping
// at all on that architecture. A solve cut short by a time limit is solved again.
#include <cmath>
#include <sstream>
#include <utility>

#include "codesign/codesign_search.hpp"
#include "common/files.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/test_hooks.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace mapwright::core;

namespace mapwright::flows::codesign {

namespace {

constexpr const char* kJournalKind = "mapwright codesign solves";

/// The journal line of solve `key`.
json figures_json(const std::string& key, const LayerFigures& f) {
  json j = figures_to_json(f);
  j["key"] = key;
  return j;
}

/// The solve of a journal line (`where`: file and line, for errors): kept solves only.
std::pair<std::string, LayerFigures> figures_of(const json& j, const std::string& where) {
  const LayerFigures f = figures_from_json(j, where);
  if (f.found ? !f.optimal : !std::isinf(f.lower_bound))
    throw SpecError(where, "optimal", "false", "the journal keeps proved solves only");
  return {j.at("key").get<std::string>(), f};
}

/// True for a solve that does not depend on time: a proved optimum, or proved: no mapping.
bool journal_keeps(const LayerFigures& f) {
  return f.found ? f.optimal : std::isinf(f.lower_bound);
}

}  // namespace

json figures_to_json(const LayerFigures& f) {
  json j = {{"found", f.found}, {"optimal", f.optimal}};
  if (std::isinf(f.lower_bound))
    j["no_mapping"] = true;  // proved: no mapping fits (JSON has no infinity)
  else
    j["lower_bound"] = f.lower_bound;
  if (!f.found) return j;
  j["mapping"] = mapping_to_yaml(f.mapping);
  j["metrics"] = f.metrics.to_json();
  j["cost"] = f.cost;
  return j;
}

LayerFigures figures_from_json(const json& j, const std::string& where) {
  LayerFigures f;
  f.found = j.at("found").get<bool>();
  f.optimal = j.at("optimal").get<bool>();
  f.lower_bound = j.value("no_mapping", false) ? INFINITY : j.at("lower_bound").get<double>();
  if (!f.found) return f;
  f.mapping = mapping_from_yaml(j.at("mapping").get<std::string>(), where);
  f.metrics = metrics_from_json(j.at("metrics"));
  f.cost = j.at("cost").get<double>();
  if (!f.metrics.valid) throw SpecError(where, "metrics.valid", "false", "a found solve is valid");
  return f;
}

void PointEvaluator::remember(const std::string& key, const LayerFigures& f) {
  if (!journal_.is_open() || !journal_keeps(f)) return;
  const std::string line = figures_json(key, f).dump() + "\n";
  if (core::kill_point_reached("solve")) {  // test hook: killed with half of the line written
    journal_ << line.substr(0, line.size() / 2) << std::flush;
    core::kill_self();
  }
  journal_ << line << std::flush;
}

long long PointEvaluator::open_journal(const fs::path& path, bool load) {
  std::lock_guard<std::mutex> lock(memo_mu_);
  const std::string where = path.string();
  if (load) {
    bool header = true;
    const size_t lines = read_journal(path, [&](const std::string& line, const std::string& at) {
      json j;
      try {
        j = json::parse(line);
      } catch (const json::exception& e) {
        throw SpecError(at, "(json)", line, e.what());
      }
      try {
        if (std::exchange(header, false)) {
          if (j.value("journal", "") != kJournalKind)
            throw SpecError(
                at, "journal", j.value("journal", ""),
                std::string("not a co-design solve journal (expected '") + kJournalKind + "')");
          const std::string objective = j.value("objective", "");
          if (j.value("latency_exponent", -1.0) != s_.objective.latency ||
              j.value("energy_exponent", -1.0) != s_.objective.energy)
            throw SpecError(at, "objective", objective,
                            "the solves were made for this objective and the space's is '" +
                                s_.objective.name +
                                "'; resume with the same objective, or choose another --out");
        } else {
          auto [key, f] = figures_of(j, at);
          if (memo_.emplace(key, f).second) ++loaded_;
        }
      } catch (const json::exception& e) {
        throw SpecError(at, "(solve)", line, e.what());
      }
    });
    if (lines > 0) {
      journal_.open(path, std::ios::app);
      if (!journal_) throw SpecError(where, "(file)", where, "cannot append to the solve journal");
      return loaded_;
    }
  }
  journal_.open(path, std::ios::trunc);
  if (!journal_) throw SpecError(where, "(file)", where, "cannot write the solve journal");
  const json header = {{"journal", kJournalKind},
                       {"format", 1},
                       {"objective", s_.objective.name},
                       {"latency_exponent", s_.objective.latency},
                       {"energy_exponent", s_.objective.energy}};
  journal_ << header.dump() << "\n";
  journal_.flush();
  return loaded_;
}

void PointEvaluator::open_folder_journal(const fs::path& dir, bool resume,
                                         const std::string& command) {
  const fs::path journal = dir / "solves.jsonl";
  std::error_code ec;
  if (!resume && fs::exists(journal, ec))
    throw SpecError("--out", "out", dir.string(),
                    "already holds a " + command +
                        " (solves.jsonl); add --resume to continue it, or choose another --out");
  open_journal(journal, resume);
}

}  // namespace mapwright::flows::codesign
