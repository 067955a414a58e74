// Slurm's own commands (sbatch, scontrol, scancel), run as a user at a shell would run them: the sweep's
// Slurm launcher (sweep/SlurmLauncher.cpp) and a run that requeues its job (SlurmJob.cpp) share them.
#pragma once

#include <string>
#include <vector>

namespace wb {

// The program's path on PATH ("" when it is not there), as a shell would find it.
std::string onPath(const std::string& name);

// Runs argv (argv[0] a path) and returns its standard output, read back from `scratch`.out (its error
// output from `scratch`.err; both removed). Throws TrainingError with the program's first error line when
// it fails. `endsThisJob`: the command ends the Slurm job this process runs in (`scontrol requeue` from
// inside the job), so it ignores the SIGTERM that Slurm sends the job's processes (ChildSpec::ignoresTerm).
std::string slurmCommand(const std::vector<std::string>& argv, const std::string& scratch,
                         bool endsThisJob = false);

}  // namespace wb
