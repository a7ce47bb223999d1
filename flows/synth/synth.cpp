// `mapwright synth`: checks that an architecture has RTL parameters, copies the RTL into the
// output folder, writes the yosys script there (every value in it an integer formed here, no
// path or user string), runs yosys as a child process (argument vector, no shell) and reads
// its reports into a SynthResult. A missing yosys, a failing yosys run and unreadable reports
// are typed failures; yosys' log stays in the folder.

#include "mapwright/flows/synth.hpp"

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>

#include "common/files.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#include "mapwright/support/error.hpp"
#include "synth/tool_run.hpp"
#include "synth/yosys_reports.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

using core::SpecError;

SynthParams synth_params(const core::Arch& a, const std::string& where) {
  const double beat = a.dram_bytes_per_cycle;
  if (beat != std::floor(beat))
    throw SpecError(where, "dram.bytes_per_cycle", std::to_string(beat),
                    "the RTL moves a whole number of bytes per cycle (a multiple of 4 in 4..64)");
  if (a.accum_buf_bytes % 4 != 0)
    throw SpecError(where, "buffers.accum_kib", std::to_string(a.accum_buf_bytes) + " B",
                    "the RTL's accumulator holds whole int32 words");
  if (a.operand_bits != 8 || a.acc_bits != 32)
    throw SpecError(where, "precision",
                    std::to_string(a.operand_bits) + "/" + std::to_string(a.acc_bits),
                    "the RTL computes int8 x int8 -> int32 only");
  const rtlpool::ModelParams m = rtlpool::model_params(a);
  if (const std::string why = rtlpool::check_model_params(m); !why.empty())
    throw SpecError(where, "arch", a.name, "no RTL parameters for it: " + why);
  return SynthParams{m.rows,        m.cols,       m.input_bytes, m.weight_bytes,
                     m.accum_words, m.beat_bytes, m.banks};
}

namespace {

using synth_detail::ModuleReport;

/// The yosys script: read with SYNTHESIS defined (the SVAs are left out), elaborate with the
/// parameters, synthesize with memories kept as `$mem_v2` macros (synth's coarse part ends in
/// `memory -nomap`; memory_map is never run), map the rest to yosys' gates, check, and report.
/// With `netlist`, the mapped design, flattened, is also written as Verilog (netlist.v): yosys'
/// gate cells as instances of its cell library (`-noexpr`, simulated with simcells.v), the
/// memories as Verilog arrays with their ports' logic, for `synth --gate-sim`.
std::string script(const std::vector<std::string>& files, const SynthParams& p, bool netlist) {
  std::ostringstream s;
  s << "# written by mapwright synth; run in this folder: yosys -s synth.ys\n";
  s << "read_verilog -sv -DSYNTHESIS";
  for (const auto& f : files) s << " rtl/" << f;
  s << "\nhierarchy -check -top mw_accel" << synth_detail::chparams(p);
  // mw_fold_seq, mw_cmd and mw_buffers hold parts of mw_compute and mw_accel in files of their
  // own; they are flattened into them (and only they), so that yosys trims the bits their
  // parents never read as it did before the split and the figures stay per mw_compute and
  // mw_accel. Every other module keeps its hierarchy.
  s << "\nsetattr -mod -set keep_hierarchy 1 *\n"
       "setattr -mod -unset keep_hierarchy *mw_fold_seq *mw_cmd *mw_buffers\n"
       "flatten\n"
       "setattr -mod -unset keep_hierarchy *\n"
       // -noshare: yosys' SAT-based resource sharing found nothing to share on 2x2 and banked
       // 4x4 designs (the same cells) and ran out of 24 GiB on the banked 16x16.
       "synth -top mw_accel -noshare -run begin:fine\n"
       "opt -fast -full\n"
       "techmap\n"
       "opt -fast\n"
       "abc -fast\n"
       "opt -fast\n"
       "hierarchy -check\n"
       "check -assert\n"
       "setattr -mod -unset top\n"  // stat -json then prints no hierarchy text into its JSON
       "tee -q -o stat.json stat -json\n"
       "tee -q -o memories.il dump t:$mem_v2\n"
       // Each module's own logic depth: the paths through its submodule instances are cut
       // (only the wires, gates and memories are selected).
       "tee -q -o ltp_modules.txt ltp -noff w:* t:$_* t:$mem_v2\n"
       "design -save mapped\n"
       // The transistor estimate prices only plain D flip-flops: every flop becomes one, its
       // reset and enable logic gates (async2sync turns asynchronous resets synchronous).
       "async2sync\n"
       "dfflegalize -cell $_DFF_P_ 01\n"
       "tee -q -o stat_cmos.json stat -json -tech cmos\n"
       "design -load mapped\n"
       "flatten\n"
       "tee -q -o ltp.txt ltp -noff\n";
  if (netlist) s << "hierarchy -top mw_accel\nwrite_verilog -noattr -noexpr netlist.v\n";
  return s.str();
}

/// The yosys version from its log's banner line, "Yosys 0.23 (git sha1 ...)".
std::string yosys_version(const std::string& log) {
  static const std::regex re(R"(Yosys \d+\.\d+[^\n]*)");
  std::smatch m;
  return std::regex_search(log, m, re) ? m.str() : std::string("yosys");
}

/// Runs yosys on synth.ys in `dir` (output to yosys.out, log to yosys.log); fills the time
/// and peak memory. Returns the failure kind and message.
SynthFailureKind run_yosys(const fs::path& dir, SynthResult& r, std::string& message) {
  const synth_detail::ToolRun run = synth_detail::run_tool(
      dir, {"yosys", "-q", "-l", "yosys.log", "-s", "synth.ys"}, "yosys.out");
  if (run.spawn_error != 0) {
    message = synth_detail::not_started("yosys", "yosys", run.spawn_error);
    return SynthFailureKind::NoYosys;
  }
  r.seconds = run.seconds;
  r.peak_rss_mib = run.peak_rss_mib;
  if (run.ok()) return SynthFailureKind::None;
  std::error_code ec;
  std::string log = fs::exists(dir / "yosys.log", ec) ? read_text(dir / "yosys.log") : "";
  message = synth_detail::first_error_line(log);
  if (message.empty()) message = synth_detail::first_error_line(read_text(dir / "yosys.out"));
  if (message.empty()) message = "yosys " + run.exit_text();
  return SynthFailureKind::Yosys;
}

/// The reports of a finished run in `dir` as the result's figures.
void read_reports(const fs::path& dir, SynthResult& r) {
  std::map<std::string, ModuleReport> modules =
      synth_detail::parse_stat_json(read_text(dir / "stat.json"));
  synth_detail::add_transistors(read_text(dir / "stat_cmos.json"), modules);
  synth_detail::add_memories(read_text(dir / "memories.il"), modules);
  for (const auto& [m, len] : synth_detail::parse_ltp(read_text(dir / "ltp_modules.txt")))
    if (auto it = modules.find(m); it != modules.end()) it->second.depth = len;
  const auto flat = synth_detail::parse_ltp(read_text(dir / "ltp.txt"));
  if (!flat.count("mw_accel")) throw std::runtime_error("ltp.txt: no path of mw_accel");
  synth_detail::assemble(modules, "mw_accel", flat.at("mw_accel"), r);
  r.yosys_version = yosys_version(read_text(dir / "yosys.log"));
  r.check_clean = true;  // the script's `check -assert` stops yosys on any problem
}

}  // namespace

SynthOutcome synthesize(const core::Arch& arch, const std::string& rtl_dir,
                        const std::string& out_dir, bool write_netlist) {
  SynthOutcome o;
  o.result.arch = arch.name;
  o.result.params = synth_params(arch, "--arch");
  const fs::path src = rtl_dir.empty() ? synth_detail::default_rtl_dir() : fs::path(rtl_dir);
  const std::vector<std::string> files = synth_detail::rtl_files(src);
  const fs::path dir = out_dir.empty() ? fs::path("synth-" + arch.name) : fs::path(out_dir);
  make_output_dir(dir);
  FolderLock lock(dir, "--out");
  synth_detail::copy_rtl(src, dir, files);
  write_atomic(dir / "synth.ys", script(files, o.result.params, write_netlist));
  o.result.out_dir = dir.string();
  std::error_code ec;
  fs::remove(dir / "netlist.v", ec);  // a netlist of an earlier run in this folder
  o.failure = run_yosys(dir, o.result, o.message);
  o.log = (dir / "yosys.log").string();
  if (o.failure != SynthFailureKind::None) return o;
  if (write_netlist) o.result.netlist = (dir / "netlist.v").string();
  try {
    read_reports(dir, o.result);
  } catch (const std::exception& e) {  // a report yosys wrote differently than expected
    o.failure = SynthFailureKind::BadReport;
    o.message = e.what();
  }
  return o;
}

}  // namespace mapwright::flows
