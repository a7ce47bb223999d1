// The co-design's designs on the RTL (`codesign --rtl chosen|front`): writes each design's
// architecture YAML, gets its model from the worker pool (compiled in, or built in the model
// cache on first use), submits every unique layer's proven-optimal mapping as one RTL job, and
// judges each run with the verdict `run` uses (verification_of), so the report can say which
// designs of the front are bit-exact with every counter equal on the RTL.
#include "codesign/rtl_check.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "codesign/solve_farm.hpp"
#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/core/concurrency.hpp"
#include "mapwright/flows/run_record.hpp"
#include "mapwright/flows/seeds.hpp"
#include "mapwright/rtlpool/rtl_pool.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "verify/crosscheck.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace mapwright::core;

namespace mapwright::flows::codesign {

namespace {

/// Where each parameter but the dataflows lives in an architecture file.
struct YamlKey {
  HwParam param;        ///< The parameter.
  const char* section;  ///< Its section.
  const char* key;      ///< Its key there.
};
constexpr YamlKey kYamlKeys[] = {{HwParam::Rows, "array", "rows"},
                                 {HwParam::Cols, "array", "cols"},
                                 {HwParam::DramBw, "dram", "bytes_per_cycle"},
                                 {HwParam::Banks, "buffers", "banks"},
                                 {HwParam::AccumKib, "buffers", "accum_kib"},
                                 {HwParam::WeightKib, "buffers", "weight_kib"},
                                 {HwParam::InputKib, "buffers", "input_kib"}};

/// The journal key of a layer run: the design, the layer's shape, the mapping and the seed.
std::string run_key(const Arch& a, const Layer& l, const Mapping& m, uint64_t seed) {
  return a.name + "|" + l.shape_key() + "|" + mapping_to_yaml(m) + "|" + std::to_string(seed);
}

/// The RTL step's journal (rtl.jsonl): the verdicts of finished layer runs by run_key.
class RtlJournal {
 public:
  /// Opens `path` ("" = no journal); with `resume`, reads its verdicts first (a torn last line,
  /// the write a kill interrupted, is dropped; a line that does not parse is refused).
  RtlJournal(const fs::path& path, bool resume) {
    if (path.empty()) return;
    if (resume)
      read_journal(path, [&](const std::string& line, const std::string& at) {
        try {
          const json j = json::parse(line);
          done_[j.at("key").get<std::string>()] = verification_from_json(j.at("verification"), at);
        } catch (const json::exception& e) {
          throw SpecError(at, "(json)", line, e.what());
        }
      });
    out_.open(path, resume ? std::ios::app : std::ios::trunc);
    if (!out_) throw SpecError(path.string(), "(file)", path.string(), "cannot write the journal");
  }
  /// The verdict of run `key` from an earlier run, if the journal holds it.
  const Verification* find(const std::string& key) const {
    const auto it = done_.find(key);
    return it == done_.end() ? nullptr : &it->second;
  }
  /// Keeps a finished run's verdict (not a worker crash or a limit: those run again): appended
  /// to the file (when there is one) and to kept().
  void keep(const std::string& key, const Verification& v) {
    if (v.kind != VerificationKind::Passed && v.kind != VerificationKind::Design) return;
    const json line = {{"key", key}, {"verification", verification_to_json(v)}};
    kept_.push_back(line);
    if (out_.is_open()) out_ << line.dump() << "\n" << std::flush;
  }
  /// The lines keep() took, in order (what an MPI rank sends rank 0 to journal).
  const json& kept() const { return kept_; }

 private:
  std::map<std::string, Verification> done_;  ///< Read back with resume.
  std::ofstream out_;                         ///< Appended as runs end.
  json kept_ = json::array();                 ///< keep()'s lines.
};

/// One design on the RTL: its architecture file, model and per-layer verdicts.
struct Design {
  int point = 0;                                  ///< Index in the outcome's points.
  Arch arch;                                      ///< Its architecture.
  std::string file;                               ///< Its YAML, as the workers load it.
  std::vector<LayerFigures> layers;               ///< Per unique layer, the chosen mapping.
  std::vector<std::optional<Verification>> runs;  ///< Per unique layer, once back.
  json rtl;                                       ///< The "rtl" object being built.
};

/// The "rtl" object of a design whose layers all came back.
void finish(Design& d, const std::vector<Layer>& layers) {
  json per = json::array();
  int passed = 0;
  for (size_t u = 0; u < d.runs.size(); ++u) {
    if (!d.runs[u]) continue;  // no mapping fits: the design was not feasible
    passed += d.runs[u]->passed ? 1 : 0;
    per.push_back({{"layer", layers[u].name}, {"verification", verification_to_json(*d.runs[u])}});
  }
  d.rtl["status"] = passed == static_cast<int>(per.size()) ? "passed" : "failed";
  d.rtl["layers_passed"] = passed;
  d.rtl["layers"] = per;
}

}  // namespace

std::vector<int> designs_to_check(const std::string& mode, const SearchOutcome& r) {
  if (r.best < 0 || mode == "none") return {};
  if (mode == "front") return pareto_front(r.points);
  return {r.best};
}

std::string point_arch_yaml(const CodesignSpace& s, const HwIndex& i) {
  YAML::Node n = load_yaml_file(arch_file_path(file_beside(s.path, s.base_name)));
  const Arch a = point_arch(s, i);
  n["name"] = a.name;
  for (const YamlKey& k : kYamlKeys)
    if (s.given[static_cast<int>(k.param)] || k.param != HwParam::Banks)
      n[k.section][k.key] = value_of(s, i, k.param);
  YAML::Node df(YAML::NodeType::Sequence);
  for (Dataflow d : a.dataflows) df.push_back(dataflow_name(d));
  n["dataflows"] = df;
  n["energy"]["capacity_scaling"] = s.base.energy.capacity_scaling;
  YAML::Emitter e;
  e << n;
  return "# codesign " + s.name + ": the architecture of design " + a.name + "\n" + e.c_str() +
         "\n";
}

namespace {

/// check_on_rtl with an open journal.
std::map<int, json> check_designs(PointEvaluator& ev, const std::vector<PointResult>& points,
                                  const std::vector<int>& designs, const fs::path& dir,
                                  const RtlCheckRequest& rq, RtlJournal& journal) {
  std::map<int, json> out;
  if (designs.empty()) return out;
  const CodesignSpace& s = ev.space();
  rtlpool::RtlWorkerPool pool(rq.worker_exe.empty() ? rtlpool::worker_executable() : rq.worker_exe,
                              rq.jobs > 0 ? rq.jobs : default_jobs());
  rtlpool::ModelCacheOptions cache;
  cache.progress = rq.log;
  pool.enable_model_cache(cache);
  make_dirs(dir / "archs");
  std::vector<Design> ds;
  std::map<size_t, std::pair<size_t, size_t>> job_of;  // job id -> (design, unique layer)
  for (int p : designs) {
    Design d;
    d.point = p;
    d.arch = point_arch(s, points[p].index);
    d.file = (dir / "archs" / (safe_name(d.arch.name) + ".yaml")).string();
    write_atomic(d.file, point_arch_yaml(s, points[p].index));
    d.rtl["arch_file"] = fs::relative(d.file, dir).string();
    if (rq.log) *rq.log << rq.command << ": design " << d.arch.name << " on the RTL\n";
    if (const std::string why = pool.check_arch(d.file); !why.empty()) {
      d.rtl["status"] = "no_model";
      d.rtl["reason"] = why;
      out[p] = d.rtl;
      continue;
    }
    const rtlpool::ModelLookup m = pool.model_of(d.file);
    d.rtl["model"] = m.prebuilt ? "compiled-in " + m.name : m.name;
    std::vector<char> shortcut;
    d.layers = ev.all_layers(d.arch, d.arch, 0, shortcut);
    d.runs.resize(d.layers.size());
    ds.push_back(std::move(d));
  }
  // Every model is looked up (check_arch runs a probe job alone) before any run is queued.
  for (size_t di = 0; di < ds.size(); ++di) {
    int resumed = 0;
    for (size_t u = 0; u < ds[di].layers.size(); ++u) {
      if (!ds[di].layers[u].found) continue;
      const std::string key =
          run_key(ds[di].arch, ev.layers()[u], ds[di].layers[u].mapping, rtl_seed(rq.seed, u, 0));
      if (const Verification* v = journal.find(key)) {
        ds[di].runs[u] = *v;
        ++resumed;
        continue;
      }
      rtlpool::RtlJob j;
      j.arch = ds[di].file;
      j.layer = ev.layers()[u];
      j.mapping = ds[di].layers[u].mapping;
      j.seed = rtl_seed(rq.seed, u, 0);
      j.limits = rq.limits;
      job_of[pool.submit(std::move(j))] = {di, u};
    }
    ds[di].rtl["layers_from_journal"] = resumed;
    if (rq.log && resumed > 0)
      *rq.log << rq.command << ": design " << ds[di].arch.name << ": " << resumed
              << " layer runs from the stopped run's journal\n";
  }
  while (!job_of.empty() && pool.queued() + pool.running() > 0)
    for (auto& [id, r] : pool.poll(-1)) {
      const auto it = job_of.find(id);
      if (it == job_of.end()) continue;
      const auto [di, u] = it->second;
      job_of.erase(it);
      Design& d = ds[di];
      d.runs[u] = verification_of(r, ev.layers()[u], d.arch, d.layers[u].mapping,
                                  d.layers[u].metrics, rtl_seed(rq.seed, u, 0));
      journal.keep(run_key(d.arch, ev.layers()[u], d.layers[u].mapping, rtl_seed(rq.seed, u, 0)),
                   *d.runs[u]);
    }
  for (Design& d : ds) {
    finish(d, ev.layers());
    out[d.point] = d.rtl;
  }
  return out;
}

/// True when `journal` holds a verdict for every layer with a mapping of design `p`.
bool journal_answers(PointEvaluator& ev, const std::vector<PointResult>& points, int p,
                     const RtlCheckRequest& rq, const RtlJournal& journal) {
  const Arch a = point_arch(ev.space(), points[p].index);
  std::vector<char> shortcut;
  const std::vector<LayerFigures> f = ev.all_layers(a, a, 0, shortcut);
  for (size_t u = 0; u < f.size(); ++u)
    if (f[u].found &&
        !journal.find(run_key(a, ev.layers()[u], f[u].mapping, rtl_seed(rq.seed, u, 0))))
      return false;
  return true;
}

}  // namespace

json design_check_request(const PointResult& p, const fs::path& dir, const RtlCheckRequest& rq) {
  return {{"design", std::vector<int>(p.index.begin(), p.index.end())},
          {"dir", dir.string()},
          {"jobs", rq.jobs},
          {"seed", rq.seed},
          {"worker_exe", rq.worker_exe},
          {"command", rq.command}};
}

json serve_design_check(PointEvaluator& ev, const json& m) {
  PointResult p;
  const std::vector<int> idx = m.at("design").get<std::vector<int>>();
  if (idx.size() != p.index.size()) throw std::runtime_error("a design of the wrong rank");
  std::copy(idx.begin(), idx.end(), p.index.begin());
  RtlCheckRequest rq;
  rq.jobs = m.at("jobs").get<int>();
  rq.seed = m.at("seed").get<uint64_t>();
  rq.worker_exe = m.at("worker_exe").get<std::string>();
  rq.command = m.at("command").get<std::string>();
  rq.log = &std::cerr;
  RtlJournal kept({}, false);  // no file: rank 0 journals what comes back
  const auto out = check_designs(ev, {p}, {0}, m.at("dir").get<std::string>(), rq, kept);
  return {{"rtl", out.at(0)}, {"kept", kept.kept()}};
}

std::map<int, json> check_on_rtl(PointEvaluator& ev, const std::vector<PointResult>& points,
                                 const std::vector<int>& designs, const fs::path& dir,
                                 const RtlCheckRequest& rq, SolveFarm* farm) {
  RtlJournal journal(rq.journal, rq.resume);
  if (!farm) return check_designs(ev, points, designs, dir, rq, journal);
  std::vector<int> here, there;
  for (int p : designs)
    (rq.resume && journal_answers(ev, points, p, rq, journal) ? here : there).push_back(p);
  std::map<int, json> out = check_designs(ev, points, here, dir, rq, journal);
  std::vector<json> requests;
  for (int p : there) requests.push_back(design_check_request(points[p], dir, rq));
  const std::vector<json> answers = farm->run(requests);
  for (size_t k = 0; k < there.size(); ++k) {
    out[there[k]] = answers[k].at("rtl");
    for (const json& line : answers[k].at("kept"))
      journal.keep(line.at("key").get<std::string>(),
                   verification_from_json(line.at("verification"), "an MPI rank's answer"));
  }
  return out;
}

}  // namespace mapwright::flows::codesign
