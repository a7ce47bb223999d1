#pragma once
/// \file commands.hpp
/// The subcommands behind the `mapwright` CLI. Each takes plain options, writes its human or
/// JSON output to `out`, and returns the process exit code. Bad input throws core::SpecError
/// (the CLI prints it and exits 2).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/core/layer.hpp"
#include "mapwright/core/mapping.hpp"

namespace mapwright::flows {

struct EvalOptions {
  std::string arch = "default";  ///< Named arch or YAML file.
  std::string layer;             ///< --layer argument.
  std::string mapping;           ///< Mapping YAML file, or "default" for the greedy mapping.
  bool json = false;             ///< One JSON object instead of a table.
};
int cmd_eval(const EvalOptions& o, std::ostream& out);

/// The mapping a --mapping argument names: a YAML file, or "default"/"" for the greedy
/// default mapping; checked against the layer and arch (errors name the file or flag).
core::Mapping resolve_mapping(const std::string& arg, const core::Layer& layer,
                              const core::Arch& arch);

struct SpaceOptions {
  std::string arch = "default";  ///< Named arch or YAML file.
  std::string layer;             ///< --layer argument.
  int sample = 0;                ///< Valid mappings to sample uniformly.
  uint64_t seed = 1;             ///< Seed for sampling.
  std::string write_dir;         ///< Write sampled mappings as YAML files here.
  bool json = false;             ///< One JSON object instead of text.
};
int cmd_space(const SpaceOptions& o, std::ostream& out);

struct NetworksOptions {
  std::string network;                    ///< Empty: list the zoo; else list this network's layers.
  bool json = false;                      ///< JSON output.
  std::vector<std::string> input_shapes;  ///< ONNX: --input-shape NAME=D0xD1x...
  bool strict = false;                    ///< ONNX: an unsupported compute op is an error.
};
int cmd_networks(const NetworksOptions& o, std::ostream& out);

struct ArchsOptions {
  bool json = false;               ///< JSON output.
  std::vector<std::string> build;  ///< --build NAME|FILE: build (or find) their RTL models.
  int jobs = 0;                    ///< --jobs: parallel compile jobs of a build (0 = cores).
  bool traced = false;             ///< --traced: build the traced twins (for verify --trace).
};
/// Lists the named architectures with where their RTL model comes from (compiled in, the
/// model cache, or built on first use); with `build`, builds the RTL models of the named
/// architectures or files ahead of a run (exit 1 when a build fails, 2 for bad input).
int cmd_archs(const ArchsOptions& o, std::ostream& out);

}  // namespace mapwright::flows
