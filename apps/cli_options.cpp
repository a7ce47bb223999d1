// The option groups several subcommands share (cli_options.hpp).
#include "cli_options.hpp"

namespace mapwright::cli {

void add_sim_limits(CLI::App* app, rtlpool::SimLimits& l, const std::string& prefix) {
  app->add_option("--sim-max-cycles", l.max_cycles,
                  prefix + "do not simulate a mapping predicted to take more cycles (max 1e12)")
      ->capture_default_str();
  app->add_option("--sim-max-seconds", l.max_seconds,
                  prefix + "stop a simulation after this many seconds of wall clock (max 604800)")
      ->capture_default_str();
  app->add_option("--sim-max-memory-mb", l.max_memory_mb,
                  prefix + "do not simulate a mapping estimated to allocate more MiB (max 1048576)")
      ->capture_default_str();
}

void add_arch(CLI::App* app, std::string& arch, const std::string& help) {
  app->add_option("--arch", arch, help)->capture_default_str();
}

void add_exact_options(CLI::App* app, flows::ExactOptions& e) {
  app->add_option("--time-limit", e.time_limit_s,
                  "exact: wall-clock limit per layer in seconds (anytime: best found + proven gap)")
      ->capture_default_str();
  app->add_option("--gap", e.gap,
                  "exact: stop once the proven relative gap is at most this (0.001 = 0.1 %)")
      ->capture_default_str();
  app->add_option("--threads", e.threads, "exact: threads (0 = number of cores)")
      ->capture_default_str();
}

void add_objective_options(CLI::App* app, std::string& objective, std::string& options_file) {
  app->add_option("--objective", objective, "edp | latency | energy | mix:latency=W,energy=W")
      ->capture_default_str();
  app->add_option("--options", options_file,
                  "Search options YAML (default configs/search/default.yaml)");
}

void add_jobs(CLI::App* c, int& jobs, const std::string& what, const std::string& zero) {
  c->add_option("--jobs", jobs, what + " (0 = " + zero + ")")->capture_default_str();
}

void add_import_options(CLI::App* app, std::vector<std::string>& input_shapes, bool& strict) {
  app->add_option("--input-shape", input_shapes,
                  "ONNX: fix a graph input's dynamic dimensions, NAME=D0xD1x... (repeatable)")
      ->take_all();
  app->add_flag("--strict", strict,
                "ONNX: a compute op that cannot be mapped is an error (default: a warning)");
}

CLI::App* add_file_command(CLI::App& app, const std::string& command, const std::string& about,
                           const std::string& flag, const std::string& what,
                           const std::string& folder, const std::string& kept, std::string& file,
                           std::string& out, bool& resume) {
  auto* c = app.add_subcommand(command, about);
  c->add_option("--" + flag, file, what + " YAML (configs/" + folder + "/<name>.yaml)")->required();
  c->add_option("--out", out, "Output folder (default runs/" + command + "-<name>)");
  c->add_flag("--resume", resume, "Continue the " + command + " in --out: " + kept);
  return c;
}

void add_harness(CLI::App* sub, std::string& harness) {
  sub->add_option("--harness", harness,
                  "auto | systemc | decoupled: the SystemC harness around the RTL (auto: the "
                  "decoupled one where the architecture has a plain model and no waveform is "
                  "asked for, else the pin-level testbench; results are the same)")
      ->capture_default_str();
}

}  // namespace mapwright::cli
