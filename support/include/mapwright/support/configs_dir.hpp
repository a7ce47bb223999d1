#pragma once
/// \file configs_dir.hpp
/// Where the shipped configs (configs/arch, configs/search, ...) are found.

#include <string>

namespace mapwright::core {

/// The folder holding the shipped configs: env MAPWRIGHT_CONFIGS, else ./configs when it has
/// an arch/ folder, else the source tree's.
std::string configs_dir();
/// The configs shipped with the source tree, "" when the build does not know it.
std::string builtin_configs_dir();

}  // namespace mapwright::core
