#pragma once
/// \file zoo.hpp
/// A built-in zoo of real networks with their exact layer shapes (ImageNet 224x224, batch 1;
/// BERT-base encoder layers at sequence length 128 and 512).
///
/// Conventions: normal convolutions are `LayerKind::Conv` (G=1); depthwise convolutions are
/// `LayerKind::Depthwise` (G=channels, K=C=1); fully connected layers and projections are
/// `LayerKind::Gemm` (a GEMM `M x Kr . Kr x Nc` is N=1, H=P=M, W=Q=1, C=Kr, K=Nc, R=S=1);
/// batched per-head GEMMs are `LayerKind::Grouped` with G=heads and R=S=1.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mapwright/core/layer.hpp"

namespace mapwright::core {

/// A network: an ordered list of layers (every conv and FC layer; pooling/activation are not
/// mapped).
struct Network {
  std::string name;           ///< Zoo name, e.g. "resnet50".
  std::string description;    ///< One-line description.
  std::vector<Layer> layers;  ///< Every mapped layer, in execution order.
  /// Ops of an imported file that are not compute layers, by type, with their counts (empty for
  /// the zoo and YAML networks).
  std::vector<std::pair<std::string, int>> skipped;
  /// What an import could not map (an unsupported compute op, by node, with the reason).
  std::vector<std::string> warnings;

  /// Sum of the MACs of all layers.
  int64_t total_macs() const;
  /// Unique layer shapes in first-seen order, with how many times each occurs.
  std::vector<std::pair<Layer, int>> unique_layers() const;
};

/// Names of the built-in networks: resnet18, resnet50, vgg16, mobilenet_v2, bert_base_s128,
/// bert_base_s512.
const std::vector<std::string>& zoo_names();

/// The network by name; throws SpecError(where, "network", name, "unknown network; known: ...")
/// if unknown.
Network zoo_network(const std::string& name, const std::string& where = "--network");

/// A layer by "net:layer-name"; throws SpecError naming the known layer names (abbreviated) if
/// not found (and the known networks if `net` is unknown).
Layer zoo_layer(const std::string& net, const std::string& layer_name, const std::string& where);

}  // namespace mapwright::core
