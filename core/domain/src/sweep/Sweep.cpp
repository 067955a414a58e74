// Sweeps as data and files (see Sweep.h).
#include "workbench/domain/Sweep.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/FormatVersion.h"
#include "io/JsonDocument.h"
#include "run/CsvText.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace wb {

namespace {

// A sweep's limits, for the plan and for a sweep.json read back (which may come from another tool).
constexpr int kMaxRepeats = 100;
constexpr std::size_t kMaxRuns = 10000;

std::string slug(const std::string& s) {
    std::string out;
    for (char ch : s) out += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' ? ch : '-';
    return out;
}

}  // namespace

std::string toString(CellState s) {
    switch (s) {
        case CellState::Running:
            return "running";
        case CellState::Done:
            return "done";
        case CellState::Failed:
            return "failed";
        default:
            return "queued";
    }
}

static CellState cellStateFromString(const std::string& s, const std::string& source) {
    for (auto v : {CellState::Queued, CellState::Running, CellState::Done, CellState::Failed})
        if (toString(v) == s) return v;
    throw InputError(source, 0, "unknown cell state '" + s + "' (expected queued, running, done or failed)");
}

bool isLinkValue(const std::string& value) {
    if (value == kUnshapedLink) return true;
    std::size_t digits = 0;
    while (digits < value.size() &&
           (std::isdigit(static_cast<unsigned char>(value[digits])) || (value[digits] == '.' && digits > 0)))
        ++digits;
    if (digits == 0 || std::strtod(value.c_str(), nullptr) <= 0) return false;
    const auto unit = value.substr(digits);
    return unit == "kbit" || unit == "mbit" || unit == "gbit";
}

namespace {

// The axis's field key and its values checked; `given` is how the axis reads in a message.
SweepAxis checkedAxis(const std::string& name, const std::vector<std::string>& values,
                      const std::string& given) {
    SweepAxis axis;
    // link is the one axis that is not a config field; anything else throws, listing the known names.
    axis.field = name == kLinkAxis ? name : configField(name).key;
    for (const auto& v : values) {
        if (v.empty()) throw InputError("--grid " + given + ": an empty value");
        if (axis.field == kLinkAxis && !isLinkValue(v))
            throw InputError("--grid " + given + ": '" + v +
                             "' is not a link: give unshaped or a rate such as 100mbit, 1gbit or 500kbit");
        axis.values.push_back(v);
    }
    std::set<std::string> seen(axis.values.begin(), axis.values.end());
    if (seen.size() != axis.values.size()) throw InputError("--grid " + given + ": a value is given twice");
    return axis;
}

}  // namespace

SweepAxis parseSweepAxis(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw InputError("--grid " + text + ": expected FIELD=V1,V2,… (e.g. batch_size=16,32,64)");
    std::vector<std::string> values;
    std::stringstream list(text.substr(eq + 1));
    for (std::string v; std::getline(list, v, ',');) values.push_back(v);
    return checkedAxis(text.substr(0, eq), values, text);
}

SweepAxis checkSweepAxis(const SweepAxis& axis) {
    std::string given = axis.field + "=";
    for (std::size_t i = 0; i < axis.values.size(); ++i) given += (i ? "," : "") + axis.values[i];
    if (axis.values.empty()) throw InputError("--grid " + given + ": no values");
    return checkedAxis(axis.field, axis.values, given);
}

Sweep Sweep::plan(const ExperimentConfig& base, const std::vector<SweepAxis>& axes, int repeats,
                  double targetLoss) {
    if (axes.empty()) throw InputError("a sweep needs at least one --grid FIELD=V1,V2,…");
    if (repeats < 1 || repeats > kMaxRepeats)
        throw InputError("--repeats must be between 1 and " + std::to_string(kMaxRepeats));
    std::set<std::string> fields;
    for (const auto& a : axes)
        if (!fields.insert(a.field).second)
            throw InputError("--grid " + a.field + ": the axis is given twice");
    Sweep s;
    s.base = base;
    s.axes = axes;
    s.repeats = repeats;
    s.targetLoss = targetLoss;
    std::size_t combinations = 1;
    for (const auto& a : axes) combinations *= a.values.size();
    if (combinations * static_cast<std::size_t>(repeats) > kMaxRuns)
        throw InputError("the grid has " + std::to_string(combinations * repeats) + " runs (at most " +
                         std::to_string(kMaxRuns) + ")");
    for (std::size_t i = 0; i < combinations; ++i) {
        std::vector<std::pair<std::string, std::string>> setting;
        std::size_t rest = i;
        for (auto a = axes.rbegin(); a != axes.rend(); ++a) {  // the last axis varies fastest
            setting.insert(setting.begin(), {a->field, a->values[rest % a->values.size()]});
            rest /= a->values.size();
        }
        for (int r = 0; r < repeats; ++r) {
            SweepCell cell;
            cell.index = static_cast<int>(i);
            cell.setting = setting;
            cell.repeat = r;
            char prefix[16];
            std::snprintf(prefix, sizeof prefix, "%03zu", s.cells.size());
            std::string name = prefix;
            for (const auto& [k, v] : setting) name += "-" + slug(k) + "-" + slug(v);
            if (repeats > 1) name += "-r" + std::to_string(r + 1);
            cell.runDir = "runs/" + name;
            s.cells.push_back(cell);
        }
    }
    // Every cell's config is checked before anything exists: a bad value names its axis.
    for (const auto& cell : s.cells) {
        ExperimentConfig c;
        try {
            c = s.cellConfig(cell);
        } catch (const InputError& e) {
            throw InputError("--grid: " + std::string(e.what()));
        }
        const auto problems = c.validate();
        if (!problems.empty())
            throw InputError("--grid: the cell " + s.describe(cell) +
                             " is not a valid experiment: " + problems.front());
        if (!linkOf(cell).empty() && c.device.spec.processes < 2)
            throw InputError("--grid: the cell " + s.describe(cell) +
                             " has one process, so no link between processes: give it 2 or more processes "
                             "(--nproc, or a processes axis) with the link axis");
    }
    return s;
}

std::string Sweep::linkOf(const SweepCell& cell) {
    for (const auto& [key, value] : cell.setting)
        if (key == kLinkAxis) return value;
    return {};
}

bool Sweep::hasLinkAxis() const {
    return std::any_of(axes.begin(), axes.end(), [](const SweepAxis& a) { return a.field == kLinkAxis; });
}

ExperimentConfig Sweep::cellConfig(const SweepCell& cell) const {
    ExperimentConfig c = base;
    for (const auto& [key, value] : cell.setting)
        if (key != kLinkAxis && key != "device") configField(key).set(c, value);
    // The device last, as the config table orders it: a thread count in it ("cpu:2") wins over a threads
    // axis.
    for (const auto& [key, value] : cell.setting)
        if (key == "device") configField(key).set(c, value);
    c.train.seed = base.train.seed + static_cast<std::uint64_t>(cell.repeat);
    c.name = describe(cell);
    return c;
}

std::string Sweep::describe(const SweepCell& cell) const {
    std::string out;
    for (const auto& [key, value] : cell.setting) out += (out.empty() ? "" : " ") + key + "=" + value;
    if (repeats > 1) out += " (repeat " + std::to_string(cell.repeat + 1) + ")";
    return out;
}

std::string SweepCell::shownState() const {
    return state == CellState::Running && !scheduler.empty() ? scheduler : toString(state);
}

int Sweep::count(CellState state) const {
    return static_cast<int>(
        std::count_if(cells.begin(), cells.end(), [state](const SweepCell& c) { return c.state == state; }));
}

std::string Sweep::toJson() const {
    json axesJson = json::array();
    for (const auto& a : axes) axesJson.push_back({{"field", a.field}, {"values", a.values}});
    json cellsJson = json::array();
    for (const auto& c : cells) {
        json setting = json::object();
        for (const auto& [k, v] : c.setting) setting[k] = v;
        json cell = {{"index", c.index},
                     {"setting", setting},
                     {"repeat", c.repeat},
                     {"run_dir", c.runDir},
                     {"state", toString(c.state)},
                     {"error", c.error},
                     {"peak_rss_bytes", c.peakRssBytes}};
        if (!c.scheduler.empty()) cell["scheduler"] = c.scheduler;  // older readers ignore it
        cellsJson.push_back(cell);
    }
    json j = {{"format", "lstm-workbench sweep"},
              {"base", json::parse(base.toJson())},
              {"axes", axesJson},
              {"repeats", repeats},
              {"target_loss", targetLoss},
              {"cells", cellsJson}};
    detail::stampFormatVersion(j);
    return j.dump(2) + "\n";
}

Sweep Sweep::fromJson(const std::string& text, const std::string& source) {
    const json j = detail::parseJsonDocument(text, source);
    // Where the reading is, for an error that names the field ("cells[2].run_dir"), not the JSON library.
    std::string where = "the top level";
    const auto list = [&](const json& parent, const char* key, const std::string& path) -> const json& {
        where = path;
        const json& value = parent.at(key);
        if (!value.is_array())
            throw InputError(source, 0, path + ": expected a list, found " + detail::jsonTypeName(value));
        return value;
    };
    const auto integer = [&](const json& parent, const char* key, std::int64_t lo, std::int64_t hi) {
        const auto n = detail::jsonInteger(parent.at(key), lo, hi);
        if (!n) {
            const std::string path = where == "the top level" ? key : where + "." + key;
            throw InputError(
                source, 0,
                path + ": expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
        }
        return *n;
    };
    try {
        if (!j.is_object() || j.value("format", "") != "lstm-workbench sweep")
            throw InputError(source, 0, "not a sweep file (expected \"format\": \"lstm-workbench sweep\")");
        detail::readFormatVersion(j, source);
        Sweep s;
        where = "base";
        s.base = ExperimentConfig::fromJson(j.at("base").dump(), source);
        const json& axes = list(j, "axes", "axes");
        for (std::size_t i = 0; i < axes.size(); ++i) {
            where = "axes[" + std::to_string(i) + "]";
            s.axes.push_back({axes[i].at("field").get<std::string>(),
                              axes[i].at("values").get<std::vector<std::string>>()});
        }
        where = "the top level";
        s.repeats = static_cast<int>(integer(j, "repeats", 1, kMaxRepeats));
        where = "target_loss";
        s.targetLoss = j.at("target_loss").get<double>();
        const json& cells = list(j, "cells", "cells");
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const json& c = cells[i];
            where = "cells[" + std::to_string(i) + "]";
            SweepCell cell;
            cell.index = static_cast<int>(integer(c, "index", 0, static_cast<std::int64_t>(kMaxRuns) - 1));
            for (const auto& [k, v] : c.at("setting").items())
                cell.setting.emplace_back(k, v.get<std::string>());
            // The axes' order, not the JSON object's (keys come back sorted).
            std::vector<std::pair<std::string, std::string>> ordered;
            for (const auto& a : s.axes)
                for (const auto& kv : cell.setting)
                    if (kv.first == a.field) ordered.push_back(kv);
            cell.setting = ordered;
            cell.repeat = static_cast<int>(integer(c, "repeat", 0, s.repeats - 1));
            cell.runDir = c.at("run_dir").get<std::string>();
            if (cell.runDir.rfind("runs/", 0) != 0 || cell.runDir.find("..") != std::string::npos)
                throw InputError(source, 0,
                                 "cell run_dir '" + cell.runDir + "' is not inside the sweep's runs/");
            cell.state = cellStateFromString(c.at("state").get<std::string>(), source);
            cell.error = c.value("error", "");
            cell.scheduler = c.value("scheduler", "");
            cell.peakRssBytes =
                c.contains("peak_rss_bytes")
                    ? integer(c, "peak_rss_bytes", 0, std::numeric_limits<std::int64_t>::max())
                    : 0;
            s.cells.push_back(cell);
        }
        return s;
    } catch (const json::exception&) {
        throw InputError(source, 0,
                         "malformed sweep file: " + where + " misses a field or has one of the wrong type");
    }
}

bool isSweepFolder(const std::string& dir) { return fs::is_regular_file(fs::path(dir) / kSweepFile); }

Sweep loadSweep(const std::string& dir) {
    const auto path = (fs::path(dir) / kSweepFile).string();
    return Sweep::fromJson(readFile(path), path);
}

void saveSweep(const std::string& dir, const Sweep& sweep) {
    writeFileAtomic((fs::path(dir) / kSweepFile).string(), sweep.toJson());
}

}  // namespace wb
