// Fuzz target: the inline --layer grammar (TYPE:KEY=VALUE,... and NETWORK:LAYER). Inputs that
// end in .yaml/.yml would name a file; they are skipped (layer_file_fuzz covers files).
#include "fuzz_common.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string arg(reinterpret_cast<const char*>(data), size);
  auto ends = [&](const char* s) {
    const std::string t(s);
    return arg.size() >= t.size() && arg.compare(arg.size() - t.size(), t.size(), t) == 0;
  };
  if (ends(".yaml") || ends(".yml")) return 0;
  try {
    mapwright::core::parse_layer_arg(arg, "--layer");
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
