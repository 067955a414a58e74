# Read by ctest after the GoogleTest suites of this folder: the longest suites (over 4 s in a release run on
# 2 cores, 2026-11-26, each suite's tests in one process) start first, so that `ctest -j` does not end on one
# of them alone (in the sanitizer build they take minutes). ctest orders parallel tests by COST, highest
# first; a cost it has measured itself (Testing/Temporary/CTestCostData.txt) replaces these after the first
# run. A name that no longer exists is ignored.
set(workbench_slow_tests
  FaultInjection 84
  Catalog/BadInputCli 54
  Cli 23
  NetworkScaleOut 40
  Distributed 22
  Sweep 22
  CliConfigFields 18
  SweepTab 7
  Cuda 6
  MainWindow 4)
while(workbench_slow_tests)
  list(POP_FRONT workbench_slow_tests name cost)
  set_tests_properties(${name} PROPERTIES COST ${cost})
endwhile()
