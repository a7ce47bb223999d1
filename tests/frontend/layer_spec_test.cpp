// Layer and network arguments: inline forms, zoo references and YAML files, and every rejection
// naming the flag or file, the key and the value.
#include "mapwright/frontend/layer_spec.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "mapwright/support/error.hpp"

using namespace mapwright::core;
namespace fs = std::filesystem;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("mapwright_ls_" + name);
  std::ofstream(p) << text;
  return p.string();
}
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(LayerSpec, InlineForms) {
  const Layer c = parse_layer_arg("conv:K=64,C=64,H=56,W=56,R=3,S=3,stride=1,pad=1");
  EXPECT_EQ(c.k, 64);
  EXPECT_EQ(c.p, 56);
  EXPECT_EQ(c.macs(), 64LL * 64 * 56 * 56 * 9);
  const Layer d = parse_layer_arg("dwconv:C=32,H=112,W=112,R=3,S=3,stride=2,pad=1");
  EXPECT_EQ(d.g, 32);
  EXPECT_EQ(d.k, 1);
  EXPECT_EQ(d.c, 1);
  EXPECT_EQ(d.p, 56);
  const Layer g = parse_layer_arg("gconv:G=4,K=64,C=32,H=28,W=28,R=3,pad=1");
  EXPECT_EQ(g.g, 4);
  EXPECT_EQ(g.k, 16);
  EXPECT_EQ(g.c, 8);
  EXPECT_EQ(g.s, 3);
  const Layer m = parse_layer_arg("gemm:M=128,N=768,K=768");
  EXPECT_EQ(m.macs(), 128LL * 768 * 768);
  EXPECT_EQ(m.p, 128);
  const Layer f = parse_layer_arg("fc:IN=2048,OUT=1000");
  EXPECT_EQ(f.macs(), 2048LL * 1000);
  const Layer z = parse_layer_arg("resnet50:layer3.0.conv2");
  EXPECT_EQ(z.stride, 2);
  EXPECT_EQ(z.p, 14);
}

TEST(LayerSpec, YamlLayerAndNetworkFiles) {
  const std::string lf =
      write_temp("l.yaml", "layer: {type: conv, K: 8, C: 4, H: 10, W: 10, R: 3, pad: 1}\n");
  const Layer l = parse_layer_arg(lf);
  EXPECT_EQ(l.k, 8);
  EXPECT_EQ(l.p, 10);
  const std::string nf =
      write_temp("n.yaml",
                 "name: tiny\nlayers:\n"
                 "  - {name: a, type: conv, K: 8, C: 3, H: 16, W: 16, R: 3, pad: 1}\n"
                 "  - {name: b, type: dwconv, C: 8, H: 16, W: 16, R: 3, stride: 2, pad: 1}\n"
                 "  - {name: c, type: fc, IN: 512, OUT: 10}\n");
  const Network n = parse_network_arg(nf);
  EXPECT_EQ(n.name, "tiny");
  ASSERT_EQ(n.layers.size(), 3u);
  EXPECT_EQ(n.layers[1].name, "b");
  EXPECT_EQ(n.layers[1].p, 8);
}

TEST(LayerSpecBad, InlineRejections) {
  EXPECT_NE(
      error_of([] { parse_layer_arg("conv:K=0,C=3,H=8,W=8"); }).find("--layer: key 'K' = '0'"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              parse_layer_arg("conv:K=4,C=3,H=8,W=8,Z=1");
            }).find("key 'Z' = '1': unknown key"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_layer_arg("conv:K=4x,C=3,H=8,W=8");
            }).find("key 'K' = '4x': expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layer_arg("pool:K=4"); }).find("key 'type' = 'pool'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layer_arg("conv:K=4,C=3,W=8"); }).find("key 'H'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layer_arg("gconv:G=3,K=64,C=32,H=8,W=8"); }).find("multiple of G"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layer_arg("conv:K=4,K=5,C=3,H=8,W=8"); }).find("given twice"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layer_arg("nonsense"); }).find("expected TYPE:KEY=VALUE"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_layer_arg("vgg16:conv9_9"); }).find("'vgg16:conv9_9'"),
            std::string::npos);
}

TEST(LayerSpecBad, FileRejections) {
  const std::string bad = write_temp("bad.yaml", "layer: {type: conv, K: -1, C: 3, H: 8, W: 8}\n");
  const std::string e1 = error_of([&] { parse_layer_arg(bad); });
  EXPECT_NE(e1.find(bad), std::string::npos) << e1;
  EXPECT_NE(e1.find("key 'layer.K' = '-1'"), std::string::npos) << e1;
  const std::string net = write_temp(
      "badnet.yaml", "name: x\nlayers:\n  - {type: conv, K: 4, C: 3, H: 8, W: 8, colour: 3}\n");
  const std::string e2 = error_of([&] { parse_network_arg(net); });
  EXPECT_NE(e2.find("key 'layers[0].colour' = '3'"), std::string::npos) << e2;
  const std::string empty = write_temp("empty.yaml", "name: x\nlayers: []\n");
  EXPECT_NE(error_of([&] { parse_network_arg(empty); }).find("key 'layers'"), std::string::npos);
  const std::string syntax = write_temp("syntax.yaml", "layers: [ {\n");
  EXPECT_NE(error_of([&] { parse_network_arg(syntax); }).find("malformed YAML"), std::string::npos);
  EXPECT_NE(error_of([] { parse_network_arg("alexnet"); }).find("'alexnet'"), std::string::npos);
}

// Keys that map onto another internal field (fc's N is the layer's H, gemm's N its K, dwconv's
// C its G) are named as the user typed them, with the value.
TEST(LayerSpecBad, ZeroSizeNamesTheKeyTheUserTyped) {
  const std::string fc = error_of([] { parse_layer_arg("fc:N=0,IN=8,OUT=4"); });
  EXPECT_NE(fc.find("--layer: key 'N' = '0': must be a positive integer"), std::string::npos) << fc;
  const std::string gemm = error_of([] { parse_layer_arg("gemm:M=4,N=0,K=8"); });
  EXPECT_NE(gemm.find("--layer: key 'N' = '0': must be a positive integer"), std::string::npos)
      << gemm;
  const std::string dw = error_of([] { parse_layer_arg("dwconv:C=0,H=8,W=8,R=3"); });
  EXPECT_NE(dw.find("--layer: key 'C' = '0': must be a positive integer"), std::string::npos) << dw;
  const std::string gemm_b = error_of([] { parse_layer_arg("gemm:B=0,M=4,N=4,K=8"); });
  EXPECT_NE(gemm_b.find("key 'B' = '0'"), std::string::npos) << gemm_b;
  const std::string fc_in = error_of([] { parse_layer_arg("fc:IN=0,OUT=4"); });
  EXPECT_NE(fc_in.find("key 'IN' = '0'"), std::string::npos) << fc_in;
  // The same through a YAML file: the key under its path.
  const std::string f = write_temp("fc0.yaml", "layer: {type: fc, N: 0, IN: 8, OUT: 4}\n");
  const std::string y = error_of([&] { parse_layer_arg(f); });
  EXPECT_NE(y.find("key 'layer.N' = '0'"), std::string::npos) << y;
  // Padding may be 0.
  EXPECT_EQ(parse_layer_arg("conv:K=4,C=3,H=8,W=8,pad=0").pad, 0);
}
