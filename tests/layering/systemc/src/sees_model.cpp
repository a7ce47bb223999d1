// Fixture of tests/layering.cmake (tests/layering/README.md):
// the RTL harness including the model it checks.
#include "mapwright/model/schedule.hpp"
