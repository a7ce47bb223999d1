// The memory macros of the library flow (synth/asic_macros.hpp).

#include "synth/asic_macros.hpp"

#include <iomanip>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "synth/yosys_reports.hpp"

namespace mapwright::flows::asic_detail {

/// The macros of `dump` (the RTLIL of the mw_sram and mw_buf modules after `proc`).
std::vector<MacroShape> parse_macros(const std::string& dump) {
  std::vector<MacroShape> out;
  static const std::regex wire_re(R"re(^\s*wire (?:width (\d+) )?(input|output) \d+ \\(\S+))re");
  static const std::regex mem_re(R"re(^\s*memory width (\d+) size (\d+) )re");
  std::istringstream in(dump);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("module ", 0) == 0) {
      out.emplace_back();
      out.back().yosys_name = line.substr(7);
      const std::string src = synth_detail::source_module(out.back().yosys_name);
      out.back().macro.kind = src == "mw_buf" ? "buffer" : "sram";
      continue;
    }
    if (out.empty()) continue;
    MacroShape& s = out.back();
    if (std::regex_search(line, m, wire_re)) {
      const long long w = m[1].matched ? std::stoll(m[1]) : 1;
      (m[2] == "input" ? s.inputs : s.outputs).emplace_back(m[3], w);
    } else if (std::regex_search(line, m, mem_re)) {
      s.macro.width = std::stoll(m[1]);
      s.macro.depth = std::stoll(m[2]);
    }
  }
  for (MacroShape& s : out) {
    if (s.macro.width <= 0 || s.macro.depth <= 0)
      throw std::runtime_error("macros.il: no memory in " + s.yosys_name);
    AsicMacro& a = s.macro;
    if (a.kind == "buffer") {
      for (const auto& [n, w] : s.outputs)
        if (n == "rd_data_o") a.read_ports = w / a.width;
      for (const auto& [n, w] : s.inputs)
        if (n == "wr_en_i") a.write_ports = w;
      a.cell = "mw_buf_" + std::to_string(a.depth) + "x" + std::to_string(a.width) + "_" +
               std::to_string(a.read_ports) + "r" + std::to_string(a.write_ports) + "w";
    } else {
      a.cell = "mw_sram_" + std::to_string(a.depth) + "x" + std::to_string(a.width);
    }
  }
  return out;
}

/// The scalar pin names of a port: "p" for one bit, "p_0".."p_{w-1}" for more.
std::vector<std::string> scalar_pins(const std::string& port, long long width) {
  if (width == 1) return {port};
  std::vector<std::string> v;
  for (long long i = 0; i < width; ++i) v.push_back(port + "_" + std::to_string(i));
  return v;
}

std::string num(double v) {
  std::ostringstream s;
  s << std::setprecision(6) << v;
  return s.str();
}

/// The liberty model of the macros (cells with scalar pins, timing from `t`).
std::string macros_liberty(const std::vector<MacroShape>& shapes, const SramTiming& t) {
  std::ostringstream s;
  s << "/* written by mapwright synth --liberty: the memory macros' timing model.\n   " << t.source
    << " */\nlibrary (mw_macros) {\n  delay_model : table_lookup;\n  time_unit : \"1ns\";\n"
    << "  voltage_unit : \"1V\";\n  current_unit : \"1mA\";\n  capacitive_load_unit (1, pf);\n"
    << "  pulling_resistance_unit : \"1kohm\";\n  leakage_power_unit : \"1nW\";\n";
  for (const char* k : {"input_threshold_pct_rise", "input_threshold_pct_fall",
                        "output_threshold_pct_rise", "output_threshold_pct_fall"})
    s << "  " << k << " : 50;\n";
  for (const char* k : {"slew_lower_threshold_pct_rise", "slew_lower_threshold_pct_fall"})
    s << "  " << k << " : 10;\n";
  for (const char* k : {"slew_upper_threshold_pct_rise", "slew_upper_threshold_pct_fall"})
    s << "  " << k << " : 90;\n";
  const std::string d = num(t.clock_to_output_ns), tr = num(t.output_transition_ns);
  const auto arc = [&](const std::string& related, const std::string& type) {
    s << "      timing () { related_pin : \"" << related << "\"; timing_type : " << type
      << "; cell_rise (scalar) { values (\"" << d << "\"); } cell_fall (scalar) { values (\"" << d
      << "\"); } rise_transition (scalar) { values (\"" << tr
      << "\"); } fall_transition (scalar) { values (\"" << tr << "\"); } }\n";
  };
  std::set<std::string> written;
  for (const MacroShape& m : shapes) {
    if (!written.insert(m.macro.cell).second) continue;
    s << "  cell (" << m.macro.cell << ") {\n    area : 0;\n    dont_touch : true;\n"
      << "    dont_use : true;\n";
    const bool comb = m.macro.kind == "buffer";
    const long long aw = [&] {
      for (const auto& [n, w] : m.inputs)
        if (n == "rd_addr_i") return w / m.macro.read_ports;
      return 0LL;
    }();
    for (const auto& [port, w] : m.inputs)
      for (size_t i = 0; i < scalar_pins(port, w).size(); ++i) {
        const std::string pin = scalar_pins(port, w)[i];
        s << "    pin (" << pin
          << ") { direction : input; capacitance : " << num(t.input_capacitance_pf) << ";";
        if (port == "clk_i") {
          s << " clock : true; }\n";
          continue;
        }
        s << "\n";
        if (!(comb && (port == "rd_addr_i" || port == "rd_en_i")))
          for (const auto& [type, v] :
               {std::pair{"setup_rising", t.setup_ns}, std::pair{"hold_rising", t.hold_ns}})
            s << "      timing () { related_pin : \"clk_i\"; timing_type : " << type
              << "; rise_constraint (scalar) { values (\"" << num(v)
              << "\"); } fall_constraint (scalar) { values (\"" << num(v) << "\"); } }\n";
        s << "    }\n";
      }
    for (const auto& [port, w] : m.outputs) {
      const std::vector<std::string> pins = scalar_pins(port, w);
      for (size_t i = 0; i < pins.size(); ++i) {
        s << "    pin (" << pins[i] << ") { direction : output;\n";
        if (!comb) {
          arc("clk_i", "rising_edge");
        } else {  // output bit i belongs to read lane i / width: that lane's address bits
          const std::vector<std::string> addr = scalar_pins("rd_addr_i", aw * m.macro.read_ports);
          const long long lane = static_cast<long long>(i) / m.macro.width;
          std::string rel;
          for (long long b = 0; b < aw; ++b)
            rel += (rel.empty() ? "" : " ") + addr[static_cast<size_t>(lane * aw + b)];
          arc(rel, "combinational");
        }
        s << "    }\n";
      }
    }
    s << "  }\n";
  }
  s << "}\n";
  return s.str();
}

/// mapped.blif with the macros' cell names and scalar pins, every cell a `.gate` (blifFanout
/// reads the gates it may resize and the macros' pins from the liberty files).
std::string rewrite_blif(const std::string& blif, const std::vector<MacroShape>& shapes) {
  std::map<std::string, const MacroShape*> by_name;
  for (const MacroShape& m : shapes) by_name[m.yosys_name] = &m;
  static const std::regex bit_re(R"re(^([A-Za-z_][A-Za-z0-9_]*)\[(\d+)\]=)re");
  std::istringstream in(blif);
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(".subckt ", 0) != 0) {
      out << line << "\n";
      continue;
    }
    std::istringstream f(line.substr(8));
    std::string cell;
    f >> cell;
    const auto it = by_name.find(cell);
    if (it == by_name.end()) {
      out << ".gate " << line.substr(8) << "\n";
      continue;
    }
    out << ".gate " << it->second->macro.cell;
    std::smatch m;
    for (std::string conn; f >> conn;) {
      if (std::regex_search(conn, m, bit_re)) {
        // A one-bit port is the scalar pin itself, whichever way yosys wrote its bit.
        long long width = 0;
        for (const auto* list : {&it->second->inputs, &it->second->outputs})
          for (const auto& [port, w] : *list)
            if (port == m[1].str()) width = w;
        conn = (width == 1 ? m[1].str() : m[1].str() + "_" + m[2].str()) + "=" +
               conn.substr(m[0].length());
      }
      out << " " << conn;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace mapwright::flows::asic_detail

namespace mapwright::flows::asic_detail {

std::string macros_sim_verilog(const std::vector<MacroShape>& shapes) {
  std::ostringstream s;
  s << "// written by mapwright synth --liberty: each memory macro of netlist_sim.v as the RTL's\n"
       "// mw_sram or mw_buf (rtl/) with its shape, behind the scalar pins the netlist uses.\n";
  std::set<std::string> written;
  for (const MacroShape& m : shapes) {
    if (!written.insert(m.macro.cell).second) continue;
    std::vector<std::string> ports;
    for (const auto* list : {&m.inputs, &m.outputs})
      for (const auto& [port, w] : *list)
        for (const std::string& pin : scalar_pins(port, w)) ports.push_back(pin);
    s << "module " << m.macro.cell << " (";
    for (size_t i = 0; i < ports.size(); ++i) s << (i ? ", " : "") << ports[i];
    s << ");\n";
    for (const auto& [port, w] : m.inputs)
      for (const std::string& pin : scalar_pins(port, w)) s << "  input " << pin << ";\n";
    for (const auto& [port, w] : m.outputs)
      for (const std::string& pin : scalar_pins(port, w)) s << "  output " << pin << ";\n";
    const bool buffer = m.macro.kind == "buffer";
    s << "  " << (buffer ? "mw_buf" : "mw_sram") << " #(.Depth(" << m.macro.depth << "), .Width("
      << m.macro.width << ")";
    if (buffer)
      s << ", .RdPorts(" << m.macro.read_ports << "), .WrPorts(" << m.macro.write_ports << ")";
    s << ") u_macro (";
    bool first = true;
    for (const auto* list : {&m.inputs, &m.outputs})
      for (const auto& [port, w] : *list) {
        s << (first ? "" : ",") << "\n    ." << port << "(";
        first = false;
        const std::vector<std::string> pins = scalar_pins(port, w);
        if (pins.size() == 1) {
          s << pins[0] << ")";
          continue;
        }
        s << "{";
        for (size_t i = pins.size(); i-- > 0;) s << pins[i] << (i ? ", " : "");
        s << "})";
      }
    s << ");\nendmodule\n\n";
  }
  return s.str();
}

}  // namespace mapwright::flows::asic_detail
