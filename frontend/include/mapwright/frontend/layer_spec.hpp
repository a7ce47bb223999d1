#pragma once
/// \file layer_spec.hpp
/// Turning what a user types into layers and networks:
///   --layer 'conv:K=64,C=64,H=56,W=56,R=3,S=3,stride=1,pad=1'
///   --layer 'dwconv:C=32,H=112,W=112,R=3,S=3,stride=2,pad=1'
///   --layer 'gconv:G=4,K=64,C=64,H=28,W=28,R=3,S=3,pad=1'   (K and C are totals)
///   --layer 'gemm:M=128,N=768,K=768'  (optional B= batch)   --layer 'fc:IN=2048,OUT=1000'
///   --layer resnet50:layer3.0.conv2     (zoo)                 --layer my_layer.yaml
///   --layer model.onnx:/layer1/layer1.0/conv1/Conv   (a node of an ONNX file)
/// A layer YAML file holds `{type: conv, K: .., ...}` (same keys as inline); a network YAML
/// file holds `name:` and `layers:` (a list of such maps, each with a `name`).

#include <string>

#include "mapwright/core/layer.hpp"
#include "mapwright/frontend/onnx_import.hpp"
#include "mapwright/frontend/zoo.hpp"

namespace mapwright::core {

/// Resolves a --layer argument (inline, zoo reference, YAML file, or FILE.onnx:NODE read with
/// `onnx`). `where` names the flag.
Layer parse_layer_arg(const std::string& arg, const std::string& where = "--layer",
                      const OnnxOptions& onnx = {});
/// Resolves a --network argument: a zoo name, a network YAML file or an ONNX file (read with
/// `onnx`).
Network parse_network_arg(const std::string& arg, const std::string& where = "--network",
                          const OnnxOptions& onnx = {});

}  // namespace mapwright::core
