// The layer-search engine: the exact mapper as a search (its answer, proven bound and top-K),
// or a sampling searcher over the layer's map space in the requested encoding. The sampling
// path decodes every point, answers repeats (points that decode to a mapping seen before) from
// its cache, hands the fresh mappings to the BatchEvaluator and reports every fresh sample to
// `observe` in sample order.
#include "mapwright/flows/layer_search.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mapwright/core/arch.hpp"
#include "mapwright/mapspace/gamma_space.hpp"
#include "mapwright/mapspace/mapspace.hpp"
#include "mapwright/mapspace/search_space.hpp"
#include "mapwright/mapper/mapper.hpp"
#include "mapwright/model/surrogate.hpp"

using namespace mapwright::core;

namespace mapwright::flows {

search::SearchOptions load_options_or_default(const std::string& file) {
  // load_search_options' std::invalid_argument already reads "<file>: key '<k>' = '<v>': why".
  const std::string f = file.empty() ? configs_dir() + "/search/default.yaml" : file;
  return search::load_search_options(f);
}

namespace {

/// Identity of a mapping for the evaluation cache: dataflow, tiles, order, fold order, PE use
/// and double buffering.
using MappingKey = std::array<long long, 16>;
MappingKey mapping_key(const Mapping& m) {
  MappingKey k{};
  k[0] = static_cast<int>(m.dataflow);
  for (int d = 0; d < kNumDims; ++d) k[1 + d] = m.tile[d];
  k[9] = order_to_index(m.order);
  k[10] = static_cast<int>(m.fold_order);
  k[11] = m.pe_rows;
  k[12] = m.pe_cols;
  k[13] = m.db_input;
  k[14] = m.db_weight;
  k[15] = m.db_accum;
  return k;
}

/// The exact mapper as a search: the answer, its proven bound and gap, and the K best
/// distinct mappings it evaluated (handed to `observe` in rank order, as samples 0..K-1).
LayerSearch exact_layer(const LayerSearchRequest& rq,
                        const std::function<void(const SampleSeen&)>& observe) {
  mapper::Options mo;
  mo.objective = rq.objective;
  mo.time_limit_s = rq.exact.time_limit_s;
  mo.target_gap = rq.exact.gap;
  mo.threads = rq.exact.threads;
  mo.keep = std::max(1, rq.exact.top_k);
  const mapper::Result r = mapper::solve(rq.layer, rq.arch, mo);
  LayerSearch ls;
  ls.result.found = r.found;
  ls.result.samples = r.evaluations;
  ls.result.valid = r.evaluations;
  if (r.found) {
    ls.result.best_cost = r.best_cost;
    ls.result.best_sample = 0;
    ls.result.best_so_far = {r.best_cost};
    ls.best = r.best;
    ls.metrics = r.metrics;
  }
  ls.searcher = {{"kind", "exact"},
                 {"seed", rq.seed},
                 {"time_limit_s", rq.exact.time_limit_s},
                 {"target_gap", rq.exact.gap},
                 {"threads", rq.exact.threads},
                 {"objective", rq.objective.name}};
  ls.exact = {{"lower_bound", r.lower_bound},
              {"gap", r.found ? nlohmann::json(r.gap) : nlohmann::json()},
              {"optimal", r.optimal},
              {"stop", mapper::stop_reason_name(r.stop)},
              {"nodes", r.nodes},
              {"evaluations", r.evaluations},
              {"pruned_bound", r.pruned_bound},
              {"pruned_capacity", r.pruned_capacity},
              {"pruned_dominance", r.pruned_dominance},
              {"seconds", r.seconds}};
  if (observe) {
    for (size_t i = 0; i < r.top.size(); ++i) {
      const search::Point pt;
      const auto& [m, met] = r.top[i];
      search::Outcome oc;
      oc.valid = true;
      oc.cost = rq.objective.cost(met);
      observe(SampleSeen{static_cast<int64_t>(i), &pt, &m, &met, &oc, nullptr});
    }
  }
  ls.reward = {{"source", "surrogate"}};
  return ls;
}

/// The buffers whose capacity a parameter's value enters, as a group label for marl's
/// per-buffer agents (search::ParamSpec::group): a tile size enters the footprint of every
/// tensor it indexes (input: G N C P Q R S; weight: G K C R S; accumulator: G N K P Q, as
/// check_capacity counts them), a double-buffer flag its own buffer's; others none (""). Tiles
/// with the same set share every capacity limit they meet, so they move together.
std::string buffer_group(const std::string& name) {
  if (name.rfind("db_", 0) == 0) return name.substr(3);
  if (name.rfind("tile_", 0) != 0 || name.size() != 6) return "";
  const char d = name[5];
  std::string g;
  if (d != 'K') g += "input";
  if (std::string("GKCRS").find(d) != std::string::npos) g += g.empty() ? "weight" : "+weight";
  if (std::string("GNKPQ").find(d) != std::string::npos) g += g.empty() ? "accum" : "+accum";
  return g;
}

/// The searchers' view of a space (MapSpace or SearchSpace): its parameters, domains and
/// buffer groups.
template <class Space>
search::Problem problem_of(const Space& space) {
  search::Problem p;
  for (const auto& pi : space.params())
    p.params.push_back({pi.name, pi.cardinality, pi.ordinal, buffer_group(pi.name)});
  return p;
}

/// The space a sampling searcher searches, in the chosen encoding. Compact: the
/// feasibility-respecting SearchSpace (every decoded point fits; overflowing points are repaired
/// and counted). Raw: the full MapSpace (invalid points are failures). Gamma: the GAMMA /
/// ArchGym encoding (GammaSpace), where a point may name no mapping of the array at all.
class LayerSpace {
 public:
  LayerSpace(const Layer& layer, const Arch& arch, Encoding encoding) : encoding_(encoding) {
    if (encoding == Encoding::Compact)
      cspace_ = std::make_unique<SearchSpace>(layer, arch);
    else if (encoding == Encoding::Raw)
      raw_ = std::make_unique<MapSpace>(layer, arch);
    else
      gamma_ = std::make_unique<GammaSpace>(layer, arch);
  }
  /// The searchers' view: parameters and domains.
  search::Problem problem() const {
    return cspace_ ? problem_of(*cspace_) : raw_ ? problem_of(*raw_) : problem_of(*gamma_);
  }
  /// The mapping of point `p`; `*repaired` (when given) tells whether the decode repaired it;
  /// `*invalid` (when given) gets why the point names no mapping ("" when it names one).
  Mapping decode(const search::Point& p, bool* repaired, std::string* invalid = nullptr) const {
    const ParamVector v(p.begin(), p.end());
    if (invalid) invalid->clear();
    if (repaired) *repaired = false;
    if (cspace_) return cspace_->decode(v, repaired);
    if (raw_) return raw_->decode(v);
    GammaDecoded d = gamma_->decode(v);
    if (invalid) *invalid = std::move(d.invalid);
    return d.mapping;
  }
  /// Whether two points that decode to one mapping are one sample (compact, raw) or two
  /// (gamma: as in ArchGym, every distinct vector the agent proposes is an evaluation).
  bool samples_are_mappings() const { return encoding_ != Encoding::Gamma; }
  /// log10 of the number of points.
  double log10_size() const {
    return cspace_ ? cspace_->log10_size() : raw_ ? raw_->log10_size() : gamma_->log10_size();
  }

 private:
  Encoding encoding_;                    ///< Which of the three is set.
  std::unique_ptr<MapSpace> raw_;        ///< Raw encoding.
  std::unique_ptr<SearchSpace> cspace_;  ///< Compact encoding.
  std::unique_ptr<GammaSpace> gamma_;    ///< GAMMA encoding.
};

/// Scores a sampling searcher's batches. Two points that decode to one mapping (the compact
/// encoding's repair can map several points onto one) are evaluated once; the second is a
/// repeat, which run_search does not charge to the budget (in the gamma encoding every distinct
/// point is a sample). A gamma point that names no mapping is an invalid sample of kind
/// "encoding", never evaluated. Fresh mappings go to the evaluator, and every fresh sample is
/// reported to `observe` in sample order.
class BatchScorer {
 public:
  BatchScorer(const LayerSpace& space, BatchEvaluator& evaluator,
              const std::function<void(const SampleSeen&)>& observe)
      : space_(space), evaluator_(evaluator), observe_(observe) {}

  /// The outcomes of one batch, in the batch's order.
  std::vector<search::Outcome> evaluate(const std::vector<search::Point>& pts) {
    Batch b(pts.size());
    std::vector<FreshSample> fresh = decode(pts, b);
    std::vector<Scored> scored = evaluator_.evaluate(fresh);
    size_t f = 0;
    for (const NewSample& ns : b.fresh) {
      const size_t i = ns.item;
      const Scored* sc = nullptr;
      Scored unmapped;
      if (ns.unmapped.empty()) {
        sc = &scored[f++];
      } else {
        unmapped = encoding_invalid(ns.unmapped);
        sc = &unmapped;
      }
      b.outs[i] = sc->outcome;
      by_key_[b.keys[i]] = b.outs[i];
      if (sc->rtl) rtl_metrics_[mapping_key(b.maps[i])] = *sc->rtl;
      if (observe_)
        observe_(SampleSeen{ns.sample, &pts[i], &b.maps[i], &sc->surrogate, &b.outs[i],
                            sc->rtl ? &*sc->rtl : nullptr});
    }
    // Repeats inside the batch copy the first.
    for (size_t i = 0; i < pts.size(); ++i) {
      if (b.same_as[i] == SIZE_MAX) continue;
      b.outs[i] = b.outs[b.same_as[i]];
      b.outs[i].repeat = true;
    }
    return std::move(b.outs);
  }

  /// Distinct samples whose decode was repaired.
  int64_t repaired() const { return repaired_; }

  /// The metrics of the best mapping `m`: the RTL's when it was RTL-scored (`*from_rtl` true),
  /// else the surrogate's.
  Metrics best_metrics(const Layer& layer, const Arch& arch, const Mapping& m, bool* from_rtl) {
    const auto it = rtl_metrics_.find(mapping_key(m));
    *from_rtl = it != rtl_metrics_.end();
    return *from_rtl ? it->second : model::Surrogate().evaluate(layer, arch, m);
  }

 private:
  /// A sample new to this search: its item in the batch, its sample index, and why it names no
  /// mapping ("" when it names one and goes to the evaluator).
  struct NewSample {
    size_t item = 0;
    int64_t sample = 0;
    std::string unmapped;
  };
  /// Identity of a sample: its mapping's key, or in the gamma encoding its point.
  using SampleKey = std::vector<long long>;
  /// The state of one batch, item by item.
  struct Batch {
    explicit Batch(size_t n) : outs(n), maps(n), keys(n), same_as(n, SIZE_MAX) {}
    std::vector<search::Outcome> outs;  ///< What the searcher is told.
    std::vector<Mapping> maps;          ///< Decoded mappings.
    std::vector<SampleKey> keys;        ///< Sample identities.
    std::vector<size_t> same_as;        ///< Repeats inside the batch: the first item.
    std::vector<NewSample> fresh;       ///< New samples, in sample order.
  };

  /// What a gamma point that names no mapping scores: an invalid sample of kind "encoding".
  static Scored encoding_invalid(const std::string& why) {
    Scored s;
    s.surrogate.valid = false;
    s.surrogate.invalid = InvalidKind::Encoding;
    s.surrogate.reason = why;
    s.outcome.valid = false;
    s.outcome.failure_class = invalid_kind_name(InvalidKind::Encoding);
    s.outcome.reason = s.outcome.failure_class + ": " + why;
    return s;
  }

  /// Decodes the batch, answers repeats of earlier batches from the cache, marks repeats
  /// inside the batch, and returns the fresh mappings the evaluator scores, with their sample
  /// indices (b.fresh lists every new sample).
  std::vector<FreshSample> decode(const std::vector<search::Point>& pts, Batch& b) {
    std::map<SampleKey, size_t> in_batch;  // first item of each sample in the batch
    std::vector<FreshSample> fresh;
    for (size_t i = 0; i < pts.size(); ++i) {
      bool rep = false;
      std::string unmapped;
      b.maps[i] = space_.decode(pts[i], &rep, &unmapped);
      if (space_.samples_are_mappings()) {
        const MappingKey mk = mapping_key(b.maps[i]);
        b.keys[i].assign(mk.begin(), mk.end());
      } else {
        b.keys[i].assign(pts[i].begin(), pts[i].end());
      }
      if (const auto it = by_key_.find(b.keys[i]); it != by_key_.end()) {
        b.outs[i] = it->second;
        b.outs[i].repeat = true;
        continue;
      }
      if (const auto [it, first] = in_batch.emplace(b.keys[i], i); !first) {
        b.same_as[i] = it->second;
        continue;
      }
      repaired_ += rep;
      b.fresh.push_back(NewSample{i, sample_++, unmapped});
      if (unmapped.empty())  // b.maps never grows: stable
        fresh.push_back(FreshSample{b.fresh.back().sample, &b.maps[i]});
    }
    return fresh;
  }

  const LayerSpace& space_;                                ///< Decodes the points.
  BatchEvaluator& evaluator_;                              ///< Scores the fresh mappings.
  const std::function<void(const SampleSeen&)>& observe_;  ///< Sees every fresh sample.
  int64_t sample_ = 0;    ///< Next sample index (distinct samples so far).
  int64_t repaired_ = 0;  ///< Distinct samples whose decode was repaired.
  /// Outcomes by sample identity (repeats are answered from here).
  std::map<SampleKey, search::Outcome> by_key_;
  /// The RTL metrics of every valid RTL-scored mapping.
  std::map<MappingKey, Metrics> rtl_metrics_;
};

/// Draws rq.surrogate_prior points, scores them on the surrogate (decoded as samples are, but
/// never reported or counted) and primes the searcher with them; returns the prior's record.
nlohmann::json prime_on_surrogate(const LayerSearchRequest& rq, const LayerSpace& space,
                                  const search::Problem& problem, search::Searcher& searcher) {
  const std::unique_ptr<BatchEvaluator> surrogate = reward_evaluator(rq, {}, nullptr);
  const std::function<void(const SampleSeen&)> unseen;
  BatchScorer scorer(space, *surrogate, unseen);
  const std::vector<search::Point> pts = search::prior_points(problem, rq.surrogate_prior, rq.seed);
  const std::vector<search::Outcome> out = scorer.evaluate(pts);
  searcher.prime(pts, out);
  int64_t valid = 0;
  double best = 0;
  for (const search::Outcome& o : out)
    if (o.valid) best = valid++ == 0 ? o.cost : std::min(best, o.cost);
  return {{"source", "surrogate"},
          {"points", pts.size()},
          {"valid", valid},
          {"best_cost", valid > 0 ? nlohmann::json(best) : nlohmann::json(nullptr)},
          {"used_by_searcher", searcher.primed() > 0}};
}

}  // namespace

search::Problem search_problem(const Layer& layer, const Arch& arch, Encoding encoding) {
  return LayerSpace(layer, arch, encoding).problem();
}

LayerSearch search_layer(const LayerSearchRequest& rq, BatchEvaluator& evaluator,
                         const SearchHooks& hooks) {
  if (rq.searcher == "exact") return exact_layer(rq, hooks.observe);
  const LayerSpace space(rq.layer, rq.arch, rq.encoding);
  const search::Problem problem = space.problem();
  auto searcher = search::make_searcher(rq.searcher, problem, rq.options, rq.seed);
  nlohmann::json prior;
  if (rq.surrogate_prior > 0) prior = prime_on_surrogate(rq, space, problem, *searcher);
  BatchScorer scorer(space, evaluator, hooks.observe);
  LayerSearch ls;
  ls.result = search::run_search(
      *searcher, [&scorer](const std::vector<search::Point>& pts) { return scorer.evaluate(pts); },
      rq.budget, hooks.keep_going);
  ls.searcher = searcher->describe();
  ls.searcher["seed"] = rq.seed;
  ls.searcher["encoding"] = encoding_name(rq.encoding);
  ls.searcher["space_log10"] = space.log10_size();
  // Distinct samples whose decode was repaired (read next to the result's invalid and
  // duplicates; always 0 for the raw encoding, where an overflow is an invalid sample).
  ls.searcher["repaired"] = scorer.repaired();
  if (!prior.is_null()) ls.searcher["prior"] = std::move(prior);
  bool best_from_rtl = false;
  if (ls.result.found) {
    ls.best = space.decode(ls.result.best_point, nullptr);  // a valid sample names a mapping
    ls.metrics = scorer.best_metrics(rq.layer, rq.arch, ls.best, &best_from_rtl);
  }
  ls.reward = evaluator.reward_record(best_from_rtl);
  return ls;
}

LayerSearch search_layer(const LayerSearchRequest& request, const SearchHooks& hooks) {
  const std::unique_ptr<BatchEvaluator> surrogate = reward_evaluator(request, {}, nullptr);
  return search_layer(request, *surrogate, hooks);
}

}  // namespace mapwright::flows
