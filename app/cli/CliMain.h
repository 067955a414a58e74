// The whole of lstm-workbench-cli as one call: main.cpp is nothing else. A function of the workbench_cli
// library so that the end-to-end tests can run the CLI in a forked copy of their own process (a real process,
// its exit code and signals as a user's shell sees them) without loading LibTorch again for every command
// (tests/e2e/CliRunner.cpp).
#pragma once

// Parses argv, runs the subcommand and returns the process's exit code: 0 ok, 1 runtime failure, 2 bad input.
// Call it once per process, on its main thread, before any other thread starts.
int cliMain(int argc, char** argv);
