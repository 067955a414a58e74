// What the app advises after a run failed (issue #45): a full disk before the first checkpoint asked for a
// smaller batch and a lower learning rate and promised "the last good checkpoint" of a run that had none.
#include <QDir>

#include <gtest/gtest.h>

#include "support/TestSupport.h"
#include "training/FailureAdvice.h"
#include "workbench/domain/RunFolder.h"

using namespace wbui;

TEST(FailureAdvice, AFullDiskAsksForSpaceAndSaysWhetherThereIsACheckpoint) {
    wbtest::TempDir tmp;
    const QString run = QString::fromStdString(tmp.file("run"));
    QDir().mkpath(run);
    const QString message = QStringLiteral("run.json: cannot write: No space left on device");
    const QString none = failureAdvice(message, run);
    EXPECT_TRUE(none.contains(QStringLiteral("disk"))) << none.toStdString();
    EXPECT_TRUE(none.contains(QStringLiteral("free now"))) << none.toStdString();
    EXPECT_TRUE(none.contains(QStringLiteral("no checkpoint yet"))) << none.toStdString();
    EXPECT_FALSE(none.contains(QStringLiteral("learning rate"))) << none.toStdString();
    EXPECT_FALSE(none.contains(QStringLiteral("smaller batch"))) << none.toStdString();

    wbtest::writeText(tmp.path() / "run" / wb::runfiles::kModel, "weights");
    const QString some = failureAdvice(message, run);
    EXPECT_TRUE(some.contains(QStringLiteral("goes on from its last checkpoint"))) << some.toStdString();
    // How much to free: what one checkpoint of the run takes (7 bytes of "weights" here).
    EXPECT_TRUE(some.contains(QStringLiteral("Free at least 7 bytes"))) << some.toStdString();

    EXPECT_TRUE(failureAdvice(QStringLiteral("the training loss became NaN at step 40"), run)
                    .contains(QStringLiteral("learning rate")));
}
