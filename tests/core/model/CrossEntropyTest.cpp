// The fused softmax cross-entropy (model/CrossEntropy.h) against ATen's cross_entropy and argmax: the loss,
// the logits' gradient (also weighted, as a thread's share of the batch weights it), the argmax with ties and
// NaN, row widths with a vector tail, logits far apart in scale, a NaN or infinite row, and targets out of
// range refused.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "model/CrossEntropy.h"

namespace {

void expectMatchesAten(const torch::Tensor& logits, const torch::Tensor& targets, double weight) {
    auto a = logits.clone().requires_grad_();
    auto b = logits.clone().requires_grad_();
    const auto ours = wb::crossEntropyWithArgmax(a, targets);
    const auto theirs = torch::nn::functional::cross_entropy(b, targets);
    EXPECT_NEAR(ours.loss.item<double>(), theirs.item<double>(),
                1e-5 * std::abs(theirs.item<double>()) + 1e-6);
    EXPECT_TRUE(torch::equal(ours.argmax, b.argmax(1)));
    (ours.loss * weight).backward();
    (theirs * weight).backward();
    EXPECT_LT((a.grad() - b.grad()).abs().max().item<double>(), 1e-6 * weight + 1e-9);
}

}  // namespace

TEST(CrossEntropy, MatchesAtenOnLossGradientAndArgmax) {
    torch::manual_seed(5);
    for (std::int64_t classes : {1, 2, 15, 16, 17, 65, 4379})
        for (std::int64_t rows : {1, 7, 40}) {
            SCOPED_TRACE("classes=" + std::to_string(classes) + " rows=" + std::to_string(rows));
            const auto logits = torch::randn({rows, classes}) * 4;
            const auto targets = torch::randint(0, classes, {rows});
            expectMatchesAten(logits, targets, 1.0);
            expectMatchesAten(logits, targets, 0.375);  // a thread's share of the batch
        }
    // Scales far apart: large logits (exp overflows without the max) and tiny ones.
    expectMatchesAten(torch::randn({9, 33}) * 300, torch::randint(0, 33, {9}), 1.0);
    expectMatchesAten(torch::randn({9, 33}) * 1e-4, torch::randint(0, 33, {9}), 1.0);
}

TEST(CrossEntropy, TiesNanAndInfinityAsAten) {
    // Ties: the first largest wins, as torch.argmax.
    auto tie = torch::tensor({{1.0f, 3.0f, 3.0f, 0.0f}});
    EXPECT_EQ(wb::crossEntropyWithArgmax(tie, torch::tensor({0}, torch::kInt64)).argmax.item<std::int64_t>(),
              1);
    // A NaN anywhere in a row: the loss is NaN, and the argmax is the NaN's index, as torch.argmax.
    auto withNan = torch::tensor({{1.0f, 2.0f, NAN, 5.0f}, {0.0f, 1.0f, 2.0f, 3.0f}});
    const auto targets = torch::tensor({0, 3}, torch::kInt64);
    const auto r = wb::crossEntropyWithArgmax(withNan, targets);
    EXPECT_TRUE(std::isnan(r.loss.item<float>()));
    EXPECT_TRUE(torch::equal(r.argmax, withNan.argmax(1)));
    auto withInf = torch::tensor({{1.0f, INFINITY, 0.0f}});
    EXPECT_TRUE(std::isnan(
        wb::crossEntropyWithArgmax(withInf, torch::tensor({0}, torch::kInt64)).loss.item<float>()));
    EXPECT_TRUE(std::isnan(
        torch::nn::functional::cross_entropy(withInf, torch::tensor({0}, torch::kInt64)).item<float>()));
}

// The argmax runs 16 lanes at a time: ties between lanes and between a lane's blocks, the maximum in the tail
// after the last whole block, signed zeros, a row of -inf, and NaNs past the first block, each against
// torch.argmax on rows long enough for every lane and the tail (37 = two blocks and 5).
TEST(CrossEntropy, ArgmaxOfLongRowsAsAten) {
    const std::int64_t n = 37;
    std::vector<torch::Tensor> rows;
    auto row = [&](const std::vector<std::pair<std::int64_t, float>>& set, float base = -1.0f) {
        auto r = torch::full({n}, base);
        for (const auto& [at, value] : set) r[at] = value;
        rows.push_back(r);
    };
    row({{20, 5.0f}, {3, 5.0f}});               // a tie, the first in an earlier block's lane
    row({{5, 5.0f}, {21, 5.0f}, {2, 5.0f}});    // the same lane's two blocks, and an earlier lane
    row({{34, 9.0f}});                          // in the tail
    row({{15, 2.0f}, {32, 2.0f}, {36, 2.0f}});  // a block's last lane against the tail
    row({{7, 0.0f}, {4, -0.0f}}, -2.0f);        // -0 before +0: the first of them
    row({{4, 0.0f}, {7, -0.0f}}, -2.0f);
    row({}, -INFINITY);
    row({{30, NAN}, {33, NAN}, {1, 100.0f}});  // a NaN wins, the first of them
    row({{36, NAN}});
    const auto logits = torch::stack(rows);
    const auto targets = torch::zeros({logits.size(0)}, torch::kInt64);
    const auto ours = wb::crossEntropyWithArgmax(logits, targets).argmax;
    EXPECT_TRUE(torch::equal(ours, logits.argmax(1))) << ours << logits.argmax(1);
    // And on random rows of every length up to three blocks, as the first test does at a few.
    torch::manual_seed(11);
    for (std::int64_t classes = 1; classes <= 49; ++classes) {
        const auto r = torch::randint(0, 4, {9, classes}).to(torch::kFloat32);  // many ties
        EXPECT_TRUE(
            torch::equal(wb::crossEntropyWithArgmax(r, torch::zeros({9}, torch::kInt64)).argmax, r.argmax(1)))
            << classes;
    }
}

TEST(CrossEntropy, RefusesTargetsOutOfRange) {
    const auto logits = torch::randn({3, 5});
    EXPECT_THROW(wb::crossEntropyWithArgmax(logits, torch::tensor({0, 5, 1}, torch::kInt64)), c10::Error);
    EXPECT_THROW(wb::crossEntropyWithArgmax(logits, torch::tensor({0, -1, 1}, torch::kInt64)), c10::Error);
}
