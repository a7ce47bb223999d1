// Specs: layers, architectures and mappings are validated once, and every rejection names the
// file (or flag), the key and the value.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/core/mapping.hpp"
#include "mapwright/core/tile_program.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "test_layers.hpp"

using namespace mapwright::core;
namespace fs = std::filesystem;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("mapwright_test_" + name);
  std::ofstream(p) << text;
  return p.string();
}

/// Expects a SpecError whose message contains every fragment.
template <typename F>
void expect_spec_error(F&& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    FAIL() << "expected a SpecError";
  } catch (const SpecError& e) {
    const std::string msg = e.what();
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in: " << msg;
  }
}

const char* kGoodArch = R"(
name: t
array: {rows: 8, cols: 8}
dataflows: [ws, os]
buffers: {input_kib: 32, weight_kib: 32, accum_kib: 16}
dram: {bytes_per_cycle: 8, latency_cycles: 40}
)";

Layer conv_layer() {
  return mapwright::test_layers::conv(64, 32, 28, 3, 1, 1);
}

}  // namespace

TEST(Layer, DerivesOutputSize) {
  const Layer x = mapwright::test_layers::conv(64, 3, 224, 7, 2, 3);
  EXPECT_EQ(x.p, 112);
  EXPECT_EQ(x.q, 112);
  EXPECT_EQ(x.macs(), 64LL * 3 * 112 * 112 * 49);
}

TEST(LayerBad, RejectsZeroAndNegativeSizes) {
  Layer l;
  l.k = 0;
  expect_spec_error([&] { make_layer(l, "--layer"); }, {"--layer", "'K'", "'0'"});
  Layer m;
  m.c = -3;
  expect_spec_error([&] { make_layer(m, "net.yaml"); }, {"net.yaml", "'C'", "'-3'"});
  Layer p;
  p.r = 3;
  p.s = 3;
  p.h = 8;
  p.w = 8;
  p.pad = 3;
  expect_spec_error([&] { make_layer(p, "x"); }, {"'pad'", "'3'"});
  Layer f;
  f.r = 5;
  f.h = 3;
  f.w = 9;
  f.s = 1;
  expect_spec_error([&] { make_layer(f, "x"); }, {"'R'", "'5'", "taller"});
}

TEST(Arch, ShippedConfigsLoad) {
  for (const char* name : {"default", "default-ideal", "small4", "small8", "large32"}) {
    const Arch a = load_arch(name);
    EXPECT_EQ(a.name, name);
    EXPECT_TRUE(a.supports(Dataflow::WS));
    EXPECT_TRUE(a.supports(Dataflow::OS));
    EXPECT_FALSE(a.energy.source.empty());
  }
  EXPECT_EQ(load_arch("default").rows, 16);
  // The default is the realistic array: banked buffers and the addressed-burst DRAM port;
  // default-ideal is the same array idealized.
  EXPECT_EQ(load_arch("default").buffer_banks, 17);
  EXPECT_EQ(load_arch("default").dram_port, DramPort::Bursts);
  EXPECT_EQ(load_arch("default-ideal").buffer_banks, 0);
  EXPECT_EQ(load_arch("default-ideal").dram_port, DramPort::Packed);
  EXPECT_EQ(load_arch("default-ideal").input_buf_bytes, load_arch("default").input_buf_bytes);
  EXPECT_EQ(load_arch("large32").cols, 32);
  EXPECT_EQ(load_arch("small4").rows, 4);
}

TEST(Arch, CapacityScaledBufferEnergyIsOptIn) {
  // Off by default: the configured energies whatever the size.
  const Arch d = load_arch("default");
  EXPECT_FALSE(d.energy.capacity_scaling);
  EXPECT_EQ(d.energy.input_buf_pj, 2.5);
  // The fit: 1 at 32 KiB; times the fit's 32 KiB value (19.302 pJ per 64-bit access),
  // Horowitz's 8 KB and 1 MB points (10 and 100 pJ) within 7 %; growing with the size.
  EXPECT_DOUBLE_EQ(sram_energy_scale(32 * 1024), 1.0);
  EXPECT_NEAR(sram_energy_scale(8 * 1024) * 19.302, 10.0, 0.7);
  EXPECT_NEAR(sram_energy_scale(1024 * 1024) * 19.302, 100.0, 1.0);
  EXPECT_LT(sram_energy_scale(64 * 1024), sram_energy_scale(128 * 1024));
  // On: each buffer's energy from its own capacity, the configured values kept as references.
  const std::string p =
      write_temp("cap.yaml", std::string(kGoodArch) +
                                 "energy: {capacity_scaling: true, input_buf_pj_per_byte: 3}\n");
  const Arch a = load_arch_file(p);
  EXPECT_TRUE(a.energy.capacity_scaling);
  EXPECT_EQ(a.energy.input_buf_ref_pj, 3.0);
  EXPECT_DOUBLE_EQ(a.energy.input_buf_pj, 3.0 * sram_energy_scale(a.input_buf_bytes));
  EXPECT_DOUBLE_EQ(a.energy.accum_buf_pj, 10.0 * sram_energy_scale(a.accum_buf_bytes));
}

TEST(ArchBad, RejectsEachBadField) {
  expect_spec_error([] { load_arch("no_such_arch"); }, {"--arch", "no_such_arch", "default"});
  const std::string unknown = write_temp("a1.yaml", std::string(kGoodArch) + "colour: red\n");
  expect_spec_error([&] { load_arch_file(unknown); }, {unknown, "'colour'", "red", "unknown key"});
  std::string t = kGoodArch;
  t.replace(t.find("rows: 8"), 7, "rows: 0");
  const std::string zero = write_temp("a2.yaml", t);
  expect_spec_error([&] { load_arch_file(zero); }, {zero, "'array.rows'", "'0'"});
  t = kGoodArch;
  t.replace(t.find("input_kib: 32"), 13, "input_kib: big");
  const std::string type = write_temp("a3.yaml", t);
  expect_spec_error([&] { load_arch_file(type); },
                    {type, "'buffers.input_kib'", "'big'", "integer"});
  const std::string malformed = write_temp("a4.yaml", "array: {rows: 8, cols: [\n");
  expect_spec_error([&] { load_arch_file(malformed); }, {malformed, "malformed YAML"});
  t = kGoodArch;
  t.replace(t.find("[ws, os]"), 8, "[ws, xs]");
  const std::string df = write_temp("a5.yaml", t);
  expect_spec_error([&] { load_arch_file(df); }, {df, "'dataflows'", "'xs'"});
  t = kGoodArch;
  t.replace(t.find("latency_cycles: 40"), 18, "latency_cycles: -1");
  const std::string neg = write_temp("a6.yaml", t);
  expect_spec_error([&] { load_arch_file(neg); }, {neg, "'dram.latency_cycles'", "'-1'"});
  t = kGoodArch;
  t.replace(t.find("latency_cycles: 40"), 18, "latency_cycles: 40, port: burst");
  const std::string port = write_temp("a8.yaml", t);
  expect_spec_error([&] { load_arch_file(port); },
                    {port, "'dram.port'", "'burst'", "known: packed, bursts"});
  t = kGoodArch;
  EXPECT_EQ(load_arch_file(write_temp("a9.yaml", t)).dram_port, DramPort::Packed);
  t.replace(t.find("latency_cycles: 40"), 18, "latency_cycles: 40, port: bursts");
  EXPECT_EQ(load_arch_file(write_temp("a10.yaml", t)).dram_port, DramPort::Bursts);
  // Banked buffers: at least max(rows, cols, DRAM beat) banks (every lane of a row of
  // consecutive words and every byte of a beat in its own bank), at most 128.
  t = kGoodArch;
  t.replace(t.find("input_kib: 32"), 13, "input_kib: 32, banks: 5");
  const std::string few = write_temp("a11.yaml", t);
  expect_spec_error([&] { load_arch_file(few); }, {few, "'buffers.banks'", "'5'", "at least"});
  t = kGoodArch;
  t.replace(t.find("input_kib: 32"), 13, "input_kib: 32, banks: 200");
  const std::string many = write_temp("a12.yaml", t);
  expect_spec_error([&] { load_arch_file(many); }, {many, "'buffers.banks'", "'200'"});
  t = kGoodArch;
  EXPECT_EQ(load_arch_file(write_temp("a13.yaml", t)).buffer_banks, 0);
  t.replace(t.find("input_kib: 32"), 13, "input_kib: 32, banks: 17");
  EXPECT_EQ(load_arch_file(write_temp("a14.yaml", t)).buffer_banks, 17);
  const std::string missing = write_temp("a7.yaml", "array: {rows: 8, cols: 8}\n");
  expect_spec_error([&] { load_arch_file(missing); }, {missing, "'buffers'", "missing"});
  expect_spec_error([] { load_arch_file("/nonexistent/arch.yaml"); }, {"cannot open"});
}

TEST(Mapping, YamlRoundTripsExactly) {
  const Layer l = conv_layer();
  const Arch a = load_arch_file(write_temp("rt.yaml", kGoodArch));
  const MapSpace space(l, a);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 500; ++i) {
    const Mapping m = space.decode(space.sample_naive(rng));
    const std::string y = mapping_to_yaml(m);
    const Mapping back = mapping_from_yaml(y, "roundtrip");
    ASSERT_EQ(back, m) << y;
    ASSERT_EQ(mapping_to_yaml(back), y);
    ASSERT_EQ(space.encode(back), space.encode(m));
  }
}

TEST(MappingBad, RejectsStructuralErrors) {
  const std::string good = mapping_to_yaml(default_mapping(conv_layer(), load_arch("default")));
  auto bad = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    t.replace(at, from.size(), to);
    return t;
  };
  expect_spec_error([&] { mapping_from_yaml(bad("dataflow: ws", "dataflow: xs"), "m.yaml"); },
                    {"m.yaml", "'dataflow'", "'xs'"});
  expect_spec_error([&] { mapping_from_yaml(good + "speed: 3\n", "m.yaml"); },
                    {"m.yaml", "'speed'", "unknown key"});
  expect_spec_error([&] { mapping_from_yaml(bad("order: [N,", "order: [N, N,"), "m.yaml"); },
                    {"m.yaml", "'order'"});
  expect_spec_error([&] { mapping_from_yaml(bad("K: ", "K: -"), "m.yaml"); },
                    {"m.yaml", "'tiles.K'"});
  expect_spec_error([&] { mapping_from_yaml(bad("K: ", "K: x"), "m.yaml"); },
                    {"m.yaml", "'tiles.K'", "integer"});
  expect_spec_error([&] { mapping_from_yaml("tiles: [1, 2", "m.yaml"); },
                    {"m.yaml", "malformed YAML"});
}

TEST(MappingBad, RejectsMappingThatDoesNotBelongToLayer) {
  const Layer l = conv_layer();
  const Arch a = load_arch("small4");
  Mapping m = default_mapping(l, a);
  check_mapping(m, l, a, "m.yaml");  // fine
  Mapping big = m;
  big.tile[static_cast<int>(Dim::K)] = 65;
  expect_spec_error([&] { check_mapping(big, l, a, "m.yaml"); },
                    {"m.yaml", "'tiles.K'", "'65'", "larger than its loop bound 64"});
  Mapping pe = m;
  pe.pe_rows = 8;
  expect_spec_error([&] { check_mapping(pe, l, a, "m.yaml"); }, {"m.yaml", "'pe.rows'", "'8'"});
  Layer other = l;
  other.k = 32;
  other = make_layer(other, "t");
  expect_spec_error([&] { check_mapping(m, other, a, "m.yaml"); },
                    {"m.yaml", "'layer'", "another layer"});
}

TEST(TileProgram, InputTileIsUniqueInBoundsBytes) {
  // 1x1 conv, stride 2: only every other row and column is ever loaded.
  const Layer x = mapwright::test_layers::conv(8, 4, 8, 1, 2, 0);
  Mapping m = default_mapping(x, load_arch("default"));
  const AccessCounts c = count_by_walk(x, load_arch("default"), m);
  EXPECT_EQ(c.dram_input_bytes, 4 * 4 * 4);
  // 3x3 pad 1 on 4x4, one tile: the padded ring is never loaded.
  EXPECT_EQ(input_extent(0, 4, 0, 3, 1, 1, 4), 4);
  EXPECT_EQ(input_extent(0, 1, 0, 1, 1, 1, 4), 0);  // a tile entirely in padding
  EXPECT_EQ(input_extent(0, 3, 0, 1, 2, 0, 8), 3);  // stride larger than the filter tile
}
