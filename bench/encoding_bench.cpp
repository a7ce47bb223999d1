// Search encodings compared: every sampling searcher on a few zoo layers, once on the compact
// feasibility-respecting encoding (core::SearchSpace) and once on the raw map space
// (core::MapSpace), each best EDP divided by the exact mapper's proven optimum. Runs go through
// flows::search_layer with the same per-layer seed `mapwright search --layer L --seed S` uses,
// so the compact column equals the CLI's answer. A plain main (runs take seconds).
//
//   encoding_bench [--arch NAME] [--budget 1000] [--seeds 1] [--searchers random,ga,...]
//                  [--layers net:layer,net:layer,...] [--objective edp]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/frontend/zoo.hpp"
#include "mapwright/flows/layer_search.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/search/searcher.hpp"

using namespace mapwright;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string arch_name = "default", objective_name = "edp";
  int64_t budget = 1000;
  int seeds = 1;
  std::vector<std::string> searchers{"random", "ga", "sa", "ppo", "marl"};
  std::vector<std::string> layers{"resnet18:layer2.0.conv1", "mobilenet_v2:features.2.dw",
                                  "vgg16:conv3_2", "bert_base_s128:ffn1",
                                  "resnet50:layer4.0.conv3"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--arch")
      arch_name = v, ++i;
    else if (a == "--budget")
      budget = std::atoll(v), ++i;
    else if (a == "--seeds")
      seeds = std::atoi(v), ++i;
    else if (a == "--searchers")
      searchers = split(v), ++i;
    else if (a == "--layers")
      layers = split(v), ++i;
    else if (a == "--objective")
      objective_name = v, ++i;
    else {
      std::fprintf(stderr,
                   "usage: encoding_bench [--arch NAME] [--budget N] [--seeds N] "
                   "[--searchers a,b] [--layers net:layer,...] [--objective edp]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  const core::Arch arch = core::load_arch(arch_name);
  const core::Objective objective = core::parse_objective(objective_name);
  const search::SearchOptions options = flows::load_options_or_default("");
  std::printf("%-28s %-7s %-8s %10s %8s %9s %7s %8s %6s\n", "layer", "search", "encoding",
              "best/opt", "valid%", "repaired", "dup", "distinct", "log10");
  std::vector<std::vector<double>> logsum(searchers.size(), std::vector<double>(2, 0));
  for (const std::string& spec : layers) {
    const size_t colon = spec.find(':');
    const core::Layer layer =
        core::zoo_layer(spec.substr(0, colon), spec.substr(colon + 1), "--layers");
    const flows::LayerSearch ex =
        flows::search_layer({layer, arch, "exact", options, 0, budget, objective});
    const double opt = ex.result.best_cost;
    for (size_t si = 0; si < searchers.size(); ++si) {
      for (int e = 0; e < 2; ++e) {
        const flows::Encoding enc = e == 0 ? flows::Encoding::Compact : flows::Encoding::Raw;
        double ratio_log = 0;
        int64_t valid = 0, samples = 0, repaired = 0, dup = 0, distinct = 0;
        double space = 0;
        for (int s = 1; s <= seeds; ++s) {
          // The seed `mapwright search --layer ... --seed s` gives its (only) layer.
          const uint64_t layer_seed = flows::layer_seed(static_cast<uint64_t>(s), 0);
          std::vector<std::string> seen;  // distinct decoded mappings
          auto observe = [&](const flows::SampleSeen& x) {
            seen.push_back(core::mapping_to_yaml(*x.mapping));
          };
          const flows::LayerSearch ls = flows::search_layer(
              {layer, arch, searchers[si], options, layer_seed, budget, objective, {}, enc},
              {{}, observe});
          std::sort(seen.begin(), seen.end());
          distinct += std::unique(seen.begin(), seen.end()) - seen.begin();
          ratio_log += ls.result.found ? std::log(ls.result.best_cost / opt) : INFINITY;
          valid += ls.result.valid;
          samples += ls.result.samples;
          repaired += ls.searcher.value("repaired", int64_t{0});
          dup += ls.result.duplicates;
          space = ls.searcher.value("space_log10", 0.0);
        }
        logsum[si][e] += ratio_log / seeds;
        std::printf("%-28s %-7s %-8s %10.4f %8.1f %9.1f %7.1f %8.1f %6.1f\n",
                    spec.substr(0, 28).c_str(), searchers[si].c_str(), flows::encoding_name(enc),
                    std::exp(ratio_log / seeds), 100.0 * valid / std::max<int64_t>(1, samples),
                    static_cast<double>(repaired) / seeds, static_cast<double>(dup) / seeds,
                    static_cast<double>(distinct) / seeds, space);
        std::fflush(stdout);
      }
    }
  }
  std::printf("\ngeometric mean best/opt over %zu layers (%d seed(s) each):\n", layers.size(),
              seeds);
  for (size_t si = 0; si < searchers.size(); ++si)
    std::printf("  %-7s compact %.4f  raw %.4f\n", searchers[si].c_str(),
                std::exp(logsum[si][0] / layers.size()), std::exp(logsum[si][1] / layers.size()));
  return 0;
}
