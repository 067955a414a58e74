// The exit code of a test binary's main(): ctest runs one GoogleTest suite per process
// (tests/cmake/GTestSuites.cmake) and reads 77 as "skipped", so a suite whose every test skipped itself (the
// CUDA tests on a machine without a GPU) is listed as not run rather than passed.
#pragma once

#include <gtest/gtest.h>

namespace wbtest {

inline int suiteExitCode(int runAllTestsResult) {
    const auto& unit = *::testing::UnitTest::GetInstance();
    const bool allSkipped =
        unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count();
    if (runAllTestsResult == 0 && allSkipped) return 77;
    return runAllTestsResult;
}

}  // namespace wbtest
