// mapwright: the command-line entry point. Parses arguments with CLI11, runs one flow, and
// turns bad input (core::SpecError) into a one-line error and exit code 2.
#include <CLI/CLI.hpp>
#include <iostream>

#include "mapwright/core/error.hpp"
#include "mapwright/flows/commands.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "mapwright/flows/study.hpp"
#include "mapwright/flows/verify.hpp"

using namespace mapwright;

int main(int argc, char** argv) {
  CLI::App app{
      "mapwright: map DNN layers onto a systolic-array accelerator, score mappings with an "
      "analytical surrogate, and prove them on RTL."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mapwright 0.1.0");

  flows::EvalOptions eval;
  auto* e = app.add_subcommand("eval", "Score one mapping of one layer with the surrogate");
  e->add_option("--arch", eval.arch, "Named architecture (configs/arch) or YAML file")
      ->capture_default_str();
  e->add_option("--layer", eval.layer,
                "Layer: conv:K=64,C=64,H=56,W=56,R=3,S=3,stride=1,pad=1 | dwconv:... | "
                "gconv:... | gemm:M=..,N=..,K=.. | fc:IN=..,OUT=.. | NET:LAYER | file.yaml")
      ->required();
  e->add_option("--mapping", eval.mapping, "Mapping YAML file, or 'default' (greedy)")
      ->capture_default_str();
  e->add_flag("--json", eval.json, "Print one JSON object");

  flows::SpaceOptions space;
  auto* s = app.add_subcommand("space", "Show the mapping space of a layer; sample valid mappings");
  s->add_option("--arch", space.arch, "Named architecture or YAML file")->capture_default_str();
  s->add_option("--layer", space.layer, "Layer (see eval --help)")->required();
  s->add_option("--sample", space.sample, "Sample N valid mappings uniformly")
      ->check(CLI::NonNegativeNumber);
  s->add_option("--seed", space.seed, "Seed for sampling")->capture_default_str();
  s->add_option("--write-dir", space.write_dir, "Write sampled mappings as YAML files here");
  s->add_flag("--json", space.json, "Print one JSON object");

  flows::NetworksOptions nets;
  auto* n = app.add_subcommand("networks", "List the built-in networks, or one network's layers");
  n->add_option("network", nets.network, "Zoo name or network YAML file");
  n->add_flag("--json", nets.json, "Print JSON");

  flows::SearchCliOptions search;
  auto* se = app.add_subcommand("search", "Search the mapping space of a layer or a network on the surrogate");
  se->add_option("--arch", search.arch, "Named architecture or YAML file")->capture_default_str();
  auto* sl = se->add_option("--layer", search.layer, "Layer (see eval --help)");
  auto* sn = se->add_option("--network", search.network, "Zoo network or network YAML file");
  sl->excludes(sn);
  se->add_option("--searcher", search.searcher, "marl | ppo | ga | sa | random")
      ->capture_default_str();
  se->add_option("--budget", search.budget, "Samples per layer (valid or not)")
      ->capture_default_str();
  se->add_option("--seed", search.seed, "Seed (recorded in the run)")->capture_default_str();
  se->add_option("--objective", search.objective,
                 "edp | latency | energy | mix:latency=W,energy=W")
      ->capture_default_str();
  se->add_option("--options", search.options_file,
                 "Search options YAML (default configs/search/default.yaml)");
  se->add_option("--out", search.out_dir, "Output folder (default runs/search-...)");
  se->add_flag("--json", search.json, "Print one JSON object");

  flows::StudyOptions study;
  auto* st = app.add_subcommand("study", "Searchers x seeds x layers: sample efficiency against a reference best");
  st->add_option("--suite", study.suite, "Suite YAML (configs/studies/<name>.yaml)")->required();
  st->add_option("--out", study.out_dir, "Output folder (default runs/study-<name>)");
  st->add_option("--jobs", study.jobs, "Worker threads (0 = number of cores)")->capture_default_str();
  st->add_flag("--json", study.json, "Print the summary JSON");

  flows::VerifyOptions verify;
  auto* ve = app.add_subcommand("verify", "Run one mapping on the RTL and the surrogate, side by side");
  ve->add_option("--arch", verify.arch, "Named architecture with a compiled RTL model")->capture_default_str();
  ve->add_option("--layer", verify.layer, "Layer (see eval --help)")->required();
  ve->add_option("--mapping", verify.mapping, "Mapping YAML file, or 'default'")->capture_default_str();
  ve->add_option("--trace", verify.trace, "Write an FST waveform of the run (GTKWave)");
  ve->add_option("--seed", verify.seed, "Seed of the random tensors")->capture_default_str();
  ve->add_flag("--json", verify.json, "Print one JSON object");

  flows::FidelityOptions fid;
  auto* fi = app.add_subcommand("fidelity", "Random valid mappings through RTL and surrogate: agreement statistics");
  fi->add_option("--arch", fid.arch, "Named architecture with a compiled RTL model")->capture_default_str();
  fi->add_option("--layer", fid.layer, "Layer (see eval --help)")->required();
  fi->add_option("--samples", fid.samples, "Number of random valid mappings")->capture_default_str();
  fi->add_option("--seed", fid.seed, "Seed")->capture_default_str();
  fi->add_flag("--json", fid.json, "Print one JSON object");

  bool archs_json = false;
  auto* a = app.add_subcommand("archs", "List the named architectures");
  a->add_flag("--json", archs_json, "Print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    return app.exit(err);
  }
  try {
    if (*e) return flows::cmd_eval(eval, std::cout);
    if (*s) return flows::cmd_space(space, std::cout);
    if (*n) return flows::cmd_networks(nets, std::cout);
    if (*se) return flows::cmd_search(search, std::cout);
    if (*st) return flows::cmd_study(study, std::cout);
    if (*ve) return flows::cmd_verify(verify, std::cout);
    if (*fi) return flows::cmd_fidelity(fid, std::cout);
    if (*a) return flows::cmd_archs(archs_json, std::cout);
  } catch (const core::SpecError& err) {
    std::cerr << "mapwright: error: " << err.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& err) {
    std::cerr << "mapwright: error: " << err.what() << "\n";
    return 2;
  }
  return 1;
}
