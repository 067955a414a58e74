// The Sweep tab's Slurm settings (ui/sweep/SlurmSettingsDialog.h): checked as typed, kept in the app's
// settings, and used by the next sweep on Slurm. Their way into sbatch, against a real cluster, is tested in
// SweepOnSlurmTest.cpp.
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QPushButton>

#include <gtest/gtest.h>

#include "UiTestSupport.h"
#include "sweep/SlurmSettingsDialog.h"
#include "sweep/SweepPanel.h"

using namespace wbui;

TEST(SlurmSettingsDialog, ATimeLimitSbatchWouldRefuseIsSaidAndCannotBeKept) {
    SlurmSettingsDialog dialog({});
    auto* ok = dialog.buttons()->button(QDialogButtonBox::Ok);
    EXPECT_TRUE(ok->isEnabled()) << "empty: the cluster's defaults";
    dialog.timeLimitEdit()->setText(QStringLiteral("1h"));
    EXPECT_FALSE(ok->isEnabled());
    EXPECT_TRUE(dialog.problemLabel()->text().contains(QStringLiteral("time limit '1h'")))
        << dialog.problemLabel()->text().toStdString();
    // LSTM_WORKBENCH_SCREENSHOTS (as the guide's screenshots): the dialog saying what is wrong, to look at.
    if (const QString folder = qEnvironmentVariable("LSTM_WORKBENCH_SCREENSHOTS"); !folder.isEmpty()) {
        dialog.partitionEdit()->setText(QStringLiteral("gpu"));
        dialog.show();
        dialog.grab().save(folder + QStringLiteral("/slurm-settings.png"));
    }
    dialog.timeLimitEdit()->setText(QStringLiteral("1:30:00"));
    dialog.partitionEdit()->setText(QStringLiteral(" gpu "));
    EXPECT_TRUE(ok->isEnabled()) << dialog.problemLabel()->text().toStdString();
    EXPECT_EQ(dialog.settings().partition, "gpu") << "trimmed";
    EXPECT_EQ(dialog.settings().timeLimit, "1:30:00");
}

TEST(SlurmSettingsDialog, TheSettingsKeptAreTheNextSweepsAndTheButtonSaysThem) {
    SlurmSettingsDialog::save({"gpu", "lab", "2-0"});
    const auto kept = SlurmSettingsDialog::saved();
    EXPECT_EQ(kept.partition, "gpu");
    EXPECT_EQ(kept.account, "lab");
    EXPECT_EQ(kept.timeLimit, "2-0");
    EXPECT_EQ(SlurmSettingsDialog::describe(kept).toStdString(),
              "partition gpu · account lab · 2-0 per cell");
    SweepPanel panel;
    EXPECT_FALSE(panel.slurmSettingsButton()->isEnabled()) << "on this machine";
    panel.runOnBox()->setCurrentIndex(1);
    EXPECT_TRUE(panel.slurmSettingsButton()->isEnabled());
    EXPECT_TRUE(panel.slurmSettingsButton()->toolTip().contains(QStringLiteral("partition gpu")));
    SlurmSettingsDialog::save({});
    EXPECT_EQ(SlurmSettingsDialog::describe(SlurmSettingsDialog::saved()).toStdString(),
              "the cluster's defaults");
}
