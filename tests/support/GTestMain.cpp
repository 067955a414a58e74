// main() of core_tests and e2e_tests: GoogleTest's own, but a run whose every test skipped itself exits 77
// (support/SuiteExit.h). ui_tests has its own (ui/UiTestMain.cpp).
#include <gtest/gtest.h>

#include "support/SuiteExit.h"

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return wbtest::suiteExitCode(RUN_ALL_TESTS());
}
