#pragma once
// Internal to the ONNX import: the import itself, in the calling process (onnx_import.cpp).
// import_onnx runs it in a forked child (onnx_sandbox.cpp), because the ONNX library's checker
// and shape inference may kill the process on a malformed file.

#include <string>

#include "mapwright/frontend/onnx_import.hpp"

namespace mapwright::core::onnx_detail {

/// Reads, checks and infers the ONNX file at `path` and converts its compute nodes; errors are
/// SpecErrors as import_onnx documents them.
Network import_in_process(const std::string& path, const OnnxOptions& o);

}  // namespace mapwright::core::onnx_detail
