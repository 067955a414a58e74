// The one test source that knows where the source tree is (TestSupport.h, sourcePath): its absolute path
// is defined for this file alone (tests/CMakeLists.txt), so that every other test file compiles alike in
// every clone of the tree and a compiler cache shares them between clones.
#include "support/TestSupport.h"

namespace wbtest {

std::string sourcePath(const std::string& relative) {
    return std::string(WORKBENCH_SOURCE_DIR) + "/" + relative;
}

}  // namespace wbtest
