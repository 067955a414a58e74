// Validator (see Validator.h).
#include "train/Validator.h"

#include <algorithm>

#include "device/Autocast.h"

namespace wb {

namespace {

std::vector<std::vector<std::int64_t>> confusionRows(const torch::Tensor& flat, std::int64_t classes) {
    const auto counts = flat.to(torch::kInt64).contiguous();
    const auto* data = counts.data_ptr<std::int64_t>();
    std::vector<std::vector<std::int64_t>> rows;
    for (std::int64_t t = 0; t < classes; ++t)
        rows.emplace_back(data + t * classes, data + (t + 1) * classes);
    return rows;
}

}  // namespace

std::int64_t validationBatchSize(const ExperimentConfig& config) {
    return std::max<std::int64_t>(config.train.batchSize, kMinValidationBatch);
}

Validation Validator::run() {
    Validation v;
    if (empty()) return v;
    const auto device = m_setup.device;
    m_setup.model->eval();
    torch::NoGradGuard noGrad;
    auto lossTotal = torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(device));
    auto correct = torch::zeros({}, torch::TensorOptions(torch::kInt64).device(device));
    // Row-major: index true * classes + predicted.
    auto confusion =
        torch::zeros({m_classes * m_classes}, torch::TensorOptions(torch::kInt64).device(device));
    std::int64_t count = 0;
    const auto evalBatch = validationBatchSize(m_config);
    const auto [first, last] = m_sync.shard(m_split.size());
    // One process may stop half-way; the ranks of a data-parallel run must finish together.
    const bool mayAbort = m_sync.worldSize() == 1;
    bool aborted = false;
    for (std::int64_t b = first; b < last; b += evalBatch) {
        if (mayAbort && m_stop) {
            aborted = true;
            break;
        }
        const auto batch = m_split.range(b, std::min(b + evalBatch, last));
        AutocastScope autocast(device, m_config.device.precision);
        const auto out = computeLoss(m_setup.model, batch);
        lossTotal += out.loss.to(torch::kFloat64) * static_cast<double>(out.count);
        correct += out.correct;
        count += out.count;
        if (m_classes > 0)
            confusion +=
                torch::bincount(batch.targets * m_classes + out.predicted, {}, m_classes * m_classes);
    }
    m_setup.model->train();
    if (aborted) return v;
    // One all-reduce for everything; counts stay exact in float64 below 2^53.
    auto sums = torch::cat({torch::stack({lossTotal.cpu(), correct.cpu().to(torch::kFloat64),
                                          torch::tensor(static_cast<double>(count), torch::kFloat64)}),
                            confusion.cpu().to(torch::kFloat64)});
    m_sync.sum(sums);
    const auto totals = sums.accessor<double, 1>();
    if (totals[2] <= 0) return v;
    v.loss = totals[0] / totals[2];
    v.accuracy = totals[1] / totals[2];
    v.confusion = confusionRows(sums.narrow(0, 3, m_classes * m_classes), m_classes);
    v.done = true;
    return v;
}

}  // namespace wb
