// Fuzz target: study suite YAML (flows::load_study_suite, compiled from study_suite.cpp).
#include "fuzz_common.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/study.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("study.yaml", data, size);
  try {
    mapwright::flows::load_study_suite(path);
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
