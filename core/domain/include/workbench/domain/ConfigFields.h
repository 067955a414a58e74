// The one table of experiment settings: for every field of ExperimentConfig its name (the JSON key in
// config.json, the sweep axis), its section, its command-line flag, type, range, per-task default, the words
// a message uses for it and its help text. config.json, validation, the CLI's flags, the experiment panel's
// widgets and sweep axes all read it, so a field's name, range and default are written here and nowhere else.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "workbench/domain/Config.h"

namespace wb {

enum class FieldType { Integer, UnsignedInteger, Number, Boolean, Choice, Text };

// How the app's Experiment page shows a field: ui/experiment/ExperimentPanel builds its form from these rows,
// so a field with a group appears there, with the table's range, default, choices and help, and no edit
// of the panel. A field with no group is not on the form (the CLI and config.json still have it).
struct FormRow {
    std::string group;                      // "Model" or "Training"; "" = not on the form
    std::string label;                      // "Sequence length"; a Boolean's check box text
    std::vector<std::string> choiceLabels;  // Choice: what the box shows for each choice (else the choice)
    std::string prefix, suffix;             // around a number: "every ", " steps"
    std::string hint;                       // appended to the help in the tooltip
    int decimals = 2;                       // Number: digits after the point, the arrows' step, and the
    double step = 0.1;                      // largest value the box offers when the range is open-ended
    double shownMax = std::numeric_limits<double>::infinity();
    bool classifierOnly = false;  // enabled only while the task is a classifier
};

struct ConfigField {
    std::string section;  // "data", "model", "train", "device"; "" for top-level keys
    std::string key;      // "seq_len": the JSON key and the sweep axis name
    std::string flag;     // "--seq-len"; "" when the CLI sets it otherwise (the corpus is an argument)
    std::string label;    // "sequence length": what messages call it
    std::string help;     // the CLI's help and the widget's tooltip
    FieldType type = FieldType::Integer;
    // Range of numbers, inclusive unless open; min/max of +-infinity mean unbounded.
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool minOpen = false, maxOpen = false;
    std::string zeroMeans;                     // what 0 stands for ("no limit"), said in messages and widgets
    std::vector<std::string> choices;          // Choice: the accepted values
    std::string initial;                       // a new ExperimentConfig's value (a key missing from a file)
    std::string lmDefault, classifierDefault;  // per-task defaults (defaultConfig); "" = initial
    // It changes what a trained model computes from a text: a run's config.json of format 2 or later must
    // hold it (workbench/domain/FormatVersion.h); format 1 files take `initial` where it is missing.
    bool shapesModel = false;
    FormRow form;

    std::string path() const { return section.empty() ? key : section + "." + key; }  // "data.seq_len"
    // The value as text ("64", "0.002", "true", "adam"), and set from text: parses by type and throws
    // InputError naming the field for text that is not a value of its type (ranges are validate()'s job).
    std::string get(const ExperimentConfig& config) const;
    void set(ExperimentConfig& config, const std::string& text) const;
    // "" when the value is within the field's range, else the message ("sequence length must be at least 2
    // (is 1)").
    std::string rangeProblem(const ExperimentConfig& config) const;
    bool inRange(double v) const;

    // Typed access, one of them set by type (Choice fields go through get/set).
    std::function<std::int64_t&(ExperimentConfig&)> integer;
    std::function<std::uint64_t&(ExperimentConfig&)> unsignedInteger;
    std::function<double&(ExperimentConfig&)> number;
    std::function<bool&(ExperimentConfig&)> boolean;
    std::function<std::string&(ExperimentConfig&)> text;
    // A Text field whose value is parsed rather than stored as given (the device): get(), set() and
    // config.json go through these (`text` is unset). parseText throws InputError saying what the text
    // should be.
    std::function<std::string(const ExperimentConfig&)> getText;
    std::function<void(ExperimentConfig&, const std::string&)> parseText;
    std::function<std::string(const ExperimentConfig&)> getChoice;
    std::function<void(ExperimentConfig&, const std::string&)> setChoice;  // throws InputError
};

const std::vector<ConfigField>& configFields();

// The reference models of docs/performance.md, as values of the table's fields (presetConfig applies them
// through ConfigField::set onto a new ExperimentConfig).
struct Preset {
    std::string name;                                         // "poems": --preset's value
    std::string description;                                  // "reference 000: 2×512 LSTM, Tang poems"
    std::vector<std::pair<std::string, std::string>> values;  // field key → value as text
};
const std::vector<Preset>& presets();
// By JSON key ("seq_len"), path ("data.seq_len") or flag without dashes ("seq-len", "lr"); nullptr if none.
const ConfigField* findConfigField(const std::string& name);
// The same, throwing InputError that lists the known names.
const ConfigField& configField(const std::string& name);

}  // namespace wb
