// `mapwright tune`: equal-effort tuning of every searcher (see tune.hpp). The plan is parsed and
// checked against the base options first (every knob must exist there, every range be sane);
// the trials' options files are drawn with the plan's seed and validated by the search options
// parser before any run; each trial is one study, run in process (StudyApp), whose typed figures
// give the scores.
#include "mapwright/flows/tune.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <vector>

#include "common/files.hpp"
#include "common/text.hpp"
#include "mapwright/core/arch.hpp"
#include "mapwright/support/error.hpp"
#include "mapwright/support/yaml_util.hpp"
#include "mapwright/flows/study.hpp"
#include "mapwright/search/options.hpp"

namespace fs = std::filesystem;
using namespace mapwright::core;

namespace mapwright::flows {

namespace {

/// One knob's range: a number in [min, max] (uniform or log-uniform, integer or real), or one
/// of a list of choices.
struct Knob {
  std::string key;                   ///< Dotted path inside the searcher's section.
  double min = 0, max = 0;           ///< Numeric range.
  bool log = false;                  ///< Log-uniform.
  bool integer = false;              ///< Rounded to an integer.
  std::vector<std::string> choices;  ///< Non-empty: draw one of these instead.
};

/// A searcher's knobs and the section of the options file that holds them.
struct SearcherSpace {
  std::string searcher;     ///< Searcher kind (ga, ppo-box, ...).
  std::string section;      ///< Its options section (ga, ppo_box, ...).
  std::vector<Knob> knobs;  ///< Knobs, in plan order.
};

struct TunePlan {
  std::string name;                   ///< Plan name.
  std::string suite;                  ///< Study suite of tuning layers.
  std::string base;                   ///< Base options file.
  int trials = 6;                     ///< Configurations per searcher (trial 0 = base).
  uint64_t seed = 1;                  ///< Seed of the draws.
  std::vector<SearcherSpace> spaces;  ///< Per searcher, in plan order.
  StudySuite study;                   ///< The suite, parsed (searchers, iso budgets, caps).
};

/// The options section of a searcher kind.
std::string section_of(const std::string& kind) {
  std::string s = kind;
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

/// The node at dotted `key` under `section` of `root` (an undefined node if absent).
YAML::Node lookup(const YAML::Node& root, const std::string& section, const std::string& key) {
  YAML::Node n = root[section];
  std::stringstream parts(key);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!n || !n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    n.reset(n[part]);  // (assignment would write into the tree)
  }
  return n;
}

Knob parse_knob(const YAML::Node& node, const std::string& where, const std::string& path,
                const std::string& key) {
  Knob k;
  k.key = key;
  require_map(node, where, path);
  check_keys(node, where, path, {"min", "max", "log", "int", "choices"});
  if (node["choices"]) {
    const YAML::Node c = node["choices"];
    if (!c.IsSequence() || c.size() < 2 || node["min"] || node["max"])
      throw SpecError(where, join_key(path, "choices"), node_text(c),
                      "expected a list of at least two values (and no min/max)");
    for (size_t i = 0; i < c.size(); ++i)
      k.choices.push_back(scalar_of(c[i], where, path + ".choices[" + std::to_string(i) + "]"));
    return k;
  }
  k.log = get_bool(node, "log", where, path, false);
  k.integer = get_bool(node, "int", where, path, false);
  k.min = get_double_in(node, "min", where, path, 0, -1e9, 1e9, true);
  k.max = get_double_in(node, "max", where, path, 0, -1e9, 1e9, true);
  if (k.max <= k.min)
    throw SpecError(where, join_key(path, "max"), fmt_g(k.max), "must be greater than min");
  if (k.log && k.min <= 0)
    throw SpecError(where, join_key(path, "min"), fmt_g(k.min), "must be > 0 with log: true");
  return k;
}

TunePlan load_plan(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  check_keys(root, path, "", {"name", "description", "suite", "base", "trials", "seed", "space"});
  TunePlan p;
  p.name = get_string(root, "name", path, "", fs::path(path).stem().string());
  get_string(root, "description", path, "", "");
  p.suite = get_string(root, "suite", path, "", "", true);
  p.base = get_string(root, "base", path, "", configs_dir() + "/search/default.yaml");
  p.trials = static_cast<int>(get_int_in(root, "trials", path, "", p.trials, 1, 1000));
  p.seed = static_cast<uint64_t>(get_int_in(root, "seed", path, "", 1, 0, int64_t{1} << 62));
  p.study = load_study_suite(p.suite);
  const StudySuite& suite = p.study;
  const YAML::Node base = load_yaml_file(p.base);
  search::load_search_options(p.base);  // the base itself must be valid
  const YAML::Node space = root["space"];
  if (!space || !space.IsMap() || space.size() == 0)
    throw SpecError(path, "space", node_text(space), "expected a map of searcher: {knob: range}");
  for (const auto& s : space) {
    const std::string kind = s.first.as<std::string>();
    if (std::find(suite.searchers.begin(), suite.searchers.end(), kind) == suite.searchers.end())
      throw SpecError(path, "space." + kind, kind,
                      "is not one of the suite's searchers (" + p.suite + ")");
    SearcherSpace ss{kind, section_of(kind), {}};
    require_map(s.second, path, "space." + kind);
    for (const auto& k : s.second) {
      const std::string key = k.first.as<std::string>(), at = "space." + kind + "." + key;
      const YAML::Node now = lookup(base, ss.section, key);
      if (!now || !now.IsScalar())
        throw SpecError(path, at, key,
                        "is not a setting of section '" + ss.section + "' in " + p.base);
      ss.knobs.push_back(parse_knob(k.second, path, at, key));
    }
    p.spaces.push_back(std::move(ss));
  }
  for (const auto& kind : suite.searchers)
    if (std::none_of(p.spaces.begin(), p.spaces.end(),
                     [&](const SearcherSpace& ss) { return ss.searcher == kind; }))
      throw SpecError(path, "space", kind,
                      "every searcher of the suite needs knobs (equal effort); this one has none");
  return p;
}

/// The text of a drawn value.
std::string draw(const Knob& k, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (!k.choices.empty())
    return k.choices[std::min(k.choices.size() - 1,
                              static_cast<size_t>(u(rng) * static_cast<double>(k.choices.size())))];
  const double x = k.log ? std::exp(std::log(k.min) + u(rng) * (std::log(k.max) - std::log(k.min)))
                         : k.min + u(rng) * (k.max - k.min);
  if (k.integer) return std::to_string(std::llround(x));
  std::ostringstream s;
  s << std::setprecision(3) << x;
  return s.str();
}

/// Every trial's drawn values: [trial][searcher index] -> key -> value (trial 0: none).
using Draws = std::vector<std::vector<std::map<std::string, std::string>>>;

Draws draw_trials(const TunePlan& p) {
  std::mt19937_64 rng(p.seed);
  Draws d(static_cast<size_t>(p.trials),
          std::vector<std::map<std::string, std::string>>(p.spaces.size()));
  for (size_t t = 1; t < d.size(); ++t)
    for (size_t s = 0; s < p.spaces.size(); ++s)
      for (const Knob& k : p.spaces[s].knobs) d[t][s][k.key] = draw(k, rng);
  return d;
}

/// Writes the base options with `values` set, into `file`; validated by the options parser.
void write_options(const TunePlan& p, const std::vector<std::map<std::string, std::string>>& values,
                   const fs::path& file, const std::string& header) {
  YAML::Node root = YAML::Clone(load_yaml_file(p.base));
  for (size_t s = 0; s < p.spaces.size(); ++s)
    for (const auto& [key, value] : values[s]) {
      YAML::Node n = root[p.spaces[s].section];
      std::stringstream parts(key);
      std::vector<std::string> path;
      for (std::string part; std::getline(parts, part, '.');) path.push_back(part);
      for (size_t i = 0; i + 1 < path.size(); ++i) n.reset(n[path[i]]);
      n[path.back()] = value;
    }
  YAML::Emitter e;
  e << root;
  write_atomic(file, header + e.c_str() + "\n");
  search::load_search_options(file.string());
}

/// A searcher's score in a study: mean over the iso budgets up to its cap of log(1 + gap);
/// infinite if a gap there is not finite. `gaps` gets each of those gaps (null: not finite).
double score_of(const StudyResult& study, const std::string& kind, nlohmann::json& gaps) {
  const StudySuite& suite = study.suite;
  const StudySearcherSummary& s = study.figures.searchers.at(kind);
  double sum = 0;
  int n = 0;
  for (size_t bi = 0; bi < suite.iso_budgets.size(); ++bi) {
    const int64_t b = suite.iso_budgets[bi];
    if (b > suite.budget_of(kind)) continue;
    const double gap = s.gap_to_optimum[bi].estimate;
    gaps[std::to_string(b)] = std::isfinite(gap) ? nlohmann::json(gap) : nlohmann::json();
    if (!std::isfinite(gap)) return std::numeric_limits<double>::infinity();
    sum += std::log1p(gap);
    ++n;
  }
  return n ? sum / n : std::numeric_limits<double>::infinity();
}

/// The table a user reads: per searcher, each trial's score (winner marked) and its knobs.
void print_table(const TunePlan& p, const nlohmann::json& result, std::ostream& out) {
  out << "tune " << p.name << ": " << p.trials << " configurations per searcher on " << p.suite
      << " (score: mean log(1 + gap) over the iso budgets; lower is better)\n";
  for (const auto& ss : p.spaces) {
    const nlohmann::json& r = result["searchers"][ss.searcher];
    out << "  " << std::left << std::setw(8) << ss.searcher << std::right;
    for (const auto& t : r["trials"]) {
      const bool win = t["trial"] == r["winner"];
      std::ostringstream score;
      if (t["score"].is_number())
        score << std::fixed << std::setprecision(3) << t["score"].get<double>();
      out << "  " << (win ? "*" : " ") << std::setw(6) << (score.str().empty() ? "-" : score.str());
    }
    out << "\n";
  }
}

}  // namespace

int cmd_tune(const TuneOptions& o, std::ostream& out) {
  const TunePlan p = load_plan(o.plan);
  const fs::path dir =
      o.out_dir.empty() ? fs::path("runs") / ("tune-" + safe_name(p.name)) : fs::path(o.out_dir);
  if (fs::exists(dir / "tune.json") && !o.resume)
    throw SpecError("--out", "out", dir.string(),
                    "already holds a tuning (tune.json); add --resume or choose another --out");
  make_output_dir(dir / "options");
  const Draws draws = draw_trials(p);
  const std::string header = "# Drawn by `mapwright tune --plan " + o.plan + "` (seed " +
                             std::to_string(p.seed) + "); base " + p.base + ".\n";
  for (size_t t = 0; t < draws.size(); ++t)  // every file validated before any run
    write_options(p, draws[t], dir / "options" / ("trial-" + std::to_string(t) + ".yaml"),
                  header + "# Trial " + std::to_string(t) + (t ? "\n" : " (the base)\n"));
  std::vector<StudyResult> studies;
  for (size_t t = 0; t < draws.size(); ++t) {
    StudyOptions so;
    so.suite = p.suite;
    so.options_file = (dir / "options" / ("trial-" + std::to_string(t) + ".yaml")).string();
    so.out_dir = (dir / ("study-" + std::to_string(t))).string();
    so.jobs = o.jobs;
    so.resume = o.resume || fs::exists(so.out_dir);
    out << "== trial " << t << " of " << p.trials << " (" << so.options_file << ")\n";
    StudyResult r = StudyApp(so, p.study).run();
    print_study(r, out);
    if (r.interrupted) return 130;
    studies.push_back(std::move(r));
  }
  nlohmann::json result{{"plan", o.plan},
                        {"name", p.name},
                        {"suite", p.suite},
                        {"base", p.base},
                        {"trials", p.trials},
                        {"seed", p.seed},
                        {"searchers", nlohmann::json::object()}};
  std::vector<std::map<std::string, std::string>> best(p.spaces.size());
  for (size_t s = 0; s < p.spaces.size(); ++s) {
    const std::string& kind = p.spaces[s].searcher;
    nlohmann::json& r = result["searchers"][kind];
    double best_score = std::numeric_limits<double>::infinity();
    size_t winner = 0;
    for (size_t t = 0; t < draws.size(); ++t) {
      nlohmann::json gaps = nlohmann::json::object();
      const double sc = score_of(studies[t], kind, gaps);
      r["trials"].push_back({{"trial", t},
                             {"knobs", draws[t][s]},
                             {"gap_to_optimum", gaps},
                             {"score", std::isfinite(sc) ? nlohmann::json(sc) : nlohmann::json()}});
      if (sc < best_score) {
        best_score = sc;
        winner = t;
      }
    }
    r["winner"] = winner;
    best[s] = draws[winner][s];
  }
  std::ostringstream h;
  h << header << "# Each searcher's section is its best of " << p.trials
    << " configurations (tune.json):";
  for (size_t s = 0; s < p.spaces.size(); ++s)
    h << (s ? "," : "") << " " << p.spaces[s].searcher << " trial "
      << result["searchers"][p.spaces[s].searcher]["winner"].get<size_t>();
  h << ".\n";
  write_options(p, best, dir / "tuned.yaml", h.str());
  write_atomic(dir / "tune.json", result.dump(2) + "\n");
  print_table(p, result, out);
  out << "written to " << dir.string() << " (tuned.yaml, tune.json, options/, study-*/)\n";
  return 0;
}

}  // namespace mapwright::flows
