// `mpirun -np K mapwright codesign`: the layer solves of rank 0's evaluator on the other ranks
// (solve_farm.hpp). A request carries the layer's unique id and shape, and the architecture
// fields a solve depends on that a space changes (solve_key's); the worker rebuilds the
// architecture from the space's base with them and checks that its key is the one asked for.
// After the search, the same ranks check designs on the RTL (rtl_check.hpp: one design per
// request, each rank with its own RTL worker pool and model cache).
#include "codesign/solve_farm.hpp"

#include <deque>
#include <iostream>
#include <stdexcept>

#include "codesign/rtl_check.hpp"
#include "mapwright/flows/dist.hpp"
#include "mapwright/support/error.hpp"

using json = nlohmann::json;
using namespace mapwright::core;

namespace mapwright::flows::codesign {

namespace {

/// The fields of `a` that solve_key names.
json arch_json(const Arch& a) {
  json df = json::array();
  for (Dataflow d : a.dataflows) df.push_back(dataflow_name(d));
  const EnergyTable& e = a.energy;
  return {{"rows", a.rows},
          {"cols", a.cols},
          {"input_buf_bytes", a.input_buf_bytes},
          {"weight_buf_bytes", a.weight_buf_bytes},
          {"accum_buf_bytes", a.accum_buf_bytes},
          {"dram_bytes_per_cycle", a.dram_bytes_per_cycle},
          {"buffer_banks", a.buffer_banks},
          {"dataflows", df},
          {"energy",
           {{"mac_pj", e.mac_pj},
            {"input_buf_pj", e.input_buf_pj},
            {"weight_buf_pj", e.weight_buf_pj},
            {"accum_buf_pj", e.accum_buf_pj},
            {"dram_pj_per_byte", e.dram_pj_per_byte},
            {"pe_static_pj", e.pe_static_pj}}}};
}

/// The space's base with the fields of arch_json.
Arch arch_of(const CodesignSpace& s, const json& j) {
  Arch a = s.base;
  a.rows = j.at("rows").get<int>();
  a.cols = j.at("cols").get<int>();
  a.input_buf_bytes = j.at("input_buf_bytes").get<long long>();
  a.weight_buf_bytes = j.at("weight_buf_bytes").get<long long>();
  a.accum_buf_bytes = j.at("accum_buf_bytes").get<long long>();
  a.dram_bytes_per_cycle = j.at("dram_bytes_per_cycle").get<double>();
  a.buffer_banks = j.at("buffer_banks").get<int>();
  a.dataflows.clear();
  for (const auto& n : j.at("dataflows")) {
    Dataflow d{};
    if (!parse_dataflow(n.get<std::string>(), d))
      throw std::runtime_error("unknown dataflow " + n.dump());
    a.dataflows.push_back(d);
  }
  const json& e = j.at("energy");
  a.energy.mac_pj = e.at("mac_pj").get<double>();
  a.energy.input_buf_pj = e.at("input_buf_pj").get<double>();
  a.energy.weight_buf_pj = e.at("weight_buf_pj").get<double>();
  a.energy.accum_buf_pj = e.at("accum_buf_pj").get<double>();
  a.energy.dram_pj_per_byte = e.at("dram_pj_per_byte").get<double>();
  a.energy.pe_static_pj = e.at("pe_static_pj").get<double>();
  return a;
}

}  // namespace

json solve_request(size_t u, const Layer& layer, const Arch& a, double time_limit_s) {
  return {{"u", u},
          {"key", solve_key(layer, a)},
          {"arch", arch_json(a)},
          {"time_limit_s", time_limit_s}};
}

int serve_solves(const CodesignSpace& s) {
  PointEvaluator ev(s);  // the unique layers, as rank 0 numbers them
  return dist::serve_farm(
      [&](const json& m) -> json {
        try {
          if (m.contains("design")) return serve_design_check(ev, m);
          const size_t u = m.at("u").get<size_t>();
          if (u >= ev.layers().size()) throw std::runtime_error("no unique layer " + m["u"].dump());
          const Arch a = arch_of(s, m.at("arch"));
          const std::string key = solve_key(ev.layers()[u], a);
          if (key != m.at("key").get<std::string>())
            throw std::runtime_error("asked for " + m["key"].dump() + ", rebuilt " + key);
          return figures_to_json(
              solve_layer(ev.layers()[u], a, s.objective, m.at("time_limit_s").get<double>()));
        } catch (const std::exception& e) {
          return {{"error", e.what()}};
        }
      },
      {});
}

std::vector<json> SolveFarm::run(const std::vector<json>& requests) {
  if (closed_) throw std::logic_error("SolveFarm::run after close");
  std::vector<json> out(requests.size());
  std::deque<size_t> todo;
  for (size_t i = 0; i < requests.size(); ++i) todo.push_back(i);
  std::map<int, size_t> busy;  // rank -> request
  while (!todo.empty() || !busy.empty()) {
    while (!idle_.empty() && !todo.empty()) {
      const int r = idle_.back();
      idle_.pop_back();
      dist::send(r, dist::Tag::Work, requests[todo.front()]);
      busy[r] = todo.front();
      todo.pop_front();
    }
    int from = 0;
    dist::Tag tag{};
    json m = dist::receive(from, tag);
    if (tag == dist::Tag::Ready) {
      ++ready_;
      idle_.push_back(from);
      continue;
    }
    const auto it = busy.find(from);
    if (tag != dist::Tag::Result || it == busy.end())
      throw std::runtime_error("rank " + std::to_string(from) + ": unexpected message " + m.dump());
    if (m.contains("error"))
      throw std::runtime_error("rank " + std::to_string(from) + ": " +
                               m["error"].get<std::string>());
    ++(requests[it->second].contains("design") ? checked_by_ : solved_by_)[from];
    out[it->second] = std::move(m);
    busy.erase(it);
    idle_.push_back(from);
  }
  return out;
}

std::vector<LayerFigures> SolveFarm::solve(const std::vector<json>& requests) {
  const std::vector<json> answers = run(requests);
  std::vector<LayerFigures> out;
  for (size_t i = 0; i < answers.size(); ++i)
    out.push_back(figures_from_json(answers[i], "an MPI rank's solve"));
  return out;
}

void SolveFarm::close() {
  if (closed_) return;
  closed_ = true;
  // Every rank says Ready once before it takes work; those that have not yet are waited for,
  // and a rank still solving (solve() left by an exception) is told to stop when it answers.
  int done = 0;
  const int ranks = dist::size() - 1;
  for (int r : idle_) dist::send(r, dist::Tag::Stop, json::object());
  while (ready_ < ranks || done < ranks) {
    int from = 0;
    dist::Tag tag{};
    dist::receive(from, tag);
    if (tag == dist::Tag::Ready) ++ready_;
    if (tag == dist::Tag::Ready || tag == dist::Tag::Result)
      dist::send(from, dist::Tag::Stop, json::object());
    else if (tag == dist::Tag::Done)
      ++done;
  }
}

SolveFarm::~SolveFarm() {
  try {
    close();
  } catch (const std::exception& e) {
    std::cerr << "mapwright: stopping the MPI ranks failed: " << e.what() << "\n";
  }
}

void PointEvaluator::prefetch(const Arch& fits, const Arch& fallback, double deadline_s) {
  const double limit = solve_limit(deadline_s);
  auto fetch = [&](const std::vector<std::pair<size_t, Arch>>& rq) {
    if (rq.empty()) return;
    std::vector<json> msgs;
    for (const auto& [u, a] : rq) msgs.push_back(solve_request(u, layers_[u], a, limit));
    const std::vector<LayerFigures> got = farm_->solve(msgs);
    std::lock_guard<std::mutex> lock(memo_mu_);
    for (size_t i = 0; i < rq.size(); ++i)
      fetched_.emplace(solve_key(layers_[rq[i].first], rq[i].second), got[i]);
  };
  // What all_layers asks for: each layer's largest-buffer solve (unless buffer energies scale
  // with capacity), then the fallback solve where that optimum does not fit `fits`.
  const bool shortcut = !s_.base.energy.capacity_scaling;
  const Arch big = largest_buffers(s_, fits);
  std::vector<std::pair<size_t, Arch>> rq;
  if (shortcut)
    for (size_t u = 0; u < layers_.size(); ++u)
      if (!peek(solve_key(layers_[u], big))) rq.push_back({u, big});
  fetch(rq);
  rq.clear();
  for (size_t u = 0; u < layers_.size(); ++u) {
    bool ok = false;
    if (shortcut) fits_point(u, fits, *peek(solve_key(layers_[u], big)), ok);
    if (!ok && !peek(solve_key(layers_[u], fallback))) rq.push_back({u, fallback});
  }
  fetch(rq);
}

const LayerFigures* PointEvaluator::peek(const std::string& key) {
  std::lock_guard<std::mutex> lock(memo_mu_);
  if (auto it = memo_.find(key); it != memo_.end()) return &it->second;
  if (auto it = fetched_.find(key); it != fetched_.end()) return &it->second;
  return nullptr;
}

void SolveFarm::close_and_report(std::ostream& out) {
  close();
  for (int rank = 1; rank < dist::size(); ++rank) {
    const auto it = solved_by_.find(rank);
    const auto ck = checked_by_.find(rank);
    out << "rank " << rank << ": " << (it == solved_by_.end() ? 0 : it->second) << " layer solves, "
        << (ck == checked_by_.end() ? 0 : ck->second) << " designs on the RTL\n";
  }
}

}  // namespace mapwright::flows::codesign
