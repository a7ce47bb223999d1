#pragma once
// Internal to the ONNX import (onnx_import.cpp): folding of integer shape computations.
//
// Exporters write dynamic axes as small integer programs: Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, with Cast, arithmetic, Slice, Equal/Where and ConstantOfShape in between.
// Once the graph inputs have static shapes, every such value is a constant; the ONNX library's
// data propagation covers only some of these ops (not Cast or Div in ONNX 1.12), so a Reshape
// fed by them keeps an unknown shape. fold_shape_computations evaluates every node of the
// default domain whose inputs are known small integer tensors (or, for Shape and Size, whose
// input shape is static) and replaces each integer-valued one by a Constant node with the same
// output; the library's inference then sees the constants. Tensors larger than kMaxFoldElems are
// never folded (these are shape programs, not data).

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

namespace mapwright::core::onnx_detail {

/// Static shapes by tensor name (only tensors whose every dimension is known).
using StaticShapes = std::unordered_map<std::string, std::vector<int64_t>>;

/// The largest integer tensor evaluated.
inline constexpr int64_t kMaxFoldElems = 4096;

/// The attribute `name` of `n`, or null.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);
/// An INT attribute, or `fallback` if absent or of another type.
int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback);
/// An INTS attribute, or nullopt if absent or of another type.
std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& n, const std::string& name);

/// Replaces the integer shape computations of `g` whose values are known by Constant nodes
/// (same name and output); returns how many nodes it replaced. `opset` is the default domain's
/// version (Unsqueeze, Squeeze and Slice take their axes from attributes before 13 and 10).
int fold_shape_computations(onnx::GraphProto& g, const StaticShapes& shapes, int64_t opset);

}  // namespace mapwright::core::onnx_detail
