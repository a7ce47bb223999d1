// Where the shipped configs live: the MAPWRIGHT_CONFIGS environment variable, a configs/arch
// folder in the working directory, or the source tree this build was configured from (baked in
// as MAPWRIGHT_SOURCE_DIR by support/CMakeLists.txt).
#include "mapwright/support/configs_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace mapwright::core {

std::string builtin_configs_dir() {
#ifdef MAPWRIGHT_SOURCE_DIR
  return std::string(MAPWRIGHT_SOURCE_DIR) + "/configs";
#else
  return "";
#endif
}

std::string configs_dir() {
  if (const char* env = std::getenv("MAPWRIGHT_CONFIGS"); env && *env) return env;
  std::error_code ec;
  if (fs::is_directory("configs/arch", ec)) return "configs";
  const std::string builtin = builtin_configs_dir();
  return builtin.empty() ? "configs" : builtin;
}

}  // namespace mapwright::core
