// `mapwright report` and `mapwright compare`: load run folders (their results.json, checked and
// typed, with a run whose process died marked interrupted) and render their pages
// (run_page.cpp, compare_page.cpp); compare also prints the network totals and their winners.
// `report` on a codesign folder re-renders its page (codesign/codesign_report.cpp).
#include "mapwright/flows/report.hpp"

#include <filesystem>
#include <iomanip>
#include <ostream>

#include "common/files.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/flows/run_record.hpp"
#include "report/render.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// The run folder `dir`: its results.json, checked and typed, and the summary of it.
LoadedRun load_run(const fs::path& dir) {
  const fs::path f = dir / "results.json";
  if (!fs::exists(f))
    throw core::SpecError(dir.string(), "run-dir", dir.string(),
                          "no results.json: not a `mapwright run` folder");
  json r;
  try {
    r = json::parse(read_text(f));
  } catch (const json::exception& ex) {
    throw core::SpecError(f.string(), "(json)", "", ex.what());
  }
  if (!r.is_object() || !r.contains("command") || r["command"] != "run")
    throw core::SpecError(f.string(), "command",
                          r.is_object() && r.contains("command") ? r["command"].dump() : "",
                          "not a `mapwright run` record");
  check_run_record(r, f.string());
  LoadedRun run{dir, run_record_from_json(r, f.string()), {}};
  // "running" is written when a run starts; if no process holds the folder's lock any more,
  // the run ended without finishing (killed, or the machine went down): it is interrupted.
  if (run.record.status == RunStatus::Running && !FolderLock::locked_by_live_process(dir))
    run.record.status = RunStatus::Interrupted;
  run.summary = summarize(run.record);
  return run;
}

}  // namespace

int cmd_report(const ReportOptions& o, std::ostream& out) {
  const fs::path dir = o.run_dir;
  const fs::path html = o.out.empty() ? dir / "report.html" : fs::path(o.out);
  // A codesign folder (codesign.json, no results.json) gets the codesign report.
  const bool codesign = !fs::exists(dir / "results.json") && fs::exists(dir / "codesign.json");
  const bool plotted = codesign ? write_codesign_report(dir.string(), html.string())
                                : render_run_report(load_run(dir), html);
  out << "wrote " << html.string() << (plotted ? "" : " (gnuplot missing or failed: no plots)")
      << "\n";
  return 0;
}

int cmd_compare(const CompareOptions& o, std::ostream& out) {
  if (o.runs.size() < 2)
    throw core::SpecError("run-dirs", "runs", std::to_string(o.runs.size()),
                          "give at least two run folders");
  std::vector<LoadedRun> runs;
  for (const auto& d : o.runs) {
    runs.push_back(load_run(d));
    // The folder as the page labels it: normalized, without a trailing '/'.
    fs::path& dir = runs.back().dir;
    dir = dir.lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();
  }
  const json cmp = render_compare(runs, o.out);
  if (o.json) {
    out << cmp.dump(2) << "\n";
    return 0;
  }
  out << std::left << std::setw(20) << "metric";
  for (const auto& r : cmp["runs"])
    out << std::right << std::setw(22) << r["label"].get<std::string>().substr(0, 21);
  out << "  winner\n";
  for (const auto& [k, v] : cmp["totals"].items()) {
    out << std::left << std::setw(20) << k << std::right;
    for (const auto& x : v["values"])
      out << std::setw(22) << std::setprecision(6) << (x.is_number() ? x.get<double>() : 0.0);
    out << "  " << (v["winner"].is_null() ? "" : v["winner"].get<std::string>()) << "\n";
  }
  out << "wrote " << o.out << "\n";
  return 0;
}

}  // namespace mapwright::flows
