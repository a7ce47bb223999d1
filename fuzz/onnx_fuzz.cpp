// Fuzz target: an ONNX file (core::import_onnx): the protobuf reader, the checker, shape
// inference and the folding of shape programs, then the conversion of every node. A fixed
// --input-shape is tried too, so the dynamic-axis path runs on mutated encoder graphs.
#include "fuzz_common.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/onnx_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mapwright::fuzz::scratch_file("model.onnx", data, size);
  try {
    mapwright::core::import_onnx(path);
  } catch (const mapwright::core::SpecError&) {
  }
  try {
    mapwright::core::import_onnx(path,
                                 mapwright::core::make_onnx_options({"tokens=2x16x64"}, true));
  } catch (const mapwright::core::SpecError&) {
  }
  return 0;
}
