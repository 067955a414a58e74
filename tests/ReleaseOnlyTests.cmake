# Read by ctest after the GoogleTest suites of this folder (the slow suites' COST, the longest started first,
# is set where each is added: tests/cmake/SuitesAlone.cmake).
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
