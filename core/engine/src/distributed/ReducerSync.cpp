// ReducerSync (see ReducerSync.h). Gradients are summed with ReduceOp::SUM after each is divided by the world
// size (the Reducer's built-in path, as DDP's), never with Gloo's AVG. Buckets follow DDP's defaults: a
// small first bucket (it is ready earliest in backward, so its all-reduce starts soonest), then 25 MiB ones.
// With device.grad_compression fp16 the buckets travel as fp16 (c10d's built-in compression hook).
#include "distributed/ReducerSync.h"

namespace wb {

namespace {

constexpr std::int64_t kFirstBucketBytes = 1 << 20;
constexpr std::int64_t kBucketBytes = 25 << 20;
constexpr std::size_t kBroadcastBytes = 250 << 20;

using BucketAssignment = std::tuple<std::vector<std::vector<std::size_t>>, std::vector<std::size_t>>;

// DDP's Reducer over these parameters, buckets as assigned, unused parameters not looked for; its constructor
// moved between LibTorch versions (TorchCompat.h).
std::unique_ptr<c10d::Reducer> makeReducer(const std::vector<torch::Tensor>& parameters,
                                           const BucketAssignment& assignment,
                                           const c10::intrusive_ptr<c10d::ProcessGroup>& group,
                                           const std::vector<bool>& sparse) {
    const auto& [buckets, caps] = assignment;
    const std::unordered_map<std::size_t, std::string> noNames;
    constexpr bool findUnused = false, gradientAsBucketView = false;
#if defined(WORKBENCH_REDUCER_BUCKET_CAP_LIST)
    constexpr bool skipUnused = false, pythonReducer = false;
    return std::make_unique<c10d::Reducer>(
        parameters, buckets, group, sparse, kBucketBytes, findUnused, gradientAsBucketView, noNames,
        kFirstBucketBytes, skipUnused, pythonReducer, std::vector<std::int64_t>(caps.begin(), caps.end()));
#elif defined(WORKBENCH_REDUCER_SKIP_UNUSED_ARGS)
    constexpr bool skipUnused = false, pythonReducer = false;
    return std::make_unique<c10d::Reducer>(parameters, buckets, group, sparse, kBucketBytes, findUnused,
                                           gradientAsBucketView, noNames, kFirstBucketBytes, skipUnused,
                                           pythonReducer);
#else
    return std::make_unique<c10d::Reducer>(parameters, buckets, caps, group, sparse, kBucketBytes, findUnused,
                                           gradientAsBucketView, noNames, kFirstBucketBytes);
#endif
}

class ReducerSync final : public GradientSync {
public:
    ReducerSync(DistributedContext& context, const std::vector<torch::Tensor>& parameters,
                GradCompression compression)
        : m_context(context) {
        broadcastFromRankZero(parameters);
        const std::vector<bool> sparse(parameters.size(), false);
        // DDP's assignment: parameters in reverse order (roughly the order backward produces gradients).
        std::vector<std::int64_t> order;
        for (auto i = static_cast<std::int64_t>(parameters.size()) - 1; i >= 0; --i) order.push_back(i);
        auto assignment = c10d::compute_bucket_assignment_by_size(
            parameters, {static_cast<std::size_t>(kFirstBucketBytes), static_cast<std::size_t>(kBucketBytes)},
            sparse, order, {});
        m_reducer = makeReducer(parameters, assignment, context.group(), sparse);
        // fp16 on the wire: each bucket is cast to fp16, divided by the world size, all-reduced and cast
        // back into the fp32 gradients (c10d's FP16CompressCommHook). The default path is ALLREDUCE's.
        if (compression == GradCompression::Fp16)
            m_reducer->register_builtin_comm_hook(c10d::BuiltinCommHookType::FP16_COMPRESS);
        const std::int64_t bytesPerValue = compression == GradCompression::Fp16 ? 2 : 4;
        for (const auto& p : parameters) m_bytesPerStep += p.numel() * bytesPerValue;
    }

    int rank() const override { return m_context.rank(); }
    int worldSize() const override { return m_context.worldSize(); }

    void broadcastFromRankZero(const std::vector<torch::Tensor>& tensors) override {
        torch::NoGradGuard noGrad;  // in-place writes into leaf parameters
        c10d::broadcast_coalesced(m_context.group(), tensors, kBroadcastBytes, 0);
    }

    void beforeForward() override {
        m_reducer->rebuild_buckets();  // once, after the first step: buckets in the order gradients arrived
        m_reducer->prepare_for_forward();
    }
    void beforeBackward() override { m_reducer->prepare_for_backward({}); }

    std::int64_t gradientBytesPerStep() const override { return m_bytesPerStep; }

    void sum(torch::Tensor& values) override {
        std::vector<torch::Tensor> list{values};
        c10d::AllreduceOptions o;
        o.reduceOp = c10d::ReduceOp::SUM;
        m_context.group()->allreduce(list, o)->wait();
    }

private:
    DistributedContext& m_context;
    std::unique_ptr<c10d::Reducer> m_reducer;
    std::int64_t m_bytesPerStep = 0;
};

}  // namespace

std::unique_ptr<GradientSync> makeReducerSync(DistributedContext& context,
                                              const std::vector<torch::Tensor>& parameters,
                                              GradCompression compression) {
    return std::make_unique<ReducerSync>(context, parameters, compression);
}

}  // namespace wb
