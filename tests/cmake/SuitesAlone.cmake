# The GoogleTest suites that run in a process of their own, each with its COST: ctest starts the highest cost
# first, so that `ctest -j` does not end on a long suite alone. Every other suite shares a process with a few
# more (tests/cmake/GTestSuites.cmake says why). The costs are seconds of each suite's entry in the sanitized
# suite (slower than the release one), from a warm CI run on 2 cores (the Intel Xeon of 2026-12-03,
# docs/benchmarks/first-launch/ci-20261203-2118-warm-intel-xeon-same-tree.log); a suite is listed when it
# took over about 3 s there or 2 s in the release suite, where its own tests, not the process's start, are
# most of its time. ctest's own measured costs (Testing/Temporary/CTestCostData.txt) replace these after a
# first run in a build folder. A name no binary lists is ignored; a new slow suite left off this list runs in
# a shared process, which costs only balance.
# Read at ctest time by each binary's generated test file.
set(workbench_suites_alone
  FaultInjection 72
  Distributed 68
  Catalog/BadInputCli 66
  Cli 58
  Sweep 55
  NetworkScaleOut 40
  StartStopStress 35
  CliConfigFields 23
  SweepTab 13
  Bf16Training 12
  RunEstimate 10
  BestCheckpoint 9
  Catalog/BadCorpusDrop 8
  CliRunner 8
  Catalog/BadInputCatalog 8
  TokenStore 8
  MainWindow 7
  RunStateUi 7
  DistributedRendezvous 6
  FusedLstm 5
  Cuda 5
  CorpusPanel 5
  RunStateCli 5
  CorpusOverview 4
  TrainingJob 4)
