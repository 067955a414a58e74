// Issue #63: names cut in their middle lost what told runs apart ("run 1 · tang-quatrains-7 …read · fp32"
// beside "run 2 · tang-quatrains-7 …eads"). fitRunName elides what the shown runs share first.
#include <QApplication>
#include <QFontMetrics>

#include <gtest/gtest.h>

#include "workbench/graphics/RunNames.h"

using namespace wbui;

namespace {

const QString kOne = QStringLiteral("run 1 · tang-quatrains-7 LM · cpu · 1 thread · fp32 · 11-28 09:12");
const QString kTwo = QStringLiteral("run 2 · tang-quatrains-7 LM · cpu · 2 threads · fp32 · 11-28 09:30");

}  // namespace

TEST(RunNames, WhatTheShownRunsShareIsElidedFirstLongestFirst) {
    const QFontMetrics metrics(QApplication::font());
    const QStringList shown{kOne, kTwo};
    EXPECT_EQ(fitRunName(kOne, shown, metrics, 10000), kOne) << "it fits: whole";
    // A little too narrow: the longest shared part (the corpus) goes first; the device stays whole.
    const QString corpusOut = QStringLiteral("run 2 · … · cpu · 2 threads · fp32 · 11-28 09:30");
    EXPECT_EQ(fitRunName(kTwo, shown, metrics, metrics.horizontalAdvance(corpusOut)), corpusOut);
    // Narrower: the shared device words too, one "…" for each run of them; the number, the thread count
    // and the start stay.
    const QString narrow =
        fitRunName(kTwo, shown, metrics,
                   metrics.horizontalAdvance(QStringLiteral("run 2 · … · 2 threads · … · 11-28 09:30")));
    EXPECT_EQ(narrow, QStringLiteral("run 2 · … · 2 threads · … · 11-28 09:30"));
    // Narrower still: cut in its middle, its number first.
    const QString tiny =
        fitRunName(kTwo, shown, metrics, metrics.horizontalAdvance(QStringLiteral("run 2 · … ·")));
    EXPECT_TRUE(tiny.startsWith(QStringLiteral("run 2"))) << tiny.toStdString();
    EXPECT_LE(metrics.horizontalAdvance(tiny), metrics.horizontalAdvance(QStringLiteral("run 2 · … ·")));
    // Alone, nothing is shared: cut in its middle, its number and its start kept.
    const QString alone = fitRunName(kTwo, {kTwo}, metrics, metrics.horizontalAdvance(corpusOut));
    EXPECT_TRUE(alone.startsWith(QStringLiteral("run 2 · tang"))) << alone.toStdString();
    EXPECT_TRUE(alone.endsWith(QStringLiteral("09:30"))) << alone.toStdString();
    EXPECT_TRUE(alone.contains(QStringLiteral("…"))) << alone.toStdString();
}

TEST(RunNames, TheDistinctNameKeepsTheNumberAndWhatDiffers) {
    EXPECT_EQ(differingRunParts(kOne, {kOne, kTwo}),
              (QStringList{QStringLiteral("1 thread"), QStringLiteral("11-28 09:12")}));
    EXPECT_EQ(differingRunParts(QStringLiteral("run 3 · baseline"), {}),
              QStringList{QStringLiteral("baseline")});
    EXPECT_EQ(distinctRunName(kOne, {kOne, kTwo}), QStringLiteral("run 1 · … · 1 thread · … · 11-28 09:12"));
    EXPECT_EQ(distinctRunName(kOne, {kOne}), kOne);
    // A part shared with only some of the others is what tells it apart from the rest: it stays.
    const QString three = QStringLiteral("run 3 · tang-quatrains-7 LM · cuda:0 · bf16 · 11-28 10:00");
    EXPECT_EQ(distinctRunName(kOne, {kOne, kTwo, three}),
              QStringLiteral("run 1 · … · cpu · 1 thread · fp32 · 11-28 09:12"));
}
