// Fixture of tests/layering.cmake (tests/layering/README.md):
// the run record including the model.
#include "mapwright/model/bank_conflicts.hpp"
