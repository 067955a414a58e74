// Where the CLI under test is: the one file of e2e_tests compiled with its absolute path
// (tests/CMakeLists.txt), so that the others compile alike in every clone of the tree and a compiler cache
// can share them.
#include "CliRunner.h"

namespace wbtest {

const char* cliProgram() { return WORKBENCH_CLI; }

}  // namespace wbtest
