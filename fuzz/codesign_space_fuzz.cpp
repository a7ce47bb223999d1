// Fuzz target: codesign space YAML (flows::load_codesign_space, compiled from space_file.cpp).
#include "fuzz_common.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/support/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("space.yaml", data, size);
  try {
    mapwright::flows::load_codesign_space(path);
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
