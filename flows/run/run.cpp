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
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/text.hpp"
#include "common/files.hpp"
#include "common/signals.hpp"
#include "mapwright/core/error.hpp"
#include "mapwright/core/test_hooks.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/core/stats.hpp"
#include "mapwright/core/layer_spec.hpp"
#include "mapwright/core/mapspace.hpp"
#include "mapwright/model/refined.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/flows/search_flow.hpp"
#include "mapwright/flows/verify.hpp"
#include "report/render.hpp"
#include "record/results_db.hpp"
#include "verify/crosscheck.hpp"

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
    Mapping mapping;
    Metrics metrics;
  };
  size_t k;
  std::vector<Entry> entries;  ///< Sorted by (cost, sample).
  void offer(double cost, int64_t sample, const Mapping& m, const Metrics& met) {
    if (entries.size() >= k && !(cost < entries.back().cost)) return;
    for (const auto& e : entries)
      if (e.mapping == m) return;
    Entry e{cost, sample, m, met};
    auto it =
        std::upper_bound(entries.begin(), entries.end(), e, [](const Entry& a, const Entry& b) {
          return a.cost < b.cost || (a.cost == b.cost && a.sample < b.sample);
        });
    entries.insert(it, std::move(e));
    if (entries.size() > k) entries.pop_back();
  }
};

/// Refuses a --resume whose explicit options differ from the stored run.
void check_resume(const RunOptions& o, const RunRecord& r, const fs::path& file) {
  for (const SettingChange& c : changed_flags(r.settings, o.settings, o.given))
    throw SpecError("--" + c.flag, c.flag, c.given,
                    "differs from the run being resumed (" + file.string() + " has " + c.stored +
                        "); drop the flag or choose another --out");
}

/// Opens `dir` for a run: with --resume, reads and checks its results.json and takes the run's
/// settings from it (into `o`); otherwise makes sure the folder does not already hold a run.
/// Returns the stored record, or nothing for a new run. `fresh_folder`: the folder did not exist,
/// or was empty, before this process took its lock.
std::optional<RunRecord> open_run_folder(RunOptions& o, const fs::path& dir, bool fresh_folder) {
  const fs::path results_file = dir / "results.json";
  if (!fs::exists(results_file)) {
    // A folder that did not exist (or was empty) before this process took its lock starts a
    // new run, --resume or not (scripts/run-defaults.sh on a fresh clone).
    if (fresh_folder) return std::nullopt;
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
      // Stopped before its first save: nothing records what it was.
      throw SpecError("--out", "out", dir.string(),
                      "has no results.json (the run stopped before its first save); start it "
                      "again with its options and --resume");
    return std::nullopt;
  }
  if (!o.resume)
    throw SpecError("--out", "out", dir.string(),
                    "already holds a run (results.json); add --resume to continue it, "
                    "`mapwright report " +
                        dir.string() + "` to re-render it, or choose another --out");
  json stored;
  try {
    stored = json::parse(read_text(results_file));
  } catch (const json::exception& e) {
    throw SpecError(results_file.string(), "(json)", "", e.what());
  }
  if (!stored.is_object() || !stored.contains("command") || stored["command"] != "run")
    throw SpecError(
        results_file.string(), "command",
        stored.is_object() && stored.contains("command") ? stored["command"].dump() : "",
        "not a `mapwright run` folder");
  check_run_record(stored, results_file.string());
  RunRecord r = run_record_from_json(stored, results_file.string());
  check_resume(o, r, results_file);
  // The stored run decides (a --layer run resumes as one); the exact mapper's threads say how
  // this process runs it, so they stay as given.
  const int threads = o.settings.exact.threads;
  o.settings = r.settings;
  o.settings.exact.threads = threads;
  return r;
}

/// Refuses options out of range before any work.
void check_run_options(const RunOptions& o) {
  if (o.settings.budget <= 0)
    throw SpecError("--budget", "budget", std::to_string(o.settings.budget),
                    "must be a positive integer");
  if (o.settings.top_k < 1 || o.settings.top_k > 64)
    throw SpecError("--top-k", "top-k", std::to_string(o.settings.top_k),
                    "must be between 1 and 64");
  if (o.jobs < 0) throw SpecError("--jobs", "jobs", std::to_string(o.jobs), "must be >= 0");
  check_sim_limits(o.sim_limits);
  require_searcher_kind(o.settings.searcher, "--searcher");
  if (o.settings.reward != "surrogate" && o.settings.reward != "rtl")
    throw SpecError("--reward", "reward", o.settings.reward, "must be surrogate or rtl");
  if (o.settings.reward == "rtl" && o.settings.searcher == "exact")
    throw SpecError("--reward", "reward", o.settings.reward,
                    "the exact mapper optimizes the surrogate; choose a sampling --searcher "
                    "(e.g. marl) for RTL reward");
  if (o.settings.reward == "rtl" && o.settings.no_rtl)
    throw SpecError("--reward", "reward", o.settings.reward, "needs the RTL; drop --no-rtl");
  if (o.settings.surrogate_warmup < 0)
    throw SpecError("--surrogate-warmup", "surrogate-warmup",
                    std::to_string(o.settings.surrogate_warmup), "must be >= 0");
  check_exact_options(o.settings.exact);
}

/// The RTL worker pool, after the pre-check that the architecture has an RTL model (compiled
/// in, or from the model cache, built now when absent), before anything is searched.
std::unique_ptr<RtlWorkerPool> start_rtl_pool(const RunOptions& o, const Arch& arch, int jobs) {
  auto pool = std::make_unique<RtlWorkerPool>(
      o.worker_exe.empty() ? worker_executable() : o.worker_exe, jobs);
  ModelCacheOptions cache;
  cache.progress = &std::cerr;
  pool->enable_model_cache(cache);
  if (const std::string why = pool->check_arch(o.settings.arch); !why.empty())
    throw SpecError("--arch", "arch", arch.name, why + "; run it surrogate-only with --no-rtl");
  return pool;
}

/// The record of a new run: its settings and every layer pending.
RunRecord new_run_record(const RunOptions& o, const fs::path& dir, const Arch& arch,
                         const std::string& target, const Objective& objective,
                         const std::vector<std::pair<Layer, int>>& layers) {
  RunRecord r;
  r.run_id = safe_name(dir.filename().string()) + "-" + now_iso();
  r.created = now_iso();
  r.mapwright = "0.1.0";
  r.target = target;
  r.settings = o.settings;
  r.settings.objective = objective.name;
  r.arch = arch_info_of(arch);
  r.options_file = o.settings.options_file.empty() ? configs_dir() + "/search/default.yaml"
                                                   : o.settings.options_file;
  for (size_t li = 0; li < layers.size(); ++li) {
    LayerRecord L;
    L.index = li;
    L.layer = layers[li].first;
    L.count = layers[li].second;
    L.seed = layer_seed(o.settings.seed, li);
    r.layers.push_back(std::move(L));
  }
  return r;
}

/// Leaves the run "interrupted" and resumable when the session ends by an exception (a full
/// disk, an unwritable file, anything thrown): what finished is already in results.json and
/// SQLite.
struct InterruptOnFailure {
  RunRecord& rec;
  const fs::path& file;
  ~InterruptOnFailure() {
    if (std::uncaught_exceptions() == 0) return;
    rec.status = RunStatus::Interrupted;
    try {
      write_atomic(file, run_record_to_json(rec).dump(2) + "\n");
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
json worker_options_json(const RunOptions& o);

class RunSession {
 public:
  RunSession(const RunOptions& o, const fs::path& dir, RunRecord& rec, ResultsDb& db,
             RtlWorkerPool* pool, const Arch& arch, const Objective& objective,
             const search::SearchOptions& sopts)
      : o_(o),
        dir_(dir),
        rec_(rec),
        db_(db),
        pool_(pool),
        arch_(arch),
        objective_(objective),
        sopts_(sopts),
        rtl_(pool != nullptr),
        jobs_(rec.jobs),
        tty_(o.progress && isatty(STDERR_FILENO)) {}

  /// Writes results.json (whole) and the run's row in SQLite.
  void save() {
    rec_.updated = now_iso();
    const RunSummary summary = summarize(rec_);
    write_atomic(dir_ / "results.json", run_record_to_json(rec_, summary).dump(2) + "\n");
    db_.put_run(rec_, summary);
  }

  /// Resume: verifications that failed for infrastructure reasons (a worker crashed on every
  /// try) are no verdict: forget them and reopen their layers. Then re-queue verifications not
  /// finished and settle layers whose checks all came in.
  void resume_verifications(bool resuming) {
    if (rtl_ && resuming) {
      for (auto& L : rec_.layers) {
        if (L.status == LayerStatus::Pending) continue;
        bool reopened = false;
        for (auto& c : L.candidates)
          if (c.verification && c.verification->kind == VerificationKind::Infrastructure) {
            c.verification.reset();
            reopened = true;
          }
        if (reopened && L.status == LayerStatus::Done) {
          L.status = LayerStatus::Searched;
          L.best.reset();
        }
      }
    }
    if (rtl_)
      for (size_t li = 0; li < rec_.layers.size(); ++li)
        if (rec_.layers[li].status == LayerStatus::Searched) submit_verifications(li);
    for (size_t li = 0; li < rec_.layers.size(); ++li) finish_layer_if_verified(li);
    save();
  }

  /// Searches every pending layer in order until done or interrupted. Returns false when a
  /// layer has no valid mapping.
  bool search_pending_layers() {
    bool no_valid = false;
    int searched_now = 0;
    for (size_t li = 0; li < rec_.layers.size(); ++li) {
      if (InterruptSignals::count()) break;
      if (rec_.layers[li].status != LayerStatus::Pending) continue;
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

  /// Under mpirun, rank 0: hands the pending layers one at a time to whichever rank asks
  /// (dynamic load balancing); each rank searches its layer and verifies the layer's candidates
  /// on its own RTL workers and sends the layer back, which is recorded as if searched here.
  /// Returns false when a layer has no valid mapping; `failed` names a rank's failure.
  bool dispatch_pending_layers(std::string& failed) {
    std::deque<size_t> todo;
    for (size_t li = 0; li < rec_.layers.size(); ++li)
      if (rec_.layers[li].status == LayerStatus::Pending) todo.push_back(li);
    if (o_.stop_after_layers >= 0 && todo.size() > static_cast<size_t>(o_.stop_after_layers)) {
      todo.resize(static_cast<size_t>(o_.stop_after_layers));
      InterruptSignals::note();  // the test hook behaves like a Ctrl-C after these layers
    }
    const json options = worker_options_json(o_);
    std::map<int, size_t> running;  // rank -> layer
    bool no_valid = false;
    int active = dist::size() - 1;
    while (active > 0) {
      int from = 0;
      dist::Tag tag{};
      const json m = dist::receive(from, tag);
      if (tag == dist::Tag::Result) {
        running.erase(from);
        const size_t li = m["index"].get<size_t>();
        if (m.value("interrupted", false)) {
          InterruptSignals::note();  // Ctrl-C reached that rank: its layer stays pending
        } else if (m.contains("failure")) {
          if (failed.empty())
            failed = "rank " + std::to_string(from) + " failed on layer " +
                     rec_.layers[li].layer.name + ": " + m["failure"].get<std::string>();
        } else {
          absorb_layer(li, m);
          no_valid = no_valid || rec_.layers[li].candidates.empty();
        }
      }
      if (!todo.empty() && InterruptSignals::count() == 0 && failed.empty()) {
        const size_t li = todo.front();
        todo.pop_front();
        running[from] = li;
        if (o_.progress)
          std::cerr << "rank " << from << ": layer " << li + 1 << "/" << rec_.layers.size() << " "
                    << rec_.layers[li].layer.name << "\n"
                    << std::flush;
        dist::send(from, dist::Tag::Work,
                   {{"index", li}, {"options", options}, {"dir", dir_.string()}});
      } else {
        dist::send(from, dist::Tag::Stop, json::object());
        --active;
      }
    }
    return !no_valid;
  }

  /// Under mpirun, a rank other than 0: searches layer `li` and verifies its candidates on this
  /// rank's RTL workers; returns the layer as rank 0 records it (the layer's record, its
  /// best-so-far curve and its samples).
  json search_one(size_t li) {
    last_evals_.clear();
    const LayerOutcome r = search_layer_at(li);
    drain_rtl();
    if (r == LayerOutcome::Stopped) return {{"index", li}, {"interrupted", true}};
    const LayerRecord& L = rec_.layers[li];
    json evals = json::array();
    for (const auto& e : last_evals_)
      evals.push_back({e.sample, e.valid, e.cost, e.cycles, e.energy_pj, e.reason, e.point});
    return {{"index", li},
            {"layer", layer_record_to_json(L, rtl_)},
            {"curve", L.curve_csv.empty() ? std::string() : read_text(dir_ / L.curve_csv)},
            {"evals", evals}};
  }

  /// Lets the RTL finish (after Ctrl-C: only what is in flight).
  void drain_rtl() {
    if (pool_) {
      while (pool_->running() + pool_->queued() > 0) {
        if (InterruptSignals::count() && pool_->queued()) pool_->drop_queued();
        const RunSummary s = summarize(rec_);
        draw(std::string(InterruptSignals::count() ? "interrupted: finishing RTL runs in flight"
                                                   : "verifying on RTL") +
                 " " + std::to_string(s.done) + "/" + std::to_string(s.planned),
             false);
        collect(200);
      }
    }
    if (tty_) std::cerr << "\r" << std::string(120, ' ') << "\r" << std::flush;
  }

  /// The session's last save; true when every layer is done.
  bool finish() {
    bool complete = true;
    for (const auto& L : rec_.layers) complete = complete && L.status == LayerStatus::Done;
    rec_.status = complete ? RunStatus::Complete : RunStatus::Interrupted;
    rec_.wall_seconds_last_session =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start_).count();
    save();
    for (const auto& L : rec_.layers)
      if (L.status == LayerStatus::Done) db_.put_layer(rec_.run_id, L);
    return complete;
  }

 private:
  enum class LayerOutcome { Searched, NoValid, Stopped };

  void submit_verifications(size_t li) {
    const LayerRecord& L = rec_.layers[li];
    for (size_t ci = 0; ci < L.candidates.size(); ++ci) {
      const Candidate& c = L.candidates[ci];
      if (c.verification) continue;
      RtlJob j;
      j.arch = o_.settings.arch;
      j.layer = L.layer;
      j.mapping = c.mapping;
      j.seed = rtl_seed(o_.settings.seed, li, c.rank);
      j.watchdog_cycles = o_.rtl_watchdog_cycles;
      j.limits = o_.sim_limits;
      job_of_[pool_->submit(std::move(j))] = {li, ci};
    }
  }

  void write_best(size_t li) {
    LayerRecord& L = rec_.layers[li];
    if (!L.best) return;
    const std::string f = "mappings/" + stem_of(li, L.layer.name) + ".yaml";
    std::ostringstream y;
    y << "# " << L.layer.name << ": " << L.layer.describe() << "\n"
      << "# chosen by " << chosen_by_name(L.best->chosen_by) << " (candidate " << L.best->rank
      << " of " << L.candidates.size() << "), searcher " << o_.settings.searcher << ", seed "
      << L.seed << ", objective " << objective_.name << ", budget " << o_.settings.budget << "\n"
      << mapping_to_yaml(L.best->mapping);
    write_atomic(dir_ / f, y.str());
    L.mapping_file = f;
  }

  void finish_layer_if_verified(size_t li) {
    LayerRecord& L = rec_.layers[li];
    if (L.status != LayerStatus::Searched) return;
    for (const auto& c : L.candidates)
      if (rtl_ && !c.verification) return;
    choose_best(L, objective_, rtl_);
    L.status = LayerStatus::Done;
    write_best(li);
    db_.put_layer(rec_.run_id, L);
  }

  /// Rank 0 under mpirun: records layer `li` as another rank searched and verified it.
  void absorb_layer(size_t li, const json& m) {
    rec_.layers[li] = layer_record_from_json(m["layer"], "the message of an MPI rank");
    LayerRecord& R = rec_.layers[li];
    if (!R.curve_csv.empty()) write_atomic(dir_ / R.curve_csv, m["curve"].get<std::string>());
    std::vector<EvaluationRow> evals;
    for (const auto& e : m["evals"])
      evals.push_back({e[0].get<int64_t>(), e[1].get<bool>(), e[2].get<double>(),
                       e[3].get<long long>(), e[4].get<double>(), e[5].get<std::string>(),
                       e[6].get<std::string>()});
    db_.put_evaluations(rec_.run_id, static_cast<int>(li), evals);
    for (const auto& c : R.candidates)
      if (c.verification) db_.put_verification(rec_.run_id, static_cast<int>(li), c);
    if (R.status == LayerStatus::Done) {
      write_best(li);
    } else if (R.status == LayerStatus::Searched && rtl_) {
      submit_verifications(li);  // the rank was stopped before its checks came in
    }
    db_.put_layer(rec_.run_id, R);
    save();
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
      if (InterruptSignals::count() >= 2 && r.kind == RtlFailure::Worker) continue;
      Candidate& c = rec_.layers[li].candidates[ci];
      c.verification = verification_of(r, rec_.layers[li].layer, arch_, c.mapping, c.surrogate,
                                       rtl_seed(o_.settings.seed, li, c.rank));
      db_.put_verification(rec_.run_id, static_cast<int>(li), c);
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
    const Layer& layer = rec_.layers[li].layer;
    TopK top{static_cast<size_t>(o_.settings.top_k), {}};
    std::vector<EvaluationRow> evals;
    evals.reserve(static_cast<size_t>(o_.settings.budget));
    const std::string label =
        "[" + std::to_string(li + 1) + "/" + std::to_string(rec_.layers.size()) + "] " + layer.name;
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
    if (o_.settings.searcher == "exact") {
      std::ostringstream w;
      w << label << " exact search (at most " << o_.settings.exact.time_limit_s << " s)";
      draw(w.str(), false);
    }
    ExactOptions ex = o_.settings.exact;
    ex.top_k = o_.settings.top_k;
    LayerSearch ls = search_layer(layer, arch_, o_.settings.searcher, sopts_, rec_.layers[li].seed,
                                  o_.settings.budget, objective_, keep_going, observe, ex,
                                  Encoding::Compact, reward_options());
    if (ls.result.stopped_early || InterruptSignals::count()) return LayerOutcome::Stopped;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    record_search(li, ls, top, secs);
    db_.put_evaluations(rec_.run_id, static_cast<int>(li), evals);
    last_evals_ = std::move(evals);
    if (rtl_) submit_verifications(li);
    finish_layer_if_verified(li);
    db_.put_layer(rec_.run_id, rec_.layers[li]);
    save();
    collect(0);
    return top.entries.empty() ? LayerOutcome::NoValid : LayerOutcome::Searched;
  }

  /// The searchers' reward: the surrogate, or (--reward rtl) the RTL after the warm-up, in
  /// worker processes of their own (as many as the verification pool).
  RewardOptions reward_options() const {
    RewardOptions r;
    if (o_.settings.reward != "rtl") return r;
    r.source = RewardOptions::Rtl;
    r.surrogate_warmup = o_.settings.surrogate_warmup;
    r.jobs = jobs_;
    r.worker_exe = o_.worker_exe;
    r.watchdog_cycles = o_.rtl_watchdog_cycles;
    r.limits = o_.sim_limits;
    r.arch = o_.settings.arch;
    return r;
  }

  /// The layer's search record, best-so-far curve and candidates.
  void record_search(size_t li, const LayerSearch& ls, const TopK& top, double secs) {
    LayerRecord& L = rec_.layers[li];
    json sr = ls.result.to_json();
    sr.erase("best_so_far");
    sr["seconds"] = secs;
    sr["searcher"] = ls.searcher;
    if (!ls.exact.is_null()) sr["exact"] = ls.exact;
    if (ls.reward.value("source", std::string()) == "rtl") sr["reward"] = ls.reward;
    L.search = sr;
    const std::string curve = "curves/" + stem_of(li, L.layer.name) + ".csv";
    std::ostringstream c;
    c << "sample,best_cost\n";
    for (size_t i = 0; i < ls.result.best_so_far.size(); ++i) {
      const double v = ls.result.best_so_far[i];
      c << (i + 1) << ",";
      if (std::isfinite(v)) c << std::setprecision(10) << v;
      c << "\n";
    }
    write_atomic(dir_ / curve, c.str());
    L.curve_csv = curve;
    L.candidates.clear();
    for (size_t r = 0; r < top.entries.size(); ++r) {
      const auto& e = top.entries[r];
      Candidate cand;
      cand.rank = static_cast<int>(r);
      cand.sample = e.sample;
      cand.cost = e.cost;
      cand.mapping = e.mapping;
      cand.surrogate = e.metrics;
      cand.refined_cycles = model::refined_cycles(L.layer, arch_, e.mapping).cycles;
      L.candidates.push_back(std::move(cand));
    }
    L.status = LayerStatus::Searched;
  }

  const RunOptions& o_;
  const fs::path& dir_;
  RunRecord& rec_;
  ResultsDb& db_;
  RtlWorkerPool* pool_;
  const Arch& arch_;
  const Objective& objective_;
  const search::SearchOptions& sopts_;
  const bool rtl_;
  const int jobs_;  ///< RTL worker processes (verification; RTL reward has as many).
  const bool tty_;
  const std::chrono::steady_clock::time_point t_start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_ = t_start_ - std::chrono::seconds(1);
  /// Verification jobs in the pool: job id -> (layer, candidate index).
  std::map<size_t, std::pair<size_t, size_t>> job_of_;
  std::vector<EvaluationRow> last_evals_;  ///< The last search's samples (for rank 0, under MPI).
};

/// The settings a rank needs to search and verify a layer exactly as rank 0 would (rank 0's
/// options, after a --resume took them from the run folder).
json worker_options_json(const RunOptions& o) {
  return {{"settings", settings_to_json(o.settings)},
          {"jobs", o.jobs},
          {"worker_exe", o.worker_exe},
          {"rtl_watchdog_cycles", o.rtl_watchdog_cycles},
          {"sim_max_cycles", o.sim_limits.max_cycles},
          {"sim_max_seconds", o.sim_limits.max_seconds},
          {"sim_max_memory_mb", o.sim_limits.max_memory_mb}};
}

RunOptions worker_options_from_json(const json& j) {
  RunOptions o;
  o.settings = settings_from_json(j.at("settings"), "the message of rank 0");
  o.jobs = j.at("jobs").get<int>();
  o.worker_exe = j.at("worker_exe").get<std::string>();
  o.rtl_watchdog_cycles = j.at("rtl_watchdog_cycles").get<long long>();
  o.sim_limits.max_cycles = j.at("sim_max_cycles").get<long long>();
  o.sim_limits.max_seconds = j.at("sim_max_seconds").get<double>();
  o.sim_limits.max_memory_mb = j.at("sim_max_memory_mb").get<long long>();
  o.progress = false;
  return o;
}

/// A rank other than 0 under mpirun: asks rank 0 for a layer, searches and verifies it, sends
/// it back, until told to stop. Its own files (curves, mappings, a scratch SQLite store) go to
/// `<out>/.ranks/<rank>/`, which rank 0 removes at the end; rank 0 writes the run's files.
int run_worker() {
  struct Worker {
    RunOptions o;
    Arch arch;
    search::SearchOptions sopts;
    Objective objective;
    std::unique_ptr<RtlWorkerPool> pool;
    fs::path dir;
    std::unique_ptr<ResultsDb> db;
    RunRecord rec;
    std::unique_ptr<RunSession> session;
  };
  std::unique_ptr<Worker> w;  // set up on the first layer, from rank 0's settings
  const InterruptSignals signals(/*also_term=*/true);
  return dist::serve([&](const json& m) -> json {
    // Test hook (core/test_hooks.hpp): a rank that dies in the middle of a run.
    if (core::kill_point_reached("run_layer")) core::kill_self();
    const size_t li = m["index"].get<size_t>();
    try {
      if (!w) {
        w = std::make_unique<Worker>();
        w->o = worker_options_from_json(m["options"]);
        w->arch = load_arch(w->o.settings.arch);
        w->sopts = load_options_or_default(w->o.settings.options_file);
        w->objective = parse_objective(w->o.settings.objective);
        std::vector<std::pair<Layer, int>> layers;
        if (!w->o.settings.layer.empty()) {
          layers.push_back(
              {parse_layer_arg(w->o.settings.layer, "--layer", make_onnx_options({}, false)), 1});
        } else {
          layers =
              parse_network_arg(w->o.settings.network, "--network",
                                make_onnx_options(w->o.settings.input_shapes, w->o.settings.strict))
                  .unique_layers();
        }
        const int jobs = w->o.jobs > 0
                             ? w->o.jobs
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        if (!w->o.settings.no_rtl) w->pool = start_rtl_pool(w->o, w->arch, jobs);
        w->dir = fs::path(m["dir"].get<std::string>()) / ".ranks" / std::to_string(dist::rank());
        fs::remove_all(w->dir);
        make_output_dir(w->dir / "mappings");
        make_output_dir(w->dir / "curves");
        w->db = std::make_unique<ResultsDb>((w->dir / "scratch.sqlite").string());
        w->rec = new_run_record(w->o, w->dir, w->arch, "", w->objective, layers);
        w->rec.jobs = jobs;
        w->session = std::make_unique<RunSession>(w->o, w->dir, w->rec, *w->db, w->pool.get(),
                                                  w->arch, w->objective, w->sopts);
      }
      return w->session->search_one(li);
    } catch (const std::exception& e) {
      return {{"index", li}, {"failure", e.what()}};
    }
  });
}

/// A value as results.json writes it (the CSVs use the same text).
template <typename T>
std::string as_json(const T& v) {
  return json(v).dump();
}

/// layers.csv and verifications.csv from the record.
void write_run_csvs(const RunRecord& rec, const fs::path& dir) {
  std::ostringstream c;
  c << "index,name,count,status,chosen_by,cycles,energy_pj,edp,utilization,surrogate_cycles,"
       "candidates,verified,passed\n";
  for (const auto& L : rec.layers) {
    int ver = 0, pass = 0;
    for (const auto& cd : L.candidates)
      if (cd.verification) {
        ++ver;
        pass += cd.verification->passed;
      }
    c << L.index << "," << L.layer.name << "," << L.count << "," << layer_status_name(L.status)
      << ",";
    if (L.best)
      c << chosen_by_name(L.best->chosen_by) << "," << L.best->cycles << ","
        << as_json(L.best->energy_pj) << "," << as_json(L.best->edp) << ","
        << as_json(L.best->utilization) << ","
        << (L.candidates.empty() ? std::string("null") : as_json(L.candidates[0].surrogate.cycles));
    else
      c << ",,,,,";
    c << "," << L.candidates.size() << "," << ver << "," << pass << "\n";
  }
  write_atomic(dir / "layers.csv", c.str());
  std::ostringstream v;
  v << "layer,rank,seed,surrogate_cost,surrogate_cycles,refined_cycles,rtl_cycles,cycle_error_pct,"
       "functional_ok,counts_equal,passed,failure,harness,sim_seconds\n";
  for (const auto& L : rec.layers)
    for (const auto& cd : L.candidates) {
      if (!cd.verification) continue;
      const Verification& x = *cd.verification;
      std::string fail = x.failure;
      std::replace(fail.begin(), fail.end(), '"', '\'');
      v << L.layer.name << "," << cd.rank << "," << x.seed << "," << as_json(cd.cost) << ","
        << cd.surrogate.cycles << ","
        << (cd.refined_cycles > 0 ? as_json(cd.refined_cycles) : std::string()) << ","
        << (x.rtl ? as_json(x.rtl->cycles) : "") << "," << (x.rtl ? as_json(x.cycle_error_pct) : "")
        << "," << as_json(x.functional_ok) << "," << as_json(x.counts_equal) << ","
        << as_json(x.passed) << ",\"" << fail << "\"," << x.harness << "," << as_json(x.sim_seconds)
        << "\n";
    }
  write_atomic(dir / "verifications.csv", v.str());
}

/// One layer's line of the summary table.
void print_layer_line(const LayerRecord& L, bool rtl, size_t width, std::ostream& out) {
  out << std::left << std::setw(static_cast<int>(width)) << fit_name(L.layer.name, width - 1)
      << std::right << std::setw(6) << L.count;
  if (!L.best) {
    out << "  "
        << (L.status == LayerStatus::Pending    ? "not searched"
            : L.status == LayerStatus::Searched ? "RTL pending"
                                                : "no valid mapping")
        << "\n";
    return;
  }
  int ver = 0, pass = 0;
  for (const auto& cd : L.candidates)
    if (cd.verification) {
      ++ver;
      pass += cd.verification->passed;
    }
  out << std::setw(14) << L.best->cycles << std::setw(12) << std::fixed << std::setprecision(2)
      << L.best->energy_pj * 1e-6 << std::setw(8) << std::setprecision(1)
      << 100 * L.best->utilization << std::defaultfloat << "  "
      << chosen_by_name(L.best->chosen_by);
  if (rtl) out << ", " << pass << "/" << ver << " passed" << (pass < ver ? "  FAILED" : "");
  out << "\n";
}

/// The summary table a user reads after `mapwright run`.
void print_run_summary(const RunRecord& rec, const RunOptions& o, const Arch& arch,
                       const std::string& db_path, const fs::path& dir, bool complete,
                       std::ostream& out) {
  const bool rtl = rec.settings.rtl();
  const RunSummary s = summarize(rec);
  out << "run " << rec.target << " on " << arch.name << " (" << arch.rows << "x" << arch.cols
      << "), " << o.settings.searcher << ", "
      << budget_phrase(o.settings.searcher, o.settings.budget, o.settings.exact)
      << (rec.settings.reward == "rtl"
              ? " (scored on the RTL after " + std::to_string(rec.settings.surrogate_warmup) +
                    " surrogate samples)"
              : std::string())
      << ", objective " << rec.settings.objective << ", seed " << o.settings.seed
      << (rtl ? ", top-" + std::to_string(o.settings.top_k) + " verified on RTL"
              : ", surrogate only")
      << "\n";
  size_t longest = 0;
  for (const auto& L : rec.layers) longest = std::max(longest, L.layer.name.size());
  const size_t width = name_column_width(longest);
  out << std::left << std::setw(static_cast<int>(width)) << "layer" << std::right << std::setw(6)
      << "count" << std::setw(14) << "cycles" << std::setw(12) << "energy_uJ" << std::setw(8)
      << "util%"
      << "  chosen by / RTL checks\n";
  for (const auto& L : rec.layers) print_layer_line(L, rtl, width, out);
  out << "total: " << static_cast<long long>(s.cycles) << " cycles (" << si(s.seconds) << "s), "
      << std::fixed << std::setprecision(2) << s.energy_pj * 1e-6 << " uJ, EDP " << std::scientific
      << std::setprecision(4) << s.edp << " pJ*cycles, utilization " << std::fixed
      << std::setprecision(1) << 100 * s.utilization << " %" << std::defaultfloat << " ("
      << s.layers_done << "/" << s.layers_total << " layers)\n";
  if (rtl)
    out << "RTL: " << s.passed << " of " << s.done << " verifications passed"
        << (s.pending ? ", " + std::to_string(s.pending) + " not run" : "")
        << (s.failed ? " -- " + std::to_string(s.failed) + " FAILED (see report)" : "")
        << (s.infrastructure_failed
                ? "; " + std::to_string(s.infrastructure_failed) +
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
  const bool mpi = opt.distribute && dist::size() > 1;
  if (mpi && dist::rank() != 0) return run_worker();
  RunOptions o = opt;
  // The run folder first (a resumed run reads its settings from it).
  fs::path dir = o.out_dir;
  if (dir.empty()) {
    const std::string target =
        o.settings.layer.empty()
            ? parse_network_arg(o.settings.network, "--network",
                                make_onnx_options(o.settings.input_shapes, o.settings.strict))
                  .name
            : parse_layer_arg(o.settings.layer).name;
    dir = fs::path("runs") /
          ("run-" + safe_name(target) + "-" + safe_name(load_arch(o.settings.arch).name) + "-" +
           o.settings.searcher + "-s" + std::to_string(o.settings.seed));
  }
  std::error_code ec;
  const bool fresh_folder = !fs::exists(dir, ec) || fs::is_empty(dir, ec);
  const FolderLock lock(dir, "--out");  // Held until cmd_run returns: one process per folder.
  std::optional<RunRecord> stored = open_run_folder(o, dir, fresh_folder);
  const bool resuming = stored.has_value();

  // Everything is validated before any work.
  check_run_options(o);
  const Objective objective = parse_objective(o.settings.objective);
  const Arch arch = load_arch(o.settings.arch);
  if (!o.settings.no_rtl) require_rtl_dram_port(arch, "--arch");
  const search::SearchOptions sopts = load_options_or_default(o.settings.options_file);
  std::vector<std::pair<Layer, int>> layers;
  std::string target;
  Network net;
  if (!o.settings.layer.empty()) {
    layers.push_back(
        {parse_layer_arg(o.settings.layer, "--layer", make_onnx_options({}, o.settings.strict)),
         1});
    target = layers[0].first.name;
  } else {
    net = parse_network_arg(o.settings.network, "--network",
                            make_onnx_options(o.settings.input_shapes, o.settings.strict));
    std::cerr << import_note(net);
    target = net.name;
    layers = net.unique_layers();
  }
  const int jobs =
      o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::unique_ptr<RtlWorkerPool> pool = o.settings.no_rtl ? nullptr : start_rtl_pool(o, arch, jobs);

  make_output_dir(dir / "mappings");
  make_output_dir(dir / "curves");
  const std::string db_path = o.db.empty() ? (dir / "results.sqlite").string() : o.db;
  ResultsDb db(db_path);
  RunRecord rec =
      resuming ? std::move(*stored) : new_run_record(o, dir, arch, target, objective, layers);
  rec.run_dir = dir.string();
  rec.db = db_path;
  rec.import_skipped = net.skipped;
  rec.import_warnings = net.warnings;
  rec.rtl_note = !o.settings.no_rtl
                     ? "each layer's top-" + std::to_string(o.settings.top_k) +
                           " distinct surrogate candidates run on the Verilated RTL (bit-exact "
                           "check against a C++ reference, counters against the surrogate); "
                           "the best is chosen by RTL cost"
                     : "surrogate only (--no-rtl): no RTL verification in this run";
  rec.status = RunStatus::Running;
  rec.jobs = jobs;

  const InterruptSignals signals(/*also_term=*/true);
  const fs::path results_file = dir / "results.json";
  const InterruptOnFailure interrupt_on_failure{rec, results_file};
  RunSession session(o, dir, rec, db, pool.get(), arch, objective, sopts);
  session.save();
  session.resume_verifications(resuming);
  std::string rank_failure;
  bool all_valid = true;
  if (mpi) {
    try {
      all_valid = session.dispatch_pending_layers(rank_failure);
    } catch (const std::exception& e) {
      std::cerr << "mapwright: error on rank 0, stopping every rank: " << e.what() << "\n"
                << "continue with `mapwright run --resume --out " << dir.string() << "`\n";
      session.finish();
      dist::abort(2);
    }
    fs::remove_all(dir / ".ranks", ec);
  } else {
    all_valid = session.search_pending_layers();
  }
  session.drain_rtl();
  const bool complete = session.finish();

  write_run_csvs(rec, dir);
  const json res = run_record_to_json(rec);
  render_run_report(res, dir, dir / "report.html");
  if (o.json)
    out << res.dump(2) << "\n";
  else
    print_run_summary(rec, o, arch, db_path, dir, complete, out);
  if (!rank_failure.empty()) {
    std::cerr << "mapwright: " << rank_failure << "; the layer stays pending: continue with "
              << "`mapwright run --resume --out " << dir.string() << "`\n";
    return 4;
  }
  if (!complete && InterruptSignals::count()) return 130;
  if (summarize(rec).failed > 0) return 4;
  if (!all_valid) return 3;
  return complete ? 0 : 130;
}

}  // namespace mapwright::flows
