// Fixture of tests/layering.cmake (tests/layering/README.md):
// a model source that includes the map space.
#include "mapwright/mapspace/compact_space.hpp"
