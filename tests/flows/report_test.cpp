// Reports: `mapwright compare` marks the winner of each metric across runs (here the same
// layer, surrogate only, on the 4x4 and 8x8 arrays), HTML escaping, and refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "files.hpp"
#include "../../flows/common/text.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/report.hpp"
#include "mapwright/flows/run.hpp"

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
    o.layer = "conv:K=16,C=16,H=12,W=12,R=3,S=3,pad=1";
    o.arch = arch;
    o.searcher = "random";
    o.budget = 200;
    o.no_rtl = true;
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
  o.layer = "conv:K=8,C=8,H=8,W=8,R=3,S=3,pad=1";
  o.arch = "small4";
  o.searcher = "random";
  o.budget = 20;
  o.no_rtl = true;
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
