// Numbers and durations as every part of the product writes them (workbench/domain/Format.h).
#include <gtest/gtest.h>

#include "workbench/domain/Format.h"

TEST(Format, CountsBytesAndDurations) {
    EXPECT_EQ(wb::formatNumber("%.3f", 0.5), "0.500");
    EXPECT_EQ(wb::humanCount(9999), "9999");
    EXPECT_EQ(wb::humanCount(12345), "12.3 k");
    EXPECT_EQ(wb::humanCount(4.56e6), "4.56 M");
    EXPECT_EQ(wb::humanCount(7.891e9), "7.89 G");
    EXPECT_EQ(wb::humanCount(1.234e12), "1.23 T");
    EXPECT_EQ(wb::humanBytes(12), "12 bytes");
    EXPECT_EQ(wb::humanBytes(512 * 1024.0), "512.0 KiB");
    EXPECT_EQ(wb::humanBytes(1024.0 * 1024), "1.0 MiB");
    EXPECT_EQ(wb::humanBytes(38.2 * 1024 * 1024 * 1024), "38.2 GiB");
    EXPECT_EQ(wb::humanSeconds(45), "45 s");
    EXPECT_EQ(wb::humanSeconds(750), "12.5 min");
    EXPECT_EQ(wb::humanSeconds(5400), "1.5 h");
    EXPECT_EQ(wb::clockDuration(7.5), "7.5 s");
    EXPECT_EQ(wb::clockDuration(42), "42 s");
    EXPECT_EQ(wb::clockDuration(187), "3:07");
    EXPECT_EQ(wb::clockDuration(3723), "1:02:03");
    EXPECT_EQ(wb::clockDuration(-1), "–");
}
