#pragma once
// The mapping set of the design studies (bank_study, burst_study): --samples random valid
// mappings of each of the ten fidelity layers (the mappings of `mapwright fidelity --layer L
// --samples N --seed S`, one call per layer as in bench/README.md), and with --optimal the
// exact mapper's EDP-optimal mapping of every unique ResNet-18 and MobileNet-v2 layer (with
// the layer's count in its network).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/mapper/mapper.hpp"

namespace mapwright::bench {

struct StudyOptions {
  std::string arch = "default";
  int samples = 20;
  unsigned long long seed = 11;
  bool optimal = false;
};

/// Parses [--arch NAME] [--samples N] [--seed S] [--optimal]; prints the usage and returns
/// false on anything else.
inline bool parse_study_options(int argc, char** argv, const char* prog, StudyOptions& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      o.arch = argv[++i];
    } else if (a == "--samples" && i + 1 < argc) {
      o.samples = std::atoi(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      o.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--optimal") {
      o.optimal = true;
    } else {
      std::fprintf(stderr, "usage: %s [--arch NAME] [--samples N] [--seed S] [--optimal]\n", prog);
      return false;
    }
  }
  return true;
}

struct StudySample {
  std::string layer;  ///< "net:layer", with " (optimal)" for the exact mapper's picks.
  core::Layer l;
  core::Mapping m;
  bool optimal = false;  ///< The exact mapper's pick.
  std::string net;       ///< Network of an optimal pick.
  long long count = 1;   ///< Occurrences of the layer in its network (optimal picks).
};

inline std::vector<StudySample> study_set(const core::Arch& arch, const StudyOptions& o) {
  std::vector<StudySample> set;
  const char* fidelity_layers[] = {"resnet18:layer1.0.conv1",
                                   "resnet18:layer2.0.downsample",
                                   "resnet18:layer3.0.conv2",
                                   "resnet18:layer4.0.conv2",
                                   "resnet18:fc",
                                   "mobilenet_v2:features.2.dw",
                                   "mobilenet_v2:features.4.expand",
                                   "mobilenet_v2:features.7.project",
                                   "mobilenet_v2:features.14.dw",
                                   "mobilenet_v2:features.18"};
  for (const char* spec : fidelity_layers) {
    const std::string s = spec;
    const size_t colon = s.find(':');
    const core::Layer l = core::zoo_layer(s.substr(0, colon), s.substr(colon + 1), "layer");
    core::MapSpace space(l, arch);
    std::mt19937_64 rng(o.seed);
    for (int i = 0; i < o.samples; ++i) {
      core::ParamVector v;
      if (!space.sample_valid(rng, v)) break;
      set.push_back({s, l, space.decode(v), false, "", 1});
    }
  }
  if (o.optimal) {
    for (const char* net : {"resnet18", "mobilenet_v2"})
      for (const auto& [l, count] : core::zoo_network(net).unique_layers()) {
        const mapper::Result r = mapper::solve(l, arch);
        if (r.found)
          set.push_back({std::string(net) + ":" + l.name + " (optimal)", l, r.best, true, net,
                         static_cast<long long>(count)});
      }
  }
  return set;
}

/// The q-quantile (nearest rank) of v; 0 when empty.
inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace mapwright::bench
