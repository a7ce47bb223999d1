// vl_stop for the Verilated models of mapwright_systemc (compiled with VL_USER_STOP): a failed
// SVA is recorded and pauses the simulation instead of aborting the process (see
// assertion_stop.hpp).
#include "assertion_stop.hpp"

#include <systemc.h>
#include <verilated.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

namespace mapwright::systemc::detail {

namespace {

/// The label of the assertion at `file`:`line` (or just above it: a property may span lines),
/// if the file can be read.
std::string label_at(const std::string& file, int line) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l) && static_cast<int>(lines.size()) < line;)
    lines.push_back(l);
  static const std::regex kLabel(R"(([A-Za-z_][A-Za-z0-9_]*)\s*:\s*assert\b)");
  for (int i = line - 1; i >= 0 && i >= line - 3 && i < static_cast<int>(lines.size()); --i) {
    std::smatch m;
    if (std::regex_search(lines[static_cast<size_t>(i)], m, kLabel)) return m[1];
  }
  return "";
}

}  // namespace

AssertionStop& assertion_stop() {
  static AssertionStop s;
  return s;
}

void clear_assertion_stop() {
  assertion_stop() = AssertionStop{};
  Verilated::threadContextp()->gotError(false);
  Verilated::threadContextp()->gotFinish(false);
}

std::string describe(const AssertionStop& s) {
  return "assertion " + (s.label.empty() ? std::string("(unnamed)") : s.label) + " failed (" +
         s.file + ":" + std::to_string(s.line) + ")";
}

}  // namespace mapwright::systemc::detail

// Verilator's hook for $stop and failed assertions (declared in verilated_funcs.h).
void vl_stop(const char* filename, int linenum, const char* hier) {
  (void)hier;
  auto& s = mapwright::systemc::detail::assertion_stop();
  if (!s.hit) {
    s.hit = true;
    const std::string file = filename ? filename : "";
    s.file = std::filesystem::path(file).filename().string();
    s.line = linenum;
    s.label = mapwright::systemc::detail::label_at(file, linenum);
  }
  Verilated::threadContextp()->gotError(true);
  if (sc_core::sc_is_running()) sc_core::sc_pause();
}
