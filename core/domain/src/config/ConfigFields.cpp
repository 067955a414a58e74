// The table of experiment settings (see ConfigFields.h).
#include "workbench/domain/ConfigFields.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "workbench/domain/Errors.h"

namespace wb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}

// One row of the table, built up by the helpers below.
struct Row {
    ConfigField f;
    Row(std::string section, std::string key, std::string flag, std::string label, std::string help) {
        f.section = std::move(section);
        f.key = std::move(key);
        f.flag = std::move(flag);
        f.label = std::move(label);
        f.help = std::move(help);
    }
    Row& range(double lo, double hi, bool loOpen = false, bool hiOpen = false) {
        f.min = lo, f.max = hi, f.minOpen = loOpen, f.maxOpen = hiOpen;
        return *this;
    }
    Row& zero(std::string meaning) {
        f.zeroMeans = std::move(meaning);
        return *this;
    }
    Row& initial(std::string v) {
        f.initial = std::move(v);
        return *this;
    }
    Row& defaults(std::string lm, std::string classifier) {
        f.lmDefault = std::move(lm), f.classifierDefault = std::move(classifier);
        return *this;
    }
    Row& integer(std::function<std::int64_t&(ExperimentConfig&)> a) {
        f.type = FieldType::Integer, f.integer = std::move(a);
        return *this;
    }
    Row& unsignedInteger(std::function<std::uint64_t&(ExperimentConfig&)> a) {
        f.type = FieldType::UnsignedInteger, f.unsignedInteger = std::move(a);
        return *this;
    }
    Row& number(std::function<double&(ExperimentConfig&)> a) {
        f.type = FieldType::Number, f.number = std::move(a);
        return *this;
    }
    Row& boolean(std::function<bool&(ExperimentConfig&)> a) {
        f.type = FieldType::Boolean, f.boolean = std::move(a);
        return *this;
    }
    Row& text(std::function<std::string&(ExperimentConfig&)> a) {
        f.type = FieldType::Text, f.text = std::move(a);
        return *this;
    }
    Row& parsedText(std::function<std::string(const ExperimentConfig&)> get,
                    std::function<void(ExperimentConfig&, const std::string&)> parse) {
        f.type = FieldType::Text, f.getText = std::move(get), f.parseText = std::move(parse);
        return *this;
    }
    // On the app's form, in group "Model" or "Training" under this label.
    Row& onForm(std::string group, std::string label) {
        f.form.group = std::move(group), f.form.label = std::move(label);
        return *this;
    }
    Row& shownAs(std::vector<std::string> choiceLabels) {
        f.form.choiceLabels = std::move(choiceLabels);
        return *this;
    }
    Row& affixes(std::string prefix, std::string suffix) {
        f.form.prefix = std::move(prefix), f.form.suffix = std::move(suffix);
        return *this;
    }
    Row& hint(std::string text) {
        f.form.hint = std::move(text);
        return *this;
    }
    Row& digits(int decimals, double step, double shownMax) {
        f.form.decimals = decimals, f.form.step = step, f.form.shownMax = shownMax;
        return *this;
    }
    Row& classifierOnly() {
        f.form.classifierOnly = true;
        return *this;
    }
    Row& shapesModel() {
        f.shapesModel = true;
        return *this;
    }
    template <typename E>
    Row& choice(std::vector<std::string> values, std::function<E&(ExperimentConfig&)> a,
                E (*parse)(const std::string&), std::string (*name)(E)) {
        f.type = FieldType::Choice;
        f.choices = std::move(values);
        f.getChoice = [a, name](const ExperimentConfig& c) {
            return name(a(const_cast<ExperimentConfig&>(c)));
        };
        f.setChoice = [a, parse](ExperimentConfig& c, const std::string& s) { a(c) = parse(s); };
        return *this;
    }
};

std::string formatName(CorpusFormat v) { return toString(v); }
std::string tokensName(TokenLevel v) { return toString(v); }

// Declarative table: one add() per field, in the order the form and --help list them.
std::vector<ConfigField> buildTable() {
    using C = ExperimentConfig;
    const double big = 1e9;
    std::vector<Row> rows;
    auto add = [&](Row r) -> Row& { return rows.emplace_back(std::move(r)); };

    add({"", "name", "--name", "name", "A name for the run"}).initial("").text([](C& c) -> std::string& {
        return c.name;
    });
    add({"", "task", "--task", "task", "lm (language model) or classify"})
        .shapesModel()
        .initial("lm")
        .choice<Task>(
            {"lm", "classify"}, [](C& c) -> Task& { return c.task; }, taskFromString, toString)
        .defaults("lm", "classify")
        .onForm("Model", "Task")
        .shownAs({"Language model (generate text)", "Classifier (label text)"})
        .hint(" (changing the task loads that task's defaults)");

    add({"data", "corpus", "", "corpus", "File, folder or prepared corpus name"})
        .initial("")
        .text([](C& c) -> std::string& { return c.data.corpus; })
        .defaults("tang-quatrains-7", "spam-assassin");
    add({"data", "format", "--format", "format", "Corpus format: auto, text, poems, tsv, csv or folder"})
        .initial("auto")
        .choice<CorpusFormat>(
            {"auto", "text", "poems", "tsv", "csv", "folder"},
            [](C& c) -> CorpusFormat& { return c.data.format; }, corpusFormatFromString, formatName)
        .defaults("poems", "folder");
    add({"data", "tokens", "--tokens", "tokens", "Tokens: char or word"})
        .shapesModel()
        .initial("char")
        .choice<TokenLevel>(
            {"char", "word"}, [](C& c) -> TokenLevel& { return c.data.tokens; }, tokenLevelFromString,
            tokensName)
        .defaults("char", "word")
        .onForm("Model", "Tokens")
        .shownAs({"characters", "words"});
    add({"data", "vocab_size", "--vocab-size", "vocabulary size",
         "Largest vocabulary, special tokens included (0 = every token)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.data.vocabSize; })
        .range(0, 10000000)
        .zero("every token")
        .defaults("0", "10000")
        .onForm("Model", "Vocabulary size");
    add({"data", "min_count", "--min-count", "minimum count", "Drop tokens seen fewer times"})
        .initial("1")
        .integer([](C& c) -> std::int64_t& { return c.data.minCount; })
        .range(1, big)
        .defaults("1", "2");
    add({"data", "seq_len", "--seq-len", "sequence length",
         "Language model: window length; classifier: tokens per text (pad or cut)"})
        .shapesModel()
        .initial("64")
        .integer([](C& c) -> std::int64_t& { return c.data.seqLen; })
        .range(2, 100000)
        .defaults("64", "200")
        .onForm("Training", "Sequence length");
    add({"data", "stride", "--stride", "stride", "Language-model window stride (0 = the sequence length)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.data.stride; })
        .range(0, 100000)
        .zero("the sequence length")
        .defaults("0", "0");
    add({"data", "val_fraction", "--val-fraction", "validation fraction",
         "Share of the corpus held out for validation"})
        .initial("0.1")
        .number([](C& c) -> double& { return c.data.valFraction; })
        .range(0, 0.5)
        .defaults("0.1", "0.1")
        .onForm("Training", "Validation fraction")
        .digits(2, 0.05, 1.0);

    add({"data", "data_fraction", "--data-fraction", "data fraction",
         "Share of the training split used (the validation split stays whole): cost against data size"})
        .initial("1")
        .number([](C& c) -> double& { return c.data.dataFraction; })
        .range(0, 1, true)
        .defaults("1", "1");
    add({"data", "val_size", "--val-size", "validation size",
         "Samples scored at each validation (language models: windows; classifiers: texts): a fixed sample "
         "of "
         "the validation split, the same every time, so that a validation costs the same on any corpus"})
        // A config file from before the field keeps scoring its whole split, as its run did.
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.data.valSize; })
        .range(0, 1e9)
        .zero("the whole validation split")
        .defaults("4096", "4096");

    add({"model", "embedding", "--embedding", "embedding size", "Embedding dimension"})
        .shapesModel()
        .initial("64")
        .integer([](C& c) -> std::int64_t& { return c.model.embedding; })
        .range(1, 8192)
        .defaults("128", "64")
        .onForm("Model", "Embedding");
    add({"model", "hidden", "--hidden", "hidden size", "LSTM hidden units per direction"})
        .shapesModel()
        .initial("128")
        .integer([](C& c) -> std::int64_t& { return c.model.hidden; })
        .range(1, 8192)
        .defaults("256", "64")
        .onForm("Model", "Hidden");
    add({"model", "layers", "--layers", "number of layers", "Stacked LSTM layers"})
        .shapesModel()
        .initial("2")
        .integer([](C& c) -> std::int64_t& { return c.model.layers; })
        .range(1, 8)
        .defaults("2", "1")
        .onForm("Model", "Layers");
    add({"model", "bidirectional", "--bidirectional", "bidirectional", "Bidirectional LSTM (classifiers)"})
        .shapesModel()
        .initial("false")
        .boolean([](C& c) -> bool& { return c.model.bidirectional; })
        .defaults("false", "true")
        .onForm("Model", "bidirectional (classifier)")
        .classifierOnly();
    add({"model", "dropout", "--dropout", "dropout",
         "Dropout between LSTM layers and before the output layer"})
        .initial("0")
        .number([](C& c) -> double& { return c.model.dropout; })
        .range(0, 1, false, true)
        .defaults("0.1", "0")
        .onForm("Model", "Dropout")
        .digits(2, 0.05, 1.0);
    add({"model", "pooling", "--pooling", "pooling", "Classifier pooling: last, mean or max"})
        .shapesModel()
        .initial("last")
        .choice<Pooling>(
            {"last", "mean", "max"}, [](C& c) -> Pooling& { return c.model.pooling; }, poolingFromString,
            toString)
        .defaults("last", "mean")
        .onForm("Model", "Pooling")
        .shownAs({"last state", "mean", "max"})
        .hint(": how the classifier turns the sequence into one vector")
        .classifierOnly();
    add({"model", "backend", "", "LSTM backend", "LSTM implementation: auto, torch or fused"})
        .initial("auto")
        .choice<LstmBackend>(
            {"auto", "torch", "fused"}, [](C& c) -> LstmBackend& { return c.model.backend; },
            lstmBackendFromString, toString)
        .defaults("auto", "auto");

    add({"train", "batch_size", "--batch-size", "batch size", "Sequences per optimizer step"})
        .initial("32")
        .integer([](C& c) -> std::int64_t& { return c.train.batchSize; })
        .range(1, 1 << 20)
        .defaults("32", "32")
        .onForm("Training", "Batch size");
    add({"train", "learning_rate", "--lr", "learning rate", "Learning rate"})
        .initial("0.002")
        .number([](C& c) -> double& { return c.train.learningRate; })
        .range(0, kInf, true)
        .defaults("0.004", "0.002")
        .onForm("Training", "Learning rate")
        .digits(6, 1e-4, 10.0)
        .hint("; the LR finder suggests one");
    add({"train", "optimizer", "--optimizer", "optimizer", "adam, sgd or rmsprop"})
        .initial("adam")
        .choice<OptimizerKind>(
            {"adam", "sgd", "rmsprop"}, [](C& c) -> OptimizerKind& { return c.train.optimizer; },
            optimizerFromString, toString)
        .defaults("adam", "adam")
        .onForm("Training", "Optimizer")
        .shownAs({"Adam", "SGD", "RMSprop"});
    add({"train", "lr_schedule", "--lr-schedule", "learning-rate schedule",
         "constant, or cosine: from the learning rate (after the warm-up) down to 0 at the last planned "
         "step"})
        .initial("constant")
        .choice<LrSchedule>(
            {"constant", "cosine"}, [](C& c) -> LrSchedule& { return c.train.lrSchedule; },
            lrScheduleFromString, toString)
        .defaults("cosine", "constant")
        .onForm("Training", "LR schedule")
        .shownAs({"constant", "cosine decay"});
    add({"train", "lr_warmup_steps", "--lr-warmup", "learning-rate warm-up",
         "Steps over which the learning rate rises linearly from 0 (0 = none)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.train.lrWarmupSteps; })
        .range(0, big)
        .zero("none")
        .defaults("100", "0")
        .onForm("Training", "LR warm-up")
        .affixes("", " steps");
    add({"train", "lr_schedule_steps", "--lr-schedule-steps", "learning-rate schedule length",
         "Steps the cosine decay spans at least (0 = the run's own steps): a run cut short of a longer plan "
         "keeps that plan's learning rates"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.train.lrScheduleSteps; })
        .range(0, big)
        .zero("the run's steps")
        .defaults("0", "0")
        .onForm("Training", "LR decays over")
        .affixes("", " steps");
    add({"train", "weight_decay", "--weight-decay", "weight decay",
         "Decoupled weight decay (AdamW): each step shrinks the weight matrices by lr x decay (0 = off)"})
        .initial("0")
        .number([](C& c) -> double& { return c.train.weightDecay; })
        .range(0, 1)
        .zero("off")
        .defaults("0.01", "0")
        .onForm("Training", "Weight decay")
        .digits(4, 0.001, 1.0);
    add({"train", "epochs", "--epochs", "epochs", "Passes over the training set"})
        .initial("1")
        .integer([](C& c) -> std::int64_t& { return c.train.epochs; })
        .range(0, 100000)
        .zero("only max steps")
        .defaults("0", "3")
        .onForm("Training", "Epochs");
    add({"train", "max_steps", "--max-steps", "max steps", "Stop after this many steps (0 = no limit)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.train.maxSteps; })
        .range(0, big)
        .zero("no limit")
        .defaults("4200", "0")
        .onForm("Training", "Max steps")
        .affixes("", " steps");
    add({"train", "grad_clip", "--grad-clip", "gradient clipping", "Max gradient L2 norm (0 = off)"})
        .initial("5")
        .number([](C& c) -> double& { return c.train.gradClip; })
        .range(0, kInf)
        .zero("off")
        .defaults("5", "5")
        .onForm("Training", "Gradient clipping")
        .digits(2, 0.5, 1000.0);
    add({"train", "validate_every", "--validate-every", "validate every",
         "Validate every N steps (0 = once per epoch)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.train.validateEvery; })
        .range(0, big)
        .zero("once per epoch")
        .defaults("0", "0")
        .onForm("Training", "Validate")
        .affixes("every ", " steps");
    add({"train", "validation_samples", "--validation-samples", "samples at validation",
         "Language models: samples generated at each validation, kept in samples.jsonl and shown in the log "
         "(0 = none)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.train.validationSamples; })
        .range(0, 20)
        .zero("none")
        .defaults("3", "0");
    add({"train", "early_stop_patience", "--patience", "early-stop patience",
         "Early stopping after N validations without improvement (0 = off)"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.train.earlyStopPatience; })
        .range(0, 1000)
        .zero("off")
        .defaults("0", "0")
        .onForm("Training", "Early stopping")
        .affixes("", " validations");
    add({"train", "seed", "--seed", "seed", "Random seed (weights, split, order, dropout)"})
        .initial("42")
        .unsignedInteger([](C& c) -> std::uint64_t& { return c.train.seed; })
        .range(0, 1.8446744073709552e19)
        .defaults("42", "42")
        .onForm("Training", "Seed");
    add({"train", "warmup_steps", "--warmup", "warm-up steps", "Steps excluded from throughput"})
        .initial("3")
        .integer([](C& c) -> std::int64_t& { return c.train.warmupSteps; })
        .range(0, big)
        .defaults("3", "3");
    add({"train", "log_every", "--log-every", "log every", "Steps between train-loss records"})
        .initial("10")
        .integer([](C& c) -> std::int64_t& { return c.train.logEvery; })
        .range(1, big)
        .defaults("10", "10");
    add({"train", "tensorboard", "--tensorboard", "TensorBoard event files",
         "Write TensorBoard event files into the run folder as it trains (tensorboard --logdir on the runs "
         "folder shows them); --tensorboard=false writes none"})
        .initial("true")
        .boolean([](C& c) -> bool& { return c.train.tensorboard; })
        .defaults("true", "true")
        .onForm("Training", "TensorBoard event files");

    // Threads before the device: config.json, the flags and presets are applied in the table's order, so a
    // thread count in a device string ("cpu:2") wins over the threads row.
    add({"device", "threads", "--threads", "threads", "CPU threads (LibTorch and OpenBLAS), per process"})
        .initial("0")
        .integer([](C& c) -> std::int64_t& { return c.device.spec.threads; })
        .range(0, static_cast<double>(kMaxThreads))
        .zero("library default")
        .defaults("0", "0");
    // Parsed by DeviceSpec as it is set, so a malformed device is refused where it was written and the
    // thread count of "cpu:2" is kept in the threads row alone: one of the few places a device string is
    // read (workbench/domain/DeviceSpec.h).
    add({"device", "device", "--device", "device", "cpu, cpu:THREADS or cuda:N"})
        .initial("cpu")
        .parsedText([](const C& c) { return c.device.spec.id(); },
                    [](C& c, const std::string& text) {
                        DeviceSpec spec = DeviceSpec::parse(text);
                        if (spec.threads == 0) spec.threads = c.device.spec.threads;
                        spec.processes = c.device.spec.processes;
                        c.device.spec = spec;
                    })
        .defaults("cpu", "cpu");
    add({"device", "precision", "--precision", "precision",
         "fp32, bf16, fp16 or auto (bf16 for a language model on an AMD CPU with AVX512_BF16, else fp32)"})
        .initial("fp32")
        .choice<Precision>(
            {"fp32", "bf16", "fp16", "auto"}, [](C& c) -> Precision& { return c.device.precision; },
            precisionFromString, toString)
        .defaults("auto", "auto")
        .onForm("Training", "Precision")
        .hint(" (the run's log says which it chose)");
    add({"device", "thread_split", "--thread-split", "thread split",
         "How a CPU step uses its threads: batch (each thread trains its share of the batch for the whole "
         "step) "
         "or ops (LibTorch and OpenBLAS split every operation)"})
        .initial("batch")
        .choice<ThreadSplit>(
            {"batch", "ops"}, [](C& c) -> ThreadSplit& { return c.device.threadSplit; },
            threadSplitFromString, toString)
        .defaults("batch", "batch")
        .onForm("Training", "CPU threads")
        .shownAs({"each its share of the batch", "split every operation"})
        .hint(" (for CPU devices with 2 or more threads; docs/performance.md)");
    add({"device", "processes", "--nproc", "processes",
         "Data-parallel processes on this machine (c10d: Gloo on CPUs, NCCL on GPUs), each with its share of "
         "every batch"})
        .initial("1")
        .integer([](C& c) -> std::int64_t& { return c.device.spec.processes; })
        .range(1, static_cast<double>(kMaxProcesses))
        .defaults("1", "1");
    add({"device", "grad_compression", "--grad-compression", "gradient compression",
         "What data-parallel processes send each other every step: none (fp32 gradients) or fp16 (half the "
         "bytes on the wire; the gradients are rounded to fp16 for the all-reduce only)"})
        .initial("none")
        .choice<GradCompression>(
            {"none", "fp16"}, [](C& c) -> GradCompression& { return c.device.gradCompression; },
            gradCompressionFromString, toString)
        .defaults("none", "none")
        .onForm("Training", "Gradients sent")
        .shownAs({"fp32", "fp16 (half the bytes)"})
        .hint(" (runs over several processes or machines; docs/scaling.md)");

    add({"device", "cuda_graph", "--cuda-graph", "CUDA graph",
         "On a CUDA device in one process, each training step as one CUDA graph, captured once per batch "
         "shape and replayed (auto), or op by op (off); the run's run.json says which ran"})
        .initial("auto")
        .choice<CudaGraphMode>(
            {"auto", "off"}, [](C& c) -> CudaGraphMode& { return c.device.cudaGraph; },
            cudaGraphModeFromString, toString)
        .defaults("auto", "auto");
    add({"device", "tf32", "--tf32", "TF32",
         "On a CUDA device, fp32 matrix products in TF32 (10-bit mantissa products, fp32 sums): faster on "
         "Ampere and later, not bitwise fp32"})
        .initial("false")
        .boolean([](C& c) -> bool& { return c.device.tf32; })
        .defaults("false", "false");

    std::vector<ConfigField> out;
    for (auto& r : rows) out.push_back(std::move(r.f));
    return out;
}

[[noreturn]] void badText(const ConfigField& f, const std::string& text, const std::string& expected) {
    throw InputError(f.path() + ": expected " + expected + ", found '" + text + "'");
}

}  // namespace

namespace {
// Declarative table: the reference models (docs/performance.md), field by field.
std::vector<Preset> buildPresets() {
    return {
        {"imdb",
         "reference 004: IMDB Embedding 32 → LSTM 100",
         {{"task", "classify"},
          {"corpus", "spam-assassin"},
          {"format", "folder"},
          {"tokens", "word"},
          {"vocab_size", "15000"},
          {"seq_len", "250"},
          {"embedding", "32"},
          {"hidden", "100"},
          {"layers", "1"},
          {"bidirectional", "false"},
          {"pooling", "last"},
          {"batch_size", "64"},
          {"learning_rate", "0.001"},
          {"epochs", "20"},
          {"optimizer", "adam"}}},
        {"charrnn",
         "reference 001: char-rnn 2×128",
         {{"task", "lm"},
          {"corpus", "fortunes-text"},
          {"format", "text"},
          {"tokens", "char"},
          {"seq_len", "50"},
          {"embedding", "128"},
          {"hidden", "128"},
          {"layers", "2"},
          {"batch_size", "64"},
          {"learning_rate", "0.002"},
          {"epochs", "10"},
          {"optimizer", "adam"}}},
        {"poems",
         "reference 000: 2×512 LSTM, Tang poems",
         {{"task", "lm"},
          {"corpus", "tang-quatrains-7"},
          {"format", "poems"},
          {"tokens", "char"},
          {"vocab_size", "4379"},
          {"seq_len", "73"},
          {"embedding", "512"},
          {"hidden", "512"},
          {"layers", "2"},
          {"batch_size", "32"},
          {"learning_rate", "0.001"},
          {"epochs", "10"},
          {"optimizer", "adam"}}},
    };
}
}  // namespace

const std::vector<ConfigField>& configFields() {
    static const std::vector<ConfigField> table = buildTable();
    return table;
}

const std::vector<Preset>& presets() {
    static const std::vector<Preset> table = buildPresets();
    return table;
}

const ConfigField* findConfigField(const std::string& name) {
    for (const auto& f : configFields()) {
        if (name == f.key || name == f.path() ||
            (!f.flag.empty() && ("--" + name == f.flag || name == f.flag)))
            return &f;
    }
    return nullptr;
}

const ConfigField& configField(const std::string& name) {
    if (const auto* f = findConfigField(name)) return *f;
    std::string known;
    for (const auto& f : configFields()) known += (known.empty() ? "" : ", ") + f.key;
    throw InputError("unknown setting '" + name + "' (known: " + known + ")");
}

bool ConfigField::inRange(double v) const {
    if (!std::isfinite(v)) return false;  // no field takes an infinite or NaN value
    if (minOpen ? !(v > min) : !(v >= min)) return false;
    if (maxOpen ? !(v < max) : !(v <= max)) return false;
    return true;
}

std::string ConfigField::get(const ExperimentConfig& config) const {
    auto& c = const_cast<ExperimentConfig&>(config);
    switch (type) {
        case FieldType::Integer:
            return std::to_string(integer(c));
        case FieldType::UnsignedInteger:
            return std::to_string(unsignedInteger(c));
        case FieldType::Number:
            return shortNumber(number(c));
        case FieldType::Boolean:
            return boolean(c) ? "true" : "false";
        case FieldType::Choice:
            return getChoice(config);
        case FieldType::Text:
            return getText ? getText(config) : text(c);
    }
    return {};
}

void ConfigField::set(ExperimentConfig& c, const std::string& value) const {
    errno = 0;
    char* end = nullptr;
    switch (type) {
        case FieldType::Integer: {
            const long long v = std::strtoll(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || errno == ERANGE) badText(*this, value, "an integer");
            integer(c) = v;
            return;
        }
        case FieldType::UnsignedInteger: {
            const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
            if (value.empty() || value[0] == '-' || *end != '\0' || errno == ERANGE)
                badText(*this, value, "a non-negative integer");
            unsignedInteger(c) = v;
            return;
        }
        case FieldType::Number: {
            const double v = std::strtod(value.c_str(), &end);
            if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
                badText(*this, value, "a number");
            number(c) = v;
            return;
        }
        case FieldType::Boolean:
            if (value == "true" || value == "1")
                boolean(c) = true;
            else if (value == "false" || value == "0")
                boolean(c) = false;
            else
                badText(*this, value, "true or false");
            return;
        case FieldType::Choice:
            try {
                setChoice(c, value);
            } catch (const InputError& e) {
                throw InputError(path() + ": " + e.reason());
            }
            return;
        case FieldType::Text:
            if (parseText)
                parseText(c, value);  // its message names the device and what was expected
            else
                text(c) = value;
            return;
    }
}

std::string ConfigField::rangeProblem(const ExperimentConfig& config) const {
    auto& c = const_cast<ExperimentConfig&>(config);
    double v = 0;
    switch (type) {
        case FieldType::Integer:
            v = static_cast<double>(integer(c));
            break;
        case FieldType::Number:
            v = number(c);
            break;
        default:
            return {};  // unsigned integers span their type; booleans, choices and text have no range
    }
    if (inRange(v)) return {};
    const std::string is = "(is " + get(config) + (zeroMeans.empty() ? "" : "; 0 = " + zeroMeans) + ")";
    if (type == FieldType::Number && std::isfinite(max))
        return label + " must be in " + (minOpen ? "(" : "[") + shortNumber(min) + ", " + shortNumber(max) +
               (maxOpen ? ")" : "]") + " " + is;
    if (type == FieldType::Number && min == 0 && minOpen) return label + " must be a positive number " + is;
    if (!(minOpen ? v > min : v >= min)) return label + " must be at least " + shortNumber(min) + " " + is;
    return label + " must be at most " + shortNumber(max) + " " + is;
}

}  // namespace wb

namespace wb {

ExperimentConfig::ExperimentConfig() {
    for (const auto& f : configFields()) f.set(*this, f.initial);
}

}  // namespace wb
