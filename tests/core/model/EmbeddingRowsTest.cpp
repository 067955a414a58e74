// The embedding lookup with its own CPU backward (model/EmbeddingRows.h) against torch::embedding: the same
// rows forward and the same gradient bit for bit (the rows are added in the same order), with repeated
// indices, widths that are and are not whole column blocks, and one and two intra-op threads; other types
// fall back to torch's.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include "model/EmbeddingRows.h"

using namespace wb;

TEST(EmbeddingRows, MatchesTorchsLookupAndGradientExactly) {
    const int threadsBefore = at::get_num_threads();
    for (int threads : {1, 2})
        for (std::int64_t width : {1, 16, 32, 37}) {
            SCOPED_TRACE("threads=" + std::to_string(threads) + " width=" + std::to_string(width));
            at::set_num_threads(threads);
            torch::manual_seed(3);
            // 7 rows and 5 x 9 lookups: every row is looked up several times.
            const auto table = torch::randn({7, width});
            const auto indices = torch::randint(0, 7, {5, 9}, torch::kLong);
            const auto upstream = torch::randn({5, 9, width});
            auto ours = table.clone().requires_grad_(true);
            auto theirs = table.clone().requires_grad_(true);
            const auto outOurs = embeddingRows(ours, indices);
            const auto outTheirs = torch::embedding(theirs, indices);
            ASSERT_EQ(outOurs.sizes(), outTheirs.sizes());
            EXPECT_TRUE(torch::equal(outOurs, outTheirs));
            (outOurs * upstream).sum().backward();
            (outTheirs * upstream).sum().backward();
            EXPECT_TRUE(torch::equal(ours.grad(), theirs.grad()));
            EXPECT_GT(ours.grad().abs().sum().item<double>(), 0.0);
        }
    at::set_num_threads(threadsBefore);
}

TEST(EmbeddingRows, RejectsAnIndexOutsideTheTableAndFallsBackForOtherTypes) {
    const auto table = torch::randn({4, 8});
    EXPECT_THROW(embeddingRows(table, torch::tensor({0, 4}, torch::kLong)), c10::Error);
    const auto doubles = torch::randn({4, 8}, torch::kFloat64).requires_grad_(true);
    const auto indices = torch::tensor({1, 1, 3}, torch::kLong);
    embeddingRows(doubles, indices).sum().backward();
    EXPECT_TRUE(torch::equal(doubles.grad().sum(1), torch::tensor({0.0, 16.0, 0.0, 8.0}, torch::kFloat64)));
}
