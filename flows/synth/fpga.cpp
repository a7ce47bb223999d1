// `mapwright synth --fpga`: the accelerator (or its array engine, --fpga-top array) on an
// iCE40. Copies the RTL and the scan wrapper (rtl/fpga/mw_fpga.sv or mw_fpga_array.sv, both
// around mw_fpga_scan.sv) into the run folder, writes the yosys script there (every value in it
// an integer formed from the checked parameters, no path or user string), then runs yosys
// (synth_ice40), nextpnr-ice40 (place and route, a fixed seed) and icepack one after the other
// as child processes. A missing tool names its Debian package; a tool failure is a typed
// failure with its first error line and its log kept; a design too large for the device is a
// result with the utilization it needed.

#include "mapwright/flows/fpga.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "common/files.hpp"
#include "mapwright/support/error.hpp"
#include "synth/fpga_reports.hpp"
#include "synth/tool_run.hpp"
#include "synth/yosys_reports.hpp"

namespace fs = std::filesystem;

namespace mapwright::flows {

using core::SpecError;

FpgaDevice fpga_device(const std::string& name) {
  if (name == "ice40-up5k") return FpgaDevice{name, "--up5k", "sg48", true};
  if (name == "ice40-hx8k") return FpgaDevice{name, "--hx8k", "ct256", false};
  throw SpecError("--fpga", "fpga", name, "expected ice40-up5k or ice40-hx8k");
}

FpgaTop fpga_top(const std::string& name) {
  if (name.empty() || name == "accel") return FpgaTop::Accel;
  if (name == "array") return FpgaTop::Array;
  throw SpecError("--fpga-top", "fpga_top", name,
                  "expected accel (the whole accelerator) or array (the array engine alone)");
}

const char* fpga_top_name(FpgaTop t) {
  return t == FpgaTop::Array ? "array" : "accel";
}

namespace {

using synth_detail::ToolRun;

/// The placement seed: fixed, so that a run is repeatable (recorded in the result).
constexpr long long kSeed = 1;
/// nextpnr's target frequency in MHz; timing may fail (the achieved Fmax is the figure).
constexpr int kTargetMhz = 12;

/// The wrapper module (and file stem) of a top.
std::string wrapper(FpgaTop top) {
  return top == FpgaTop::Array ? "mw_fpga_array" : "mw_fpga";
}

/// The scan chains both wrappers instantiate (rtl/fpga/mw_fpga_scan.sv).
const char* const kScanFile = "mw_fpga_scan.sv";

/// The yosys script: read with SYNTHESIS defined (the SVAs left out), elaborate the wrapper
/// with mw_accel's parameters (the array's: its rows and columns), synth_ice40 (DSPs inferred
/// where the device has them), report. The netlist is mw_fpga.json whatever the top.
std::string script(const std::vector<std::string>& files, const SynthParams& p, const FpgaDevice& d,
                   FpgaTop top) {
  const std::string w = wrapper(top);
  std::ostringstream s;
  s << "# written by mapwright synth --fpga; run in this folder: yosys -s fpga.ys\n";
  s << "read_verilog -sv -DSYNTHESIS";
  for (const auto& f : files) s << " rtl/" << f;
  s << " rtl/" << kScanFile << " rtl/" << w << ".sv\nhierarchy -check -top " << w;
  if (top == FpgaTop::Array)
    s << " -chparam Rows " << p.rows << " -chparam Cols " << p.cols << "\n";
  else
    s << synth_detail::chparams(p) << "\n";
  s << "synth_ice40 -top " << w << (d.dsp ? " -dsp" : "") << " -json mw_fpga.json\n";
  s << "tee -q -o stat.json stat -json\n";
  return s.str();
}

/// The first of the flow's three tools not on PATH, as the failure message naming its Debian
/// package, or "": checked before yosys starts, so that a missing nextpnr-ice40 or icepack is
/// reported at once rather than after minutes of synthesis.
std::string missing_tool() {
  const std::pair<const char*, const char*> tools[] = {
      {"yosys", "yosys"}, {"nextpnr-ice40", "nextpnr-ice40"}, {"icepack", "fpga-icestorm"}};
  for (const auto& [tool, package] : tools)
    if (synth_detail::find_on_path(tool).empty())
      return synth_detail::not_started(tool, package, ENOENT);
  return "";
}

/// A tool that did not start or failed as a typed failure; false when it succeeded.
bool tool_failed(const ToolRun& run, const std::string& tool, const std::string& package,
                 const fs::path& log, FpgaOutcome& o) {
  if (run.spawn_error != 0) {
    o.failure = FpgaFailureKind::NoTool;
    o.message = synth_detail::not_started(tool, package, run.spawn_error);
    return true;
  }
  if (run.ok()) return false;
  std::error_code ec;
  const std::string text = fs::exists(log, ec) ? read_text(log) : "";
  o.failure = FpgaFailureKind::ToolError;
  o.log = log.string();
  o.message =
      tool == "yosys" ? synth_detail::first_error_line(text) : synth_detail::first_tool_error(text);
  if (o.message.empty()) o.message = tool + " " + run.exit_text();
  return true;
}

/// The utilization of nextpnr's log into the result.
void take_utilisation(const std::string& log, FpgaResult& r) {
  const auto use = synth_detail::parse_nextpnr_utilisation(log);
  const auto get = [&](const char* name) {
    const auto it = use.find(name);
    return it == use.end() ? FpgaUse{} : it->second;
  };
  r.logic_cells = get("ICESTORM_LC");
  r.brams = get("ICESTORM_RAM");
  r.dsps = get("ICESTORM_DSP");
  r.ios = get("SB_IO");
}

/// Runs nextpnr and icepack on the synthesized netlist in `dir`; fills `o`.
void place_route_pack(const fs::path& dir, const FpgaDevice& d, FpgaOutcome& o) {
  FpgaResult& r = o.result;
  const ToolRun pnr = synth_detail::run_tool(
      dir,
      {"nextpnr-ice40", d.flag, "--package", d.package, "--json", "mw_fpga.json", "--asc",
       "mw_fpga.asc", "--pcf-allow-unconstrained", "--seed", std::to_string(kSeed), "--freq",
       std::to_string(kTargetMhz), "--timing-allow-fail"},
      "nextpnr.log");
  r.seconds += pnr.seconds;
  const fs::path log = dir / "nextpnr.log";
  std::error_code ec;
  const std::string text = pnr.spawn_error == 0 && fs::exists(log, ec) ? read_text(log) : "";
  take_utilisation(text, r);
  if (!pnr.ok() && pnr.spawn_error == 0 && synth_detail::nextpnr_out_of_cells(text)) {
    r.fits = false;  // a result: the utilization it needed
    return;
  }
  if (tool_failed(pnr, "nextpnr-ice40", "nextpnr-ice40", log, o)) return;
  r.fmax_mhz = synth_detail::parse_nextpnr_fmax(text);
  const ToolRun pack =
      synth_detail::run_tool(dir, {"icepack", "mw_fpga.asc", "mw_fpga.bin"}, "icepack.out");
  r.seconds += pack.seconds;
  if (tool_failed(pack, "icepack", "fpga-icestorm", dir / "icepack.out", o)) return;
  r.fits = true;
  r.bitstream = (dir / "mw_fpga.bin").string();
}

}  // namespace

FpgaOutcome implement_fpga(const core::Arch& arch, const FpgaDevice& device,
                           const std::string& rtl_dir, const std::string& out_dir, FpgaTop top) {
  FpgaOutcome o;
  FpgaResult& r = o.result;
  r.arch = arch.name;
  r.device = device.name;
  r.top = top;
  r.seed = kSeed;
  r.params = synth_params(arch, "--arch");
  if (o.message = missing_tool(); !o.message.empty()) {
    o.failure = FpgaFailureKind::NoTool;
    return o;
  }
  const fs::path src = rtl_dir.empty() ? synth_detail::default_rtl_dir() : fs::path(rtl_dir);
  const std::vector<std::string> files = synth_detail::rtl_files(src);
  std::error_code ec;
  const std::string w = wrapper(top) + ".sv";
  for (const std::string& f : {w, std::string(kScanFile)})
    if (!fs::is_regular_file(src / "fpga" / f, ec))
      throw SpecError("--rtl", "rtl", src.string(), "no fpga/" + f + " there (the FPGA wrapper)");
  const std::string stem = top == FpgaTop::Array ? "fpga-array-" : "fpga-";
  const fs::path dir =
      out_dir.empty() ? fs::path(stem + arch.name + "-" + device.name) : fs::path(out_dir);
  make_output_dir(dir);
  FolderLock lock(dir, "--out");
  synth_detail::copy_rtl(src, dir, files);
  synth_detail::copy_rtl(src / "fpga", dir, {kScanFile, w});
  write_atomic(dir / "fpga.ys", script(files, r.params, device, top));
  r.out_dir = dir.string();
  const ToolRun yosys =
      synth_detail::run_tool(dir, {"yosys", "-q", "-l", "yosys.log", "-s", "fpga.ys"}, "yosys.out");
  r.seconds = yosys.seconds;
  if (tool_failed(yosys, "yosys", "yosys", dir / "yosys.log", o)) return o;
  try {
    synth_detail::add_ice40_cells(read_text(dir / "stat.json"), r);
  } catch (const std::exception& e) {  // a report yosys wrote differently than expected
    o.failure = FpgaFailureKind::BadReport;
    o.message = e.what();
    o.log = (dir / "yosys.log").string();
    return o;
  }
  place_route_pack(dir, device, o);
  return o;
}

int cmd_fpga(const SynthOptions& o, std::ostream& out) {
  const FpgaDevice device = fpga_device(o.fpga);  // refused before any work
  const FpgaTop top = fpga_top(o.fpga_top);
  const core::Arch arch = core::load_arch(o.arch);
  synth_params(arch, "--arch " + o.arch);
  const FpgaOutcome f = implement_fpga(arch, device, o.rtl_dir, o.out_dir, top);
  if (f.failure != FpgaFailureKind::None) {
    std::cerr << "synth --fpga: " << f.message << (f.log.empty() ? "" : " (log: " + f.log + ")")
              << "\n";
    return 1;
  }
  const std::string json = fpga_json(f.result);
  write_atomic(fs::path(f.result.out_dir) / "fpga.json", json);
  if (o.json)
    out << json;
  else
    print_fpga(f.result, out);
  return f.result.fits ? 0 : 1;
}

}  // namespace mapwright::flows
