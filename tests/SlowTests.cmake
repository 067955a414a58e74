# Read by ctest after the discovered GoogleTest tests of this folder: the longest tests (over 3 s in a
# release run on 2 cores, 2026-11-25) start first, so that `ctest -j` does not end on one of them alone (in
# the sanitizer build they take minutes). ctest orders parallel tests by COST, highest first; a cost it has
# measured itself (Testing/Temporary/CTestCostData.txt) replaces these after the first run. A name that no
# longer exists is ignored.
set(workbench_slow_tests
  FaultInjection.KilledAtEveryFailpointOfARunTheLastCheckpointResumesToTheSameResult 90
  CliConfigFields.AValueTheFieldRefusesThroughItsFlagIsOneLineNamingItAndExitTwo 22
  Cli.BadInputExitsTwoWithOneLineNamingTheFileAndLeavesNothing 8
  Sweep.BadAxesAreOneLineAndExitTwoBeforeAnythingIsCreated 6
  Sweep.AGridWithRepeatsTrainsEveryCellAndWritesResults 6
  Cli.GeneratedPoemsAreCheckedWithTheCorpusTables 5
  Distributed.AResumeRestoresEveryRankWithTheSameOrAnotherNumberOfProcesses 5
  Distributed.BadLaunchesAreInputErrors 4
  Sweep.AKilledSweepResumesWithoutRedoingFinishedCells 4
  Cli.ABlasWhoseThreadsCannotBeSetIsSaidNotHidden 4
  Cli.TrainGenerateResumeCompare 4
  Sweep.SigusrOnePausesAfterTheRunningCellAndResumeFinishes 4
  FaultInjection.DiskFullDuringACheckpointStopsTheRunAndKeepsTheLastGoodOne 3
  Cli.PrepareRunsThePreparer 3
  Distributed.ARankThatNeverComesIsNamedWhenTheRendezvousTimesOut 3
  Distributed.ThreeProcessesWithUnevenShardsTrainTheLossSequenceOfOneClassifier 3)
while(workbench_slow_tests)
  list(POP_FRONT workbench_slow_tests name cost)
  set_tests_properties(${name} PROPERTIES COST ${cost})
endwhile()
