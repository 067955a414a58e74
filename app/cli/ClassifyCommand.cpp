// `lstm-workbench-cli classify RUN`: a trained classifier's labels for a text, with each token's push when
// asked.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "workbench/Inference.h"
#include "workbench/RunFolder.h"

using nlohmann::json;

int runClassify(const ClassifyOptions& o) {
    const auto model =
        wb::TrainedModel::load(o.runDir, o.checkpoint == "best" ? wb::TrainedModel::Checkpoint::Best
                                                                : wb::TrainedModel::Checkpoint::Last);
    const std::string text = o.file.empty() ? o.text : wb::readFile(o.file);
    const auto result = model->classify(text, o.topK, o.explain);
    if (o.json) {
        json top = json::array(), attributions = json::array();
        for (const auto& c : result.top) top.push_back({{"label", c.label}, {"probability", c.probability}});
        for (const auto& a : result.attributions)
            attributions.push_back({{"token", a.token}, {"score", a.score}});
        json out = {{"predicted", result.predicted}, {"top", top}};
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
