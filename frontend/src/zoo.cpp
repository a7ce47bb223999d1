// The built-in network zoo: ResNet-18/50, VGG16, MobileNet-v2 (ImageNet 224x224, batch 1) and a
// BERT-base encoder layer at sequence length 128 and 512, each built layer by layer with exact
// shapes and validated through make_layer.
#include "mapwright/frontend/zoo.hpp"

#include <map>
#include <sstream>

#include "mapwright/core/layer_shapes.hpp"
#include "mapwright/support/error.hpp"

namespace mapwright::core {

namespace {

/// Appends validated layers to a network; tracks nothing else (callers track spatial sizes).
class Builder {
 public:
  Builder(std::string name, std::string description) {
    net_.name = std::move(name);
    net_.description = std::move(description);
  }

  /// Normal convolution (G=1) on an hw x hw input; returns the output size.
  int64_t conv(const std::string& name, int64_t cin, int64_t cout, int64_t hw, int64_t kernel,
               int64_t stride, int64_t pad) {
    return square(name, LayerKind::Conv, 1, cin, cout, hw, kernel, stride, pad);
  }

  /// Depthwise convolution (G=channels, K=C=1); returns the output size.
  int64_t depthwise(const std::string& name, int64_t channels, int64_t hw, int64_t kernel,
                    int64_t stride, int64_t pad) {
    return square(name, LayerKind::Depthwise, channels, 1, 1, hw, kernel, stride, pad);
  }

  /// GEMM M x Kr . Kr x Nc, optionally G of them side by side (LayerKind::Grouped if G > 1).
  void gemm(const std::string& name, int64_t m, int64_t kr, int64_t nc, int64_t groups = 1) {
    add(gemm_layer(name, m, kr, nc, groups));
  }

  Network take() { return std::move(net_); }

 private:
  /// A `kind` layer of `g` groups with a square kernel on a square input; its output size.
  int64_t square(const std::string& name, LayerKind kind, int64_t g, int64_t cin, int64_t cout,
                 int64_t hw, int64_t kernel, int64_t stride, int64_t pad) {
    return add(square_layer(name, kind, g, cin, cout, hw, kernel, stride, pad)).p;
  }

  const Layer& add(const Layer& raw) {
    net_.layers.push_back(make_layer(raw, "zoo:" + net_.name));
    return net_.layers.back();
  }

  Network net_;
};

/// A torchvision ResNet on ImageNet 224x224, batch 1: the 7x7 stem and max pool, then four
/// stages of `blocks[stage]` residual blocks, basic (two 3x3 convs, ResNet-18/34) or bottleneck
/// (1x1, 3x3, 1x1 with 4x expansion; v1.5: the stride on the 3x3), a 1x1 downsample where the
/// shape changes, and the classifier.
Network build_resnet(const std::string& name, const std::string& description, const int blocks[4],
                     bool bottleneck) {
  Builder b(name, description);
  int64_t hw = b.conv("conv1", 3, 64, 224, 7, 2, 3);  // 112
  hw = (hw + 2 * 1 - 3) / 2 + 1;                      // 3x3 max pool, stride 2, pad 1 -> 56
  int64_t in = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t width = widths[stage];
    const int64_t out = bottleneck ? 4 * width : width;
    for (int block = 0; block < blocks[stage]; ++block) {
      const std::string prefix =
          "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      const int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      int64_t out_hw = 0;
      if (bottleneck) {
        b.conv(prefix + "conv1", in, width, hw, 1, 1, 0);
        out_hw = b.conv(prefix + "conv2", width, width, hw, 3, stride, 1);
        b.conv(prefix + "conv3", width, out, out_hw, 1, 1, 0);
      } else {
        out_hw = b.conv(prefix + "conv1", in, width, hw, 3, stride, 1);
        b.conv(prefix + "conv2", width, width, out_hw, 3, 1, 1);
      }
      if (stride != 1 || in != out) b.conv(prefix + "downsample", in, out, hw, 1, stride, 0);
      in = out;
      hw = out_hw;
    }
  }
  b.gemm("fc", 1, in, 1000);
  return b.take();
}

Network build_resnet18() {
  const int blocks[] = {2, 2, 2, 2};
  return build_resnet("resnet18", "ResNet-18 (torchvision), ImageNet 224x224, batch 1", blocks,
                      false);
}

Network build_resnet50() {
  const int blocks[] = {3, 4, 6, 3};
  return build_resnet("resnet50", "ResNet-50 v1.5 (torchvision), ImageNet 224x224, batch 1", blocks,
                      true);
}

Network build_vgg16() {
  Builder b("vgg16", "VGG-16 (configuration D), ImageNet 224x224, batch 1");
  const int64_t widths[] = {64, 128, 256, 512, 512};
  const int convs[] = {2, 2, 3, 3, 3};
  int64_t hw = 224;
  int64_t in = 3;
  for (int stage = 0; stage < 5; ++stage) {
    for (int i = 0; i < convs[stage]; ++i) {
      const std::string name = "conv" + std::to_string(stage + 1) + "_" + std::to_string(i + 1);
      hw = b.conv(name, in, widths[stage], hw, 3, 1, 1);
      in = widths[stage];
    }
    hw /= 2;  // 2x2 max pool, stride 2
  }
  b.gemm("fc6", 1, in * hw * hw, 4096);  // 512 x 7 x 7 = 25088 features
  b.gemm("fc7", 1, 4096, 4096);
  b.gemm("fc8", 1, 4096, 1000);
  return b.take();
}

Network build_mobilenet_v2() {
  Builder b("mobilenet_v2", "MobileNet-v2 (width 1.0, torchvision), ImageNet 224x224, batch 1");
  int64_t hw = b.conv("features.0", 3, 32, 224, 3, 2, 1);  // 112
  int64_t in = 32;
  struct Setting {
    int64_t t, c;
    int n;
    int64_t s;
  };
  const Setting settings[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int index = 1;
  for (const Setting& st : settings) {
    for (int i = 0; i < st.n; ++i, ++index) {
      const std::string prefix = "features." + std::to_string(index) + ".";
      const int64_t stride = i == 0 ? st.s : 1;
      const int64_t hidden = in * st.t;
      if (st.t == 1) {
        const int64_t out_hw = b.depthwise(prefix + "dw", hidden, hw, 3, stride, 1);
        b.conv(prefix + "pw", hidden, st.c, out_hw, 1, 1, 0);
        hw = out_hw;
      } else {
        b.conv(prefix + "expand", in, hidden, hw, 1, 1, 0);
        const int64_t out_hw = b.depthwise(prefix + "dw", hidden, hw, 3, stride, 1);
        b.conv(prefix + "project", hidden, st.c, out_hw, 1, 1, 0);
        hw = out_hw;
      }
      in = st.c;
    }
  }
  b.conv("features." + std::to_string(index), in, 1280, hw, 1, 1, 0);  // features.18
  b.gemm("classifier", 1, 1280, 1000);
  return b.take();
}

Network build_bert_base(int64_t seq) {
  const int64_t hidden = 768, heads = 12, head_dim = 64, ffn = 3072;
  Builder b("bert_base_s" + std::to_string(seq),
            "BERT-base encoder layer (hidden 768, 12 heads, FFN 3072), sequence length " +
                std::to_string(seq) + ", batch 1");
  b.gemm("q_proj", seq, hidden, hidden);
  b.gemm("k_proj", seq, hidden, hidden);
  b.gemm("v_proj", seq, hidden, hidden);
  b.gemm("attn_scores", seq, head_dim, seq, heads);   // Q . K^T per head
  b.gemm("attn_context", seq, seq, head_dim, heads);  // softmax(scores) . V per head
  b.gemm("out_proj", seq, hidden, hidden);
  b.gemm("ffn1", seq, hidden, ffn);
  b.gemm("ffn2", seq, ffn, hidden);
  return b.take();
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

int64_t Network::total_macs() const {
  int64_t total = 0;
  for (const auto& l : layers) total += l.macs();
  return total;
}

std::vector<std::pair<Layer, int>> Network::unique_layers() const {
  std::vector<std::pair<Layer, int>> out;
  std::map<std::string, size_t> index;
  for (const auto& l : layers) {
    auto [it, inserted] = index.emplace(l.shape_key(), out.size());
    if (inserted)
      out.emplace_back(l, 1);
    else
      ++out[it->second].second;
  }
  return out;
}

const std::vector<std::string>& zoo_names() {
  static const std::vector<std::string> names = {
      "resnet18", "resnet50", "vgg16", "mobilenet_v2", "bert_base_s128", "bert_base_s512"};
  return names;
}

Network zoo_network(const std::string& name, const std::string& where) {
  if (name == "resnet18") return build_resnet18();
  if (name == "resnet50") return build_resnet50();
  if (name == "vgg16") return build_vgg16();
  if (name == "mobilenet_v2") return build_mobilenet_v2();
  if (name == "bert_base_s128") return build_bert_base(128);
  if (name == "bert_base_s512") return build_bert_base(512);
  throw SpecError(where, "network", name, "unknown network; known: " + join(zoo_names()));
}

Layer zoo_layer(const std::string& net, const std::string& layer_name, const std::string& where) {
  const Network network = zoo_network(net, where);
  for (const auto& l : network.layers)
    if (l.name == layer_name) return l;
  // Name the first few and the last layer, so the message stays one readable line.
  constexpr size_t kShown = 8;
  std::ostringstream known;
  const auto& layers = network.layers;
  for (size_t i = 0; i < layers.size() && i < kShown; ++i)
    known << (i ? ", " : "") << layers[i].name;
  if (layers.size() > kShown + 1) known << ", ...";
  if (layers.size() > kShown) known << ", " << layers.back().name;
  known << " (" << layers.size() << " layers)";
  throw SpecError(where, "layer", net + ":" + layer_name,
                  "unknown layer of network '" + net + "'; known: " + known.str());
}

}  // namespace mapwright::core
