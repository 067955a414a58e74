// Model summary by arithmetic on the config: the same layer shapes the models in model/ build, so the GUI
// can show parameter counts and FLOPs while the user types, without constructing tensors.
#include "workbench/domain/ModelSummary.h"

#include <algorithm>
#include <cstdio>

namespace wb {
namespace {

std::string shape(std::initializer_list<std::int64_t> dims) {
    std::string s = "(batch";
    for (auto d : dims) s += ", " + std::to_string(d);
    return s + ")";
}

// 1234567 -> "1,234,567"
std::string grouped(std::int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out;
    for (std::size_t k = 0; k < digits.size(); ++k) {
        if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
        out += digits[k];
    }
    return v < 0 ? "-" + out : out;
}

// 1.23e9 -> "1.23 G"
std::string scaled(double v, const char* unit) {
    const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
    int p = 0;
    while (v >= 1000 && p < 5) v /= 1000, ++p;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g %s%s", v, prefixes[p], unit);
    return buf;
}

// Code points, so "·" or a CJK layer name would not skew the columns.
std::size_t displayWidth(const std::string& s) {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

std::string pad(const std::string& s, std::size_t width) {
    const std::size_t w = displayWidth(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

}  // namespace

ModelSummary summarizeModel(const ExperimentConfig& config, std::int64_t vocabSize, std::int64_t classes) {
    ModelSummary s;
    const bool lm = config.task == Task::LanguageModel;
    const std::int64_t V = vocabSize, E = config.model.embedding, H = config.model.hidden,
                       L = config.model.layers, T = config.data.seqLen, B = config.train.batchSize;
    // A language model is never bidirectional (validate() refuses it); the model ignores the flag.
    const std::int64_t d = (!lm && config.model.bidirectional) ? 2 : 1;
    const std::int64_t C = lm ? V : classes;
    s.vocabSize = V;
    s.outputs = C;

    s.rows.push_back({"embedding (Embedding)", shape({T, E}), V * E});
    double forward = 0;
    for (std::int64_t layer = 0; layer < L; ++layer) {
        const std::int64_t in = layer == 0 ? E : d * H;
        // Per direction: W_ih (4H x in), W_hh (4H x H) and PyTorch's two bias vectors b_ih, b_hh (4H each).
        const std::int64_t params = d * (4 * H * (in + H) + 8 * H);
        s.rows.push_back({"lstm_" + std::to_string(layer + 1) + " (LSTM)", shape({T, d * H}), params});
        forward += static_cast<double>(T) * d * 2.0 * 4.0 * H * (in + H);
    }
    if (lm) {
        s.rows.push_back({"dropout (Dropout)", shape({T, H}), 0});
        s.rows.push_back({"head (Linear)", shape({T, V}), H * V + V});
        forward += static_cast<double>(T) * 2.0 * H * V;
    } else {
        s.rows.push_back({"pool_" + toString(config.model.pooling) + " (Pooling)", shape({d * H}), 0});
        s.rows.push_back({"dropout (Dropout)", shape({d * H}), 0});
        s.rows.push_back({"head (Linear)", shape({C}), d * H * C + C});
        forward += 2.0 * d * H * C;
    }
    for (const auto& r : s.rows) s.totalParameters += r.parameters;
    const double P = static_cast<double>(s.totalParameters);
    s.forwardFlopsPerSample = forward;
    s.trainFlopsPerSample = 3.0 * forward;
    s.parameterBytes = 4.0 * P;
    // Weights, gradients and Adam's two moments, plus the activations kept for backward: embeddings and,
    // per layer and direction, the four gates, cell and hidden state (6H) at every step; an LM also keeps
    // the logits and their gradient.
    s.trainingMemoryBytes =
        16.0 * P + 4.0 * B * T * (E + L * d * 6.0 * H) + (lm ? 4.0 * B * T * V * 2.0 : 0.0);
    return s;
}

std::string ModelSummary::toText() const {
    const std::string h1 = "Layer (type)", h2 = "Output Shape", h3 = "Param #";
    std::size_t w1 = displayWidth(h1), w2 = displayWidth(h2), w3 = displayWidth(h3);
    for (const auto& r : rows) {
        w1 = std::max(w1, displayWidth(r.layer));
        w2 = std::max(w2, displayWidth(r.outputShape));
        w3 = std::max(w3, grouped(r.parameters).size());
    }
    const std::size_t gap = 3, width = w1 + gap + w2 + gap + w3;
    const std::string rule(width, '='), thin(width, '-');
    auto line = [&](const std::string& a, const std::string& b, const std::string& c) {
        return pad(a, w1 + gap) + pad(b, w2 + gap) + std::string(w3 - displayWidth(c), ' ') + c + "\n";
    };
    std::string out = rule + "\n" + line(h1, h2, h3) + rule + "\n";
    for (std::size_t k = 0; k < rows.size(); ++k) {
        out += line(rows[k].layer, rows[k].outputShape, grouped(rows[k].parameters));
        out += (k + 1 < rows.size() ? thin : rule) + "\n";
    }
    out += "Total params: " + grouped(totalParameters) + " (" + scaled(parameterBytes, "B") + ")\n";
    out += "FLOPs per sample: " + scaled(forwardFlopsPerSample, "FLOP") + " forward, " +
           scaled(trainFlopsPerSample, "FLOP") + " training step\n";
    out += "Training memory (batch): ~" + scaled(trainingMemoryBytes, "B") + "\n";
    return out;
}

}  // namespace wb
