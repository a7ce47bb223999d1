// Fixture of tests/layering.cmake (tests/layering/README.md):
// synthesis including the model.
#include "mapwright/model/surrogate.hpp"
