// The experiment panel: a live summary that follows the values, presets, and problems explained.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QWidget>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "experiment/ExperimentPanel.h"
#include "experiment/ModelSummaryView.h"
#include "workbench/domain/ConfigFields.h"

using namespace wbui;

TEST(ExperimentPanel, SummaryFollowsConfig) {
    ExperimentPanel panel;
    EXPECT_GT(panel.summaryView()->rowCount(), 0);
    panel.setCorpus(QStringLiteral("/tmp/x.txt"), wb::CorpusFormat::Text, 40, 100, 0);
    const QString before = panel.summaryView()->totalsText();
    wb::ExperimentConfig c = panel.config();
    c.model.hidden = c.model.hidden * 2;
    panel.setConfig(c);
    EXPECT_NE(panel.summaryView()->totalsText(), before);
    EXPECT_EQ(panel.config().data.corpus, "/tmp/x.txt");
}

TEST(ExperimentPanel, PresetKeepsCorpus) {
    ExperimentPanel panel;
    panel.setCorpus(QStringLiteral("/tmp/poems.json"), wb::CorpusFormat::Poems, 4000, 4000, 0);
    panel.applyPreset(QStringLiteral("poems"));
    const auto expected = wb::presetConfig("poems");
    EXPECT_EQ(panel.config().model.embedding, expected.model.embedding);
    EXPECT_EQ(panel.config().model.hidden, expected.model.hidden);
    EXPECT_EQ(panel.config().data.corpus, "/tmp/poems.json");
}

// Loading a labelled corpus (or picking the other task) switches the task without throwing away what the
// user set: before, every setting went back to the task's defaults (max steps to "no limit").
TEST(ExperimentPanel, SwitchingTheTaskKeepsTheUsersSettingsAndSaysWhatChanged) {
    ExperimentPanel panel;
    panel.setCorpus(QStringLiteral("/tmp/reviews.tsv"), wb::CorpusFormat::Tsv, 60, 900, 2);
    wb::ExperimentConfig c = panel.config();
    ASSERT_EQ(c.task, wb::Task::LanguageModel);
    c.train.maxSteps = 500;
    c.model.hidden = 77;
    panel.setConfig(c);
    const QStringList changes = panel.switchTask(wb::Task::Classifier);
    const auto lm = wb::defaultConfig(wb::Task::LanguageModel);
    const auto classifier = wb::defaultConfig(wb::Task::Classifier);
    const auto after = panel.config();
    EXPECT_EQ(after.task, wb::Task::Classifier);
    EXPECT_EQ(after.train.maxSteps, 500);  // the user's
    EXPECT_EQ(after.model.hidden, 77);
    EXPECT_EQ(after.data.corpus, "/tmp/reviews.tsv");
    EXPECT_EQ(after.data.format, wb::CorpusFormat::Tsv);
    // Fields left at the language model's defaults follow the task, and each is named.
    int differing = 0;
    for (const auto& field : wb::configFields()) {
        if (field.key == "task" || field.get(lm) == field.get(classifier)) continue;
        if (field.key == "max_steps" || field.key == "hidden") continue;
        if (field.path() == "data.corpus" || field.path() == "data.format") {
            EXPECT_EQ(field.get(after), field.get(c)) << field.key;  // the loaded corpus stays
            continue;
        }
        ++differing;
        EXPECT_EQ(field.get(after), field.get(classifier)) << field.key;
        EXPECT_TRUE(std::any_of(changes.begin(), changes.end(), [&](const QString& line) {
            return line.startsWith(QString::fromStdString(field.label) + QStringLiteral(": "));
        })) << field.label;
    }
    EXPECT_GT(differing, 0);  // the two tasks' defaults do differ somewhere
    EXPECT_EQ(changes.size(), differing);
    EXPECT_TRUE(panel.switchTask(wb::Task::Classifier).isEmpty());  // already a classifier
    // And back: an untouched field returns to the language model's default, the user's stay.
    panel.switchTask(wb::Task::LanguageModel);
    EXPECT_EQ(panel.config().data.tokens, lm.data.tokens);
    EXPECT_EQ(panel.config().train.maxSteps, 500);
}

TEST(ExperimentPanel, TheThreadSplitBoxSetsAndShowsTheConfig) {
    ExperimentPanel panel;
    auto* box = panel.findChild<QComboBox*>(QStringLiteral("thread_split"));
    ASSERT_NE(box, nullptr);
    EXPECT_EQ(panel.config().device.threadSplit, wb::ThreadSplit::Batch);  // the table's default
    box->setCurrentIndex(1);
    EXPECT_EQ(panel.config().device.threadSplit, wb::ThreadSplit::Ops);
    wb::ExperimentConfig c = panel.config();
    c.device.threadSplit = wb::ThreadSplit::Batch;
    panel.setConfig(c);
    EXPECT_EQ(box->currentIndex(), 0);
}

// The schedule's settings (warm-up, cosine decay, weight decay, clipping) are in the form both ways.
TEST(ExperimentPanel, TheScheduleBoxesSetAndShowTheConfig) {
    ExperimentPanel panel;
    auto* schedule = panel.findChild<QComboBox*>(QStringLiteral("lr_schedule"));
    auto* warmup = panel.findChild<QSpinBox*>(QStringLiteral("lr_warmup_steps"));
    auto* decay = panel.findChild<QDoubleSpinBox*>(QStringLiteral("weight_decay"));
    auto* clip = panel.findChild<QDoubleSpinBox*>(QStringLiteral("grad_clip"));
    ASSERT_TRUE(schedule && warmup && decay && clip);
    wb::ExperimentConfig c = panel.config();
    c.train.lrSchedule = wb::LrSchedule::Cosine;
    c.train.lrWarmupSteps = 200;
    c.train.weightDecay = 0.01;
    c.train.gradClip = 1.5;
    panel.setConfig(c);
    EXPECT_EQ(schedule->currentIndex(), 1);
    EXPECT_EQ(warmup->value(), 200);
    EXPECT_DOUBLE_EQ(decay->value(), 0.01);
    EXPECT_DOUBLE_EQ(clip->value(), 1.5);
    schedule->setCurrentIndex(0);
    warmup->setValue(50);
    decay->setValue(0.0);
    clip->setValue(0.0);
    const auto after = panel.config();
    EXPECT_EQ(after.train.lrSchedule, wb::LrSchedule::Constant);
    EXPECT_EQ(after.train.lrWarmupSteps, 50);
    EXPECT_DOUBLE_EQ(after.train.weightDecay, 0.0);
    EXPECT_DOUBLE_EQ(after.train.gradClip, 0.0);
    EXPECT_EQ(decay->text(), QStringLiteral("off"));
}

TEST(ExperimentPanel, InvalidCombinationIsExplained) {
    ExperimentPanel panel;
    wb::ExperimentConfig c = wb::defaultConfig(wb::Task::LanguageModel);
    c.model.hidden = 0;
    panel.setConfig(c);
    EXPECT_FALSE(panel.problems().isEmpty());
    panel.setConfig(wb::defaultConfig(wb::Task::LanguageModel));
    EXPECT_TRUE(panel.problems().isEmpty()) << panel.problems().join(QStringLiteral("; ")).toStdString();
}

// Issue #11: the panel's boxes take their ranges from the config table, as validation does (the sequence
// length box once allowed 1, which validation refused).
TEST(ExperimentPanel, BoxesTakeTheirRangesFromTheConfigTable) {
    ExperimentPanel panel;
    int checked = 0;
    for (const char* key : {"vocab_size", "embedding", "hidden", "layers", "seq_len", "batch_size", "epochs",
                            "max_steps", "validate_every", "early_stop_patience", "seed"}) {
        const auto& field = wb::configField(key);
        QSpinBox* box = nullptr;
        for (auto* b : panel.findChildren<QSpinBox*>())
            if (b->toolTip() == QString::fromStdString(field.help)) box = b;
        ASSERT_NE(box, nullptr) << key;
        EXPECT_EQ(box->minimum(), int(field.min)) << key;
        EXPECT_EQ(box->maximum(), int(std::min(field.max, double(std::numeric_limits<int>::max())))) << key;
        ++checked;
    }
    for (const char* key : {"dropout", "val_fraction"}) {
        const auto& field = wb::configField(key);
        QDoubleSpinBox* box = nullptr;
        for (auto* b : panel.findChildren<QDoubleSpinBox*>())
            if (b->toolTip() == QString::fromStdString(field.help)) box = b;
        ASSERT_NE(box, nullptr) << key;
        EXPECT_TRUE(field.inRange(box->minimum())) << key;
        EXPECT_TRUE(field.inRange(box->maximum())) << key;
        ++checked;
    }
    EXPECT_EQ(checked, 13);
    // A value the box lets through is one validation accepts: the smallest sequence length.
    wb::ExperimentConfig c = panel.config();
    QSpinBox* seq = nullptr;
    for (auto* b : panel.findChildren<QSpinBox*>())
        if (b->toolTip() == QString::fromStdString(wb::configField("seq_len").help)) seq = b;
    seq->setValue(seq->minimum());
    c = panel.config();
    c.data.corpus = "x.txt";
    EXPECT_EQ(wb::configField("seq_len").rangeProblem(c), "");
}

// Issue #31: the form is the config table's form rows. Every field with a form group is on the page, by its
// key, with the table's range, default, choices and help, and nothing else is: a new field needs its table
// row (and its Config member and the code that uses it), never an edit of the panel.
TEST(ExperimentPanel, TheFormIsBuiltFromTheConfigTable) {
    ExperimentPanel panel;  // starts at the language model's defaults
    wb::ExperimentConfig defaults = wb::defaultConfig(wb::Task::LanguageModel);
    int onForm = 0;
    for (const auto& field : wb::configFields()) {
        const QString key = QString::fromStdString(field.key);
        QWidget* widget = panel.findChild<QWidget*>(key);
        if (field.form.group.empty()) {
            EXPECT_EQ(panel.formWidget(key), nullptr) << field.key;
            continue;
        }
        ++onForm;
        ASSERT_NE(widget, nullptr) << field.key;
        EXPECT_EQ(panel.formWidget(key), widget) << field.key;
        EXPECT_TRUE(widget->toolTip().startsWith(QString::fromStdString(field.help))) << field.key;
        const std::string shown = field.get(defaults);
        switch (field.type) {
            case wb::FieldType::Integer:
            case wb::FieldType::UnsignedInteger: {
                auto* box = qobject_cast<QSpinBox*>(widget);
                ASSERT_NE(box, nullptr) << field.key;
                EXPECT_EQ(box->minimum(), int(std::max(field.min, double(std::numeric_limits<int>::min()))))
                    << field.key;
                EXPECT_EQ(box->maximum(), int(std::min(field.max, double(std::numeric_limits<int>::max()))))
                    << field.key;
                EXPECT_EQ(std::to_string(box->value()), shown) << field.key;
                break;
            }
            case wb::FieldType::Number: {
                auto* box = qobject_cast<QDoubleSpinBox*>(widget);
                ASSERT_NE(box, nullptr) << field.key;
                EXPECT_TRUE(field.inRange(box->minimum())) << field.key;
                EXPECT_TRUE(field.inRange(box->maximum())) << field.key;
                EXPECT_DOUBLE_EQ(box->value(), std::stod(shown)) << field.key;
                break;
            }
            case wb::FieldType::Boolean: {
                auto* box = qobject_cast<QCheckBox*>(widget);
                ASSERT_NE(box, nullptr) << field.key;
                EXPECT_EQ(box->isChecked() ? "true" : "false", shown) << field.key;
                break;
            }
            case wb::FieldType::Choice: {
                auto* box = qobject_cast<QComboBox*>(widget);
                ASSERT_NE(box, nullptr) << field.key;
                ASSERT_EQ(box->count(), int(field.choices.size())) << field.key;
                for (int i = 0; i < box->count(); ++i)
                    EXPECT_EQ(box->itemData(i).toString().toStdString(), field.choices[std::size_t(i)]);
                EXPECT_EQ(box->currentData().toString().toStdString(), shown) << field.key;
                break;
            }
            case wb::FieldType::Text:
                break;
        }
    }
    EXPECT_GT(onForm, 20);
    // And every input of the form is a field of the table (the preset box is not a setting).
    int inputs = 0;
    for (auto* w : panel.findChildren<QWidget*>()) {
        if (!qobject_cast<QAbstractSpinBox*>(w) && !qobject_cast<QComboBox*>(w) &&
            !qobject_cast<QCheckBox*>(w))
            continue;
        if (w->parentWidget() && qobject_cast<QAbstractSpinBox*>(w->parentWidget())) continue;
        const auto* field = wb::findConfigField(w->objectName().toStdString());
        if (!field) continue;
        EXPECT_FALSE(field->form.group.empty()) << field->key;
        ++inputs;
    }
    EXPECT_EQ(inputs, onForm);
}

// A choice box is read by the choice it shows, not by its position: the items follow the table.
TEST(ExperimentPanel, ChoiceBoxesReadTheChoiceNotThePosition) {
    ExperimentPanel panel;
    for (const auto& field : wb::configFields()) {
        if (field.type != wb::FieldType::Choice || field.form.group.empty() || field.key == "task") continue;
        auto* box = qobject_cast<QComboBox*>(panel.formWidget(QString::fromStdString(field.key)));
        ASSERT_NE(box, nullptr) << field.key;
        for (int i = 0; i < box->count(); ++i) {
            box->setCurrentIndex(i);
            EXPECT_EQ(field.get(panel.config()), field.choices[std::size_t(i)]) << field.key;
        }
    }
}
