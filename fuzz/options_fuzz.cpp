// Fuzz target: search options YAML (search::parse_search_options). Its documented rejection is
// std::invalid_argument carrying the core SpecError text.
#include <stdexcept>
#include <string>

#include "mapwright/search/options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    mapwright::search::parse_search_options(text, "fuzz.yaml");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
