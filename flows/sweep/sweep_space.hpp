#pragma once
/// \file sweep_space.hpp
/// A sweep file as the co-design machinery sees it: a space (per parameter the values the
/// file's points use) and the file's points in it, scored by codesign::search_points.

#include <ostream>
#include <string>
#include <vector>

#include "codesign/codesign_search.hpp"
#include "mapwright/flows/sweep.hpp"

namespace mapwright::flows {

/// A sweep file as a co-design space and the file's points in it.
struct SweepSpace {
  CodesignSpace space;                    ///< Per parameter the values the points use.
  std::vector<codesign::HwIndex> points;  ///< The file's points, in order.
  std::string network_name;               ///< The network's own name.
};

/// The co-design space of sweep file `f`: its base architecture (buffer energies as the base
/// says), network, objective, constraints, area constants and mapper time limit, and per
/// parameter the sorted values of its points. Parameters the RTL cannot be built for stay in
/// (load_sweep_file checked them against the architecture's ranges): such a point is scored and
/// fails alone on the RTL. The network's import notes go to `notes` when set; a network that
/// does not load is a core::SpecError naming the file.
SweepSpace sweep_space(const SweepFile& f, std::ostream* notes);

}  // namespace mapwright::flows
