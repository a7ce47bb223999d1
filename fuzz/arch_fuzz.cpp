// Fuzz target: architecture YAML (core::load_arch_file). A SpecError is the documented
// rejection; any other exception, crash, sanitizer report, leak or timeout is a finding.
#include "fuzz_common.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("arch.yaml", data, size);
  try {
    mapwright::core::load_arch_file(path);
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
