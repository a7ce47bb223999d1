// Fixture of tests/layering.cmake (tests/layering/README.md):
// the ONNX library outside the frontend.
#include <onnx/onnx_pb.h>
