#pragma once
// The option groups several `mapwright` subcommands share (apps/mapwright_main.cpp builds the
// subcommands from them): the RTL simulation limits, --arch, the exact mapper's limits, the
// objective, --jobs, the ONNX import options, the file-driven commands' --file/--out/--resume
// and the SystemC harness.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "mapwright/flows/objective.hpp"
#include "mapwright/rtlpool/sim_limits.hpp"

namespace mapwright::cli {

/// --sim-max-cycles/-seconds/-memory-mb: the per-simulation limits of an RTL command.
void add_sim_limits(CLI::App* app, rtlpool::SimLimits& l, const std::string& prefix);

/// --arch: a named architecture (configs/arch) or a YAML file, described by `help`.
void add_arch(CLI::App* app, std::string& arch,
              const std::string& help = "Named architecture or YAML file");

/// --time-limit, --gap and --threads: the exact mapper's limits per layer.
void add_exact_options(CLI::App* app, flows::ExactOptions& e);

/// --objective and --options: what a layer search minimizes, and the searchers' options file.
void add_objective_options(CLI::App* app, std::string& objective, std::string& options_file);

/// `--jobs N` on `c`: `what` (0 = `zero`), its default shown.
void add_jobs(CLI::App* c, int& jobs, const std::string& what,
              const std::string& zero = "number of cores");

/// --input-shape and --strict: how an ONNX --network is read.
void add_import_options(CLI::App* app, std::vector<std::string>& input_shapes, bool& strict);

/// A subcommand that reads one YAML file (`--<flag>`, required, usually
/// configs/<folder>/<name>.yaml) and writes an output folder (--out, default
/// runs/<command>-<name>) that --resume continues (`kept`: what it keeps of the stopped run):
/// tune, study, sweep and codesign.
CLI::App* add_file_command(CLI::App& app, const std::string& command, const std::string& about,
                           const std::string& flag, const std::string& what,
                           const std::string& folder, const std::string& kept, std::string& file,
                           std::string& out, bool& resume);

/// --harness: auto | systemc | decoupled, the SystemC harness around the RTL.
void add_harness(CLI::App* sub, std::string& harness);

}  // namespace mapwright::cli
