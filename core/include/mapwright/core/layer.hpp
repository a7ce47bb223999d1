#pragma once
/// \file layer.hpp
/// A DNN layer in the normalized 7-loop form N, K, C, P, Q, R, S plus groups G.
///
/// Every supported layer (conv2d with stride and padding, depthwise and grouped conv,
/// GEMM / fully connected, batched) becomes one `Layer`:
///   out[n][g][k][p][q] += in[n][g][c][p*stride + r - pad][q*stride + s - pad] * w[g][k][c][r][s]
/// K and C count channels *per group*. A GEMM `M x Kr . Kr x Nc` is N=1, P=M, Q=1, C=Kr, K=Nc,
/// R=S=1, H=M, W=1. Depthwise conv is G=channels, K=C=1.

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace mapwright::core {

/// The eight loop dimensions. G (groups) is always the outermost level-2 loop.
enum class Dim : int { N = 0, K, C, P, Q, R, S, G };
inline constexpr int kNumDims = 8;
/// The seven dimensions whose level-2 order is a mapping choice (G excluded).
inline constexpr int kNumOrderedDims = 7;
const char* dim_name(Dim d);

/// What the user described; kept for reports (the loop form is the same for all).
enum class LayerKind { Conv, Depthwise, Grouped, Gemm };
const char* layer_kind_name(LayerKind k);
/// The kind named by layer_kind_name; throws SpecError naming `where` for any other name.
LayerKind layer_kind_from_name(const std::string& name, const std::string& where);

/// One layer, immutable after `make_layer` validated it.
struct Layer {
  std::string name;                  ///< Human-readable name (zoo name or "inline").
  LayerKind kind = LayerKind::Conv;  ///< Original kind, for reports.
  int64_t n = 1;                     ///< Batch.
  int64_t g = 1;                     ///< Groups.
  int64_t k = 1;                     ///< Output channels per group.
  int64_t c = 1;                     ///< Input channels per group.
  int64_t h = 1;                     ///< Input height (unpadded).
  int64_t w = 1;                     ///< Input width (unpadded).
  int64_t r = 1;                     ///< Filter height.
  int64_t s = 1;                     ///< Filter width.
  int64_t stride = 1;                ///< Stride (both axes).
  int64_t pad = 0;                   ///< Zero padding (both axes, both sides).
  int64_t p = 1;                     ///< Output height, derived.
  int64_t q = 1;                     ///< Output width, derived.

  /// Loop bound of dimension d.
  int64_t dim(Dim d) const;
  /// Multiply-accumulates of the whole layer.
  int64_t macs() const { return n * g * k * c * p * q * r * s; }
  int64_t input_elems() const { return n * g * c * h * w; }
  int64_t weight_elems() const { return g * k * c * r * s; }
  int64_t output_elems() const { return n * g * k * p * q; }
  /// Short one-line description, e.g. "conv N1 K64 C64 H56 W56 R3 S3 s1 p1 (G1)".
  std::string describe() const;
  /// A stable key of the shape (without the name), used to find unique layers.
  std::string shape_key() const;
};

/// Validates raw fields, derives P and Q, and returns the layer. Throws `SpecError`
/// naming `where` (file or flag), the key and the value on any bad field.
Layer make_layer(Layer raw, const std::string& where);

/// The one JSON form of a layer (results.json, the RTL worker protocol, `eval --json`):
/// name, kind (layer_kind_name), n g k c h w r s stride pad, and the derived p, q, macs.
nlohmann::json layer_to_json(const Layer& l);
/// Reads layer_to_json's form (the derived p, q, macs are recomputed, not read; a kind given as
/// its enum number, as format-1 run records hold it, is accepted) and validates it through
/// make_layer; a missing or mistyped field is a SpecError naming `where`.
Layer layer_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace mapwright::core
