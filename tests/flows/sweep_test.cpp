// `mapwright sweep`: the sweep file's grid and points, its refusals, its points as a co-design
// space, the Pareto fronts and the winner against a brute-force check, the SQLite rows, resume
// after a kill (equal to an uninterrupted sweep), and a point whose RTL model cannot be built (a
// typed failure of that point while the rest goes on).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <csignal>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "mapwright/core/arch.hpp"
#include "test_arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/sweep.hpp"
#include "codesign/rtl_check.hpp"
#include "run_cli.hpp"
#include "sweep/sweep_space.hpp"

namespace fs = std::filesystem;
using namespace mapwright;
using nlohmann::json;

namespace {

const std::string kData = std::string(MAPWRIGHT_SOURCE_DIR) + "/tests/flows/data";

fs::path fresh(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("mw_sweep_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Writes a sweep file into `dir` (the tiny network is referenced by absolute path).
std::string sweep_file(const fs::path& dir, const std::string& body) {
  const fs::path p = dir / "sweep.yaml";
  std::ofstream(p) << "network: " << kData << "/tiny_net.yaml\nbase_arch: small4\n" << body;
  return p.string();
}

std::string refusal(const std::string& body) {
  const fs::path dir = fresh("bad");
  try {
    flows::load_sweep_file(sweep_file(dir, body));
  } catch (const core::SpecError& e) {
    return e.what();
  }
  return "(accepted)";
}

json load(const fs::path& dir) {
  std::ifstream in(dir / "sweep.json");
  return json::parse(in);
}

flows::SweepOptions options(const std::string& file, const fs::path& out) {
  flows::SweepOptions o;
  o.file = file;
  o.out_dir = out.string();
  o.jobs = 1;
  o.worker_exe = MAPWRIGHT_WORKER_EXE;
  return o;
}

/// A point is on the front of (area, field) iff no other point is at least as good in both and
/// better in one.
bool dominated(const json& points, size_t i, const char* field) {
  const double a = points[i]["area_mm2"].get<double>(), y = points[i][field].get<double>();
  for (size_t j = 0; j < points.size(); ++j) {
    if (j == i || !points[j].contains("cycles")) continue;
    const double a2 = points[j]["area_mm2"].get<double>(), y2 = points[j][field].get<double>();
    if (a2 <= a && y2 <= y && (a2 < a || y2 < y)) return true;
  }
  return false;
}

long long count_rows(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  long long n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

const char* kSurrogateSweep =
    "name: \"fronts<b>&\"\nseed: 3\nverify: none\nmapper: {time_limit_s: 20}\n"
    "grid:\n  array: [4x4, 2x2, 8x8]\n  buffer_scale: [1, 2]\n"
    "constraints: {max_area_mm2: 0.25}\n";

}  // namespace

TEST(SweepFile, GridThenPointsInOrderNamedByTheirParameters) {
  const fs::path dir = fresh("grid");
  const flows::SweepFile s = flows::load_sweep_file(sweep_file(
      dir,
      "grid:\n  array: [4x4, 8x8]\n  dram_bytes_per_cycle: [8, 16]\npoints:\n  - {array: 2x2, "
      "dataflows: [os]}\n  - {rows: 4, cols: 2, buffer_scale: 0.5}\n"));
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(s.points[0].name, "p000-4x4-i16-w16-a8-bw8-ws.os.is");
  EXPECT_EQ(s.points[1].name, "p001-4x4-i16-w16-a8-bw16-ws.os.is");
  EXPECT_EQ(s.points[2].name, "p002-8x8-i16-w16-a8-bw8-ws.os.is");
  EXPECT_EQ(s.points[3].name, "p003-8x8-i16-w16-a8-bw16-ws.os.is");
  EXPECT_EQ(s.points[4].name, "p004-2x2-i16-w16-a8-bw8-os");
  EXPECT_EQ(s.points[5].name, "p005-4x2-i8-w8-a4-bw8-ws.os.is");
  EXPECT_EQ(s.network, kData + "/tiny_net.yaml");
  EXPECT_EQ(s.verify, "all");
  // A relative network file is found beside the sweep file.
  EXPECT_EQ(flows::load_sweep_file(kData + "/smoke_sweep.yaml").network, kData + "/tiny_net.yaml");
}

// A sweep's points are points of a co-design space (the grid searcher scores them): each point's
// architecture there has the point's parameters and the base's other fields, and the YAML the RTL
// workers load (archs/<design>.yaml) loads to that architecture, every energy included.
TEST(SweepFile, PointsAreCodesignPointsWithTheirParameters) {
  const fs::path dir = fresh("point_arch");
  const flows::SweepFile s = flows::load_sweep_file(
      sweep_file(dir,
                 "points:\n  - {array: 2x2, dataflows: [os, ws]}\n  - {rows: 4, cols: 2, "
                 "buffer_scale: 0.5, dram_bytes_per_cycle: 4}\n  - {array: 8x8}\n"));
  const flows::SweepSpace w = flows::sweep_space(s, nullptr);
  ASSERT_EQ(w.points.size(), 3u);
  EXPECT_EQ(w.space.workload.size(), 1u);
  EXPECT_EQ(w.network_name, "tiny");
  const core::Arch base = core::load_arch(s.base_arch);
  for (size_t k = 0; k < s.points.size(); ++k) {
    const flows::SweepPoint& p = s.points[k];
    const core::Arch a = flows::codesign::point_arch(w.space, w.points[k]);
    EXPECT_EQ(a.rows, p.rows) << p.name;
    EXPECT_EQ(a.cols, p.cols) << p.name;
    EXPECT_EQ(a.input_buf_bytes, p.input_kib * 1024) << p.name;
    EXPECT_EQ(a.weight_buf_bytes, p.weight_kib * 1024) << p.name;
    EXPECT_EQ(a.accum_buf_bytes, p.accum_kib * 1024) << p.name;
    EXPECT_EQ(a.dram_bytes_per_cycle, p.dram_bytes_per_cycle) << p.name;
    EXPECT_EQ(a.dataflows.size(), p.dataflows.size()) << p.name;
    for (const std::string& d : p.dataflows) {
      core::Dataflow df;
      ASSERT_TRUE(core::parse_dataflow(d, df));
      EXPECT_TRUE(a.supports(df)) << p.name << " " << d;
    }
    EXPECT_EQ(a.clock_mhz, base.clock_mhz);
    EXPECT_EQ(a.dram_latency_cycles, base.dram_latency_cycles);
    EXPECT_EQ(a.buffer_banks, base.buffer_banks);
    const fs::path file = dir / (p.name + ".yaml");
    std::ofstream(file) << flows::codesign::point_arch_yaml(w.space, w.points[k]);
    mapwright::test_arch::expect_same_arch(core::load_arch_file(file.string()), a, p.name);
  }
}

TEST(SweepFile, BadInputIsRefusedNamingFileKeyAndValue) {
  struct Case {
    const char* body;
    const char* want;
  };
  const Case cases[] = {
      {"grid: {array: [4x4]}\ncolour: red\n", "key 'colour'"},
      {"grid: {array: [4by4]}\n", "key 'grid.array[0]' = '4by4'"},
      {"grid: {rows: [65]}\n", "key 'grid.rows[0]' = '65'"},
      {"grid: {array: [4x4], rows: [4]}\n", "give either array"},
      {"grid: {buffer_scale: [0.3]}\n", "key 'grid.buffer_scale[0]' = '0.3'"},
      {"grid: {dataflows: [[ws, xs]]}\n", "key 'grid.dataflows[0][1]' = 'xs'"},
      {"grid: {array: [4x4]}\npoints:\n  - {array: 4x4}\n", "same parameters as point 0"},
      {"grid: {array: [4x4]}\nverify: {sample: 2}\n", "key 'verify.sample' = '2'"},
      {"grid: {array: [4x4]}\nverify: some\n", "key 'verify' = 'some'"},
      {"verify: all\n", "needs a grid: or points:"},
      {"grid: {array: [4x4]}\nmapper: {time_limit_s: 0}\n", "key 'mapper.time_limit_s' = '0'"},
      {"grid: {array: [4x4]}\narea: {sram_um2_per_kib: -1}\n", "sram_um2_per_kib"},
      {"grid: {array: [4x4]}\nobjective: speed\n", "unknown objective"},
      {"grid: {dram_bytes_per_cycle: [0]}\n", "key 'grid.dram_bytes_per_cycle[0]' = '0'"},
  };
  for (const Case& c : cases) {
    const std::string why = refusal(c.body);
    EXPECT_NE(why.find(c.want), std::string::npos) << c.body << " -> " << why;
    EXPECT_NE(why.find("sweep.yaml"), std::string::npos) << c.body << " -> " << why;
  }
  // A base architecture with the burst DRAM port and more latency than the RTL keeps bursts in
  // flight: the points can be scored on the surrogate, not verified on RTL.
  const fs::path arch = fresh("bursts_base") / "small4-bursts.yaml";
  {
    std::ifstream in(core::configs_dir() + "/arch/small4.yaml");
    std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    t.replace(t.find("latency_cycles: 20"), 18, "latency_cycles: 300, port: bursts");
    std::ofstream(arch) << t;
  }
  auto load_with = [&](const std::string& verify) -> std::string {
    const fs::path p = arch.parent_path() / "sweep.yaml";
    std::ofstream(p) << "network: " << kData << "/tiny_net.yaml\nbase_arch: " << arch.string()
                     << "\ngrid: {array: [4x4]}\nverify: " << verify << "\n";
    try {
      flows::load_sweep_file(p.string());
    } catch (const core::SpecError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const std::string why = load_with("all");
  EXPECT_NE(why.find("key 'verify' = 'all'"), std::string::npos) << why;
  EXPECT_NE(why.find("dram.latency_cycles' = '300'"), std::string::npos) << why;
  EXPECT_EQ(load_with("none"), "(accepted)");
  // A banked base: the points would need their own bank counts.
  const fs::path banked = arch.parent_path() / "sweep_banked.yaml";
  std::ofstream(banked) << "network: " << kData << "/tiny_net.yaml\nbase_arch: small4-banked\n"
                        << "grid: {array: [4x4]}\n";
  try {
    flows::load_sweep_file(banked.string());
    ADD_FAILURE() << "a banked base was accepted";
  } catch (const core::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'base_arch' = 'small4-banked'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("buffers.banks 8"), std::string::npos) << e.what();
  }
}

TEST(Sweep, FrontsAndWinnerAgreeWithABruteForceCheck) {
  const fs::path dir = fresh("fronts");
  const std::string file = sweep_file(dir, kSurrogateSweep);
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_sweep(options(file, dir / "out"), out), 0) << out.str();
  const json r = load(dir / "out");
  const json& pts = r["points"];
  ASSERT_EQ(pts.size(), 6u);
  double best = INFINITY;
  json winner;
  for (size_t i = 0; i < pts.size(); ++i) {
    ASSERT_EQ(pts[i]["status"], "done") << pts[i].dump();
    EXPECT_EQ(pts[i]["source"], "surrogate");
    EXPECT_GT(pts[i]["area_mm2"].get<double>(), 0);
    EXPECT_EQ(pts[i]["pareto_latency"].get<bool>(), !dominated(pts, i, "latency_ms")) << i;
    EXPECT_EQ(pts[i]["pareto_energy"].get<bool>(), !dominated(pts, i, "energy_uj")) << i;
    EXPECT_EQ(pts[i]["pareto_edp"].get<bool>(), !dominated(pts, i, "edp")) << i;
    const bool fits = pts[i]["area_mm2"].get<double>() <= 0.25;
    EXPECT_EQ(pts[i]["meets_constraints"].get<bool>(), fits);
    if (fits && pts[i]["edp"].get<double>() < best) {
      best = pts[i]["edp"].get<double>();
      winner = i;
    }
  }
  ASSERT_FALSE(winner.is_null());
  EXPECT_EQ(r["winner"], winner);
  // The unconstrained best EDP is a larger array: the constraint decides.
  double best_any = INFINITY;
  for (const auto& p : pts) best_any = std::min(best_any, p["edp"].get<double>());
  EXPECT_LT(best_any, best);
  EXPECT_EQ(count_rows(dir / "out" / "results.sqlite", "SELECT COUNT(*) FROM sweep_points"), 6);
  EXPECT_EQ(count_rows(dir / "out" / "results.sqlite",
                       "SELECT COUNT(*) FROM sweep_points WHERE winner = 1"),
            1);
  std::ifstream html(dir / "out" / "sweep.html");
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("fronts&lt;b&gt;&amp;"), std::string::npos);
  EXPECT_EQ(page.find("fronts<b>&"), std::string::npos);
  EXPECT_NE(page.find("Winner:"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Sweep, ResumeAfterAKillEqualsAnUninterruptedSweep) {
  const fs::path dir = fresh("resume");
  const std::string file = sweep_file(dir, kSurrogateSweep);
  std::ostringstream out;
  ASSERT_EQ(flows::cmd_sweep(options(file, dir / "whole"), out), 0) << out.str();
  auto args = [&](bool resume) {
    std::vector<std::string> a = {"sweep", "--file", file, "--out", (dir / "cut").string()};
    if (resume) a.push_back("--resume");
    return a;
  };
  // Killed (SIGKILL) while writing its 5th layer solve to the journal.
  using test_files::run_mapwright;
  EXPECT_EQ(run_mapwright(args(false), {"MAPWRIGHT_TEST_KILL_AT=solve:5"}), 128 + SIGKILL);
  json cut = load(dir / "cut");
  EXPECT_EQ(cut["status"], "running");
  EXPECT_EQ(cut["points"][0]["status"], "pending");
  // Without --resume the folder is refused; with it the sweep continues.
  EXPECT_EQ(run_mapwright(args(false)), 2);
  ASSERT_EQ(run_mapwright(args(true)), 0);
  const json whole = load(dir / "whole");
  cut = load(dir / "cut");
  EXPECT_EQ(cut["solves_resumed"], 4);  // the torn fifth line was dropped
  for (size_t i = 0; i < whole["points"].size(); ++i) {
    EXPECT_EQ(cut["points"][i]["status"], "done") << i;
    EXPECT_EQ(cut["points"][i]["cycles"], whole["points"][i]["cycles"]) << i;
    EXPECT_EQ(cut["points"][i]["energy_pj"], whole["points"][i]["energy_pj"]) << i;
  }
  EXPECT_EQ(cut["winner"], whole["winner"]);
  // A changed sweep file is refused on resume.
  std::ofstream(file, std::ios::app) << "description: changed\n";
  flows::SweepOptions o = options(file, dir / "cut");
  o.resume = true;
  try {
    flows::cmd_sweep(o, out);
    FAIL() << "a changed file was accepted";
  } catch (const core::SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("differs from the sweep file"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}

#ifdef MAPWRIGHT_HAVE_RTL
TEST(Sweep, APointWithoutAnRtlModelFailsAloneAndKeepsItsSurrogateFigures) {
  const fs::path dir = fresh("rtl");
  // Point 1 has 6 DRAM bytes per cycle: fine for the surrogate, but the RTL takes multiples of
  // 4, so no model can be built for it. Point 0 runs on small4's compiled-in model.
  const std::string file =
      sweep_file(dir,
                 "verify: all\nmapper: {time_limit_s: 20}\npoints:\n  - {array: 4x4}\n  - "
                 "{dram_bytes_per_cycle: 6}\n");
  std::ostringstream out;
  EXPECT_EQ(flows::cmd_sweep(options(file, dir / "out"), out), 4) << out.str();
  const json r = load(dir / "out");
  const json& p0 = r["points"][0];
  const json& p1 = r["points"][1];
  EXPECT_EQ(p0["status"], "done") << p0.dump();
  EXPECT_EQ(p0["source"], "surrogate");
  EXPECT_EQ(p0["rtl_model"], "compiled-in small4");
  EXPECT_EQ(p0["rtl_check"]["status"], "passed");
  // The surrogate's network cycles against the RTL's: within the surrogate's stated error.
  EXPECT_LT(std::abs(p0["rtl_cycle_error_pct"].get<double>()), 5) << p0.dump();
  EXPECT_GT(p0["verifications"].get<int>(), 0);
  EXPECT_EQ(p0["verification_failures"].get<int>(), 0);
  EXPECT_EQ(p1["status"], "failed");
  EXPECT_EQ(p1["failure"].get<std::string>().rfind("rtl: no RTL model can be built", 0), 0u)
      << p1.dump();
  EXPECT_EQ(p1["source"], "surrogate");
  EXPECT_TRUE(p1.contains("cycles"));
  EXPECT_EQ(r["winner"], 0);
  EXPECT_NE(out.str().find("FAILED: rtl: no RTL model can be built"), std::string::npos)
      << out.str();
  fs::remove_all(dir);
}
#endif
