// `lstm-workbench-cli classify RUN`: a trained classifier's labels for a text, with each token's push when
// asked; or for every line of a file, in padded batches.
#include <cstdio>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/domain/RunFolder.h"
#include "workbench/engine/Inference.h"

using nlohmann::json;

namespace {

json topJson(const wb::Classification& c) {
    json top = json::array();
    for (const auto& t : c.top) top.push_back({{"label", t.label}, {"probability", t.probability}});
    return top;
}

// --lines: one text per line (a final line break ends the last one, it does not add an empty text); out a
// line each: the label, its probability and the text, or with --json an array of {text, predicted, top}.
int classifyLines(const wb::TrainedModel& model, const ClassifyOptions& o) {
    std::vector<std::string> texts;
    std::istringstream in(wb::readFile(o.lines));
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        texts.push_back(line);
    }
    const auto results = model.classifyBatch(texts, o.topK, o.batchSize);
    if (o.json) {
        json out = json::array();
        for (std::size_t i = 0; i < texts.size(); ++i)
            out.push_back(
                {{"text", texts[i]}, {"predicted", results[i].predicted}, {"top", topJson(results[i])}});
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    for (std::size_t i = 0; i < texts.size(); ++i)
        std::printf("%s\t%.4f\t%s\n", results[i].predicted.c_str(), results[i].top.front().probability,
                    texts[i].c_str());
    return 0;
}

}  // namespace

int runClassify(const ClassifyOptions& o) {
    const auto model = loadTrainedModel(o.runDir, o.checkpoint);
    if (!o.lines.empty()) return classifyLines(*model, o);
    const std::string text = o.file.empty() ? o.text : wb::readFile(o.file);
    const auto result = model->classify(text, o.topK, o.explain);
    if (o.json) {
        json attributions = json::array();
        for (const auto& a : result.attributions)
            attributions.push_back({{"token", a.token}, {"score", a.score}});
        json out = {{"predicted", result.predicted}, {"top", topJson(result)}};
        if (o.explain) out["attributions"] = attributions;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%s\n", result.predicted.c_str());
    for (const auto& c : result.top) std::printf("  %-20s %6.2f%%\n", c.label.c_str(), 100 * c.probability);
    if (o.explain) {
        std::printf("tokens (+ pushed toward %s):\n", result.predicted.c_str());
        for (const auto& a : result.attributions) std::printf("  %-20s %+.4f\n", a.token.c_str(), a.score);
    }
    return 0;
}
