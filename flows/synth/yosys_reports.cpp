// Reads the reports a `mapwright synth` yosys run writes (stat -json twice, the RTLIL dump of
// the memory cells, ltp) into per-module figures, and sums them over the hierarchy: a module's
// own figures count once per instance, the instance count coming from the cells-by-type map
// of its parents (a submodule instance is a cell whose type is the submodule's name).

#include "synth/yosys_reports.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace mapwright::flows {

double generic_cell_um2(const std::string& t) {
  static const std::pair<const char*, double> kGates[] = {
      {"$_NOT_", 0.532}, {"$_BUF_", 0.798},    {"$_NAND_", 0.798}, {"$_NOR_", 0.798},
      {"$_AND_", 1.064}, {"$_OR_", 1.064},     {"$_XOR_", 1.596},  {"$_XNOR_", 1.596},
      {"$_MUX_", 1.862}, {"$_ANDNOT_", 1.330}, {"$_ORNOT_", 1.330}};
  for (const auto& [name, um2] : kGates)
    if (t == name) return um2;
  constexpr double kDff = 4.522, kDffR = 5.320, kDffRS = 6.384, kMux = 1.862, kAnd = 1.064;
  const auto has = [&](const char* prefix) { return t.rfind(prefix, 0) == 0; };
  // Fine-grained flip-flops (yosys' manual, "Gate-level cells"): $_DFF_<C>_, $_DFF_<C><R><V>_
  // (asynchronous reset or set), $_DFFE_<C><E>_ / $_DFFE_<C><R><V><E>_ (enable),
  // $_SDFF_<C><R><V>_, $_SDFFE_ / $_SDFFCE_ (synchronous reset, with an enable), $_DFFSR_ /
  // $_DFFSRE_ (asynchronous set and reset), $_ALDFF_ (asynchronous load).
  const size_t params = t.size() > 2 ? t.size() - 1 - t.rfind('_', t.size() - 2) - 1 : 0;
  if (has("$_DFFSRE_")) return kDffRS + kMux;
  if (has("$_DFFSR_")) return kDffRS;
  if (has("$_SDFFCE_") || has("$_SDFFE_")) return kDff + kAnd + kMux;
  if (has("$_SDFF_")) return kDff + kAnd;
  if (has("$_DFFE_")) return (params == 4 ? kDffR : kDff) + kMux;
  if (has("$_DFF_")) return params == 3 ? kDffR : kDff;
  if (has("$_ALDFFE_")) return kDffRS + kMux;
  if (has("$_ALDFF_")) return kDffRS;
  if (has("$_DLATCH")) return 2.394;
  return -1;
}

}  // namespace mapwright::flows

namespace mapwright::flows::synth_detail {

namespace {

/// The leading integer of "76990+" or "84" (yosys prints the estimate as a string with a "+"
/// when some cells have no price), or of a JSON number.
long long estimate_of(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<long long>();
  if (!v.is_string()) throw std::runtime_error("estimated_num_transistors is not a number");
  const std::string s = v.get<std::string>();
  size_t n = 0;
  const long long x = std::stoll(s, &n);
  if (n == 0) throw std::runtime_error("estimated_num_transistors '" + s + "' is not a number");
  return x;
}

nlohmann::json parse_modules(const std::string& text) {
  // yosys 0.23 ends its `stat -json` object with "},\n\n}" when it prints no design section: a
  // comma before a closing brace is dropped (no cell name holds one).
  static const std::regex trailing_comma(R"(,(\s*\}))");
  const nlohmann::json j =
      nlohmann::json::parse(std::regex_replace(text, trailing_comma, "$1"), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("modules") || !j["modules"].is_object())
    throw std::runtime_error("not yosys 'stat -json' output (no \"modules\" object)");
  return j["modules"];
}

bool starts_with(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}

/// A module name as ltp prints it: yosys' JSON and RTLIL dump write a public name with its
/// leading backslash ("\mw_accel"), ltp without it.
std::string plain_name(const std::string& name) {
  return starts_with(name, "\\") ? name.substr(1) : name;
}

}  // namespace

std::map<std::string, ModuleReport> parse_stat_json(const std::string& text) {
  std::map<std::string, ModuleReport> out;
  const nlohmann::json mods = parse_modules(text);  // kept: items() refers to it
  for (const auto& [name, m] : mods.items()) {
    ModuleReport& r = out[plain_name(name)];
    if (!m.contains("num_cells_by_type")) continue;  // a module without cells
    for (const auto& [type, n] : m["num_cells_by_type"].items())
      r.cells_by_type[type] = n.get<long long>();
  }
  return out;
}

void add_transistors(const std::string& text, std::map<std::string, ModuleReport>& modules) {
  const nlohmann::json mods = parse_modules(text);  // kept: items() refers to it
  for (const auto& [name, m] : mods.items()) {
    auto it = modules.find(plain_name(name));
    if (it == modules.end() || !m.contains("estimated_num_transistors")) continue;
    it->second.transistors = estimate_of(m["estimated_num_transistors"]);
  }
}

void add_memories(const std::string& dump, std::map<std::string, ModuleReport>& modules) {
  std::istringstream in(dump);
  std::string line, module;
  long long size = 0;
  bool in_mem = false;
  for (ModuleReport* cur = nullptr; std::getline(in, line);) {
    if (starts_with(line, "module ")) {
      module = plain_name(line.substr(7));
      auto it = modules.find(module);
      cur = it == modules.end() ? nullptr : &it->second;
      in_mem = false;
    } else if (starts_with(line, "  cell ")) {
      in_mem = starts_with(line, "  cell $mem_v2 ");
      size = 0;
    } else if (in_mem && starts_with(line, "    parameter \\SIZE ")) {
      size = std::stoll(line.substr(20));
    } else if (in_mem && cur && starts_with(line, "    parameter \\WIDTH ")) {
      cur->memory_bits += size * std::stoll(line.substr(21));  // SIZE precedes WIDTH
    }
  }
}

std::map<std::string, long long> parse_ltp(const std::string& text) {
  static const std::regex re(R"(Longest topological path in (\S+) \(length=(\d+)\))");
  std::map<std::string, long long> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
    out[(*it)[1].str()] = std::stoll((*it)[2].str());
  return out;
}

std::string first_error_line(const std::string& log) {
  const size_t at = log.find("ERROR:");
  if (at == std::string::npos) return "";
  const size_t begin = log.rfind('\n', at);  // the line's start: "file.sv:359: ERROR: ..."
  const size_t from = begin == std::string::npos ? 0 : begin + 1;
  const size_t end = log.find('\n', at);
  return log.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

std::string source_module(const std::string& yosys_name) {
  // yosys names a module derived with parameters "$paramod\\MOD\\P=VALUE..." when the
  // parameter list is short, else "$paramod$HASH\\MOD".
  if (starts_with(yosys_name, "$paramod\\")) {
    const size_t from = std::string("$paramod\\").size();
    return yosys_name.substr(from, yosys_name.find('\\', from) - from);
  }
  const size_t slash = yosys_name.rfind('\\');
  if (starts_with(yosys_name, "$paramod") && slash != std::string::npos)
    return yosys_name.substr(slash + 1);
  return plain_name(yosys_name);
}

void classify_cells(const std::map<std::string, long long>& by_type, SynthFigures& f) {
  for (const auto& [type, n] : by_type) {
    if (starts_with(type, "$_") && type.find("DFF") != std::string::npos)
      f.flops += n;
    else if (starts_with(type, "$_DLATCH") || starts_with(type, "$_SR_"))
      f.latches += n;
    else if (type == "$mem_v2" || type == "$mem")
      f.memories += n;
    if (const double um2 = generic_cell_um2(type); um2 > 0)
      f.cell_area_um2 += um2 * static_cast<double>(n);
  }
}

void assemble(const std::map<std::string, ModuleReport>& modules, const std::string& top,
              long long flat_depth, SynthResult& r) {
  if (!modules.count(top)) throw std::runtime_error("top module '" + top + "' not in the report");
  // Instances of each yosys module: the top once, a child as often as its parents hold it.
  std::map<std::string, long long> instances;
  std::vector<std::string> order;  // depth-first from the top, parents before children
  std::function<void(const std::string&, long long)> visit = [&](const std::string& m,
                                                                 long long times) {
    if (instances[m] == 0) order.push_back(m);
    instances[m] += times;
    for (const auto& [type, n] : modules.at(m).cells_by_type)
      if (modules.count(type)) visit(type, times * n);
  };
  visit(top, 1);
  r.modules.clear();
  r.design = SynthFigures();
  for (const auto& m : order) {
    const ModuleReport& rep = modules.at(m);
    const long long k = instances[m];
    const std::string src = source_module(m);
    auto it = std::find_if(r.modules.begin(), r.modules.end(),
                           [&](const SynthModule& s) { return s.name == src; });
    if (it == r.modules.end()) {
      r.modules.push_back(SynthModule{src, 0, 0, SynthFigures()});
      it = r.modules.end() - 1;
    }
    it->instances += k;
    it->variants += 1;
    SynthFigures own;
    for (const auto& [type, n] : rep.cells_by_type) {
      if (modules.count(type)) continue;  // a submodule: counted in its own figures
      own.cells_by_type[type] += n * k;
      own.cells += n * k;
    }
    classify_cells(own.cells_by_type, own);
    own.memory_bits = rep.memory_bits * k;
    own.transistors = rep.transistors * k;
    for (SynthFigures* f : {&it->total, &r.design}) {
      f->cells += own.cells;
      f->flops += own.flops;
      f->latches += own.latches;
      f->memories += own.memories;
      f->memory_bits += own.memory_bits;
      f->transistors += own.transistors;
      f->cell_area_um2 += own.cell_area_um2;
      for (const auto& [type, n] : own.cells_by_type) f->cells_by_type[type] += n;
    }
    it->total.depth = std::max(it->total.depth, rep.depth);
  }
  r.design.depth = flat_depth;
}

}  // namespace mapwright::flows::synth_detail
