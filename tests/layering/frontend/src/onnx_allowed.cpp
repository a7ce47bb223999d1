// Fixture of tests/layering.cmake (tests/layering/README.md):
// the frontend reads ONNX.
#include <onnx/onnx_pb.h>
#include "mapwright/core/layer.hpp"
