// Fuzz target: a network YAML file (core::parse_network_arg with a .yaml path).
#include "fuzz_common.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("net.yaml", data, size);
  try {
    mapwright::core::parse_network_arg(path, "--network");
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
