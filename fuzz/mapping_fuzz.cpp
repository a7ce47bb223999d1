// Fuzz target: mapping YAML (core::mapping_from_yaml), then the structural check against a
// fixed layer and architecture and the YAML round trip of every accepted mapping.
#include <cstdlib>

#include "fuzz_common.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/core/mapping.hpp"

using namespace mapwright::core;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  mapwright::fuzz::use_source_configs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Arch arch = load_arch("small8");
  static const Layer layer = parse_layer_arg("conv:K=16,C=16,H=14,W=14,R=3,S=3,pad=1", "fuzz");
  const std::string text(reinterpret_cast<const char*>(data), size);
  Mapping m;
  try {
    m = mapping_from_yaml(text, "fuzz.yaml");
  } catch (const SpecError&) {
    return 0;
  }
  // An accepted mapping must survive its own round trip exactly (a SpecError here escapes
  // and is a finding too).
  if (!(mapping_from_yaml(mapping_to_yaml(m), "roundtrip") == m)) std::abort();
  try {
    check_mapping(m, layer, arch, "fuzz.yaml");
  } catch (const SpecError&) {
  }
  return 0;
}
