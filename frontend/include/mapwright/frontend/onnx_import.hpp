#pragma once
/// \file onnx_import.hpp
/// Reading a network from an ONNX file (the ONNX C++ library from Debian, libonnx).
///
/// Every Conv (2-D; groups become grouped or depthwise layers), Gemm and MatMul (batched too:
/// broadcast batch dimensions whose second operand is shared become the batch N, the others
/// groups G, as the attention MatMuls of a transformer) becomes one layer named by its ONNX
/// node name, in graph order. Other ops (ReLU, Add, pooling, Softmax, ...) are skipped and
/// counted by type. A compute op that mapwright cannot express (ConvTranspose, Einsum, a dilated
/// or asymmetrically padded Conv, ...) is named in a warning, or refused under `strict`.
///
/// Shapes come from the file's value_info where present, from the ONNX library's shape
/// inference with data propagation, and from our own folding of integer shape computations
/// (Shape -> Gather -> Concat -> Reshape chains that exporters emit for dynamic axes), repeated
/// until nothing changes. A compute op whose input shape is still unknown is an error naming
/// the tensor and the graph inputs whose dimensions are dynamic (`--input-shape` fixes them).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mapwright/frontend/zoo.hpp"

namespace mapwright::core {

/// How to read an ONNX file.
struct OnnxOptions {
  /// Shapes of graph inputs, by name, replacing the file's (dynamic) dimensions.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  bool strict = false;  ///< An unsupported compute op is an error instead of a warning.
};

/// Parses "NAME=1x3x224x224" (the last '=' splits; every dimension a positive integer) into
/// `o.input_shapes`; a malformed text or a name given twice is a SpecError naming `where`.
void add_input_shape(OnnxOptions& o, const std::string& text,
                     const std::string& where = "--input-shape");

/// The options of `--input-shape` texts (each NAME=D0xD1x...) and `--strict`.
OnnxOptions make_onnx_options(const std::vector<std::string>& input_shapes, bool strict);

/// What an import left out, for the terminal: one line with the skipped ops by type and one line
/// per warning; empty for networks that were not imported (zoo, YAML).
std::string import_note(const Network& n);

/// True if `path` names an ONNX file (it ends in ".onnx", any case).
bool is_onnx_path(const std::string& path);

/// The highest default-domain opset this build reads (that of the ONNX library), and the lowest.
int onnx_max_opset();
inline constexpr int kOnnxMinOpset = 7;

/// Reads the ONNX file at `path` into a network named after the file (its stem). The
/// network's `skipped` and `warnings` say what was not mapped. A missing, truncated, corrupt or
/// non-ONNX file, an unsupported opset, an unresolved dynamic shape, a bad --input-shape, or
/// (strict) an unsupported compute op is a SpecError naming the file, the node or tensor, and
/// the reason.
Network import_onnx(const std::string& path, const OnnxOptions& o = {});

}  // namespace mapwright::core
