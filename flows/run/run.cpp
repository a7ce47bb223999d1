// `mapwright run`: the main job. Searches every unique layer on the surrogate (keeping the
// top-K distinct candidates seen by the evaluate callback), verifies the candidates on the RTL
// in worker processes while the next layers are searched, picks each layer's best by RTL, and
// keeps the run folder (results.json, CSVs, mappings, SQLite, report.html) up to date as each
// search and each verification finishes, so Ctrl-C keeps everything done and --resume
// continues with the same seeds.
#include "mapwright/flows/run.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/text.hpp"
#include "common/files.hpp"
#include "common/signals.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/stats.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/mapspace.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "mapwright/flows/verify.hpp"
#include "report/report_html.hpp"
#include "store/results_db.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;
using namespace mapwright::rtlpool;
using nlohmann::json;

namespace mapwright::flows {

namespace {

/// Seeds: the search seed of layer i is the one `mapwright search` uses; RTL operands of
/// candidate r of layer i get their own.
uint64_t layer_seed(uint64_t seed, size_t li) {
  return seed * 1000003ULL + li;
}
uint64_t rtl_seed(uint64_t seed, size_t li, int rank) {
  return seed * 7919ULL + li * 101ULL + static_cast<uint64_t>(rank);
}

std::string stem_of(size_t li, const std::string& name) {
  return std::to_string(li) + "_" + safe_name(name);
}

/// The top-K distinct mappings by surrogate cost (ties keep the earlier sample).
struct TopK {
  struct Entry {
    double cost;
    int64_t sample;
    std::string yaml;
    Metrics metrics;
  };
  size_t k;
  std::vector<Entry> entries;  ///< Sorted by (cost, sample).
  void offer(double cost, int64_t sample, const Mapping& m, const Metrics& met) {
    if (entries.size() >= k && !(cost < entries.back().cost)) return;
    const std::string y = mapping_to_yaml(m);
    for (const auto& e : entries)
      if (e.yaml == y) return;
    Entry e{cost, sample, y, met};
    auto it =
        std::upper_bound(entries.begin(), entries.end(), e, [](const Entry& a, const Entry& b) {
          return a.cost < b.cost || (a.cost == b.cost && a.sample < b.sample);
        });
    entries.insert(it, std::move(e));
    if (entries.size() > k) entries.pop_back();
  }
};

json surrogate_json(const Metrics& m) {
  json j = m.to_json();
  return j;
}

/// The verification record of one candidate from its RTL result. "kind" types the outcome:
/// "passed"; "design" (a verdict: functional mismatch, counters unequal to the surrogate,
/// watchdog, RTL error); "limit" (not simulated, or stopped: over a --sim-max-* limit; no
/// verdict, the estimate is recorded); or "infrastructure" (the worker process crashed on
/// every try: no verdict, --resume runs it again). "retries" counts the re-runs after worker
/// crashes.
json verification_json(const RtlJobResult& r, const Metrics& sur, uint64_t seed) {
  json v;
  v["seed"] = seed;
  v["failure"] = r.failure;
  v["retries"] = r.retries;
  v["functional_ok"] = r.functional_ok;
  v["mismatches"] = r.mismatches;
  v["sim_seconds"] = r.sim_seconds;
  bool counts_equal = false;
  if (r.failure.empty()) {
    v["cycles"] = r.metrics.cycles;
    v["energy_pj"] = r.metrics.energy_pj;
    v["edp"] = r.metrics.edp;
    v["utilization"] = r.metrics.utilization;
    v["cycle_error_pct"] =
        r.metrics.cycles > 0
            ? 100.0 * (static_cast<double>(sur.cycles) - r.metrics.cycles) / r.metrics.cycles
            : 0.0;
    v["metrics"] = r.metrics.to_json();
    json diffs = json::object();
    const auto rf = r.metrics.counts.fields(), sf = sur.counts.fields();
    for (size_t i = 0; i < rf.size(); ++i)
      if (rf[i].second != sf[i].second)
        diffs[rf[i].first] = {{"rtl", rf[i].second}, {"surrogate", sf[i].second}};
    counts_equal = diffs.empty();
    v["count_diffs"] = diffs;
  }
  v["counts_equal"] = counts_equal;
  v["passed"] = r.failure.empty() && r.functional_ok && counts_equal;
  if (r.over_limit) {
    v["over_limit"] = true;
    v["predicted_cycles"] = r.predicted_cycles;
    v["estimated_memory_mb"] = r.estimated_memory_mb;
  }
  v["kind"] = v["passed"].get<bool>() ? "passed"
              : r.infrastructure      ? "infrastructure"
              : r.over_limit          ? "limit"
                                      : "design";
  return v;
}

/// True when a stored verification failed for infrastructure reasons (no verdict on the
/// mapping), so --resume runs it again. Records written before "kind" existed count when
/// their failure is a worker crash.
bool infrastructure_failure(const json& v) {
  if (v.is_null()) return false;
  if (v.contains("kind")) return v["kind"] == "infrastructure";
  return v.value("failure", std::string()).rfind("worker: the RTL process", 0) == 0;
}

/// Picks the layer's best candidate: lowest RTL cost among those that passed; the surrogate
/// best when the run has no RTL or no candidate passed.
void choose_best(json& L, const Objective& obj, bool rtl) {
  auto& cands = L["candidates"];
  int best = -1;
  double best_cost = std::numeric_limits<double>::infinity();
  if (rtl) {
    for (size_t i = 0; i < cands.size(); ++i) {
      const auto& v = cands[i]["verification"];
      if (v.is_null() || !v["passed"].get<bool>()) continue;
      Metrics m;
      m.cycles = v["cycles"].get<long long>();
      m.energy_pj = v["energy_pj"].get<double>();
      const double c = obj.cost(m);
      if (c < best_cost) {
        best_cost = c;
        best = static_cast<int>(i);
      }
    }
  }
  json b;
  if (best >= 0) {
    const auto& c = cands[best];
    const auto& v = c["verification"];
    b = {{"rank", c["rank"]},
         {"chosen_by", "rtl"},
         {"mapping", c["mapping"]},
         {"cycles", v["cycles"]},
         {"energy_pj", v["energy_pj"]},
         {"edp", v["edp"]},
         {"utilization", v["utilization"]},
         {"cost", best_cost}};
  } else if (!cands.empty()) {
    const auto& c = cands[0];
    const auto& s = c["surrogate"];
    b = {{"rank", c["rank"]},
         {"chosen_by", "surrogate"},
         {"mapping", c["mapping"]},
         {"cycles", s["cycles"]},
         {"energy_pj", s["energy_pj"]},
         {"edp", s["edp"]},
         {"utilization", s["utilization"]},
         {"cost", c["cost"]}};
    if (rtl) b["note"] = "no candidate passed RTL verification; surrogate numbers";
  }
  L["best"] = b;
}

/// Network totals, verification summary and parity statistics from the layer records.
void summarize(json& res) {
  double cycles = 0, energy = 0, macs = 0;
  size_t done = 0;
  bool all_rtl = true;
  for (const auto& L : res["layers"]) {
    if (L["status"] != "done" || L["best"].is_null()) continue;
    const double n = L["count"].get<double>();
    cycles += n * L["best"]["cycles"].get<double>();
    energy += n * L["best"]["energy_pj"].get<double>();
    macs += n * L["macs"].get<double>();
    all_rtl = all_rtl && L["best"]["chosen_by"] == "rtl";
    ++done;
  }
  const double pes =
      res["arch_info"]["rows"].get<double>() * res["arch_info"]["cols"].get<double>();
  res["totals"] = {
      {"cycles", cycles},
      {"seconds", cycles / (res["arch_info"]["clock_mhz"].get<double>() * 1e6)},
      {"energy_pj", energy},
      {"edp", cycles * energy},
      {"utilization", cycles > 0 ? macs / (cycles * pes) : 0.0},
      {"macs", macs},
      {"layers_done", done},
      {"layers_total", res["layers"].size()},
      {"source",
       done == 0 ? "none" : (all_rtl ? "rtl" : (res["rtl"].get<bool>() ? "mixed" : "surrogate"))}};
  size_t want = 0, got = 0, passed = 0, infrastructure = 0;
  std::vector<double> rc, sc, errs;
  json failures = json::array();
  for (const auto& L : res["layers"]) {
    for (const auto& c : L["candidates"]) {
      if (!res["rtl"].get<bool>()) continue;
      ++want;
      const auto& v = c["verification"];
      if (v.is_null()) continue;
      ++got;
      if (v["passed"].get<bool>())
        ++passed;
      else
        failures.push_back(
            {{"layer", L["name"]},
             {"rank", c["rank"]},
             {"failure", v["failure"]},
             {"kind", v.value("kind", infrastructure_failure(v) ? "infrastructure" : "design")},
             {"functional_ok", v["functional_ok"]},
             {"counts_equal", v["counts_equal"]}});
      if (infrastructure_failure(v)) ++infrastructure;
      if (v.contains("cycles")) {
        rc.push_back(v["cycles"].get<double>());
        sc.push_back(c["surrogate"]["cycles"].get<double>());
        errs.push_back(std::abs(v["cycle_error_pct"].get<double>()));
      }
    }
  }
  res["verification_summary"] = {{"planned", want},
                                 {"done", got},
                                 {"passed", passed},
                                 {"failed", got - passed},
                                 {"infrastructure_failed", infrastructure},
                                 {"pending", want - got},
                                 {"failures", failures}};
  json parity = {{"n", errs.size()}};
  if (!errs.empty()) {
    double s = 0, mx = 0;
    for (double e : errs) {
      s += e;
      mx = std::max(mx, e);
    }
    parity["mape_pct"] = s / errs.size();
    parity["max_error_pct"] = mx;
    const double rho = core::spearman(rc, sc);
    parity["spearman"] = std::isnan(rho) ? json() : json(rho);
  }
  res["parity"] = parity;
}

json arch_info(const Arch& a) {
  return {{"name", a.name},
          {"rows", a.rows},
          {"cols", a.cols},
          {"clock_mhz", a.clock_mhz},
          {"input_kib", a.input_buf_bytes / 1024},
          {"weight_kib", a.weight_buf_bytes / 1024},
          {"accum_kib", a.accum_buf_bytes / 1024},
          {"dram_bytes_per_cycle", a.dram_bytes_per_cycle},
          {"dram_latency_cycles", a.dram_latency_cycles}};
}

/// Refuses a --resume whose explicit options differ from the stored run.
void check_resume(const RunOptions& o, const json& res, const fs::path& file) {
  auto same = [&](const char* flag, const json& stored, const json& given) {
    if (o.given.count(flag) && stored != given)
      throw SpecError("--" + std::string(flag), flag,
                      given.is_string() ? given.get<std::string>() : given.dump(),
                      "differs from the run being resumed (" + file.string() + " has " +
                          (stored.is_string() ? stored.get<std::string>() : stored.dump()) +
                          "); drop the flag or choose another --out");
  };
  same("network", res["network_arg"], json(o.network));
  same("layer", res["layer_arg"], json(o.layer));
  same("arch", res["arch_arg"], json(o.arch));
  same("searcher", res["searcher"], json(o.searcher));
  same("budget", res["budget_per_layer"], json(o.budget));
  same("seed", res["seed"], json(o.seed));
  same("objective", res["objective"], json(o.objective));
  same("top-k", res["top_k"], json(o.top_k));
  same("options", res["options_arg"], json(o.options_file));
  if (res.contains("exact")) {
    same("time-limit", res["exact"]["time_limit_s"], json(o.exact.time_limit_s));
    same("gap", res["exact"]["gap"], json(o.exact.gap));
  }
  same("no-rtl", json(!res["rtl"].get<bool>()), json(o.no_rtl));
}

/// Opens `dir` for a run: with --resume, reads and checks its results.json and takes the run's
/// settings from it (into `o`); otherwise makes sure the folder does not already hold a run.
/// Returns the stored record, or null for a new run.
json open_run_folder(RunOptions& o, const fs::path& dir) {
  const fs::path results_file = dir / "results.json";
  if (!fs::exists(results_file)) {
    const bool foreign = std::any_of(fs::directory_iterator(dir), fs::directory_iterator(),
                                     [](const fs::directory_entry& e) {
                                       // What a run killed before its first results.json leaves;
                                       // anything else is not a run folder.
                                       const std::string n = e.path().filename().string();
                                       return n != ".lock" && n != "mappings" && n != "curves" &&
                                              n.rfind("results.sqlite", 0) != 0;
                                     });
    if (o.resume && foreign)
      throw SpecError("--out", "out", dir.string(), "has no results.json to resume");
    if (o.resume && !o.given.count("network") && !o.given.count("layer"))
      // Stopped before its first save (or never started): nothing records what it was.
      throw SpecError("--out", "out", dir.string(),
                      "has no results.json (the run stopped before its first save); start it "
                      "again with its options and --resume");
    return json();
  }
  if (!o.resume)
    throw SpecError("--out", "out", dir.string(),
                    "already holds a run (results.json); add --resume to continue it, "
                    "`mapwright report " +
                        dir.string() + "` to re-render it, or choose another --out");
  json res;
  try {
    res = json::parse(read_text(results_file));
  } catch (const json::exception& e) {
    throw SpecError(results_file.string(), "(json)", "", e.what());
  }
  if (!res.is_object() || !res.contains("command") || res["command"] != "run")
    throw SpecError(results_file.string(), "command",
                    res.is_object() && res.contains("command") ? res["command"].dump() : "",
                    "not a `mapwright run` folder");
  check_run_record(res, results_file.string());
  check_resume(o, res, results_file);
  o.network = res["network_arg"];
  o.layer = res["layer_arg"];  // the stored run decides (a --layer run resumes as one)
  o.arch = res["arch_arg"];
  o.searcher = res["searcher"];
  o.budget = res["budget_per_layer"];
  o.seed = res["seed"];
  o.objective = res["objective"];
  o.top_k = res["top_k"];
  o.options_file = res["options_arg"];
  o.no_rtl = !res["rtl"].get<bool>();
  if (res.contains("exact")) {
    o.exact.time_limit_s = res["exact"]["time_limit_s"];
    o.exact.gap = res["exact"]["gap"];
  }
  return res;
}

/// Refuses options out of range before any work.
void check_run_options(const RunOptions& o) {
  if (o.budget <= 0)
    throw SpecError("--budget", "budget", std::to_string(o.budget), "must be a positive integer");
  if (o.top_k < 1 || o.top_k > 64)
    throw SpecError("--top-k", "top-k", std::to_string(o.top_k), "must be between 1 and 64");
  if (o.jobs < 0) throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0");
  check_sim_limits(o.sim_limits);
  require_searcher_kind(o.searcher, "--searcher");
  check_exact_options(o.exact);
}

/// The RTL worker pool, with a probe that makes sure the architecture has a compiled model
/// before anything is searched.
std::unique_ptr<RtlWorkerPool> start_rtl_pool(const RunOptions& o, const Arch& arch, int jobs) {
  auto pool = std::make_unique<RtlWorkerPool>(
      o.worker_exe.empty() ? worker_executable() : o.worker_exe, jobs);
  RtlJob probe;
  probe.arch = o.arch;
  probe.probe = true;
  pool->submit(probe);
  std::vector<std::pair<size_t, RtlJobResult>> got;
  while (got.empty()) got = pool->poll(-1);
  if (!got[0].second.failure.empty())
    throw SpecError("--arch", "arch", arch.name,
                    got[0].second.failure + "; run it surrogate-only with --no-rtl");
  return pool;
}

/// The record of a new run: its settings and every layer pending.
json new_run_record(const RunOptions& o, const fs::path& dir, const Arch& arch,
                    const std::string& target, const Objective& objective,
                    const std::vector<std::pair<Layer, int>>& layers) {
  json res = json::object();
  res["command"] = "run";
  res["format"] = 1;
  res["run_id"] = safe_name(dir.filename().string()) + "-" + now_iso();
  res["created"] = now_iso();
  res["mapwright"] = "0.1.0";
  res["target"] = target;
  res["network_arg"] = o.network;
  res["layer_arg"] = o.layer;
  res["arch"] = arch.name;
  res["arch_arg"] = o.arch;
  res["arch_info"] = arch_info(arch);
  res["searcher"] = o.searcher;
  res["budget_per_layer"] = o.budget;
  res["seed"] = o.seed;
  res["objective"] = objective.name;
  res["top_k"] = o.top_k;
  res["options_arg"] = o.options_file;
  if (o.searcher == "exact")
    res["exact"] = {
        {"time_limit_s", o.exact.time_limit_s}, {"gap", o.exact.gap}, {"threads", o.exact.threads}};
  res["options_file"] =
      o.options_file.empty() ? configs_dir() + "/search/default.yaml" : o.options_file;
  res["rtl"] = !o.no_rtl;
  res["layers"] = json::array();
  for (size_t li = 0; li < layers.size(); ++li) {
    const Layer& l = layers[li].first;
    res["layers"].push_back({{"index", li},
                             {"name", l.name},
                             {"shape", l.describe()},
                             {"kind", layer_kind_name(l.kind)},
                             {"count", layers[li].second},
                             {"macs", l.macs()},
                             {"layer", layer_to_json(l)},
                             {"seed", layer_seed(o.seed, li)},
                             {"status", "pending"},
                             {"candidates", json::array()},
                             {"best", nullptr}});
  }
  return res;
}

/// Leaves the run "interrupted" and resumable when the session ends by an exception (a full
/// disk, an unwritable file, anything thrown): what finished is already in results.json and
/// SQLite.
struct InterruptOnFailure {
  json& res;
  const fs::path& file;
  ~InterruptOnFailure() {
    if (std::uncaught_exceptions() == 0) return;
    res["status"] = "interrupted";
    try {
      write_atomic(file, res.dump(2) + "\n");
    } catch (...) {
      // The disk may still be full: results.json then says "running", which readers take as
      // interrupted once this process (the lock holder) is gone.
    }
    std::cerr << "mapwright: the run in " << file.parent_path().string()
              << " is interrupted; what finished is kept. Continue it with `mapwright run "
                 "--resume --out "
              << file.parent_path().string() << "`\n";
  }
};

/// One session of a run: searches the pending layers on the surrogate, verifies each layer's
/// top-K candidates on the RTL as they come, chooses the best, and writes results.json and the
/// SQLite store after every step, so that whatever stops the session loses nothing finished.
class RunSession {
 public:
  RunSession(const RunOptions& o, const fs::path& dir, json& res, ResultsDb& db,
             RtlWorkerPool* pool, const Arch& arch, const Objective& objective,
             const search::SearchOptions& sopts)
      : o_(o),
        dir_(dir),
        res_(res),
        db_(db),
        pool_(pool),
        arch_(arch),
        objective_(objective),
        sopts_(sopts),
        rtl_(pool != nullptr),
        tty_(o.progress && isatty(STDERR_FILENO)) {}

  /// Writes results.json (whole) and the run's row in SQLite.
  void save() {
    res_["updated"] = now_iso();
    summarize(res_);
    write_atomic(dir_ / "results.json", res_.dump(2) + "\n");
    db_.put_run(res_);
  }

  /// Resume: verifications that failed for infrastructure reasons (a worker crashed on every
  /// try) are no verdict: forget them and reopen their layers. Then re-queue verifications not
  /// finished and settle layers whose checks all came in.
  void resume_verifications(bool resuming) {
    const size_t n = res_["layers"].size();
    if (rtl_ && resuming) {
      for (size_t li = 0; li < n; ++li) {
        json& L = res_["layers"][li];
        if (L["status"] != "searched" && L["status"] != "done") continue;
        bool reopened = false;
        for (auto& c : L["candidates"])
          if (infrastructure_failure(c["verification"])) {
            c["verification"] = nullptr;
            reopened = true;
          }
        if (reopened && L["status"] == "done") {
          L["status"] = "searched";
          L["best"] = nullptr;
        }
      }
    }
    if (rtl_)
      for (size_t li = 0; li < n; ++li)
        if (res_["layers"][li]["status"] == "searched") submit_verifications(li);
    for (size_t li = 0; li < n; ++li) finish_layer_if_verified(li);
    save();
  }

  /// Searches every pending layer in order until done or interrupted. Returns false when a
  /// layer has no valid mapping.
  bool search_pending_layers() {
    bool no_valid = false;
    int searched_now = 0;
    for (size_t li = 0; li < res_["layers"].size(); ++li) {
      if (InterruptSignals::count()) break;
      if (res_["layers"][li]["status"] != "pending") continue;
      if (o_.stop_after_layers >= 0 && searched_now >= o_.stop_after_layers) {
        InterruptSignals::note();  // the test hook behaves like a Ctrl-C here
        break;
      }
      const LayerOutcome r = search_layer_at(li);
      if (r == LayerOutcome::Stopped) break;  // discarded; --resume redoes it (same seed)
      ++searched_now;
      no_valid = no_valid || r == LayerOutcome::NoValid;
    }
    return !no_valid;
  }

  /// Lets the RTL finish (after Ctrl-C: only what is in flight).
  void drain_rtl() {
    if (pool_) {
      while (pool_->running() + pool_->queued() > 0) {
        if (InterruptSignals::count() && pool_->queued()) pool_->drop_queued();
        const size_t total = res_["verification_summary"]["planned"].get<size_t>();
        const size_t done = res_["verification_summary"]["done"].get<size_t>();
        draw(std::string(InterruptSignals::count() ? "interrupted: finishing RTL runs in flight"
                                                   : "verifying on RTL") +
                 " " + std::to_string(done) + "/" + std::to_string(total),
             false);
        collect(200);
      }
    }
    if (tty_) std::cerr << "\r" << std::string(120, ' ') << "\r" << std::flush;
  }

  /// The session's last save; true when every layer is done.
  bool finish() {
    bool complete = true;
    for (const auto& L : res_["layers"]) complete = complete && L["status"] == "done";
    res_["status"] = complete ? "complete" : "interrupted";
    res_["wall_seconds_last_session"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
    save();
    for (const auto& L : res_["layers"])
      if (L["status"] == "done") db_.put_layer(res_["run_id"], L);
    return complete;
  }

 private:
  enum class LayerOutcome { Searched, NoValid, Stopped };

  void submit_verifications(size_t li) {
    json& L = res_["layers"][li];
    const Layer layer = layer_from_json(L["layer"], "results.json");
    for (size_t ci = 0; ci < L["candidates"].size(); ++ci) {
      const json& c = L["candidates"][ci];
      if (!c["verification"].is_null()) continue;
      RtlJob j;
      j.arch = o_.arch;
      j.layer = layer;
      j.mapping = mapping_from_yaml(c["mapping"].get<std::string>(), "results.json");
      j.seed = rtl_seed(o_.seed, li, c["rank"].get<int>());
      j.watchdog_cycles = o_.rtl_watchdog_cycles;
      j.limits = o_.sim_limits;
      job_of_[pool_->submit(std::move(j))] = {li, ci};
    }
  }

  void write_best(size_t li) {
    const json& L = res_["layers"][li];
    if (L["best"].is_null()) return;
    const std::string f = "mappings/" + stem_of(li, L["name"]) + ".yaml";
    std::ostringstream y;
    y << "# " << L["name"].get<std::string>() << ": " << L["shape"].get<std::string>() << "\n"
      << "# chosen by " << L["best"]["chosen_by"].get<std::string>() << " (candidate "
      << L["best"]["rank"].get<int>() << " of " << L["candidates"].size() << "), searcher "
      << o_.searcher << ", seed " << L["seed"].get<uint64_t>() << ", objective " << objective_.name
      << ", budget " << o_.budget << "\n"
      << L["best"]["mapping"].get<std::string>();
    write_atomic(dir_ / f, y.str());
    res_["layers"][li]["mapping_file"] = f;
  }

  void finish_layer_if_verified(size_t li) {
    json& L = res_["layers"][li];
    if (L["status"] != "searched") return;
    for (const auto& c : L["candidates"])
      if (rtl_ && c["verification"].is_null()) return;
    choose_best(L, objective_, rtl_);
    L["status"] = "done";
    write_best(li);
    db_.put_layer(res_["run_id"], L);
  }

  /// Records the RTL results that came in (waiting at most `timeout_ms`).
  void collect(int timeout_ms) {
    if (!pool_) return;
    if (InterruptSignals::count() >= 2) pool_->kill_all();
    for (auto& [id, r] : pool_->poll(timeout_ms)) {
      auto it = job_of_.find(id);
      if (it == job_of_.end()) continue;
      const auto [li, ci] = it->second;
      job_of_.erase(it);
      // A run killed by a second Ctrl-C is not a verdict on the mapping: leave it for --resume.
      if (InterruptSignals::count() >= 2 && r.failure.rfind("worker:", 0) == 0) continue;
      json& c = res_["layers"][li]["candidates"][ci];
      const Metrics sur = metrics_from_json(c["surrogate"]);
      c["verification"] = verification_json(r, sur, rtl_seed(o_.seed, li, c["rank"].get<int>()));
      db_.put_verification(res_["run_id"], static_cast<int>(li), c);
      finish_layer_if_verified(li);
      save();
    }
  }

  /// The progress line on a terminal.
  void draw(const std::string& what, bool force) {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    std::ostringstream s;
    s << "\r" << what;
    if (pool_) s << " | RTL " << (pool_->running()) << " running, " << pool_->queued() << " queued";
    const double secs = std::chrono::duration<double>(now - t_start_).count();
    s << " | " << static_cast<long long>(secs) << " s";
    std::string line = s.str();
    if (line.size() > 118) line = line.substr(0, 118);
    std::cerr << line << std::string(120 - line.size(), ' ') << std::flush;
  }

  /// Searches layer `li` and records its top-K candidates (and submits their verification).
  LayerOutcome search_layer_at(size_t li) {
    json& L = res_["layers"][li];
    const Layer layer = layer_from_json(L["layer"], "results.json");
    TopK top{static_cast<size_t>(o_.top_k), {}};
    std::vector<EvaluationRow> evals;
    evals.reserve(static_cast<size_t>(o_.budget));
    const std::string label = "[" + std::to_string(li + 1) + "/" +
                              std::to_string(res_["layers"].size()) + "] " + layer.name;
    auto observe = [&](const SampleSeen& s) {
      EvaluationRow e;
      e.sample = s.sample;
      e.valid = s.outcome->valid;
      e.cost = s.outcome->cost;
      e.cycles = s.metrics->cycles;
      e.energy_pj = s.metrics->energy_pj;
      e.reason = s.outcome->reason;
      e.point = json(*s.point).dump();
      evals.push_back(std::move(e));
      if (s.outcome->valid) top.offer(s.outcome->cost, s.sample, *s.mapping, *s.metrics);
    };
    auto keep_going = [&](const search::SearchProgress& p) {
      collect(0);
      std::ostringstream w;
      w << label << " search " << p.samples << "/" << p.budget;
      if (p.found) w << " best " << si(p.best_cost, 3);
      draw(w.str(), false);
      return InterruptSignals::count() == 0;
    };
    const auto t0 = std::chrono::steady_clock::now();
    if (o_.searcher == "exact") {
      std::ostringstream w;
      w << label << " exact search (at most " << o_.exact.time_limit_s << " s)";
      draw(w.str(), false);
    }
    ExactOptions ex = o_.exact;
    ex.top_k = o_.top_k;
    LayerSearch ls = search_layer(layer, arch_, o_.searcher, sopts_, L["seed"].get<uint64_t>(),
                                  o_.budget, objective_, keep_going, observe, ex);
    if (ls.result.stopped_early || InterruptSignals::count()) return LayerOutcome::Stopped;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    record_search(li, ls, top, secs);
    db_.put_evaluations(res_["run_id"], static_cast<int>(li), evals);
    if (rtl_) submit_verifications(li);
    finish_layer_if_verified(li);
    db_.put_layer(res_["run_id"], L);
    save();
    collect(0);
    return top.entries.empty() ? LayerOutcome::NoValid : LayerOutcome::Searched;
  }

  /// The layer's search record, best-so-far curve and candidates.
  void record_search(size_t li, const LayerSearch& ls, const TopK& top, double secs) {
    json& L = res_["layers"][li];
    json sr = ls.result.to_json();
    sr.erase("best_so_far");
    sr["seconds"] = secs;
    sr["searcher"] = ls.searcher;
    if (!ls.exact.is_null()) sr["exact"] = ls.exact;
    L["search"] = sr;
    const std::string curve = "curves/" + stem_of(li, L["name"]) + ".csv";
    std::ostringstream c;
    c << "sample,best_cost\n";
    for (size_t i = 0; i < ls.result.best_so_far.size(); ++i) {
      const double v = ls.result.best_so_far[i];
      c << (i + 1) << ",";
      if (std::isfinite(v)) c << std::setprecision(10) << v;
      c << "\n";
    }
    write_atomic(dir_ / curve, c.str());
    L["curve_csv"] = curve;
    L["candidates"] = json::array();
    for (size_t r = 0; r < top.entries.size(); ++r) {
      const auto& e = top.entries[r];
      L["candidates"].push_back({{"rank", r},
                                 {"sample", e.sample},
                                 {"cost", e.cost},
                                 {"mapping", e.yaml},
                                 {"surrogate", surrogate_json(e.metrics)},
                                 {"verification", nullptr}});
    }
    L["status"] = "searched";
  }

  const RunOptions& o_;
  const fs::path& dir_;
  json& res_;
  ResultsDb& db_;
  RtlWorkerPool* pool_;
  const Arch& arch_;
  const Objective& objective_;
  const search::SearchOptions& sopts_;
  const bool rtl_;
  const bool tty_;
  const std::chrono::steady_clock::time_point t_start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_ = t_start_ - std::chrono::seconds(1);
  /// Verification jobs in the pool: job id -> (layer, candidate index).
  std::map<size_t, std::pair<size_t, size_t>> job_of_;
};

/// layers.csv and verifications.csv from the record.
void write_run_csvs(const json& res, const fs::path& dir) {
  std::ostringstream c;
  c << "index,name,count,status,chosen_by,cycles,energy_pj,edp,utilization,surrogate_cycles,"
       "candidates,verified,passed\n";
  for (const auto& L : res["layers"]) {
    int ver = 0, pass = 0;
    for (const auto& cd : L["candidates"])
      if (!cd["verification"].is_null()) {
        ++ver;
        pass += cd["verification"]["passed"].get<bool>();
      }
    c << L["index"] << "," << L["name"].get<std::string>() << "," << L["count"] << ","
      << L["status"].get<std::string>() << ",";
    if (!L["best"].is_null())
      c << L["best"]["chosen_by"].get<std::string>() << "," << L["best"]["cycles"] << ","
        << L["best"]["energy_pj"] << "," << L["best"]["edp"] << "," << L["best"]["utilization"]
        << "," << (L["candidates"].empty() ? json() : L["candidates"][0]["surrogate"]["cycles"]);
    else
      c << ",,,,,";
    c << "," << L["candidates"].size() << "," << ver << "," << pass << "\n";
  }
  write_atomic(dir / "layers.csv", c.str());
  std::ostringstream v;
  v << "layer,rank,seed,surrogate_cost,surrogate_cycles,rtl_cycles,cycle_error_pct,"
       "functional_ok,counts_equal,passed,failure,sim_seconds\n";
  for (const auto& L : res["layers"])
    for (const auto& cd : L["candidates"]) {
      const auto& x = cd["verification"];
      if (x.is_null()) continue;
      std::string fail = x["failure"].get<std::string>();
      std::replace(fail.begin(), fail.end(), '"', '\'');
      v << L["name"].get<std::string>() << "," << cd["rank"] << "," << x["seed"] << ","
        << cd["cost"] << "," << cd["surrogate"]["cycles"] << ","
        << (x.contains("cycles") ? x["cycles"].dump() : "") << ","
        << (x.contains("cycle_error_pct") ? x["cycle_error_pct"].dump() : "") << ","
        << x["functional_ok"] << "," << x["counts_equal"] << "," << x["passed"] << ",\"" << fail
        << "\"," << x["sim_seconds"] << "\n";
    }
  write_atomic(dir / "verifications.csv", v.str());
}

/// One layer's line of the summary table.
void print_layer_line(const json& L, bool rtl, std::ostream& out) {
  out << std::left << std::setw(24) << L["name"].get<std::string>().substr(0, 23) << std::right
      << std::setw(6) << L["count"].get<int>();
  if (L["best"].is_null()) {
    out << "  "
        << (L["status"] == "pending"    ? "not searched"
            : L["status"] == "searched" ? "RTL pending"
                                        : "no valid mapping")
        << "\n";
    return;
  }
  int ver = 0, pass = 0;
  for (const auto& cd : L["candidates"])
    if (!cd["verification"].is_null()) {
      ++ver;
      pass += cd["verification"]["passed"].get<bool>();
    }
  out << std::setw(14) << L["best"]["cycles"].get<long long>() << std::setw(12) << std::fixed
      << std::setprecision(2) << L["best"]["energy_pj"].get<double>() * 1e-6 << std::setw(8)
      << std::setprecision(1) << 100 * L["best"]["utilization"].get<double>() << std::defaultfloat
      << "  " << L["best"]["chosen_by"].get<std::string>();
  if (rtl) out << ", " << pass << "/" << ver << " passed" << (pass < ver ? "  FAILED" : "");
  out << "\n";
}

/// The summary table a user reads after `mapwright run`.
void print_run_summary(const json& res, const RunOptions& o, const Arch& arch,
                       const std::string& db_path, const fs::path& dir, bool complete,
                       std::ostream& out) {
  const bool rtl = res["rtl"].get<bool>();
  const auto& vs = res["verification_summary"];
  const auto& t = res["totals"];
  out << "run " << res["target"].get<std::string>() << " on " << arch.name << " (" << arch.rows
      << "x" << arch.cols << "), " << o.searcher << ", "
      << (o.searcher == "exact"
              ? (o.exact.gap == 0 ? std::string("proving each optimum")
                                  : "proven gap <= " + fmt_g(100 * o.exact.gap) + " %") +
                    " within at most " + fmt_g(o.exact.time_limit_s) + " s per layer"
              : std::to_string(o.budget) + " samples per layer")
      << ", objective " << res["objective"].get<std::string>() << ", seed " << o.seed
      << (rtl ? ", top-" + std::to_string(o.top_k) + " verified on RTL" : ", surrogate only")
      << "\n";
  out << std::left << std::setw(24) << "layer" << std::right << std::setw(6) << "count"
      << std::setw(14) << "cycles" << std::setw(12) << "energy_uJ" << std::setw(8) << "util%"
      << "  chosen by / RTL checks\n";
  for (const auto& L : res["layers"]) print_layer_line(L, rtl, out);
  out << "total: " << static_cast<long long>(t["cycles"].get<double>()) << " cycles ("
      << si(t["seconds"].get<double>()) << "s), " << std::fixed << std::setprecision(2)
      << t["energy_pj"].get<double>() * 1e-6 << " uJ, EDP " << std::scientific
      << std::setprecision(4) << t["edp"].get<double>() << " pJ*cycles, utilization " << std::fixed
      << std::setprecision(1) << 100 * t["utilization"].get<double>() << " %" << std::defaultfloat
      << " (" << t["layers_done"] << "/" << t["layers_total"] << " layers)\n";
  if (rtl)
    out << "RTL: " << vs["passed"] << " of " << vs["done"] << " verifications passed"
        << (vs["pending"].get<size_t>() ? ", " + vs["pending"].dump() + " not run" : "")
        << (vs["failed"].get<size_t>() ? " -- " + vs["failed"].dump() + " FAILED (see report)" : "")
        << (vs["infrastructure_failed"].get<size_t>()
                ? "; " + vs["infrastructure_failed"].dump() +
                      " of them because the RTL worker crashed (no verdict: `mapwright run "
                      "--resume --out " +
                      dir.string() + "` runs them again)"
                : "")
        << "\n";
  out << "written to " << dir.string() << " (report.html, results.json, layers.csv, "
      << "verifications.csv, mappings/, curves/; results store " << db_path << ")\n";
  if (!complete)
    out << "interrupted: continue with `mapwright run --resume --out " << dir.string() << "`\n";
}

}  // namespace

int cmd_run(const RunOptions& opt, std::ostream& out) {
  RunOptions o = opt;
  // The run folder first (a resumed run reads its settings from it).
  fs::path dir = o.out_dir;
  if (dir.empty()) {
    const std::string target =
        o.layer.empty() ? parse_network_arg(o.network).name : parse_layer_arg(o.layer).name;
    dir = fs::path("runs") / ("run-" + safe_name(target) + "-" + safe_name(load_arch(o.arch).name) +
                              "-" + o.searcher + "-s" + std::to_string(o.seed));
  }
  const FolderLock lock(dir, "--out");  // Held until cmd_run returns: one process per folder.
  json res = open_run_folder(o, dir);
  const bool resuming = !res.is_null();

  // Everything is validated before any work.
  check_run_options(o);
  const Objective objective = parse_objective(o.objective);
  const Arch arch = load_arch(o.arch);
  const search::SearchOptions sopts = load_options_or_default(o.options_file);
  std::vector<std::pair<Layer, int>> layers;
  std::string target;
  if (!o.layer.empty()) {
    layers.push_back({parse_layer_arg(o.layer), 1});
    target = layers[0].first.name;
  } else {
    const Network net = parse_network_arg(o.network);
    target = net.name;
    layers = net.unique_layers();
  }
  const int jobs =
      o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::unique_ptr<RtlWorkerPool> pool = o.no_rtl ? nullptr : start_rtl_pool(o, arch, jobs);

  make_output_dir(dir / "mappings");
  make_output_dir(dir / "curves");
  const std::string db_path = o.db.empty() ? (dir / "results.sqlite").string() : o.db;
  ResultsDb db(db_path);
  if (!resuming) res = new_run_record(o, dir, arch, target, objective, layers);
  res["run_dir"] = dir.string();
  res["db"] = db_path;
  res["rtl_note"] = !o.no_rtl
                        ? "each layer's top-" + std::to_string(o.top_k) +
                              " distinct surrogate candidates run on the Verilated RTL (bit-exact "
                              "check against a C++ reference, counters against the surrogate); "
                              "the best is chosen by RTL cost"
                        : "surrogate only (--no-rtl): no RTL verification in this run";
  res["status"] = "running";
  res["jobs"] = jobs;

  const InterruptSignals signals(/*also_term=*/true);
  const fs::path results_file = dir / "results.json";
  const InterruptOnFailure interrupt_on_failure{res, results_file};
  RunSession session(o, dir, res, db, pool.get(), arch, objective, sopts);
  session.save();
  session.resume_verifications(resuming);
  const bool all_valid = session.search_pending_layers();
  session.drain_rtl();
  const bool complete = session.finish();

  write_run_csvs(res, dir);
  render_run_report(res, dir, dir / "report.html");
  if (o.json)
    out << res.dump(2) << "\n";
  else
    print_run_summary(res, o, arch, db_path, dir, complete, out);
  if (!complete && InterruptSignals::count()) return 130;
  if (res["verification_summary"]["failed"].get<size_t>() > 0) return 4;
  if (!all_valid) return 3;
  return complete ? 0 : 130;
}

}  // namespace mapwright::flows
