// mapwright: the command-line entry point. Parses arguments with CLI11, runs one flow, and
// turns bad input (core::SpecError) into a one-line error and exit code 2; anything else that
// escapes a flow becomes a one-line internal error and exit code 70, never an abort.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli_options.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/flows/commands.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/flows/regress.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/rtlpool/worker_loop.hpp"
#include "mapwright/flows/report.hpp"
#include "mapwright/flows/run.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "mapwright/flows/study.hpp"
#include "mapwright/flows/codesign.hpp"
#include "mapwright/flows/sweep.hpp"
#include "mapwright/flows/synth.hpp"
#include "mapwright/flows/tune.hpp"
#include "mapwright/flows/verify.hpp"

using namespace mapwright;
using namespace mapwright::cli;

namespace {

/// Every subcommand's options: CLI11 writes the parsed flags into them.
struct CliOptions {
  flows::EvalOptions eval;          ///< eval
  flows::SpaceOptions space;        ///< space
  flows::NetworksOptions nets;      ///< networks
  flows::SearchCliOptions search;   ///< search
  flows::StudyOptions study;        ///< study
  flows::TuneOptions tune;          ///< tune
  flows::VerifyOptions verify;      ///< verify
  flows::FidelityOptions fid;       ///< fidelity
  flows::RunOptions run;            ///< run
  flows::ReportOptions report;      ///< report
  flows::CompareOptions compare;    ///< compare
  flows::RegressOptions regress;    ///< regress
  flows::ArchsOptions archs;        ///< archs
  flows::SweepOptions sweep;        ///< sweep
  flows::SynthOptions synth;        ///< synth
  flows::CodesignOptions codesign;  ///< codesign
};

/// The subcommands, to tell which one the command line chose.
struct Subcommands {
  CLI::App* eval = nullptr;        ///< eval
  CLI::App* space = nullptr;       ///< space
  CLI::App* networks = nullptr;    ///< networks
  CLI::App* search = nullptr;      ///< search
  CLI::App* study = nullptr;       ///< study
  CLI::App* tune = nullptr;        ///< tune
  CLI::App* verify = nullptr;      ///< verify
  CLI::App* fidelity = nullptr;    ///< fidelity
  CLI::App* run = nullptr;         ///< run
  CLI::App* report = nullptr;      ///< report
  CLI::App* compare = nullptr;     ///< compare
  CLI::App* regress = nullptr;     ///< regress
  CLI::App* rtl_worker = nullptr;  ///< rtl-worker (internal)
  CLI::App* archs = nullptr;       ///< archs
  CLI::App* sweep = nullptr;       ///< sweep
  CLI::App* synth = nullptr;       ///< synth
  CLI::App* codesign = nullptr;    ///< codesign
};

CLI::App* add_eval(CLI::App& app, flows::EvalOptions& eval) {
  auto* e = app.add_subcommand("eval", "Score one mapping of one layer with the surrogate");
  add_arch(e, eval.arch, "Named architecture (configs/arch) or YAML file");
  e->add_option("--layer", eval.layer,
                "Layer: conv:K=64,C=64,H=56,W=56,R=3,S=3,stride=1,pad=1 | dwconv:... | "
                "gconv:... | gemm:M=..,N=..,K=.. | fc:IN=..,OUT=.. | NET:LAYER | file.yaml")
      ->required();
  e->add_option("--mapping", eval.mapping, "Mapping YAML file, or 'default' (greedy)")
      ->capture_default_str();
  e->add_flag("--json", eval.json, "Print one JSON object");
  return e;
}

CLI::App* add_space(CLI::App& app, flows::SpaceOptions& space) {
  auto* s = app.add_subcommand("space", "Show the mapping space of a layer; sample valid mappings");
  add_arch(s, space.arch);
  s->add_option("--layer", space.layer, "Layer (see eval --help)")->required();
  s->add_option("--sample", space.sample, "Sample N valid mappings uniformly")
      ->check(CLI::NonNegativeNumber);
  s->add_option("--seed", space.seed, "Seed for sampling")->capture_default_str();
  s->add_option("--write-dir", space.write_dir, "Write sampled mappings as YAML files here");
  s->add_flag("--json", space.json, "Print one JSON object");
  return s;
}

CLI::App* add_networks(CLI::App& app, flows::NetworksOptions& nets) {
  auto* n = app.add_subcommand("networks", "List the built-in networks, or one network's layers");
  n->add_option("network", nets.network, "Zoo name, network YAML file or ONNX file");
  n->add_flag("--json", nets.json, "Print JSON");
  add_import_options(n, nets.input_shapes, nets.strict);
  return n;
}

CLI::App* add_search(CLI::App& app, flows::SearchCliOptions& search) {
  auto* se = app.add_subcommand(
      "search", "Search the mapping space of a layer or a network on the surrogate");
  add_arch(se, search.arch);
  auto* sl = se->add_option("--layer", search.layer, "Layer (see eval --help)");
  auto* sn =
      se->add_option("--network", search.network, "Zoo network, network YAML file or ONNX file");
  sl->excludes(sn);
  add_import_options(se, search.input_shapes, search.strict);
  add_exact_options(se, search.exact);
  se->add_option("--searcher", search.searcher,
                 "exact | marl | ppo | ppo-box | ga | sa | random | bo")
      ->capture_default_str();
  se->add_option("--budget", search.budget, "Samples per layer (valid or not)")
      ->capture_default_str();
  se->add_option("--seed", search.seed, "Seed (recorded in the run)")->capture_default_str();
  add_objective_options(se, search.objective, search.options_file);
  se->add_option("--out", search.out_dir, "Output folder (default runs/search-...)");
  se->add_flag("--json", search.json, "Print one JSON object");
  add_sim_limits(se, search.sim_limits, "With --reward rtl, per simulation: ");
  se->add_option("--reward", search.reward,
                 "Samples' scorer: surrogate | rtl (simulate every sample after the warm-up on the "
                 "Verilated RTL; small4, small8, default)")
      ->capture_default_str();
  se->add_option(
        "--surrogate-warmup", search.surrogate_warmup,
        "rtl reward: first N distinct samples scored by the surrogate (count toward the budget)")
      ->capture_default_str();
  se->add_option("--surrogate-prior", search.surrogate_prior,
                 "rtl reward: N uniform random points scored by the surrogate and given to the "
                 "searcher before the search (not samples: no budget; search/README.md, Prior)")
      ->capture_default_str();
  add_jobs(se, search.jobs, "rtl reward: RTL worker processes");
  se->add_option("--encoding", search.encoding,
                 "Sampling searchers' space: compact (every point a mapping that fits) | raw (16 "
                 "parameters) | gamma (ArchGym's 17 GAMMA parameters, the paper's setting)")
      ->capture_default_str();
  return se;
}

CLI::App* add_tune(CLI::App& app, flows::TuneOptions& tune) {
  auto* tu = add_file_command(
      app, "tune", "Equal-effort tuning: the same number of configurations for every searcher",
      "plan", "Plan", "tuning", "finished runs of every study are kept", tune.plan, tune.out_dir,
      tune.resume);
  add_jobs(tu, tune.jobs, "Worker threads of each study");
  return tu;
}

CLI::App* add_study(CLI::App& app, flows::StudyOptions& study) {
  auto* st = add_file_command(
      app, "study", "Searchers x seeds x layers: sample efficiency against a reference best",
      "suite", "Suite", "studies", "finished runs are kept, the others are run", study.suite,
      study.out_dir, study.resume);
  st->add_option("--options", study.options_file,
                 "Search options YAML for every searcher (overrides the suite's 'options')");
  add_jobs(st, study.jobs, "Worker threads");
  st->add_flag("--json", study.json, "Print the summary JSON");
  return st;
}

CLI::App* add_verify(CLI::App& app, flows::VerifyOptions& verify) {
  auto* ve =
      app.add_subcommand("verify", "Run one mapping on the RTL and the surrogate, side by side");
  add_arch(ve, verify.arch, "Named architecture with a compiled RTL model");
  ve->add_option("--layer", verify.layer, "Layer (see eval --help)")->required();
  ve->add_option("--mapping", verify.mapping, "Mapping YAML file, or 'default'")
      ->capture_default_str();
  ve->add_option("--trace", verify.trace, "Write an FST waveform of the run (GTKWave)");
  ve->add_option("--seed", verify.seed, "Seed of the random tensors")->capture_default_str();
  ve->add_flag("--json", verify.json, "Print one JSON object");
  add_harness(ve, verify.harness);
  add_sim_limits(ve, verify.limits, "");
  return ve;
}

CLI::App* add_fidelity(CLI::App& app, flows::FidelityOptions& fid) {
  auto* fi = app.add_subcommand(
      "fidelity", "Random valid mappings through RTL and surrogate: agreement statistics");
  add_arch(fi, fid.arch, "Named architecture with a compiled RTL model");
  fi->add_option("--layer", fid.layers, "Layer (see eval --help); repeat for several layers")
      ->required();
  fi->add_option("--samples", fid.samples, "Random valid mappings per layer")
      ->capture_default_str();
  fi->add_option("--seed", fid.seed, "Seed")->capture_default_str();
  fi->add_flag("--json", fid.json, "Print one JSON object");
  add_harness(fi, fid.harness);
  return fi;
}

CLI::App* add_run(CLI::App& app, flows::RunOptions& run) {
  auto* ru = app.add_subcommand(
      "run",
      "The main job: search every layer on the surrogate, verify the top-K on RTL, write a report");
  auto* rl = ru->add_option("--layer", run.settings.layer,
                            "One layer instead of a network (see eval --help)");
  auto* rn = ru->add_option("--network", run.settings.network,
                            "Zoo network, network YAML file or ONNX file")
                 ->capture_default_str();
  rl->excludes(rn);
  add_import_options(ru, run.settings.input_shapes, run.settings.strict);
  add_arch(ru, run.settings.arch);
  ru->add_option(
        "--searcher", run.settings.searcher,
        "exact (branch-and-bound, proven gap) | marl | ppo | ppo-box | ga | sa | random | bo")
      ->capture_default_str();
  ru->add_option("--budget", run.settings.budget,
                 "Surrogate samples per layer (sampling searchers)")
      ->capture_default_str();
  add_exact_options(ru, run.settings.exact);
  ru->add_option("--seed", run.settings.seed, "Run seed (layer and RTL seeds derive from it)")
      ->capture_default_str();
  add_objective_options(ru, run.settings.objective, run.settings.options_file);
  ru->add_option("--top-k", run.settings.top_k, "Distinct candidates per layer verified on RTL")
      ->capture_default_str();
  add_jobs(ru, run.jobs, "RTL worker processes");
  add_sim_limits(ru, run.sim_limits, "Per RTL verification: ");
  ru->add_option("--out", run.out_dir,
                 "Run folder (default runs/run-<target>-<arch>-<searcher>-s<seed>)");
  ru->add_option("--db", run.db, "SQLite results store (default <out>/results.sqlite)");
  ru->add_flag("--resume", run.resume,
               "Continue the run in --out (finished layers and checks are kept)");
  ru->add_flag("--no-rtl", run.settings.no_rtl, "Surrogate only (no RTL verification)");
  ru->add_flag("--synth", run.synth,
               "After the run, synthesize the architecture with yosys: its cells, depth and logic "
               "area beside the area model's in results.json and report.html");
  ru->add_option("--reward", run.settings.reward,
                 "Sampling searchers' scorer: surrogate | rtl (after --surrogate-warmup samples "
                 "per layer, every sample is simulated on the Verilated RTL)")
      ->capture_default_str();
  ru->add_option("--surrogate-warmup", run.settings.surrogate_warmup,
                 "rtl reward: first N distinct samples per layer scored by the surrogate")
      ->capture_default_str();
  ru->add_flag("--json", run.json, "Print results.json instead of the summary");
  ru->add_option("--stop-after-layers", run.stop_after_layers,
                 "Testing: stop as on Ctrl-C after N searches")
      ->group("");
  ru->add_option("--rtl-watchdog", run.rtl_watchdog_cycles,
                 "Give up an RTL run after N cycles (0 = automatic)")
      ->group("");
  return ru;
}

CLI::App* add_report(CLI::App& app, flows::ReportOptions& report) {
  auto* rp = app.add_subcommand("report", "Re-render report.html of a run or codesign folder");
  rp->add_option("run-dir", report.run_dir, "Run folder (results.json) or codesign folder")
      ->required();
  rp->add_option("--out", report.out, "HTML file (default <run-dir>/report.html)");
  return rp;
}

CLI::App* add_compare(CLI::App& app, flows::CompareOptions& compare) {
  auto* cp =
      app.add_subcommand("compare", "Compare runs layer by layer and in total, winner marked");
  cp->add_option("run-dirs", compare.runs, "Two or more run folders")->required();
  cp->add_option("--out", compare.out, "HTML file")->capture_default_str();
  cp->add_flag("--json", compare.json, "Print the comparison as JSON");
  return cp;
}

CLI::App* add_regress(CLI::App& app, flows::RegressOptions& regress) {
  auto* rg = app.add_subcommand("regress",
                                "Fixed mappings through RTL and surrogate against golden values");
  rg->add_option("--suite", regress.suite, "Suite YAML (configs/regress/<name>.yaml)")->required();
  rg->add_option("--junit", regress.junit, "Write JUnit XML here");
  rg->add_flag("--update", regress.update, "Rewrite the goldens from this run");
  add_jobs(rg, regress.jobs, "Worker processes");
  rg->add_option("--filter", regress.filter, "Only cases whose name contains this text");
  add_sim_limits(rg, regress.limits, "Per case: ");
  return rg;
}

CLI::App* add_sweep(CLI::App& app, flows::SweepOptions& sweep) {
  auto* sw = add_file_command(
      app, "sweep",
      "Co-design over a sweep file's architectures (codesign's grid searcher: every layer "
      "proved optimal, RTL verification, area model), Pareto fronts and the winner",
      "file", "Sweep", "sweeps",
      "the points are scored again with every layer solve and RTL run the stopped sweep "
      "finished answered from its journals",
      sweep.file, sweep.out_dir, sweep.resume);
  sw->add_flag("--json", sweep.json, "Print sweep.json instead of the summary");
  sw->add_flag("--synth", sweep.synth,
               "Synthesize the winner with yosys (as `mapwright synth`, into <out>/synth): its "
               "synthesized cell area by part beside the model's in sweep.json and the report");
  add_jobs(sw, sweep.jobs, "RTL worker processes");
  return sw;
}

CLI::App* add_codesign(CLI::App& app, flows::CodesignOptions& cd) {
  auto* c = add_file_command(
      app, "codesign",
      "Search the hardware of a space file: every point's workload at its layers' proven-optimal "
      "mappings; exact (best design, proven bound, gap), grid, or a sampling searcher",
      "space", "Space", "codesign",
      "the search runs again from its start with every layer solve the stopped run finished "
      "answered from its journal (solves.jsonl)",
      cd.space, cd.out_dir, cd.resume);
  c->add_option("--searcher", cd.searcher,
                "exact | grid | random | sa | ga | bo | ppo | ppo-box | marl")
      ->capture_default_str();
  c->add_option("--time-limit", cd.time_limit_s, "Seconds (0 = none); anytime")
      ->capture_default_str();
  c->add_option("--seed", cd.seed,
                "Seed of a sampling searcher (default: the space file's seed; recorded)");
  c->add_option("--budget,--samples", cd.budget, "Hardware points a sampling searcher evaluates")
      ->capture_default_str();
  c->add_option("--options", cd.options_file,
                "Sampling searchers' options YAML (default configs/search/default.yaml)");
  c->add_option("--rtl", cd.rtl,
                "Verify on the RTL: chosen (the chosen design), front (every Pareto-front "
                "design) or none")
      ->capture_default_str();
  add_jobs(c, cd.jobs, "RTL worker processes");
  c->add_flag("--synth", cd.synth,
              "Synthesize the chosen design with yosys (as `mapwright synth`, into <out>/synth) "
              "and report its cell area by part next to the model's");
  c->add_flag("--json", cd.json, "Print codesign.json instead of the summary");
  return c;
}

CLI::App* add_rtl_worker(CLI::App& app) {
  auto* wk = app.add_subcommand("rtl-worker", "RTL worker process (internal)");
  wk->group("");
  return wk;
}

CLI::App* add_archs(CLI::App& app, flows::ArchsOptions& archs) {
  auto* a = app.add_subcommand(
      "archs", "List the named architectures and their RTL models; --build builds models ahead");
  a->add_flag("--json", archs.json, "Print JSON");
  a->add_option("--build", archs.build,
                "Build the RTL model of this architecture (name or YAML file) into the model "
                "cache, if it has none (repeatable)");
  add_jobs(a, archs.jobs, "Parallel compile jobs of a build", "every core");
  a->add_flag("--traced", archs.traced,
              "With --build: build the models with FST tracing compiled in, as `verify --trace` "
              "uses them (the compiled-in models are untraced)");
  return a;
}

CLI::App* add_synth(CLI::App& app, flows::SynthOptions& synth) {
  auto* s = app.add_subcommand(
      "synth",
      "Synthesize the accelerator's RTL with yosys (memories kept as macros): cells, "
      "flops, memory bits, transistors and logic depth per module");
  add_arch(s, synth.arch);
  s->add_option("--out", synth.out_dir,
                "Output folder: the RTL copy, synth.ys, yosys' log and reports, synth.json "
                "(default synth-<arch name>)");
  s->add_option("--rtl", synth.rtl_dir,
                "RTL sources (default: rtl/ of MAPWRIGHT_SOURCE_DIR or of the source tree)");
  s->add_flag("--json", synth.json, "Print JSON");
  s->add_option("--fpga", synth.fpga,
                "Implement on an FPGA instead: ice40-up5k or ice40-hx8k (yosys synth_ice40, "
                "nextpnr-ice40, icepack; utilization and post-route Fmax)")
      ->check([](const std::string& v) {
        return v.empty() ? std::string("key 'fpga' = '': expected ice40-up5k or ice40-hx8k")
                         : std::string();
      });
  s->add_option("--fpga-top", synth.fpga_top,
                "With --fpga: accel (default, the whole accelerator) or array (the array engine "
                "alone: the PE mesh, its skews and fold control, for a device the accelerator "
                "does not fit)")
      ->check([](const std::string& v) {
        return v.empty() ? std::string("key 'fpga_top' = '': expected accel or array")
                         : std::string();
      });
  s->add_option(
      "--gate-sim", synth.gate_sim,
      "Also write the flattened gate-level netlist and simulate it (Verilator with yosys' "
      "cell library) against the RTL on N random layers and mappings: outputs, cycles "
      "and counters compared (gate_sim.json)");
  s->add_option("--seed", synth.seed, "Seed of --gate-sim's layers, mappings and operands");
  s->add_option("--netlist", synth.netlist,
                "With --gate-sim: simulate this Verilog netlist of mw_accel (the architecture's "
                "RTL parameters; yosys' cell library added) instead of synthesizing one");
  add_jobs(s, synth.jobs, "--gate-sim's worker processes per simulator");
  s->add_option("--liberty", synth.liberty,
                "Map to a standard-cell library and time it instead: osu018 (the OSU 0.18 um "
                "library of the Debian package qflow-tech-osu018) or a liberty file (yosys, "
                "qflow's blifFanout, OpenSTA; library area per module, the worst paths, the "
                "clock met at the architecture's node; exit 3 when it is not)")
      ->check([](const std::string& v) {
        return v.empty() ? std::string("key 'liberty' = '': expected osu018 or a liberty file")
                         : std::string();
      });
  s->add_option("--node", synth.node,
                "With --liberty: the node the figures are scaled to (configs/tech/"
                "node-scaling.yaml; default HP45, the architecture files' node)");
  return s;
}

/// Adds every subcommand, in the order `--help` lists them.
Subcommands add_subcommands(CLI::App& app, CliOptions& o) {
  Subcommands sc;
  sc.eval = add_eval(app, o.eval);
  sc.space = add_space(app, o.space);
  sc.networks = add_networks(app, o.nets);
  sc.search = add_search(app, o.search);
  sc.study = add_study(app, o.study);
  sc.tune = add_tune(app, o.tune);
  sc.verify = add_verify(app, o.verify);
  sc.fidelity = add_fidelity(app, o.fid);
  sc.run = add_run(app, o.run);
  sc.report = add_report(app, o.report);
  sc.compare = add_compare(app, o.compare);
  sc.regress = add_regress(app, o.regress);
  sc.sweep = add_sweep(app, o.sweep);
  sc.codesign = add_codesign(app, o.codesign);
  sc.rtl_worker = add_rtl_worker(app);
  sc.archs = add_archs(app, o.archs);
  sc.synth = add_synth(app, o.synth);
  return sc;
}

/// The flags of `run` given on the command line (a resumed run refuses to change them).
void record_given_run_flags(const CLI::App& ru, flows::RunOptions& run) {
  for (const char* f :
       {"network", "layer", "arch", "searcher", "budget", "seed", "objective", "options", "top-k",
        "no-rtl", "time-limit", "gap", "reward", "surrogate-warmup", "input-shape", "strict"})
    if (ru.count(std::string("--") + f) > 0) run.given.insert(f);
}

/// The RTL worker's loop: the protocol owns the original stdout; anything else printed goes to
/// stderr.
int run_rtl_worker() {
  const int proto = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return rtlpool::worker_loop(std::cin, proto);
}

/// Runs the chosen subcommand's flow; 1 when none was chosen.
int run_chosen(const Subcommands& sc, CliOptions& o) {
  if (flows::dist::size() > 1 && !*sc.sweep && !*sc.study && !*sc.run && !*sc.codesign)
    throw core::SpecError("mpirun", "ranks", std::to_string(flows::dist::size()),
                          "only `mapwright sweep`, `study`, `run` and `codesign` share their "
                          "work across MPI ranks; run this subcommand without mpirun (or with "
                          "-np 1)");
  if (*sc.eval) return flows::cmd_eval(o.eval, std::cout);
  if (*sc.space) return flows::cmd_space(o.space, std::cout);
  if (*sc.networks) return flows::cmd_networks(o.nets, std::cout);
  if (*sc.search) return flows::cmd_search(o.search, std::cout);
  if (*sc.study) return flows::cmd_study(o.study, std::cout);
  if (*sc.tune) return flows::cmd_tune(o.tune, std::cout);
  if (*sc.verify) return flows::cmd_verify(o.verify, std::cout);
  if (*sc.fidelity) return flows::cmd_fidelity(o.fid, std::cout);
  if (*sc.archs) return flows::cmd_archs(o.archs, std::cout);
  if (*sc.synth) return flows::cmd_synth(o.synth, std::cout);
  if (*sc.run) {
    record_given_run_flags(*sc.run, o.run);
    o.run.distribute = true;  // under mpirun, the ranks share the layers
    return flows::cmd_run(o.run, std::cout);
  }
  if (*sc.report) return flows::cmd_report(o.report, std::cout);
  if (*sc.compare) return flows::cmd_compare(o.compare, std::cout);
  if (*sc.regress) return flows::cmd_regress(o.regress, std::cout);
  if (*sc.sweep) return flows::cmd_sweep(o.sweep, std::cout);
  if (*sc.codesign) {
    o.codesign.seed_given = sc.codesign->count("--seed") > 0;
    return flows::cmd_codesign(o.codesign, std::cout);
  }
  if (*sc.rtl_worker) return run_rtl_worker();
  return 1;
}

/// run_chosen, with every exception turned into a one-line error: bad input (a bad spec or
/// value, a file or folder that cannot be written) exits 2, anything else 70.
int run_reporting_errors(const Subcommands& sc, CliOptions& o) {
  // Under mpirun every rank meets the same bad input: rank 0 alone says so.
  std::ostringstream muted;
  std::ostream& cerr = flows::dist::rank() == 0 ? std::cerr : muted;
  try {
    return run_chosen(sc, o);
  } catch (const core::SpecError& err) {
    cerr << "mapwright: error: " << err.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& err) {
    cerr << "mapwright: error: " << err.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& err) {
    // A folder or file the command cannot create or write (permissions, a full disk, a file
    // where a folder should be): the user's environment, not a bug.
    cerr << "mapwright: error: " << core::escape_text(err.path1().string()) << ": "
         << err.code().message() << "\n";
    return 2;
  } catch (const std::exception& err) {
    // Last resort: nothing unexpected may abort the process. Exit code 70 (EX_SOFTWARE) tells
    // an internal error apart from bad input (2).
    cerr << "mapwright: internal error: " << err.what() << "\n";
    return 70;
  } catch (...) {
    cerr << "mapwright: internal error: unknown exception\n";
    return 70;
  }
}

/// The first word that is not an option names the subcommand: one the CLI does not know is
/// refused with its name and exit code 2, before any other flag (--help included) is read, so
/// `mapwright foo` and `mapwright foo --help` answer alike. Returns 0 when the word is known.
int refuse_unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (!word.empty() && word[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->check_name(word)) return 0;
    }
    std::string known;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_group().empty()) continue;  // internal (the MPI worker's), not listed
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (flows::dist::rank() == 0) {
      std::cerr << "mapwright: error: unknown subcommand '" << core::escape_text(word)
                << "'; the subcommands are " << known << " (mapwright --help)\n";
    }
    return 2;
  }
  return 0;
}

/// The command line: parse, run, report.
int cli_main(int argc, char** argv) {
  // A file-size limit (ulimit -f) makes writes fail with EFBIG, reported like a full disk,
  // instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "mapwright: map DNN layers onto a systolic-array accelerator, score mappings with an "
      "analytical surrogate, and prove them on RTL."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mapwright 0.1.0");
  CliOptions options;
  const Subcommands sc = add_subcommands(app, options);
  if (const int rc = refuse_unknown_subcommand(app, argc, argv); rc != 0) return rc;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& err) {
    // --help and --version exit 0; every malformed command line is bad input: exit code 2.
    return app.exit(err) == 0 ? 0 : 2;
  }
  return run_reporting_errors(sc, options);
}

}  // namespace

int main(int argc, char** argv) try {
  // Under mpirun, MPI first (it may take its own arguments out of argv); otherwise nothing.
  mapwright::flows::dist::init(&argc, &argv);
  const int rc = cli_main(argc, argv);
  mapwright::flows::dist::finalize();
  return rc;
} catch (...) {
  // Thrown while building the command line itself (e.g. out of memory), or by MPI's start.
  std::cerr << "mapwright: internal error while starting\n";
  return 70;
}
