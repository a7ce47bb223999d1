// Fixture of tests/layering.cmake (tests/layering/README.md):
// the RTL pool's client including the simulator.
#include "mapwright/systemc/rtl_evaluator.hpp"
