// What to do after a run failed, said from what failed and what its run folder holds: a full disk asks for
// space and says whether a resume goes on from a checkpoint or starts again (it once promised "the last good
// checkpoint" of a run that had none, and advised a smaller batch); NaN asks for a lower learning rate, out
// of memory for a smaller batch or model.
#pragma once

#include <QString>

namespace wbui {

// message: the run's one-line error; runDir: its folder.
QString failureAdvice(const QString& message, const QString& runDir);

}  // namespace wbui
