// Experiment configs small enough to train in about a second on 2 cores, for tests that need a real run:
// a character LM for patternText() corpora and a word-level BiLSTM classifier for separableTsv() corpora.
#pragma once

#include <string>

#include "workbench/domain/Config.h"

namespace wbtest {

inline wb::ExperimentConfig tinyLanguageModel(const std::string& corpus,
                                              wb::CorpusFormat format = wb::CorpusFormat::Text) {
    auto c = wb::defaultConfig(wb::Task::LanguageModel);
    c.data.corpus = corpus;
    c.data.format = format;
    c.data.seqLen = 16;
    c.data.valFraction = 0.1;
    c.model.embedding = 16;
    c.model.hidden = 32;
    c.model.layers = 1;
    c.model.dropout = 0;
    c.train.batchSize = 16;
    c.train.learningRate = 1e-2;
    // A constant rate: the default schedule's 100 warm-up steps would be most of a tiny run.
    c.train.lrSchedule = wb::LrSchedule::Constant;
    c.train.lrWarmupSteps = 0;
    c.train.weightDecay = 0;
    c.train.epochs = 0;
    c.train.maxSteps = 120;
    c.train.logEvery = 10;
    c.train.warmupSteps = 2;
    c.device.spec.threads = 1;
    // fp32, not the default auto: the tests compare runs step by step, on any CPU (auto's tests pin it back).
    c.device.precision = wb::Precision::Fp32;
    return c;
}

inline wb::ExperimentConfig tinyClassifier(const std::string& corpus) {
    auto c = wb::defaultConfig(wb::Task::Classifier);
    c.data.corpus = corpus;
    c.data.format = wb::CorpusFormat::Tsv;
    c.data.seqLen = 8;
    c.data.minCount = 1;
    c.data.valFraction = 0.2;
    c.model.embedding = 16;
    c.model.hidden = 16;
    c.model.layers = 1;
    c.model.bidirectional = true;
    c.model.pooling = wb::Pooling::Mean;
    c.model.dropout = 0;
    c.train.batchSize = 16;
    c.train.learningRate = 1e-2;
    c.train.epochs = 6;
    c.device.spec.threads = 1;
    c.device.precision = wb::Precision::Fp32;  // as tinyLanguageModel
    return c;
}

}  // namespace wbtest
