// sweep.json read back (workbench/domain/Sweep.h): the numbers in it are whole numbers in their range, or the
// file is refused with the field named. The fuzzer found `"repeats": 6.7e108`, which get<int>() turned into
// undefined behaviour rather than an error.
#include <gtest/gtest.h>

#include <string>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Sweep.h"

namespace {

std::string plannedSweep() {
    wb::ExperimentConfig base = wb::defaultConfig(wb::Task::LanguageModel);
    base.data.corpus = "corpus.txt";
    return wb::Sweep::plan(base, {wb::parseSweepAxis("batch_size=16,32")}, 2, 0).toJson();
}

// The text with the first `"key": old` replaced by `"key": value`.
std::string withValue(std::string text, const std::string& key, const std::string& old,
                      const std::string& value) {
    const std::string from = "\"" + key + "\": " + old;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), "\"" + key + "\": " + value);
    return text;
}

}  // namespace

TEST(SweepFile, WholeNumbersWrittenAsFloatsStillRead) {
    const auto sweep = wb::Sweep::fromJson(withValue(plannedSweep(), "repeats", "2", "2.0"), "sweep.json");
    EXPECT_EQ(sweep.repeats, 2);
    EXPECT_EQ(sweep.cells.size(), 4u);
}

TEST(SweepFile, NumbersOutOfRangeAreRefusedByName) {
    const std::string text = plannedSweep();
    struct Case {
        const char* key;
        const char* old;
        const char* value;
        const char* says;
    };
    for (const Case& c :
         {Case{"repeats", "2", "6.66667e+108", "repeats: expected a whole number from 1 to 100"},
          Case{"repeats", "2", "0", "repeats: expected a whole number from 1 to 100"},
          Case{"repeats", "2", "1.5", "repeats"}, Case{"repeats", "2", "\"2\"", "repeats"},
          Case{"index", "0", "-1e300", "cells[0].index: expected a whole number"},
          Case{"repeat", "0", "2", "cells[0].repeat: expected a whole number from 0 to 1"},
          Case{"repeat", "0", "18446744073709551615", "cells[0].repeat"}}) {
        const auto why = wbtest::inputErrorOf(
            [&] { wb::Sweep::fromJson(withValue(text, c.key, c.old, c.value), "sweep.json"); });
        EXPECT_NE(why.find(c.says), std::string::npos) << c.key << "=" << c.value << ": " << why;
    }
}
