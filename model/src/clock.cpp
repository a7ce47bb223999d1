// The clock model (model/clock.hpp): max(fixed, setup chain) at the library's node, scaled.
#include "mapwright/model/clock.hpp"

#include <algorithm>

#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"

namespace mapwright::model {

ClockEstimate estimate_clock(const core::Arch& arch, const ClockConstants& c) {
  ClockEstimate e;
  const double lanes = std::max(arch.rows, arch.cols);
  const double chain = c.setup_base_ns + c.setup_per_lane_ns * lanes;
  e.setup_chain_limits = chain > c.fixed_ns;
  e.library_period_ns = std::max(c.fixed_ns, chain);
  e.period_ns = e.library_period_ns * c.delay_factor;
  e.fmax_mhz = 1000.0 / e.period_ns;
  return e;
}

ClockConstants clock_constants_from_yaml(const YAML::Node& node, const std::string& where,
                                         const std::string& path) {
  ClockConstants c;
  if (!node || node.IsNull()) return c;
  core::check_keys(node, where, path,
                   {"library", "library_node", "node", "delay_factor", "fixed_ns", "setup_base_ns",
                    "setup_per_lane_ns", "source"});
  struct Field {
    const char* key;
    double* v;
    double lo;
  };
  for (const Field& f :
       {Field{"delay_factor", &c.delay_factor, 0}, Field{"fixed_ns", &c.fixed_ns, 0},
        Field{"setup_per_lane_ns", &c.setup_per_lane_ns, 0}}) {
    *f.v = core::get_double(node, f.key, where, path, *f.v);  // refuses text, inf, nan
    if (!(*f.v > f.lo))
      throw core::SpecError(where, core::join_key(path, f.key), core::node_text(node[f.key]),
                            "must be positive");
  }
  c.setup_base_ns = core::get_double(node, "setup_base_ns", where, path, c.setup_base_ns);
  c.library = core::get_string(node, "library", where, path, c.library);
  c.library_node = core::get_string(node, "library_node", where, path, c.library_node);
  c.node = core::get_string(node, "node", where, path, c.node);
  const std::string mixed = "defaults of model/clock.hpp, overridden by " + where;
  c.source = core::get_string(node, "source", where, path, node.size() > 0 ? mixed : c.source);
  return c;
}

}  // namespace mapwright::model
