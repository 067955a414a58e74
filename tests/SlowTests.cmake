# Read by ctest after the GoogleTest suites of this folder: the longest suites (over 4 s in a release run on
# 2 cores, 2026-11-26, each suite's tests in one process) start first, so that `ctest -j` does not end on one
# of them alone (in the sanitizer build they take minutes). ctest orders parallel tests by COST, highest
# first; a cost it has measured itself (Testing/Temporary/CTestCostData.txt) replaces these after the first
# run. A name that no longer exists, or is another folder's, is ignored: tests/ui reads this file too, and
# the tests added by add_test in a CMakeLists come after it in ctest's file (their COST is set there).
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

# Suites whose subject the sanitizer build cannot check, and whose code other suites run under it: they run in
# the release suite only (scripts/test-sanitized.sh runs `ctest -LE release-only`). NetworkScaleOut is the
# Distributed suite's training and fault handling over real interfaces between network namespaces (what it
# adds is the network: addresses, a link that goes down, bandwidth); WindowFrame measures the window manager's
# frame around the window (the window's start-up and its saved geometry's restore run under the sanitizers in
# the MainWindow and MainWindowLayout suites); SlurmCluster runs sweeps, srun steps and requeues through a real
# Slurm controller and two slurmd (what it adds is the scheduler; the sweep's Slurm launcher runs under the
# sanitizers against scripted Slurm commands in core_tests' SlurmLauncher suite, and the training it starts
# is the Sweep and Distributed suites'). docs/benchmarks.md, "Build and CI time", lists every check and
# where it runs.
set_tests_properties(NetworkScaleOut PROPERTIES LABELS "e2e;release-only")
