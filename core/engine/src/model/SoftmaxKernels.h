// Softmax cross-entropy rows with their gradient in the same pass (no torch here: see model/CrossEntropy.h).
#pragma once

#include <cstdint>

namespace wb::softmaxkernels {

// Rows [r0, r1) of logits [rows, classes] (row-major): for each row r with target t = targets[r],
// loss[r] = log(sum_j exp(x_j)) - x_t (in double), argmax[r] = the first index of the row's largest value
// (the first NaN if there is one, as torch.argmax), and grad[r, j] = (softmax(x)_j - [j == t]) * scale. A NaN
// or an infinity in the row makes its loss NaN or infinite, as ATen's.
void rows(const float* logits, const std::int64_t* targets, std::int64_t classes, std::int64_t r0,
          std::int64_t r1, float scale, float* grad, double* loss, std::int64_t* argmax);

}  // namespace wb::softmaxkernels
