// The strict YAML layer: one `_bad` test per defect class the mutation fuzzer found (duplicate
// keys, null / map / list / tag where a scalar belongs, wrapping integers, inf / nan / absurd
// numbers, keys with trailing spaces, control characters echoed raw), each asserting the full
// "file: key 'k' = 'v': why" message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/frontend/layer_spec.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/support/yaml_util.hpp"

using namespace mapwright::core;
namespace fs = std::filesystem;

namespace {

/// <tmp>/mapwright_strict_<pid>_<name>: ctest runs the tests of this file in parallel
/// processes, so each process writes its own files.
fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("mapwright_strict_" + std::to_string(getpid()) + "_" + name);
}

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path p = temp_path(name);
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

/// Runs f, expects a SpecError and returns its message.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const SpecError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SpecError";
  return "";
}

const std::string kArch =
    "array: {rows: 8, cols: 8}\n"
    "buffers: {input_kib: 32, weight_kib: 32, accum_kib: 16}\n"
    "dram: {bytes_per_cycle: 8, latency_cycles: 40}\n";

/// The message of loading kArch plus `extra` as an arch file.
std::string arch_error(const std::string& extra, const std::string& base = kArch) {
  const std::string p = write_temp("arch.yaml", base + extra);
  return error_of([&] { load_arch_file(p); });
}

std::string arch_file() {
  return temp_path("arch.yaml").string();
}

}  // namespace

TEST(StrictYaml, GoodArchStillLoads) {
  const Arch a = load_arch_file(write_temp("good.yaml", kArch + "clock_mhz: 500\n"));
  EXPECT_EQ(a.rows, 8);
  EXPECT_DOUBLE_EQ(a.clock_mhz, 500);
}

TEST(StrictYamlBad, DuplicateKey) {
  EXPECT_EQ(arch_error("clock_mhz: 100\nclock_mhz: 200\n"),
            arch_file() +
                ": key 'clock_mhz' = '200': duplicate key (given more than once in "
                "the same map)");
  // Nested, and a quoted spelling of the same key.
  EXPECT_EQ(error_of([] { mapping_from_yaml("tiles: {K: 1, 'K': 2}\n", "m.yaml"); }),
            "m.yaml: key 'tiles.K' = '2': duplicate key (given more than once in the same map)");
}

TEST(StrictYamlBad, NullMapListAndTagWhereAScalarBelongs) {
  EXPECT_EQ(arch_error("clock_mhz: ~\n"),
            arch_file() + ": key 'clock_mhz' = 'null': expected a number, got null");
  EXPECT_EQ(arch_error("name:\n"),
            arch_file() + ": key 'name' = 'null': expected a scalar value, got null");
  EXPECT_EQ(arch_error("name: {first: a}\n"),
            arch_file() + ": key 'name' = '{first: a}': expected a scalar value, got a map");
  EXPECT_EQ(arch_error("", "array: {rows: [8], cols: 8}\n"),
            arch_file() + ": key 'array.rows' = '[8]': expected an integer, got a list");
  EXPECT_EQ(arch_error("name: !!binary aGVsbG8=\n"),
            arch_file() +
                ": key 'name' = 'tag:yaml.org,2002:binary aGVsbG8=': YAML tags are not "
                "supported (remove 'tag:yaml.org,2002:binary')");
  EXPECT_EQ(arch_error("dataflows: [ws, ~]\n"),
            arch_file() + ": key 'dataflows[1]' = 'null': expected a scalar value, got null");
  EXPECT_EQ(arch_error("array: ~\n", ""),
            arch_file() + ": key 'array' = 'null': expected a mapping");
}

TEST(StrictYamlBad, KeysMustBePlainText) {
  EXPECT_EQ(arch_error("? [a, b]\n: 1\n"),
            arch_file() + ": key '[a, b]' = '1': a key must be plain text, not a map or a list");
  EXPECT_EQ(arch_error("~: 1\n"),
            arch_file() + ": key '' = '1': a key must be plain text, not null");
}

TEST(StrictYamlBad, IntegersNeverWrap) {
  EXPECT_EQ(arch_error("", "array: {rows: 4294967300, cols: 8}\n"),
            arch_file() + ": key 'array.rows' = '4294967300': must be between 2 and 64");
  EXPECT_EQ(arch_error("", "array: {rows: 99999999999999999999, cols: 8}\n"),
            arch_file() + ": key 'array.rows' = '99999999999999999999': must be between 2 and 64");
  EXPECT_EQ(arch_error("", "array: {rows: 0x10, cols: 8}\n"),
            arch_file() + ": key 'array.rows' = '0x10': expected an integer");
  EXPECT_EQ(error_of([] { parse_layer_arg("conv:K=4294967300,C=3,H=8,W=8"); }),
            "--layer: key 'K' = '4294967300': must be between 0 and 16777216");
  EXPECT_EQ(error_of([] { parse_layer_arg("conv:K= 4,C=3,H=8,W=8"); }),
            "--layer: key 'K' = ' 4': expected an integer");
}

TEST(StrictYamlBad, NonFiniteAndAbsurdNumbers) {
  EXPECT_EQ(arch_error("clock_mhz: inf\n"),
            arch_file() + ": key 'clock_mhz' = 'inf': expected a finite number");
  EXPECT_EQ(arch_error("clock_mhz: nan\n"),
            arch_file() + ": key 'clock_mhz' = 'nan': expected a finite number");
  EXPECT_EQ(arch_error("clock_mhz: 1e300\n"),
            arch_file() + ": key 'clock_mhz' = '1e300': must be between 0 and 100000");
  EXPECT_EQ(arch_error("energy: {mac_pj: 1e30}\n"),
            arch_file() + ": key 'energy.mac_pj' = '1e30': must be between 0 and 1000000");
  EXPECT_EQ(arch_error("energy: {mac_pj: -0.5}\n"),
            arch_file() + ": key 'energy.mac_pj' = '-0.5': must be between 0 and 1000000");
}

TEST(StrictYamlBad, UnknownKeyWithTrailingSpaceIsQuoted) {
  EXPECT_EQ(arch_error("\"clock_mhz \": 100\n"),
            arch_file() +
                ": key 'clock_mhz ' = '100': unknown key (known: name, description, "
                "array, buffers, dram, clock_mhz, dataflows, precision, energy); did "
                "you mean 'clock_mhz' without the spaces?");
}

TEST(StrictYamlBad, ControlCharactersAreEscaped) {
  EXPECT_EQ(arch_error("dataflows: [\"w\\x07s\\nx\\e[31m\"]\n"),
            arch_file() +
                ": key 'dataflows' = 'w\\x07s\\nx\\x1b[31m': unknown dataflow (known: ws, os, is)");
  EXPECT_EQ(error_of([] { parse_layer_arg("conv:K\t=1,C=3,H=8,W=8"); }),
            "--layer: key 'K\\t' = '1': unknown key for conv (known: C, H, K, N, R, S, W, pad, "
            "stride)");
  const std::string msg =
      error_of([] { mapping_from_yaml("dataflow: \"\\x1b]0;owned\\x07\"\n", "m.yaml"); });
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\x07'), std::string::npos) << msg;
}

TEST(StrictYamlBad, DeepNestingAndAliasBombs) {
  std::string deep = "a: ";
  for (int i = 0; i < 40; ++i) deep += "[";
  for (int i = 0; i < 40; ++i) deep += "]";
  EXPECT_EQ(error_of([&] { load_yaml_text(deep, "d.yaml"); }),
            "d.yaml: key 'a[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
            "[0][0][0][0][0][0][0][0][0]' = '': nested more than 32 levels");
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'g'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i)
      bomb += std::string(i ? ", " : "") + "*" + static_cast<char>(c - 1);
    bomb += "]\n";
  }
  const std::string msg = error_of([&] { load_yaml_text(bomb, "b.yaml"); });
  EXPECT_NE(msg.find("b.yaml: key '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("document too large (more than 100000 nodes"), std::string::npos) << msg;
}

TEST(StrictYamlBad, NetworkAndLayerFiles) {
  const std::string net =
      write_temp("net.yaml", "layers:\n  - {type: conv, K: 8, K: 9, C: 3, H: 8, W: 8}\n");
  EXPECT_EQ(
      error_of([&] { parse_network_arg(net); }),
      net + ": key 'layers[0].K' = '9': duplicate key (given more than once in the same map)");
  const std::string layer = write_temp("layer.yaml", "type: conv\nK: [8]\nC: 3\nH: 8\nW: 8\n");
  EXPECT_EQ(error_of([&] { parse_layer_arg(layer); }),
            layer + ": key 'K' = '[8]': expected a scalar value, got a list");
  const std::string scalar = write_temp("scalar.yaml", "just text\n");
  EXPECT_EQ(error_of([&] { parse_layer_arg(scalar); }),
            scalar + ": key '(top)' = 'just text': expected a mapping");
}

TEST(StrictYamlBad, MappingLayerShapeKey) {
  EXPECT_EQ(error_of([] { mapping_from_yaml("layer: \"1x1\\xf5\"\ndataflow: ws\n", "m.yaml"); }),
            "m.yaml: key 'layer' = '1x1\xc3\xb5': expected the layer's shape key "
            "N,G,K,C,H,W,R,S,stride,pad (ten integers)");
}

TEST(StrictYamlBad, SecondDocumentIsRefused) {
  EXPECT_EQ(error_of([] { load_yaml_text("a: 1\n---\nb: 2\n", "two.yaml"); }),
            "two.yaml: key '(document)' = '---': expected a single YAML document (remove "
            "the '---' separators)");
  EXPECT_TRUE(load_yaml_text("", "empty.yaml").IsNull());
  EXPECT_TRUE(load_yaml_text("---\na: 1\n", "one.yaml").IsMap());
}
