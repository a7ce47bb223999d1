// `mapwright regress`: a suite passes against its goldens; a deliberately wrong golden fails
// with a readable diff, a non-zero exit and a JUnit failure; --update rewrites the goldens;
// bad suites are refused naming the file, key and value.
#include "mapwright/flows/regress.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "files.hpp"
#include "mapwright/support/error.hpp"

namespace fs = std::filesystem;
using namespace mapwright;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = mapwright::test_files::fresh_path("regress_" + name);
  fs::create_directories(d);
  return d;
}
using mapwright::test_files::read_file;

const char* kSuite = R"(name: mini
tolerance: {cycles_pct: 0}
cases:
  - name: ws-conv
    arch: small4
    layer: 'conv:K=8,C=8,H=8,W=8,R=3,S=3,stride=1,pad=1'
    mapping:
      dataflow: ws
      tiles: {N: 1, K: 4, C: 8, P: 8, Q: 8, R: 3, S: 3}
      order: [N, K, P, Q, C, R, S]
      pe: {rows: 4, cols: 4}
  - name: os-fc
    arch: small8
    layer: 'fc:IN=64,OUT=40'
    mapping: default
    dataflow: os
    tolerance: {cycles_pct: 5}
)";

flows::RegressOptions opts(const fs::path& suite) {
  flows::RegressOptions o;
  o.suite = suite.string();
  o.jobs = 2;
  o.progress = false;
  o.worker_exe = MAPWRIGHT_WORKER_EXE;
  return o;
}

}  // namespace

#ifdef MAPWRIGHT_HAVE_RTL

TEST(Regress, WrongGoldenFailsWithDiffAndJUnitThenUpdateFixesIt) {
  const fs::path d = fresh_dir("golden");
  const fs::path suite = d / "mini.yaml";
  std::ofstream(suite) << kSuite;

  // No goldens yet: every case fails and says how to record them.
  std::ostringstream out0;
  EXPECT_EQ(flows::cmd_regress(opts(suite), out0), 1);
  EXPECT_NE(out0.str().find("--update"), std::string::npos) << out0.str();

  std::ostringstream out1;
  flows::RegressOptions up = opts(suite);
  up.update = true;
  ASSERT_EQ(flows::cmd_regress(up, out1), 0) << out1.str();
  ASSERT_TRUE(fs::exists(d / "mini.golden.yaml"));

  std::ostringstream out2;
  flows::RegressOptions ok = opts(suite);
  ok.junit = (d / "ok.xml").string();
  ASSERT_EQ(flows::cmd_regress(ok, out2), 0) << out2.str();
  EXPECT_NE(read_file(d / "ok.xml").find("failures=\"0\""), std::string::npos);

  // Break the golden: one cycle count and one access count of ws-conv.
  std::string g = read_file(d / "mini.golden.yaml");
  const std::regex cyc("(\"ws-conv\":\\n    rtl_cycles: )([0-9]+)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(g, m, cyc));
  const long long golden = std::stoll(m[2]);
  g.replace(static_cast<size_t>(m.position(2)), static_cast<size_t>(m.length(2)),
            std::to_string(golden + 7));
  const std::regex wt("dram_weight_bytes: ([0-9]+)");
  ASSERT_TRUE(std::regex_search(g, m, wt));
  g.replace(static_cast<size_t>(m.position(1)), static_cast<size_t>(m.length(1)), "1");
  std::ofstream(d / "mini.golden.yaml") << g;

  std::ostringstream out3;
  flows::RegressOptions bad = opts(suite);
  bad.junit = (d / "bad.xml").string();
  EXPECT_EQ(flows::cmd_regress(bad, out3), 1);
  const std::string text = out3.str();
  EXPECT_NE(text.find("FAIL  ws-conv"), std::string::npos) << text;
  EXPECT_NE(text.find("rtl cycles: golden " + std::to_string(golden + 7) + ", now " +
                      std::to_string(golden)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rtl dram_weight_bytes: golden 1, now"), std::string::npos) << text;
  EXPECT_NE(text.find("PASS  os-fc"), std::string::npos) << text;
  const std::string xml = read_file(d / "bad.xml");
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"drift\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"ws-conv\""), std::string::npos);

  // --update rewrites the goldens only when asked; afterwards the suite passes again.
  std::ostringstream out4;
  ASSERT_EQ(flows::cmd_regress(up, out4), 0) << out4.str();
  std::ostringstream out5;
  EXPECT_EQ(flows::cmd_regress(opts(suite), out5), 0) << out5.str();
  fs::remove_all(d);
}

#endif

TEST(Regress, BadSuitesNameFileKeyAndValue) {
  const fs::path d = fresh_dir("bad");
  auto expect_error = [&](const std::string& text, const std::string& fragment) {
    const fs::path p = d / "s.yaml";
    std::ofstream(p) << text;
    try {
      flows::load_regress_suite(p.string());
      FAIL() << "expected a SpecError for: " << text;
    } catch (const core::SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("s.yaml"), std::string::npos) << e.what();
    }
  };
  expect_error("name: x\ncases: []\n", "no cases");
  expect_error("name: x\ncasez: []\n", "casez");
  expect_error(
      "cases:\n  - {name: a, arch: small4, layer: 'fc:IN=8,OUT=8', mapping: default, dataflow: "
      "xs}\n",
      "dataflow");
  expect_error("cases:\n  - {name: a, arch: nope, layer: 'fc:IN=8,OUT=8', mapping: default}\n",
               "nope");
  expect_error(
      "cases:\n  - {name: a, arch: small4, layer: 'fc:IN=8,OUT=8', mapping: default}\n"
      "  - {name: a, arch: small4, layer: 'fc:IN=8,OUT=8', mapping: default}\n",
      "duplicate");
  expect_error(
      "tolerance: {cycles_pct: -1}\ncases:\n  - {name: a, arch: small4, layer: 'fc:IN=8,OUT=8', "
      "mapping: default}\n",
      "cycles_pct");
  // A mapping the bursts port cannot serve (input rows in blocks cut by the padding) is refused
  // when the suite is read, naming the case's mapping and the transfer.
  expect_error(
      "cases:\n  - {name: a, arch: small4-bursts, layer: "
      "'conv:K=8,C=6,H=9,W=9,R=3,S=3,stride=3,pad=1', mapping: {dataflow: os, tiles: {G: 1, N: "
      "1, K: 8, C: 6, P: 3, Q: 3, R: 2, S: 2}, order: [N, K, C, Q, R, S, P], pe: {rows: 3, cols: "
      "4}}}\n",
      "cases[0].mapping");
  expect_error(
      "cases:\n  - {name: a, arch: small4-bursts, layer: "
      "'conv:K=8,C=6,H=9,W=9,R=3,S=3,stride=3,pad=1', mapping: {dataflow: os, tiles: {G: 1, N: "
      "1, K: 8, C: 6, P: 3, Q: 3, R: 2, S: 2}, order: [N, K, C, Q, R, S, P], pe: {rows: 3, cols: "
      "4}}}\n",
      "mapping cannot run: dram.port bursts: the RTL DMA takes one burst descriptor per "
      "transfer; a load_input has runs of 6 and 12 bytes");
  fs::remove_all(d);
}

TEST(Regress, ShippedSuitesLoad) {
  for (const char* name : {"smoke", "nightly"}) {
    const auto s = flows::load_regress_suite(std::string(MAPWRIGHT_SOURCE_DIR) +
                                             "/configs/regress/" + name + ".yaml");
    EXPECT_FALSE(s.cases.empty()) << name;
    EXPECT_TRUE(fs::exists(s.golden_path)) << s.golden_path;
  }
}
