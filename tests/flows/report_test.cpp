// Reports: `mapwright compare` marks the winner of each metric across runs (here the same
// layer, surrogate only, on the 4x4 and 8x8 arrays), HTML escaping, and refusals; and the run
// report and the compare page byte for byte against tests/flows/data/tiny_report.golden/ (each
// file holds a page, then every file of its plot folder), for the tiny run's golden record and
// two variants of it (failures, an interrupted run, an imported network; the exact mapper
// without RTL). After an intended change of the pages, rewrite the goldens with
// MAPWRIGHT_UPDATE_GOLDEN=1 build/tests/flows/flows_tests --gtest_filter=ReportGolden.*
// and review their diff.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "files.hpp"
#include "../../flows/common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/report.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/run_record.hpp"

namespace fs = std::filesystem;
using namespace mapwright;

namespace {

fs::path fresh_dir(const std::string& name) {
  return mapwright::test_files::fresh_path("report_" + name);
}
using mapwright::test_files::read_file;

}  // namespace

TEST(Report, HtmlEscapeCoversEveryUnsafeCharacter) {
  EXPECT_EQ(flows::html_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  // gnuplot strings: a quote is drawn as U+2019 (gnuplot 5.4 misparses '' runs at the end of a
  // string), control characters (a newline would end the command) become spaces.
  EXPECT_EQ(flows::gp_quote("it's"), "'it\xe2\x80\x99s'");
  EXPECT_EQ(flows::gp_quote("a\nsystem 'x'\r\t"), "'a system \xe2\x80\x99x\xe2\x80\x99  '");
  EXPECT_EQ(flows::gp_data_label("a\"b\nc"), "\"a'b c\"");
}

TEST(Report, CompareMarksTheWinnerOfEachMetric) {
  const fs::path base = fresh_dir("cmp");
  std::vector<std::string> dirs;
  for (const char* arch : {"small4", "small8"}) {
    flows::RunOptions o;
    o.settings.layer = "conv:K=16,C=16,H=12,W=12,R=3,S=3,pad=1";
    o.settings.arch = arch;
    o.settings.searcher = "random";
    o.settings.budget = 200;
    o.settings.no_rtl = true;
    o.progress = false;
    o.out_dir = (base / arch).string();
    std::ostringstream out;
    ASSERT_EQ(flows::cmd_run(o, out), 0) << out.str();
    dirs.push_back(o.out_dir);
  }
  flows::CompareOptions c;
  c.runs = dirs;
  c.out = (base / "compare.html").string();
  c.json = true;
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_compare(c, out), 0);
  const auto j = nlohmann::json::parse(out.str());
  // The 8x8 array with larger buffers is faster on this layer.
  EXPECT_EQ(j["totals"]["cycles"]["winner"], "small8");
  EXPECT_EQ(j["runs"][0]["source"], "surrogate");
  const std::string html = read_file(base / "compare.html");
  EXPECT_NE(html.find("&#9733;"), std::string::npos);
  EXPECT_NE(html.find("surrogate only (--no-rtl)"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);

  c.runs = {dirs[0]};
  EXPECT_THROW(flows::cmd_compare(c, out), core::SpecError);
  c.runs = {dirs[0], (base / "missing").string()};
  EXPECT_THROW(flows::cmd_compare(c, out), core::SpecError);
  fs::remove_all(base);
}

TEST(Report, AnImportedNetworksSkippedOpsAndUnmappedNodesAreShownEscaped) {
  const fs::path dir = fresh_dir("import");
  flows::RunOptions o;
  o.settings.layer = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1";
  o.settings.arch = "small4";
  o.settings.searcher = "random";
  o.settings.budget = 20;
  o.settings.no_rtl = true;
  o.progress = false;
  o.out_dir = dir.string();
  std::ostringstream run_out;
  ASSERT_EQ(flows::cmd_run(o, run_out), 0) << run_out.str();
  // What an ONNX run records (tests/apps runs one end to end); a node name is user text.
  nlohmann::json res = nlohmann::json::parse(read_file(dir / "results.json"));
  res["network_arg"] = "models/net<1>.onnx";
  res["import"] = {{"input_shapes", {"tokens=2x16x64"}},
                   {"strict", false},
                   {"skipped", {{"Relu", 17}, {"Add", 8}}},
                   {"warnings", {"node '<script>' (ConvTranspose) is not mapped: unsupported"}}};
  std::ofstream(dir / "results.json") << res.dump(2);
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_report({dir.string(), ""}, out), 0) << out.str();
  const std::string html = read_file(dir / "report.html");
  EXPECT_NE(
      html.find("Network read from models/net&lt;1&gt;.onnx with input shapes tokens=2x16x64"),
      std::string::npos);
  EXPECT_NE(html.find("skipped: Add 8, Relu 17"), std::string::npos);
  EXPECT_NE(html.find("<b>Not mapped:</b> node &#39;&lt;script&gt;&#39; (ConvTranspose)"),
            std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
}

namespace {

using nlohmann::json;

/// `j` with a fixed value wherever tiny_run.golden.json has "<varies>" (times, the run id, the
/// worker count), so that it is a record `report` accepts.
json fixed_varying(const json& j) {
  if (j.is_array()) {
    json a = json::array();
    for (const auto& v : j) a.push_back(fixed_varying(v));
    return a;
  }
  if (!j.is_object()) return j;
  const std::pair<const char*, json> fixed[] = {{"created", "2001-02-03T04:05:06"},
                                                {"updated", "2001-02-03T04:06:07"},
                                                {"run_id", "20010203-040506"},
                                                {"jobs", 2},
                                                {"sim_seconds", 0.5},
                                                {"seconds", 1.25},
                                                {"wall_seconds_last_session", 9.5}};
  json o = json::object();
  for (const auto& [k, v] : j.items()) {
    o[k] = fixed_varying(v);
    for (const auto& [key, value] : fixed)
      if (k == key && v == "<varies>") o[k] = value;
  }
  return o;
}

/// The tiny run's golden record (tests/flows/data/tiny_run.golden.json: GA, RTL-verified
/// top-2 of three layers), typed.
flows::RunRecord tiny_record() {
  const std::string file =
      std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data/tiny_run.golden.json";
  return flows::run_record_from_json(fixed_varying(json::parse(read_file(file))), file);
}

/// The tiny record with what a report shows in red or as unfinished: a counter mismatch, a
/// functional mismatch, a watchdog failure, a pending verification, a layer without a choice,
/// a surrogate choice, an imported network, and a run whose process died (status running).
flows::RunRecord edited_record() {
  flows::RunRecord r = tiny_record();
  r.status = flows::RunStatus::Running;
  r.settings.network = "models/net<1>.onnx";
  r.settings.input_shapes = {"tokens=2x16x64"};
  r.settings.strict = true;
  r.import_skipped = {{"Relu", 17}, {"Add", 8}};
  r.import_warnings = {"node 'n<2>' (ConvTranspose) is not mapped: unsupported"};
  r.updated.clear();
  auto& v01 = *r.layers[0].candidates[1].verification;
  v01.counts_equal = v01.passed = false;
  v01.kind = flows::VerificationKind::Design;
  v01.count_diffs = {{"weight_buf_reads", 12, 10}, {"accum_writes", 3, 4}};
  r.layers[0].candidates[0].refined_cycles = 0;
  auto& v10 = *r.layers[1].candidates[0].verification;
  v10.functional_ok = v10.passed = false;
  v10.mismatches = 7;
  v10.kind = flows::VerificationKind::Design;
  auto& v11 = *r.layers[1].candidates[1].verification;
  v11 = flows::Verification{};
  v11.seed = 99;
  v11.failure_kind = core::RtlFailure::Watchdog;
  v11.failure = "watchdog: no progress for 100000 cycles <stuck>";
  r.layers[1].best->chosen_by = flows::ChosenBy::Surrogate;
  r.layers[1].best->note = "every RTL verification failed";
  r.layers[2].status = flows::LayerStatus::Searched;
  r.layers[2].best.reset();
  r.layers[2].candidates[1].verification.reset();
  r.layers[2].candidates[0].verification->harness.clear();
  return r;
}

/// The tiny record as the exact mapper without RTL would leave it on "large32": proofs (one
/// optimal, one stopped by the time limit without a gap) and a layer not searched yet.
flows::RunRecord exact_record() {
  flows::RunRecord r = tiny_record();
  r.settings.searcher = "exact";
  r.settings.exact.time_limit_s = 30;
  r.settings.exact.gap = 0.01;
  r.settings.exact.threads = 2;
  r.settings.no_rtl = true;
  r.rtl_note = "off (--no-rtl)";
  r.arch.name = "large32";
  for (auto& L : r.layers) {
    for (auto& c : L.candidates) c.verification.reset();
    L.best->chosen_by = flows::ChosenBy::Surrogate;
    L.curve_csv.clear();
  }
  r.layers[0].search = {
      {"seconds", 2.5},
      {"found", true},
      {"exact", {{"gap", 0.0}, {"optimal", true}, {"nodes", 1234567}, {"evaluations", 8901}}}};
  r.layers[1].search = {{"seconds", 30.0},
                        {"found", true},
                        {"exact", {{"gap", nullptr}, {"nodes", 42}, {"evaluations", 7}}}};
  flows::LayerRecord& pending = r.layers[2];
  pending.status = flows::LayerStatus::Pending;
  pending.search = json();
  pending.candidates.clear();
  pending.best.reset();
  pending.mapping_file.clear();
  return r;
}

/// Writes `r` as the results.json of run folder `dir`, with a best-so-far curve (400 samples,
/// improving in steps) for every layer that names one.
void write_run_folder(const fs::path& dir, const flows::RunRecord& r) {
  fs::create_directories(dir);
  std::ofstream(dir / "results.json") << flows::run_record_to_json(r).dump(2);
  for (const auto& L : r.layers) {
    if (L.curve_csv.empty()) continue;
    fs::create_directories((dir / L.curve_csv).parent_path());
    std::ofstream csv(dir / L.curve_csv);
    csv << "sample,best_cost\n";
    for (long long s = 1; s <= 400; ++s)
      csv << s << "," << 1000.0 * static_cast<double>(L.index + 1) + 9000.0 / (1 + s / 37) << "\n";
  }
}

/// A page and, after it, every file of its plot folder (gnuplot is kept off the PATH, so no
/// SVG: the scripts and their data are what the page would plot).
std::string page_and_plots(const fs::path& html, const fs::path& plots) {
  std::string out = read_file(html);
  std::set<fs::path> files;
  for (const auto& f : fs::directory_iterator(plots)) files.insert(f.path());
  for (const auto& f : files) out += "\n==== " + f.filename().string() + "\n" + read_file(f);
  return out;
}

/// Compares `got` with tests/flows/data/tiny_report.golden/<name>, or rewrites that file when
/// MAPWRIGHT_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const std::string& got) {
  const fs::path golden = fs::path(MAPWRIGHT_SOURCE_DIR) / "tests/flows/data/tiny_report.golden";
  const char* update = std::getenv("MAPWRIGHT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    fs::create_directories(golden);
    std::ofstream(golden / name) << got;
    return;
  }
  const std::string want = read_file(golden / name);
  ASSERT_FALSE(want.empty()) << "missing " << golden / name;
  if (got == want) return;
  std::istringstream a(got), b(want);
  std::string la, lb;
  int line = 0;
  while (std::getline(a, la) && std::getline(b, lb) && la == lb) ++line;
  ADD_FAILURE() << name << " differs from the golden at line " << line + 1 << ":\n  got:  " << la
                << "\n  want: " << lb;
}

/// Runs `body` with gnuplot off the PATH, restoring the PATH after.
template <typename F>
void without_gnuplot(F body) {
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", "/nonexistent-mapwright-test-path", 1);
  body();
  setenv("PATH", saved.c_str(), 1);
}

}  // namespace

TEST(ReportGolden, RunReportsAndTheComparePageAreExactlyTheGoldens) {
  const fs::path base = fresh_dir("golden");
  const std::pair<const char*, flows::RunRecord> runs[] = {
      {"rtl", tiny_record()}, {"edited", edited_record()}, {"exact", exact_record()}};
  std::vector<std::string> dirs;
  for (const auto& [name, record] : runs) {
    write_run_folder(base / name, record);
    dirs.push_back((base / name).string());
  }
  without_gnuplot([&] {
    for (const auto& [name, record] : runs) {
      std::ostringstream out;
      ASSERT_EQ(flows::cmd_report({(base / name).string(), ""}, out), 0) << out.str();
      expect_golden(std::string(name) + ".txt",
                    page_and_plots(base / name / "report.html", base / name / "plots"));
    }
    flows::CompareOptions c;
    c.runs = dirs;
    c.out = (base / "compare.html").string();
    std::ostringstream out;
    ASSERT_EQ(flows::cmd_compare(c, out), 0);
    expect_golden("compare.txt", page_and_plots(base / "compare.html", base / "compare_plots"));
  });
  fs::remove_all(base);
}
