#pragma once
/// \file clock.hpp
/// The clock model: the shortest clock period the accelerator's RTL meets, as a function of the
/// architecture, fitted on static timing of synthesized configurations (`mapwright synth
/// --liberty osu018`: the RTL mapped to the OSU 0.18 um cells by yosys, buffered by qflow's
/// blifFanout, timed by OpenSTA; configs/synth/clock-calibration.yaml,
/// scripts/calibrate-clock.py, docs/synthesis.md "The clock model"). Co-design uses it so that a
/// point's latency is at the clock that point reaches; the run report states it beside the
/// architecture's stated clock.
///
/// Simplification, named: the model has the two parts today's RTL shows. The fold set-up chain
/// (rtl/mw_fold_seq.sv sets up every read lane's address at a fold's issue, one lane after the
/// other) grows linearly with the lanes max(rows, cols) and sets the clock from 8x8 up; every
/// other path (the PE's multiply-accumulate among them) is a fixed part. Buffers, bank count and
/// DRAM beat do not enter: on the calibration they moved the period by less than the fit's
/// error. Interconnect is not in it (no placement: OpenSTA times the cells' own loads).

#include <yaml-cpp/yaml.h>

#include <string>

#include "mapwright/core/arch.hpp"

namespace mapwright::model {

/// The fitted constants; periods at the library's node, `delay_factor` scales them to `node`.
struct ClockConstants {
  std::string library = "OSU 0.18 um (qflow-tech-osu018)";  ///< The cells timed.
  std::string library_node = "180";                         ///< Their node.
  std::string node = "HP45";  ///< The architecture files' node, the periods scaled to it.
  /// Stillmaker and Baas (2017) delay factor from library_node (1.8 V) to node (1.0 V)
  /// (configs/tech/node-scaling.yaml).
  double delay_factor = 0.15820461805608438;
  /// Every path that does not grow with the array: the larger of them, ns at library_node.
  double fixed_ns = 15.4067;
  /// The fold set-up chain: base + per lane x max(rows, cols), ns at library_node.
  double setup_base_ns = 3.0712;
  double setup_per_lane_ns = 2.4892;
  /// Where the numbers come from (replaced by the YAML `source` when one is given).
  std::string source =
      "fitted on OpenSTA timing of 5 configurations (2x2 to 16x16) mapped to the OSU 0.18 um "
      "cells (scripts/calibrate-clock.py), checked on 6 held out; scaled to 45 nm by "
      "Stillmaker and Baas 2017";
};

/// The model's answer for one architecture.
struct ClockEstimate {
  double library_period_ns = 0;     ///< At the library's node.
  double period_ns = 0;             ///< At the architecture's node.
  double fmax_mhz = 0;              ///< 1000 / period_ns.
  bool setup_chain_limits = false;  ///< The fold set-up chain sets it (else the fixed paths).
};

/// The clock `arch`'s RTL meets by the model; non-increasing in rows and cols.
ClockEstimate estimate_clock(const core::Arch& arch, const ClockConstants& c = {});

/// Defaults overridden by the optional map `node` (null or absent: the defaults): delay_factor,
/// fixed_ns, setup_base_ns, setup_per_lane_ns (positive, but setup_base_ns, which may be any
/// finite number), library, library_node, node and source (text). Unknown keys, non-numbers and
/// values out of range throw core::SpecError naming `where`, the key (as `path`.key) and the
/// value.
ClockConstants clock_constants_from_yaml(const YAML::Node& node, const std::string& where,
                                         const std::string& path = "clock");

}  // namespace mapwright::model
