// Fixture of tests/layering.cmake (tests/layering/README.md):
// allowed includes of core.
#include "mapwright/core/layer.hpp"
#include "mapwright/support/error.hpp"
