// lstm-workbench-cli's entry point; the program is CliMain.cpp.
#include "CliMain.h"

int main(int argc, char** argv) { return cliMain(argc, argv); }
