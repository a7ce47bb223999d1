// The eval, space, networks and archs subcommands: resolve specs, run the surrogate or the map
// space, print a table or one JSON object.
#include "mapwright/flows/commands.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/core/metrics.hpp"
#include "mapwright/model/refined.hpp"
#include "mapwright/model/surrogate.hpp"
#include "mapwright/rtlpool/model_cache.hpp"
#ifdef MAPWRIGHT_HAVE_RTL
#include "mapwright/systemc/rtl_evaluator.hpp"
#endif
#include "common/text.hpp"
#include "common/files.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

void print_metrics(const Metrics& m, const Arch& a, std::ostream& out) {
  out << "  cycles         " << m.cycles << "  (" << si(m.cycles / (a.clock_mhz * 1e6)) << "s at "
      << a.clock_mhz << " MHz)\n";
  out << "  compute        " << m.compute_cycles << " cycles of folds\n";
  out << "  dma            " << m.dma_cycles << " cycles of transfers\n";
  out << "  energy         " << si(m.energy_pj * 1e-12) << "J  (mac " << si(m.energy.mac * 1e-12)
      << "J, input " << si(m.energy.input_buf * 1e-12) << "J, weight "
      << si(m.energy.weight_buf * 1e-12) << "J, accum " << si(m.energy.accum_buf * 1e-12)
      << "J, dram " << si(m.energy.dram * 1e-12) << "J, pe static "
      << si(m.energy.pe_static * 1e-12) << "J)\n";
  out << "  edp            " << std::setprecision(6) << m.edp << " pJ*cycles\n";
  out << "  utilization    " << std::fixed << std::setprecision(1) << 100 * m.utilization << " %\n"
      << std::defaultfloat;
  out << "  macs           " << m.counts.macs << "\n";
  out << "  dram bytes     input " << m.counts.dram_input_bytes << ", weight "
      << m.counts.dram_weight_bytes << ", output " << m.counts.dram_output_bytes << ", psum out "
      << m.counts.dram_psum_write_bytes << ", psum in " << m.counts.dram_psum_read_bytes << "\n";
  out << "  buffers        input r/w " << m.counts.input_buf_reads << "/"
      << m.counts.input_buf_writes << ", weight r/w " << m.counts.weight_buf_reads << "/"
      << m.counts.weight_buf_writes << ", accum r/w " << m.counts.accum_reads << "/"
      << m.counts.accum_writes << "\n";
}

}  // namespace

Mapping resolve_mapping(const std::string& arg, const Layer& layer, const Arch& arch) {
  const bool greedy = arg.empty() || arg == "default";
  const Mapping m = greedy ? default_mapping(layer, arch) : load_mapping_file(arg);
  check_mapping(m, layer, arch, greedy ? "--mapping" : arg);
  return m;
}

int cmd_eval(const EvalOptions& o, std::ostream& out) {
  const Arch arch = load_arch(o.arch);
  const Layer layer = parse_layer_arg(o.layer);
  const Mapping m = resolve_mapping(o.mapping, layer, arch);
  model::Surrogate s;
  const Metrics r = s.evaluate(layer, arch, m);
  if (o.json) {
    nlohmann::json j = r.to_json();
    j["evaluator"] = s.name();
    if (r.valid) j["refined_cycles"] = model::refined_cycles(layer, arch, m).cycles;
    j["arch"] = arch.name;
    j["dram_port"] = dram_port_name(arch.dram_port);
    j["layer"] = layer_to_json(layer);
    j["mapping"] = mapping_to_yaml(m);
    out << j.dump(2) << "\n";
  } else {
    out << "layer   " << layer.name << ": " << layer.describe() << "\n";
    out << "arch    " << arch.name << " (" << arch.rows << "x" << arch.cols << ", DRAM port "
        << dram_port_name(arch.dram_port)
        << (arch.buffer_banks ? ", " + std::to_string(arch.buffer_banks) + " buffer banks" : "")
        << ")\n";
    out << "mapping\n";
    std::istringstream ys(mapping_to_yaml(m));
    for (std::string line; std::getline(ys, line);) out << "  " << line << "\n";
    if (!r.valid) {
      out << "INVALID: " << r.reason << "\n";
    } else {
      out << "surrogate\n";
      print_metrics(r, arch, out);
      out << "  refined        " << model::refined_cycles(layer, arch, m).cycles
          << " cycles (estimate closer to the RTL; the search ranks by `cycles`, docs/timing.md)\n";
    }
  }
  return r.valid ? 0 : 3;
}

int cmd_space(const SpaceOptions& o, std::ostream& out) {
  if (o.sample < 0) throw SpecError("--sample", "sample", std::to_string(o.sample), "must be >= 0");
  const Arch arch = load_arch(o.arch);
  const Layer layer = parse_layer_arg(o.layer);
  const MapSpace space(layer, arch);
  std::mt19937_64 rng(o.seed);
  const long long probe = 20000;
  const double invalid = space.naive_invalid_rate(rng, probe);
  nlohmann::json j;
  j["arch"] = arch.name;
  j["layer"] = layer_to_json(layer);
  j["seed"] = o.seed;
  j["log10_size"] = space.log10_size();
  j["naive_invalid_rate"] = invalid;
  j["naive_invalid_rate_samples"] = probe;
  for (const auto& p : space.params())
    j["params"].push_back(
        {{"name", p.name}, {"cardinality", p.cardinality}, {"ordinal", p.ordinal}});
  model::Surrogate s;
  std::vector<std::string> files;
  for (int i = 0; i < o.sample; ++i) {
    ParamVector v;
    long long tries = 0;
    if (!space.sample_valid(rng, v, 2000000, &tries))
      throw SpecError("--sample", "sample", std::to_string(o.sample),
                      "no valid mapping found in 2000000 naive samples");
    const Mapping m = space.decode(v);
    const Metrics r = s.evaluate(layer, arch, m);
    nlohmann::json e;
    e["vector"] = v;
    e["mapping"] = mapping_to_yaml(m);
    e["tries"] = tries;
    e["surrogate"] = r.to_json();
    if (!o.write_dir.empty()) {
      const std::string f =
          (fs::path(o.write_dir) / ("sample_" + std::to_string(i) + ".yaml")).string();
      write_atomic(f, "# sampled by: mapwright space --arch " + arch.name + " --layer '" +
                          one_line(layer.name) + "' --sample " + std::to_string(o.sample) +
                          " --seed " + std::to_string(o.seed) + "\n" + mapping_to_yaml(m));
      e["file"] = f;
      files.push_back(f);
    }
    j["samples"].push_back(e);
  }
  if (o.json) {
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "layer   " << layer.name << ": " << layer.describe() << "\n";
  out << "arch    " << arch.name << " (" << arch.rows << "x" << arch.cols << ", DRAM port "
      << dram_port_name(arch.dram_port)
      << (arch.buffer_banks ? ", " + std::to_string(arch.buffer_banks) + " buffer banks" : "")
      << ")\n";
  out << "space   10^" << std::fixed << std::setprecision(2) << space.log10_size()
      << " mappings; naive sampling invalid rate " << std::setprecision(2) << 100 * invalid
      << " % (" << probe << " samples, seed " << o.seed << ")\n"
      << std::defaultfloat;
  out << "parameters\n";
  for (const auto& p : space.params())
    out << "  " << std::left << std::setw(12) << p.name << std::right << std::setw(6)
        << p.cardinality << (p.ordinal ? "  ordinal" : "  categorical") << "\n";
  for (size_t i = 0; i < j["samples"].size(); ++i) {
    const auto& e = j["samples"][i];
    out << "sample " << i << " (valid after " << e["tries"].get<long long>() << " tries): cycles "
        << e["surrogate"]["cycles"].get<long long>() << ", energy "
        << si(e["surrogate"]["energy_pj"].get<double>() * 1e-12) << "J"
        << (e.contains("file") ? ", written to " + e["file"].get<std::string>() : "") << "\n";
    std::istringstream ys(e["mapping"].get<std::string>());
    for (std::string line; std::getline(ys, line);) out << "  " << line << "\n";
  }
  return 0;
}

int cmd_networks(const NetworksOptions& o, std::ostream& out) {
  nlohmann::json j;
  if (o.network.empty()) {
    for (const auto& name : zoo_names()) {
      const Network n = zoo_network(name);
      j.push_back({{"name", n.name},
                   {"description", n.description},
                   {"layers", n.layers.size()},
                   {"unique_layers", n.unique_layers().size()},
                   {"macs", n.total_macs()}});
    }
    if (o.json) {
      out << j.dump(2) << "\n";
      return 0;
    }
    out << std::left << std::setw(16) << "network" << std::right << std::setw(8) << "layers"
        << std::setw(8) << "unique" << std::setw(10) << "GMACs"
        << "  description\n";
    for (const auto& e : j)
      out << std::left << std::setw(16) << e["name"].get<std::string>() << std::right
          << std::setw(8) << e["layers"].get<size_t>() << std::setw(8)
          << e["unique_layers"].get<size_t>() << std::setw(10) << std::fixed << std::setprecision(3)
          << e["macs"].get<long long>() / 1e9 << std::defaultfloat << "  "
          << e["description"].get<std::string>() << "\n";
    return 0;
  }
  const Network n =
      parse_network_arg(o.network, "network", core::make_onnx_options(o.input_shapes, o.strict));
  for (const auto& l : n.layers) j.push_back(layer_to_json(l));
  if (o.json) {
    if (n.skipped.empty() && n.warnings.empty()) {
      out << j.dump(2) << "\n";
    } else {  // an imported file: what was read, skipped and not mapped
      nlohmann::json skipped = nlohmann::json::object();
      for (const auto& [op, count] : n.skipped) skipped[op] = count;
      out << nlohmann::json{{"name", n.name},
                            {"description", n.description},
                            {"layers", j},
                            {"skipped", skipped},
                            {"warnings", n.warnings}}
                 .dump(2)
          << "\n";
    }
    return 0;
  }
  out << n.name << ": " << n.layers.size() << " layers, " << n.unique_layers().size()
      << " unique shapes, " << std::fixed << std::setprecision(3) << n.total_macs() / 1e9
      << " GMACs" << (n.description.empty() ? "" : "; " + n.description) << "\n"
      << std::defaultfloat;
  for (const auto& l : n.layers)
    out << "  " << std::left << std::setw(24) << l.name << std::right << " " << l.describe()
        << "\n";
  out << core::import_note(n);
  return 0;
}

namespace {

/// The harness `verify`, `fidelity` and the main job simulate `a` in ("" without the RTL).
std::string flow_harness(const Arch& a) {
#ifdef MAPWRIGHT_HAVE_RTL
  return systemc::harness_label(systemc::RtlEvaluator::resolve(systemc::RtlHarness::Auto, a));
#else
  (void)a;
  return "";
#endif
}

/// Where the RTL model of `a` comes from, without building anything, and the harness it runs in.
nlohmann::json model_status(const Arch& a) {
  rtlpool::ModelCacheOptions look;
  look.build = false;
  const rtlpool::ModelLookup m = rtlpool::find_or_build_model(rtlpool::model_params(a), "-", look);
  nlohmann::json j;
  if (m.prebuilt)
    j = {{"source", "compiled-in"}, {"model", m.name}};
  else if (m.ok())
    j = {{"source", "cache"}, {"model", m.name}, {"path", m.exe}};
  else if (!m.key.empty())
    j = {{"source", "built on first use"}, {"model", m.name}};
  else
    return {{"source", "none"}, {"reason", m.failure}};
  if (const std::string h = flow_harness(a); !h.empty()) j["harness"] = h;
  return j;
}

/// Builds (or finds) the RTL model of each of `o.build`; 0 when all have one, else 1.
int build_models(const ArchsOptions& o, std::ostream& out) {
  std::vector<Arch> archs;
  for (const auto& b : o.build) archs.push_back(load_arch(b));  // bad names first, exit 2
  auto params = [&](const Arch& a) {
    rtlpool::ModelParams p = rtlpool::model_params(a);
    p.traced = o.traced;
    return p;
  };
  for (size_t i = 0; i < archs.size(); ++i)
    if (std::string why = rtlpool::check_model_params(rtlpool::model_params(archs[i]));
        !why.empty())
      throw SpecError("--build", "build", o.build[i], "no RTL model can be built: " + why);
  int rc = 0;
  nlohmann::json j = nlohmann::json::array();
  for (size_t i = 0; i < archs.size(); ++i) {
    rtlpool::ModelCacheOptions opt;
    opt.jobs = o.jobs;
    opt.progress = &std::cerr;
    const rtlpool::ModelParams p = params(archs[i]);
    const rtlpool::ModelLookup m = rtlpool::find_or_build_model(p, "compiled-in", opt);
    nlohmann::json e{{"arch", o.build[i]},  {"params", rtlpool::describe(p)},
                     {"ok", m.ok()},        {"prebuilt", m.prebuilt},
                     {"built", m.built},    {"build_seconds", m.build_seconds},
                     {"model", m.name},     {"path", m.prebuilt ? std::string() : m.exe},
                     {"failure", m.failure}};
    j.push_back(e);
    if (!m.ok()) rc = 1;
    if (o.json) continue;
    out << o.build[i] << " (" << e["params"].get<std::string>() << "): ";
    if (!m.ok())
      out << "FAILED: " << m.failure << "\n";
    else if (m.prebuilt)
      out << "compiled into this mapwright (" << m.name << ")\n";
    else if (m.built)
      out << "built in " << std::fixed << std::setprecision(1) << m.build_seconds << " s: " << m.exe
          << "\n";
    else
      out << "already in the cache: " << m.exe << "\n";
  }
  if (o.json) out << j.dump(2) << "\n";
  return rc;
}

}  // namespace

int cmd_archs(const ArchsOptions& o, std::ostream& out) {
  if (o.jobs < 0)
    throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0 (0 = every core)");
  if (!o.build.empty()) return build_models(o, out);
  // A configs/arch folder in the working directory wins over the built-in configs without
  // MAPWRIGHT_CONFIGS: say so once, on stderr, so the list is never a silent surprise.
  if (const char* env = std::getenv("MAPWRIGHT_CONFIGS");
      (!env || !*env) && configs_dir() == "configs") {
    const std::string builtin = core::builtin_configs_dir();
    std::error_code ec;
    if (!builtin.empty() && fs::is_directory(fs::path(builtin) / "arch", ec) &&
        !fs::equivalent("configs", builtin, ec))
      std::cerr << "note: using configs from ./configs (shadows the built-in ones in " << builtin
                << ")\n";
  }
  nlohmann::json j;
  for (const auto& name : arch_names()) {
    const Arch a = load_arch(name);
    j.push_back({{"name", a.name},
                 {"rows", a.rows},
                 {"cols", a.cols},
                 {"input_kib", a.input_buf_bytes / 1024},
                 {"weight_kib", a.weight_buf_bytes / 1024},
                 {"accum_kib", a.accum_buf_bytes / 1024},
                 {"dram_bytes_per_cycle", a.dram_bytes_per_cycle},
                 {"dram_latency_cycles", a.dram_latency_cycles},
                 {"dram_port", dram_port_name(a.dram_port)},
                 {"buffer_banks", a.buffer_banks},
                 {"rtl_model", model_status(a)}});
  }
  if (o.json) {
    out << j.dump(2) << "\n";
    return 0;
  }
  size_t width = 10;  // the name column fits the longest name
  for (const auto& e : j) width = std::max(width, e["name"].get<std::string>().size());
  for (const auto& e : j)
    out << std::left << std::setw(static_cast<int>(width)) << e["name"].get<std::string>()
        << std::right << " " << e["rows"].get<int>() << "x" << e["cols"].get<int>() << "  input "
        << e["input_kib"].get<long long>() << " KiB, weight " << e["weight_kib"].get<long long>()
        << " KiB, accum " << e["accum_kib"].get<long long>() << " KiB"
        << (e["buffer_banks"].get<int>() > 0
                ? " (input and weight in " + std::to_string(e["buffer_banks"].get<int>()) +
                      " banks)"
                : std::string())
        << ", DRAM " << e["dram_bytes_per_cycle"].get<double>() << " B/cycle, "
        << e["dram_latency_cycles"].get<int>() << " cycles latency, "
        << e["dram_port"].get<std::string>()
        << " port, RTL model: " << e["rtl_model"]["source"].get<std::string>()
        << (e["rtl_model"].contains("harness")
                ? ", " + e["rtl_model"]["harness"].get<std::string>() + " harness"
                : std::string())
        << "\n";
  return 0;
}

}  // namespace mapwright::flows
