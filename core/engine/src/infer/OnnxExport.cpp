// The network as ONNX (see OnnxExport.h). Field numbers: onnx/onnx.proto (ModelProto, GraphProto, NodeProto,
// AttributeProto, TensorProto, ValueInfoProto, TypeProto, TensorShapeProto, OperatorSetIdProto).
#include "infer/OnnxExport.h"

#include <functional>
#include <limits>
#include <variant>
#include <vector>

#include "workbench/domain/ProtoWire.h"

namespace wb {

namespace {

using proto::Message;

namespace onnx {  // onnx.proto's enums and field numbers
enum ElemType { kFloat = 1, kInt32 = 6, kInt64 = 7, kBool = 9 };
enum AttrType { kAttrFloat = 1, kAttrInt = 2, kAttrString = 3, kAttrGraph = 5, kAttrInts = 7 };
namespace model {
constexpr int kIrVersion = 1, kProducerName = 2, kProducerVersion = 3, kDocString = 6, kGraph = 7,
              kOpsetImport = 8, kMetadataProps = 14;
}
namespace entry {  // StringStringEntryProto
constexpr int kKey = 1, kValue = 2;
}
namespace graph {
constexpr int kNode = 1, kName = 2, kInitializer = 5, kInput = 11, kOutput = 12;
}
namespace node {
constexpr int kInput = 1, kOutput = 2, kName = 3, kOpType = 4, kAttribute = 5;
}
namespace attr {
constexpr int kName = 1, kF = 2, kI = 3, kS = 4, kG = 6, kInts = 8, kType = 20;
}
namespace tensor {
constexpr int kDims = 1, kDataType = 2, kName = 8, kRawData = 9;
}
namespace value {
constexpr int kName = 1, kType = 2, kTensorType = 1, kOptionalType = 9, kElemType = 1, kShape = 2, kDim = 1,
              kDimValue = 1, kDimParam = 2;
constexpr int kOptionalElemType = 1;  // TypeProto.Optional
}  // namespace value
constexpr std::int64_t kIrVersion8 = 8;  // the IR of opset 17
}  // namespace onnx

class GraphBuilder;
struct Subgraph {  // a branch of If: its graph, built with the outer graph's names (GraphBuilder::branch)
    Message graph;
};
using AttributeValue = std::variant<std::int64_t, float, std::string, std::vector<std::int64_t>, Subgraph>;
using Attribute = std::pair<std::string, AttributeValue>;
using Dim = std::variant<std::int64_t, std::string>;  // a size, or a symbolic one ("batch")

// One graph, built node by node; an intermediate value gets a fresh name, a graph output the name given.
class GraphBuilder {
public:
    std::vector<std::string> nodeN(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::vector<Attribute>& attributes, int outputs,
                                   const std::string& outputName = "") {
        Message n;
        for (const auto& in : inputs) n.bytes(onnx::node::kInput, in);
        const auto id = m_prefix + op + "_" + std::to_string(m_count++);
        std::vector<std::string> names;
        for (int i = 0; i < outputs; ++i) {
            names.push_back(!outputName.empty() ? outputName
                            : outputs > 1       ? id + "_" + std::to_string(i)
                                                : id);
            n.bytes(onnx::node::kOutput, names.back());
        }
        n.bytes(onnx::node::kName, id).bytes(onnx::node::kOpType, op);
        for (const auto& [name, v] : attributes) n.message(onnx::node::kAttribute, attribute(name, v));
        m_graph.message(onnx::graph::kNode, n);
        return names;
    }
    std::string node(const std::string& op, const std::vector<std::string>& inputs,
                     const std::vector<Attribute>& attributes = {}, const std::string& outputName = "") {
        return nodeN(op, inputs, attributes, 1, outputName).front();
    }

    std::string floats(const std::string& name, const torch::Tensor& t) {
        const auto c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
        return initializer(
            name, c.sizes().vec(), onnx::kFloat,
            std::string(static_cast<const char*>(c.data_ptr()), static_cast<std::size_t>(c.nbytes())));
    }
    std::string ints(const std::vector<std::int64_t>& values) {
        return initializer(constantName(), {static_cast<std::int64_t>(values.size())}, onnx::kInt64,
                           raw(values));
    }
    std::string intScalar(std::int64_t v) {
        return initializer(constantName(), {}, onnx::kInt64, raw(std::vector{v}));
    }
    std::string floatScalar(float v) {
        return initializer(constantName(), {}, onnx::kFloat,
                           std::string(reinterpret_cast<const char*>(&v), 4));
    }
    void input(const std::string& name, int elemType, const std::vector<Dim>& dims) {
        m_graph.message(onnx::graph::kInput, valueInfo(name, elemType, dims));
    }
    // An input of type optional(tensor): a caller may leave it out (ONNX Runtime then passes None), and it
    // is listed among the session's inputs (an initializer of an input's name is not, and draws a warning).
    void optionalInput(const std::string& name, int elemType, const std::vector<Dim>& dims) {
        m_graph.message(onnx::graph::kInput, valueInfo(name, elemType, dims, /*optional=*/true));
    }
    // A branch of an If node: built by `build` with names unique in the whole model (a branch may read the
    // outer graph's values); its one output is `output`.
    Subgraph branch(const std::string& name, const std::function<std::string(GraphBuilder&)>& build,
                    int elemType, const std::vector<Dim>& dims) {
        GraphBuilder b;
        b.m_count = m_count;
        b.m_constants = m_constants;
        b.m_prefix = m_prefix + name + "_";
        const auto result = build(b);
        m_count = b.m_count;
        m_constants = b.m_constants;
        b.output(result, elemType, dims);
        return {b.finish(name)};
    }
    void output(const std::string& name, int elemType, const std::vector<Dim>& dims) {
        m_graph.message(onnx::graph::kOutput, valueInfo(name, elemType, dims));
    }
    Message finish(const std::string& name) const {
        Message g = m_graph;
        g.bytes(onnx::graph::kName, name);
        return g;
    }

private:
    std::string constantName() { return m_prefix + "const_" + std::to_string(m_constants++); }
    static std::string raw(const std::vector<std::int64_t>& v) {
        return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(std::int64_t));
    }
    std::string initializer(const std::string& name, const std::vector<std::int64_t>& dims, int type,
                            const std::string& data) {
        Message t;
        for (auto d : dims) t.int64(onnx::tensor::kDims, d);
        t.varint(onnx::tensor::kDataType, static_cast<std::uint64_t>(type))
            .bytes(onnx::tensor::kName, name)
            .bytes(onnx::tensor::kRawData, data);
        m_graph.message(onnx::graph::kInitializer, t);
        return name;
    }
    static Message attribute(const std::string& name, const AttributeValue& v) {
        Message a;
        a.bytes(onnx::attr::kName, name);
        if (const auto* i = std::get_if<std::int64_t>(&v))
            a.int64(onnx::attr::kI, *i).varint(onnx::attr::kType, onnx::kAttrInt);
        if (const auto* f = std::get_if<float>(&v))
            a.float32(onnx::attr::kF, *f).varint(onnx::attr::kType, onnx::kAttrFloat);
        if (const auto* s = std::get_if<std::string>(&v))
            a.bytes(onnx::attr::kS, *s).varint(onnx::attr::kType, onnx::kAttrString);
        if (const auto* is = std::get_if<std::vector<std::int64_t>>(&v)) {
            for (auto x : *is) a.int64(onnx::attr::kInts, x);
            a.varint(onnx::attr::kType, onnx::kAttrInts);
        }
        if (const auto* g = std::get_if<Subgraph>(&v))
            a.message(onnx::attr::kG, g->graph).varint(onnx::attr::kType, onnx::kAttrGraph);
        return a;
    }
    static Message valueInfo(const std::string& name, int elemType, const std::vector<Dim>& dims,
                             bool optional = false) {
        Message shape;
        for (const auto& d : dims) {
            Message dim;
            if (const auto* size = std::get_if<std::int64_t>(&d))
                dim.int64(onnx::value::kDimValue, *size);
            else
                dim.bytes(onnx::value::kDimParam, std::get<std::string>(d));
            shape.message(onnx::value::kDim, dim);
        }
        Message tensorType;
        tensorType.varint(onnx::value::kElemType, static_cast<std::uint64_t>(elemType))
            .message(onnx::value::kShape, shape);
        Message type;
        type.message(onnx::value::kTensorType, tensorType);
        if (optional)
            type = Message().message(onnx::value::kOptionalType,
                                     Message().message(onnx::value::kOptionalElemType, type));
        Message info;
        info.bytes(onnx::value::kName, name).message(onnx::value::kType, type);
        return info;
    }
    Message m_graph;
    int m_count = 0, m_constants = 0;
    std::string m_prefix;  // a branch's names: "h0_then_..."
};

// PyTorch's gate blocks (i, f, g, o) in ONNX's order (i, o, f, c) along dim 0.
torch::Tensor onnxGateOrder(const torch::Tensor& t) {
    const auto h = t.size(0) / 4;
    return torch::cat({t.narrow(0, 0, h), t.narrow(0, 3 * h, h), t.narrow(0, h, h), t.narrow(0, 2 * h, h)});
}

// A classifier's row lengths [B]: each row's tokens other than <pad> (id 0, only at a padded row's end), at
// least 1, as the app's batches count them.
std::string rowLengths(GraphBuilder& g) {
    const auto real = g.node("Not", {g.node("Equal", {"input_ids", g.intScalar(0)})});
    const auto counted =
        g.node("ReduceSum", {g.node("Cast", {real}, {{"to", std::int64_t{onnx::kInt64}}}), g.ints({1})},
               {{"keepdims", std::int64_t{0}}});
    return g.node("Max", {counted, g.intScalar(1)});
}

// Pooling of a classifier's top outputs [B, T, D*H] over each row's first len steps, as
// SequenceModelImpl::pool computes it.
std::string poolOutputs(GraphBuilder& g, const std::string& top, const std::string& len,
                        const std::string& shape, const std::string& batch, const ModelConfig& c,
                        std::int64_t directions) {
    const auto h = c.hidden, width = c.hidden * directions;
    if (c.pooling == Pooling::Last) {
        const auto index = g.node("Unsqueeze", {g.node("Sub", {len, g.intScalar(1)}), g.ints({1, 2})});
        const auto expandTo =
            g.node("Concat", {batch, g.ints({1}), g.ints({width})}, {{"axis", std::int64_t{0}}});
        const auto last =
            g.node("Squeeze", {g.node("GatherElements", {top, g.node("Expand", {index, expandTo})},
                                      {{"axis", std::int64_t{1}}}),
                               g.ints({1})});
        if (directions == 1) return last;
        // The backward direction's summary of the whole row is at its first step.
        const auto first = g.node("Gather", {top, g.intScalar(0)}, {{"axis", std::int64_t{1}}});
        return g.node("Concat",
                      {g.node("Slice", {last, g.ints({0}), g.ints({h}), g.ints({1})}),
                       g.node("Slice", {first, g.ints({h}), g.ints({2 * h}), g.ints({1})})},
                      {{"axis", std::int64_t{1}}});
    }
    const auto steps = g.node("Gather", {shape, g.intScalar(1)}, {{"axis", std::int64_t{0}}});
    const auto positions = g.node("Range", {g.intScalar(0), steps, g.intScalar(1)});
    const auto mask = g.node("Unsqueeze", {g.node("Less", {g.node("Unsqueeze", {positions, g.ints({0})}),
                                                           g.node("Unsqueeze", {len, g.ints({1})})}),
                                           g.ints({2})});  // [B, T, 1]
    if (c.pooling == Pooling::Mean) {
        const auto masked =
            g.node("Mul", {top, g.node("Cast", {mask}, {{"to", std::int64_t{onnx::kFloat}}})});
        const auto sum = g.node("ReduceSum", {masked, g.ints({1})}, {{"keepdims", std::int64_t{0}}});
        const auto count =
            g.node("Unsqueeze", {g.node("Cast", {len}, {{"to", std::int64_t{onnx::kFloat}}}), g.ints({1})});
        return g.node("Div", {sum, count});
    }
    const auto masked = g.node("Where", {mask, top, g.floatScalar(-std::numeric_limits<float>::infinity())});
    return g.node("ReduceMax", {masked},
                  {{"axes", std::vector<std::int64_t>{1}}, {"keepdims", std::int64_t{0}}});
}

// The ModelProto around a finished graph: IR version, producer, opset and metadata_props.
std::string modelFile(GraphBuilder& g, const std::string& graphName, const std::string& docString,
                      const std::vector<std::pair<std::string, std::string>>& metadata) {
    Message file;
    file.int64(onnx::model::kIrVersion, onnx::kIrVersion8)
        .bytes(onnx::model::kProducerName, "LSTM Workbench")
        .bytes(onnx::model::kProducerVersion, WORKBENCH_VERSION)
        .bytes(onnx::model::kDocString, docString)
        .message(onnx::model::kGraph, g.finish(graphName))
        .message(onnx::model::kOpsetImport, Message().bytes(1, "").int64(2, kOnnxOpset));
    for (const auto& [key, value] : metadata)
        file.message(onnx::model::kMetadataProps,
                     Message().bytes(onnx::entry::kKey, key).bytes(onnx::entry::kValue, value));
    return file.data();
}

// An optional state input (h0 or c0) as fed, or zeros [states, B, H] when left out.
std::string stateInput(GraphBuilder& g, const std::string& name, std::int64_t states, std::int64_t h,
                       const std::string& stateShape) {
    const std::vector<Dim> dims{states, "batch", h};
    const auto zeros = g.floats(name + "_zeros", torch::zeros({states, 1, h}));
    const auto fed = g.branch(
        name + "_fed", [&](GraphBuilder& b) { return b.node("OptionalGetElement", {name}); }, onnx::kFloat,
        dims);
    const auto none = g.branch(
        name + "_none",
        [&](GraphBuilder& b) {
            return b.node("Expand", {zeros, stateShape});
        },
        onnx::kFloat, dims);
    return g.node("If", {g.node("OptionalHasElement", {name})},
                  {{"then_branch", fed}, {"else_branch", none}});
}

}  // namespace

std::string onnxModelBytes(SequenceModelImpl& model, Task task, const ModelConfig& c,
                           const std::string& docString,
                           const std::vector<std::pair<std::string, std::string>>& metadata) {
    torch::NoGradGuard noGrad;
    const auto params = model.named_parameters();
    const auto weight = [&](const std::string& name) { return params[name]; };
    const bool bidirectional = task == Task::Classifier && c.bidirectional;
    const std::int64_t directions = bidirectional ? 2 : 1, states = c.layers * directions, h = c.hidden;
    const std::int64_t outputs = model.outputs();
    GraphBuilder g;
    g.input("input_ids", onnx::kInt64, {"batch", "steps"});
    for (const auto* name : {"h0", "c0"}) g.optionalInput(name, onnx::kFloat, {states, "batch", h});
    auto x = g.node("Gather", {g.floats("embedding.weight", weight("embedding.weight")), "input_ids"},
                    {{"axis", std::int64_t{0}}});                                  // [B, T, E]
    x = g.node("Transpose", {x}, {{"perm", std::vector<std::int64_t>{1, 0, 2}}});  // [T, B, E]
    const auto shape = g.node("Shape", {"input_ids"});
    const auto batch = g.node("Slice", {shape, g.ints({0}), g.ints({1})});
    const auto stateShape =
        g.node("Concat", {g.ints({states}), batch, g.ints({h})}, {{"axis", std::int64_t{0}}});
    const auto h0 = stateInput(g, "h0", states, h, stateShape),
               c0 = stateInput(g, "c0", states, h, stateShape);
    // A classifier's rows end at their lengths: the LSTM's sequence_lens, so that the reverse direction
    // starts at each row's last real token and padding changes nothing, as in the app (SequenceModel.h).
    const auto len = task == Task::Classifier ? rowLengths(g) : std::string();
    const auto sequenceLens = task == Task::Classifier
                                  ? g.node("Cast", {len}, {{"to", std::int64_t{onnx::kInt32}}})
                                  : std::string();
    std::vector<std::string> hn, cn;
    for (std::int64_t l = 0; l < c.layers; ++l) {
        std::vector<torch::Tensor> w, r, b;
        for (std::int64_t d = 0; d < directions; ++d) {
            const auto suffix = "_l" + std::to_string(l) + (d ? "_reverse" : "");
            w.push_back(onnxGateOrder(weight("lstm.weight_ih" + suffix)));
            r.push_back(onnxGateOrder(weight("lstm.weight_hh" + suffix)));
            b.push_back(torch::cat({onnxGateOrder(weight("lstm.bias_ih" + suffix)),
                                    onnxGateOrder(weight("lstm.bias_hh" + suffix))}));
        }
        const auto layer = "lstm_l" + std::to_string(l);
        const auto slice = [&](const std::string& state) {
            return g.node("Slice",
                          {state, g.ints({l * directions}), g.ints({(l + 1) * directions}), g.ints({0})});
        };
        const auto out = g.nodeN(
            "LSTM",
            {x, g.floats(layer + ".W", torch::stack(w)), g.floats(layer + ".R", torch::stack(r)),
             g.floats(layer + ".B", torch::stack(b)), sequenceLens, slice(h0), slice(c0)},
            {{"hidden_size", h}, {"direction", std::string(bidirectional ? "bidirectional" : "forward")}}, 3);
        // Y [T, D, B, H] -> the next layer's input [T, B, D * H], directions side by side as PyTorch's.
        x = directions == 1
                ? g.node("Squeeze", {out[0], g.ints({1})})
                : g.node("Reshape",
                         {g.node("Transpose", {out[0]}, {{"perm", std::vector<std::int64_t>{0, 2, 1, 3}}}),
                          g.ints({0, 0, -1})});
        hn.push_back(out[1]);
        cn.push_back(out[2]);
    }
    g.node("Concat", hn, {{"axis", std::int64_t{0}}}, "h_n");
    g.node("Concat", cn, {{"axis", std::int64_t{0}}}, "c_n");
    const auto top =
        g.node("Transpose", {x}, {{"perm", std::vector<std::int64_t>{1, 0, 2}}});  // [B, T, D * H]
    const auto features =
        task == Task::LanguageModel ? top : poolOutputs(g, top, len, shape, batch, c, directions);
    const auto headWeight = g.floats("head.weight_t", weight("head.weight").t());
    g.node("Add", {g.node("MatMul", {features, headWeight}), g.floats("head.bias", weight("head.bias"))}, {},
           "logits");

    if (task == Task::LanguageModel)
        g.output("logits", onnx::kFloat, {"batch", "steps", outputs});
    else
        g.output("logits", onnx::kFloat, {"batch", outputs});
    g.output("h_n", onnx::kFloat, {states, "batch", h});
    g.output("c_n", onnx::kFloat, {states, "batch", h});

    return modelFile(g, task == Task::LanguageModel ? "lstm_language_model" : "lstm_classifier", docString,
                     metadata);
}

}  // namespace wb
