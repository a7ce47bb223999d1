// Tests of the built-in network zoo: total MACs against published figures, layer counts,
// spot shapes, unique-shape counting, BERT MACs from the formulas, and error messages.
#include "mapwright/frontend/zoo.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>
#include <vector>
#include <set>
#include <string>

#include "mapwright/support/error.hpp"

namespace mc = mapwright::core;

namespace {

/// Relative deviation of `actual` from `published`.
double deviation(int64_t actual, double published) {
  return std::fabs(static_cast<double>(actual) - published) / published;
}

const mc::Layer* find_layer(const mc::Network& net, const std::string& name) {
  for (const auto& l : net.layers)
    if (l.name == name) return &l;
  return nullptr;
}

int count_named(const mc::Network& net, const std::string& needle) {
  int n = 0;
  for (const auto& l : net.layers)
    if (l.name.find(needle) != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST(Zoo, NamesListsAllNetworks) {
  const std::vector<std::string> expected = {"resnet18",     "resnet50",       "vgg16",
                                             "mobilenet_v2", "bert_base_s128", "bert_base_s512"};
  EXPECT_EQ(mc::zoo_names(), expected);
  for (const auto& name : mc::zoo_names()) {
    const mc::Network net = mc::zoo_network(name);
    EXPECT_EQ(net.name, name);
    EXPECT_FALSE(net.description.empty());
    EXPECT_FALSE(net.layers.empty());
  }
}

// Published MAC counts (conv + FC, batch 1, 224x224): ResNet-18 1.814 G, ResNet-50 4.089 G,
// VGG16 15.47 G, MobileNet-v2 0.300 G. At most 2% deviation is allowed.
TEST(Zoo, TotalMacsMatchPublishedFigures) {
  EXPECT_LE(deviation(mc::zoo_network("resnet18").total_macs(), 1.814e9), 0.02);
  EXPECT_LE(deviation(mc::zoo_network("resnet50").total_macs(), 4.089e9), 0.02);
  EXPECT_LE(deviation(mc::zoo_network("vgg16").total_macs(), 15.47e9), 0.02);
  EXPECT_LE(deviation(mc::zoo_network("mobilenet_v2").total_macs(), 0.300e9), 0.02);
}

TEST(Zoo, LayerCounts) {
  const mc::Network r18 = mc::zoo_network("resnet18");
  EXPECT_EQ(r18.layers.size(), 21u);  // conv1 + 8 blocks x 2 convs + 3 downsample + fc
  EXPECT_EQ(count_named(r18, "downsample"), 3);
  EXPECT_EQ(r18.layers.back().name, "fc");

  const mc::Network r50 = mc::zoo_network("resnet50");
  EXPECT_EQ(r50.layers.size(), 54u);  // conv1 + 16 blocks x 3 convs + 4 downsample + fc
  EXPECT_EQ(count_named(r50, "downsample"), 4);
  EXPECT_EQ(r50.layers.back().name, "fc");

  const mc::Network vgg = mc::zoo_network("vgg16");
  EXPECT_EQ(vgg.layers.size(), 16u);  // 13 conv + 3 FC
  EXPECT_EQ(vgg.layers.front().name, "conv1_1");
  EXPECT_EQ(vgg.layers[12].name, "conv5_3");
  EXPECT_EQ(vgg.layers.back().name, "fc8");

  // features.0 + block 1 (dw, pw) + 16 blocks x (expand, dw, project) + features.18 + classifier.
  const mc::Network mnv2 = mc::zoo_network("mobilenet_v2");
  EXPECT_EQ(mnv2.layers.size(), static_cast<size_t>(1 + 2 + 16 * 3 + 1 + 1));
  EXPECT_EQ(mnv2.layers.size(), 53u);
  EXPECT_EQ(count_named(mnv2, ".dw"), 17);
  EXPECT_EQ(mnv2.layers.front().name, "features.0");
  EXPECT_EQ(mnv2.layers[mnv2.layers.size() - 2].name, "features.18");
  EXPECT_EQ(mnv2.layers.back().name, "classifier");

  EXPECT_EQ(mc::zoo_network("bert_base_s128").layers.size(), 8u);
  EXPECT_EQ(mc::zoo_network("bert_base_s512").layers.size(), 8u);
}

TEST(Zoo, LayerNamesAreUnique) {
  for (const auto& name : mc::zoo_names()) {
    const mc::Network net = mc::zoo_network(name);
    std::set<std::string> seen;
    for (const auto& l : net.layers) {
      EXPECT_TRUE(seen.insert(l.name).second) << name << ":" << l.name;
    }
  }
}

namespace {

/// One field of a layer by its letter (the names the checks below use).
int64_t field(const mc::Layer& l, const std::string& f) {
  const std::map<std::string, int64_t> v = {{"kind", static_cast<int64_t>(l.kind)},
                                            {"r", l.r},
                                            {"s", l.s},
                                            {"c", l.c},
                                            {"k", l.k},
                                            {"g", l.g},
                                            {"stride", l.stride},
                                            {"pad", l.pad},
                                            {"h", l.h},
                                            {"w", l.w},
                                            {"p", l.p},
                                            {"q", l.q}};
  return v.at(f);
}

}  // namespace

TEST(Zoo, SpotShapes) {
  const auto conv = static_cast<int64_t>(mc::LayerKind::Conv);
  const auto gemm = static_cast<int64_t>(mc::LayerKind::Gemm);
  const auto dw = static_cast<int64_t>(mc::LayerKind::Depthwise);
  // network, layer, then field/value pairs checked against published shapes.
  const std::vector<std::tuple<std::string, std::string, std::map<std::string, int64_t>>> spots = {
      {"resnet50",
       "layer3.0.conv2",
       {{"kind", conv},
        {"r", 3},
        {"s", 3},
        {"c", 256},
        {"k", 256},
        {"g", 1},
        {"stride", 2},
        {"pad", 1},
        {"h", 28},
        {"w", 28},
        {"p", 14},
        {"q", 14}}},
      {"resnet50", "conv1", {{"c", 3}, {"k", 64}, {"r", 7}, {"pad", 3}, {"stride", 2}, {"p", 112}}},
      {"resnet50", "layer1.0.downsample", {{"c", 64}, {"k", 256}, {"r", 1}, {"p", 56}}},
      {"resnet50", "fc", {{"kind", gemm}, {"c", 2048}, {"k", 1000}, {"p", 1}, {"q", 1}}},
      {"vgg16", "fc6", {{"c", 25088}, {"k", 4096}}},  // 7 x 7 x 512 inputs
      {"vgg16", "conv5_3", {{"c", 512}, {"p", 14}}},
      // 16 channels x expansion 6 groups.
      {"mobilenet_v2",
       "features.2.dw",
       {{"kind", dw}, {"g", 96}, {"k", 1}, {"c", 1}, {"stride", 2}, {"h", 112}, {"p", 56}}},
      {"mobilenet_v2", "features.18", {{"c", 320}, {"k", 1280}, {"p", 7}}},
      {"mobilenet_v2", "classifier", {{"c", 1280}, {"k", 1000}}},
      {"resnet18", "layer4.1.conv2", {{"c", 512}, {"k", 512}, {"p", 7}}},
  };
  for (const auto& [net, name, want] : spots) {
    const mc::Layer l = mc::zoo_layer(net, name, "test");
    for (const auto& [f, v] : want) EXPECT_EQ(field(l, f), v) << net << ":" << name << " " << f;
  }
}

TEST(Zoo, UniqueLayers) {
  const mc::Network r18 = mc::zoo_network("resnet18");
  const auto u18 = r18.unique_layers();
  ASSERT_EQ(u18.size(), 12u);
  int total = 0;
  for (const auto& [l, n] : u18) total += n;
  EXPECT_EQ(total, 21);
  EXPECT_EQ(u18[0].first.name, "conv1");
  EXPECT_EQ(u18[0].second, 1);
  EXPECT_EQ(u18[1].first.name, "layer1.0.conv1");  // all four 64-ch 3x3 convs of layer1
  EXPECT_EQ(u18[1].second, 4);
  EXPECT_EQ(u18.back().first.name, "fc");

  const mc::Network r50 = mc::zoo_network("resnet50");
  const auto u50 = r50.unique_layers();
  EXPECT_EQ(u50.size(), 24u);
  total = 0;
  for (const auto& [l, n] : u50) {
    total += n;
    if (l.name == "layer1.0.conv2") {
      EXPECT_EQ(n, 3);
    }
    if (l.name == "layer1.0.conv3") {
      EXPECT_EQ(n, 4);  // shares its shape with layer1.0.downsample
    }
    if (l.name == "layer3.1.conv2") {
      EXPECT_EQ(n, 5);
    }
  }
  EXPECT_EQ(total, 54);

  const auto ub = mc::zoo_network("bert_base_s128").unique_layers();
  ASSERT_EQ(ub.size(), 5u);
  EXPECT_EQ(ub[0].first.name, "q_proj");
  EXPECT_EQ(ub[0].second, 4);  // q, k, v and out projections
}

TEST(Zoo, BertMacsFromFormulas) {
  for (int64_t seq : {int64_t{128}, int64_t{512}}) {
    const int64_t d = 768, heads = 12, dh = 64, ffn = 3072;
    const int64_t projections = 4 * seq * d * d;           // q, k, v, out
    const int64_t attention = 2 * heads * seq * seq * dh;  // scores and context
    const int64_t feed_forward = 2 * seq * d * ffn;        // ffn1 and ffn2
    const mc::Network net = mc::zoo_network("bert_base_s" + std::to_string(seq));
    EXPECT_EQ(net.total_macs(), projections + attention + feed_forward) << seq;

    const mc::Layer* scores = find_layer(net, "attn_scores");
    ASSERT_NE(scores, nullptr);
    EXPECT_EQ(scores->kind, mc::LayerKind::Grouped);
    EXPECT_EQ(scores->g, heads);
    EXPECT_EQ(scores->p, seq);
    EXPECT_EQ(scores->q, 1);
    EXPECT_EQ(scores->c, dh);
    EXPECT_EQ(scores->k, seq);
    const mc::Layer* context = find_layer(net, "attn_context");
    ASSERT_NE(context, nullptr);
    EXPECT_EQ(context->g, heads);
    EXPECT_EQ(context->c, seq);
    EXPECT_EQ(context->k, dh);
    const mc::Layer* ffn1 = find_layer(net, "ffn1");
    ASSERT_NE(ffn1, nullptr);
    EXPECT_EQ(ffn1->kind, mc::LayerKind::Gemm);
    EXPECT_EQ(ffn1->p, seq);
    EXPECT_EQ(ffn1->c, d);
    EXPECT_EQ(ffn1->k, ffn);
  }
  EXPECT_EQ(mc::zoo_network("bert_base_s128").total_macs(), 931135488);
}

TEST(Zoo, UnknownNetworkNamesTheValue) {
  try {
    mc::zoo_network("resnet51", "--network");
    FAIL() << "expected SpecError";
  } catch (const mc::SpecError& e) {
    EXPECT_EQ(e.where(), "--network");
    EXPECT_EQ(e.key(), "network");
    EXPECT_EQ(e.value(), "resnet51");
    const std::string msg = e.what();
    EXPECT_NE(msg.find("resnet51"), std::string::npos);
    EXPECT_NE(msg.find("unknown network"), std::string::npos);
    EXPECT_NE(msg.find("mobilenet_v2"), std::string::npos);  // lists the known ones
  }
  EXPECT_THROW(mc::zoo_layer("nosuchnet", "conv1", "--layer"), mc::SpecError);
}

TEST(Zoo, UnknownLayerNamesTheValue) {
  try {
    mc::zoo_layer("resnet50", "layer9.0.conv1", "--layer");
    FAIL() << "expected SpecError";
  } catch (const mc::SpecError& e) {
    EXPECT_EQ(e.where(), "--layer");
    const std::string msg = e.what();
    EXPECT_NE(msg.find("layer9.0.conv1"), std::string::npos);
    EXPECT_NE(msg.find("conv1"), std::string::npos);  // names known layers
    EXPECT_NE(msg.find("fc"), std::string::npos);
    EXPECT_LT(msg.size(), 400u);  // abbreviated, not all 54 names
  }
}

TEST(Zoo, EveryLayerPassesMakeLayer) {
  for (const auto& name : mc::zoo_names()) {
    const mc::Network net = mc::zoo_network(name);
    for (const auto& l : net.layers) {
      mc::Layer raw = l;
      raw.p = raw.q = 1;  // make_layer derives these again
      mc::Layer again;
      ASSERT_NO_THROW(again = mc::make_layer(raw, "test")) << name << ":" << l.name;
      EXPECT_EQ(again.p, l.p) << name << ":" << l.name;
      EXPECT_EQ(again.q, l.q) << name << ":" << l.name;
      EXPECT_EQ(again.macs(), l.macs());
      EXPECT_GT(l.macs(), 0);
    }
  }
}
