// Fuzz target: regress suite YAML (flows::load_regress_suite, compiled from regress_suite.cpp):
// cases with inline mappings and sweeps over the zoo and the named architectures.
#include "fuzz_common.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/regress.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  mapwright::fuzz::use_source_configs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("suite.yaml", data, size);
  try {
    mapwright::flows::load_regress_suite(path);
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
