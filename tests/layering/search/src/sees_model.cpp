// Fixture of tests/layering.cmake (tests/layering/README.md):
// a searcher that includes the model.
#include "mapwright/model/surrogate.hpp"
