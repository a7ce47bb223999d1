// Fixture of tests/layering.cmake (tests/layering/README.md):
// the report including the run command.
#include "mapwright/flows/run.hpp"
