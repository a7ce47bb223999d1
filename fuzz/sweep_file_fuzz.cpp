// Fuzz target: sweep file YAML (flows::load_sweep_file, compiled from sweep_file.cpp).
#include "fuzz_common.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("sweep.yaml", data, size);
  try {
    mapwright::flows::load_sweep_file(path);
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
