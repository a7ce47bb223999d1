// Hardware points and boxes of a codesign space, and the admissible lower bounds of a box: the
// area of its smallest point, the clock of its smallest array, the closed-form cycle and energy
// bounds of every layer at the box's relaxed architecture (largest array, bandwidth and buffers,
// every dataflow of the box, no bank stalls), and Hoelder's composition of per-layer cost bounds
// into a network's.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "codesign/codesign_search.hpp"
#include "mapwright/mapper/bounds.hpp"
#include "mapwright/model/area.hpp"
#include "mapwright/model/clock.hpp"

using namespace mapwright::core;

namespace mapwright::flows::codesign {

namespace {

constexpr int kBufferParams[] = {static_cast<int>(HwParam::AccumKib),
                                 static_cast<int>(HwParam::WeightKib),
                                 static_cast<int>(HwParam::InputKib)};

/// Sets parameter `p` of `a` to `v`.
void set_param(Arch& a, HwParam p, long long v) {
  switch (p) {
    case HwParam::Dataflows:
      a.dataflows.clear();
      for (Dataflow d : {Dataflow::WS, Dataflow::OS, Dataflow::IS})
        if (v & (1LL << static_cast<int>(d))) a.dataflows.push_back(d);
      break;
    case HwParam::Rows:
      a.rows = static_cast<int>(v);
      break;
    case HwParam::Cols:
      a.cols = static_cast<int>(v);
      break;
    case HwParam::DramBw:
      a.dram_bytes_per_cycle = static_cast<double>(v);
      break;
    case HwParam::Banks:
      a.buffer_banks = static_cast<int>(v);
      break;
    case HwParam::AccumKib:
      a.accum_buf_bytes = v * 1024;
      break;
    case HwParam::WeightKib:
      a.weight_buf_bytes = v * 1024;
      break;
    case HwParam::InputKib:
      a.input_buf_bytes = v * 1024;
      break;
  }
}

}  // namespace

double HwBox::size() const {
  double n = 1;
  for (int p = 0; p < kNumHwParams; ++p) n *= hi[p] - lo[p] + 1;
  return n;
}

bool HwBox::fixed_but_buffers() const {
  for (int p = 0; p < kNumHwParams; ++p)
    if (std::find(std::begin(kBufferParams), std::end(kBufferParams), p) ==
            std::end(kBufferParams) &&
        lo[p] != hi[p])
      return false;
  return true;
}

HwBox whole_space(const CodesignSpace& s) {
  HwBox b;
  for (int p = 0; p < kNumHwParams; ++p) b.hi[p] = static_cast<int>(s.values[p].size()) - 1;
  return b;
}

long long value_of(const CodesignSpace& s, const HwIndex& i, HwParam p) {
  return s.values[static_cast<int>(p)][i[static_cast<int>(p)]];
}

Arch point_arch(const CodesignSpace& s, const HwIndex& i) {
  Arch a = s.base;
  std::ostringstream name;
  name << "cd";
  for (int p = 0; p < kNumHwParams; ++p) {
    const long long v = s.values[p][i[p]];
    set_param(a, static_cast<HwParam>(p), v);
    if (p != static_cast<int>(HwParam::Dataflows)) name << "-" << v;
  }
  name << "-";
  for (Dataflow d : a.dataflows) name << dataflow_name(d);
  a.name = name.str();
  apply_capacity_scaling(a);
  return a;
}

std::string unbuildable(const CodesignSpace& s, const HwIndex& i) {
  const long long banks = value_of(s, i, HwParam::Banks);
  if (banks == 0) return "";
  const long long need = std::max({value_of(s, i, HwParam::Rows), value_of(s, i, HwParam::Cols),
                                   value_of(s, i, HwParam::DramBw)});
  if (banks >= need) return "";
  return "banks " + std::to_string(banks) +
         " < max(rows, cols, dram_bytes_per_cycle) = " + std::to_string(need);
}

Arch buffer_relaxed_arch(const CodesignSpace& s, const HwBox& b) {
  Arch a = point_arch(s, b.hi);
  const EnergyTable smallest = point_arch(s, b.lo).energy;
  a.energy.input_buf_pj = smallest.input_buf_pj;
  a.energy.weight_buf_pj = smallest.weight_buf_pj;
  a.energy.accum_buf_pj = smallest.accum_buf_pj;
  return a;
}

Arch relaxed_arch(const CodesignSpace& s, const HwBox& b) {
  Arch a = buffer_relaxed_arch(s, b);
  long long mask = 0;
  const int df = static_cast<int>(HwParam::Dataflows);
  for (int k = b.lo[df]; k <= b.hi[df]; ++k) mask |= s.values[df][k];
  set_param(a, HwParam::Dataflows, mask);
  a.buffer_banks = 0;
  a.name = "relaxed";
  return a;
}

double area_lower_bound(const CodesignSpace& s, const HwBox& b) {
  HwIndex i = b.lo;
  const int bk = static_cast<int>(HwParam::Banks);
  double best = INFINITY;
  for (int k = b.lo[bk]; k <= b.hi[bk]; ++k) {
    i[bk] = k;
    best = std::min(best, model::estimate_area(point_arch(s, i), s.area).total_mm2);
  }
  return best;
}

double point_clock_mhz(const CodesignSpace& s, const Arch& a) {
  return s.modeled_clock ? model::estimate_clock(a, s.clock).fmax_mhz : s.base.clock_mhz;
}

double clock_cost_factor(const CodesignSpace& s, double clock_mhz) {
  return s.modeled_clock ? std::pow(s.base.clock_mhz / clock_mhz, s.objective.latency) : 1.0;
}

double box_clock_mhz(const CodesignSpace& s, const HwBox& b) {
  return point_clock_mhz(s, point_arch(s, b.lo));
}

std::vector<NetworkBound> closed_form_bounds(const CodesignSpace& s, const HwBox& b) {
  const Arch relaxed = relaxed_arch(s, b);
  std::vector<NetworkBound> out;
  for (const WorkloadNetwork& w : s.workload) {
    NetworkBound nb;
    for (const auto& [layer, count] : w.layers) {
      const mapper::Bounds lb = mapper::LowerBound(layer, relaxed).bounds(mapper::Partial{});
      nb.cycles += count * lb.cycles;
      nb.energy_pj += count * lb.energy;
    }
    out.push_back(nb);
  }
  return out;
}

double compose_layer_bounds(const Objective& o, const std::vector<double>& layer_cost,
                            const std::vector<int>& count) {
  const double s = o.latency + o.energy;
  double sum = 0;
  for (size_t i = 0; i < layer_cost.size(); ++i)
    sum += count[i] * std::pow(std::max(0.0, layer_cost[i]), 1 / s);
  return std::pow(sum, s);
}

}  // namespace mapwright::flows::codesign
