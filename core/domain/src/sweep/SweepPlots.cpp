// A sweep's plots as data (see SweepPlots.h).
#include "workbench/domain/SweepPlots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>

#include "run/CsvText.h"
#include "workbench/domain/ConfigFields.h"
#include "workbench/domain/Errors.h"

namespace wb {

namespace {

std::string plotNumber(double v) { return csv::number(v, 6); }
using csv::field;

double toNumber(const std::string& s) {
    try {
        return std::stod(s);
    } catch (...) {
        return std::numeric_limits<double>::quiet_NaN();
    }
}

// How an axis value reads in a legend: the device as given, the others with their field.
std::string part(const std::string& field, const std::string& value) {
    if (field == "device" || field == "precision") return value;
    if (field == "threads") return value + (value == "1" ? " thread" : " threads");
    if (field == "processes") return value + (value == "1" ? " process" : " processes");
    if (field == "grad_compression") return value == "none" ? "fp32 gradients" : value + " gradients";
    if (field == kLinkAxis) return value == kUnshapedLink ? "unshaped link" : value + " link";
    return field + " " + value;
}

// A cell seen by the plots: its device key, its other settings but the plot's x axis, its numbers.
struct CellView {
    const SweepResultRow* row;
    SweepMeasure samplesPerSecond, trainSeconds, bestValLoss;
    std::string device;  // "cpu:2 · 2 processes"
    std::string others;  // the non-device axes but `exceptField`: "hidden 64 · lr 0.001"
    std::string label;   // every axis: "batch_size=32 device=cpu:2"
};

// The device of a grid without a device axis, as --device gave it: "cpu:2" (kept as cpu with 2 threads).
std::string baseDevice(const Sweep& sweep) { return sweep.base.device.spec.text(); }

std::vector<CellView> view(const Sweep& sweep, const SweepResults& results, const std::string& exceptField) {
    std::vector<CellView> out;
    for (const auto& row : results.cells) {
        if (row.runs == 0) continue;
        CellView v{&row,
                   row.measure(sweepcolumn::kSamplesPerSecond),
                   row.measure(sweepcolumn::kTrainSeconds),
                   row.measure(sweepcolumn::kBestValLoss),
                   "",
                   "",
                   ""};
        for (std::size_t i = 0; i < results.axes.size() && i < row.values.size(); ++i) {
            const auto& field = results.axes[i];
            const auto& value = row.values[i];
            v.label += (v.label.empty() ? "" : " ") + field + "=" + value;
            if (field == exceptField) continue;
            auto& key = isDeviceAxis(field) ? v.device : v.others;
            key += (key.empty() ? "" : " · ") + part(field, value);
        }
        if (v.device.empty()) v.device = baseDevice(sweep);
        out.push_back(v);
    }
    return out;
}

std::string seriesName(const CellView& v) {
    return v.others.empty() ? v.device : v.device + " · " + v.others;
}

int axisIndex(const SweepResults& results, const std::string& field) {
    const auto it = std::find(results.axes.begin(), results.axes.end(), field);
    return it == results.axes.end() ? -1 : static_cast<int>(it - results.axes.begin());
}

// Series in the order their first cell appears in the grid, points sorted by x.
std::vector<PlotSeries> byName(const std::vector<std::pair<std::string, PlotSeries>>& points) {
    std::vector<PlotSeries> out;
    for (const auto& point : points) {
        const std::string& name = point.first;  // not a structured binding: C++17 lambdas cannot capture one
        const PlotSeries& p = point.second;
        auto it = std::find_if(out.begin(), out.end(), [&](const PlotSeries& s) { return s.name == name; });
        if (it == out.end()) {
            out.push_back(PlotSeries{name, {}, {}, {}, {}});
            it = out.end() - 1;
        }
        it->x.insert(it->x.end(), p.x.begin(), p.x.end());
        it->y.insert(it->y.end(), p.y.begin(), p.y.end());
        it->yStd.insert(it->yStd.end(), p.yStd.begin(), p.yStd.end());
        it->pointLabels.insert(it->pointLabels.end(), p.pointLabels.begin(), p.pointLabels.end());
    }
    for (auto& s : out) {
        std::vector<std::size_t> order(s.x.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
        PlotSeries sorted{s.name, {}, {}, {}, {}};
        for (auto i : order) {
            sorted.x.push_back(s.x[i]);
            sorted.y.push_back(s.y[i]);
            sorted.yStd.push_back(s.yStd[i]);
            sorted.pointLabels.push_back(s.pointLabels[i]);
        }
        s = sorted;
    }
    return out;
}

PlotSeries point(double x, double y, double yStd, const std::string& label) {
    return PlotSeries{"", {x}, {y}, {yStd}, {label}};
}

SweepPlot throughputVsBatch(const Sweep& sweep, const SweepResults& results) {
    SweepPlot p;
    p.xLabel = "batch size";
    p.yLabel = "samples/s";
    p.logX = true;
    const int axis = axisIndex(results, "batch_size");
    if (axis < 0) {
        p.unavailable = "needs a batch_size axis";
        return p;
    }
    std::vector<std::pair<std::string, PlotSeries>> points;
    std::map<std::string, std::string> othersOf;  // series -> its non-device settings
    for (const auto& v : view(sweep, results, "batch_size")) {
        if (!v.samplesPerSecond.present) continue;
        points.emplace_back(seriesName(v), point(toNumber(v.row->values[static_cast<std::size_t>(axis)]),
                                                 v.samplesPerSecond.mean, v.samplesPerSecond.std, v.label));
        othersOf[seriesName(v)] = v.others;
    }
    p.series = byName(points);
    // Crossovers: where the fastest series among those with the same other settings changes from one
    // measured batch size to the next; the crossing of the two is interpolated on the log-batch axis.
    std::map<std::string, std::vector<const PlotSeries*>> groups;
    for (const auto& s : p.series) groups[othersOf[s.name]].push_back(&s);
    for (const auto& [others, members] : groups) {
        if (members.size() < 2) continue;
        std::vector<double> batches;
        for (const auto* s : members) batches.insert(batches.end(), s->x.begin(), s->x.end());
        std::sort(batches.begin(), batches.end());
        batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
        auto at = [](const PlotSeries* s, double x, double* y) {
            for (std::size_t i = 0; i < s->x.size(); ++i)
                if (s->x[i] == x) {
                    *y = s->y[i];
                    return true;
                }
            return false;
        };
        const PlotSeries* previous = nullptr;
        double previousX = 0;
        for (double x : batches) {
            const PlotSeries* fastest = nullptr;
            double best = -1;
            for (const auto* s : members) {
                double y = 0;
                if (at(s, x, &y) && y > best) {
                    best = y;
                    fastest = s;
                }
            }
            if (!fastest) continue;
            double a0 = 0, b0 = 0, a1 = 0, b1 = 0;
            if (previous && fastest != previous && previousX > 0 && x > 0 && at(fastest, previousX, &a0) &&
                at(previous, previousX, &b0) && at(fastest, x, &a1) && at(previous, x, &b1)) {
                const double d0 = a0 - b0, d1 = a1 - b1;  // negative, then positive
                const double t = d0 < d1 ? -d0 / (d1 - d0) : 0.5;
                const double cross = std::exp(std::log(previousX) + t * (std::log(x) - std::log(previousX)));
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.0f", cross);
                p.markers.push_back(
                    {cross, fastest->name + " overtakes " + previous->name + " at batch ≈ " + buf});
            }
            previous = fastest;
            previousX = x;
        }
    }
    return p;
}

SweepPlot timeVsData(const Sweep& sweep, const SweepResults& results) {
    SweepPlot p;
    p.logX = p.logY = true;
    const int axis = axisIndex(results, "data_fraction");
    // With a fixed number of epochs the trained samples per epoch are the dataset size; with a step limit
    // every cell trains as many samples, and the share of the training split is the only size there is.
    const auto epochs = sweep.base.train.epochs;
    const bool perEpoch = epochs > 0 && sweep.base.train.maxSteps == 0;
    p.xLabel = perEpoch ? "training samples per epoch" : "share of the training split";
    p.yLabel = perEpoch
                   ? "training time, s (" + std::to_string(epochs) + (epochs == 1 ? " epoch)" : " epochs)")
                   : "training time, s";
    if (axis < 0) {
        p.unavailable = "needs a data_fraction axis";
        return p;
    }
    std::vector<std::pair<std::string, PlotSeries>> points;
    for (const auto& v : view(sweep, results, "data_fraction")) {
        if (!v.trainSeconds.present) continue;
        const double x = perEpoch ? v.row->measure("samples").mean / static_cast<double>(epochs)
                                  : toNumber(v.row->values[static_cast<std::size_t>(axis)]);
        points.emplace_back(seriesName(v), point(x, v.trainSeconds.mean, v.trainSeconds.std, v.label));
    }
    p.series = byName(points);
    for (const auto& s : p.series) {
        const double slope = logLogSlope(s.x, s.y);
        if (!std::isnan(slope)) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.2f", slope);
            p.notes.push_back(s.name + ": slope " + buf);
        }
    }
    return p;
}

SweepPlot speedup(const Sweep& sweep, const SweepResults& results, const std::string& baselineDevice) {
    SweepPlot p;
    p.xLabel = "setting";
    const auto cells = view(sweep, results, "");
    std::vector<std::string> devices;
    for (const auto& v : cells)
        if (std::find(devices.begin(), devices.end(), v.device) == devices.end()) devices.push_back(v.device);
    if (devices.size() < 2) {
        p.unavailable = "needs two devices (a device, threads, processes or precision axis)";
        p.yLabel = "speed-up";
        return p;
    }
    const auto baseline = std::find(devices.begin(), devices.end(), baselineDevice) != devices.end()
                              ? baselineDevice
                              : devices.front();
    // The baseline is named in the title: a long device name ("100mbit link · fp16 gradients") does not fit
    // along the y axis.
    p.title = "Speed-up against " + baseline;
    p.yLabel = "samples/s ÷ the baseline's";
    for (const auto& v : cells)
        if (std::find(p.categories.begin(), p.categories.end(), v.others) == p.categories.end())
            p.categories.push_back(v.others);
    if (p.categories.size() == 1 && p.categories.front().empty()) p.categories.front() = "all settings";
    for (const auto& device : devices) {
        PlotSeries s{device, {}, {}, {}, {}};
        for (std::size_t c = 0; c < p.categories.size(); ++c) {
            const CellView* mine = nullptr;
            const CellView* base = nullptr;
            for (const auto& v : cells) {
                const bool inCategory = v.others == p.categories[c] || (p.categories.size() == 1);
                if (!inCategory || !v.samplesPerSecond.present) continue;
                if (v.device == device) mine = &v;
                if (v.device == baseline) base = &v;
            }
            if (!mine || !base || base->samplesPerSecond.mean <= 0) continue;
            const auto& a = mine->samplesPerSecond;
            const auto& b = base->samplesPerSecond;
            const double ratio = a.mean / b.mean;
            // The spread of a ratio of two independent means, to first order.
            const double rel = std::hypot(a.mean > 0 ? a.std / a.mean : 0, b.std / b.mean);
            s.x.push_back(static_cast<double>(c));
            s.y.push_back(ratio);
            s.yStd.push_back(ratio * rel);
            s.pointLabels.push_back(mine->label);
        }
        p.series.push_back(s);
    }
    return p;
}

SweepPlot pareto(const Sweep& sweep, const SweepResults& results) {
    SweepPlot p;
    p.xLabel = "training time, s";
    p.yLabel = "best validation loss";
    std::vector<std::pair<std::string, PlotSeries>> points;
    struct Point {
        double x, y;
        std::string label;
    };
    std::vector<Point> all;
    for (const auto& v : view(sweep, results, "")) {
        if (!v.bestValLoss.present || v.bestValLoss.mean <= 0 || !v.trainSeconds.present) continue;
        points.emplace_back(v.device,
                            point(v.trainSeconds.mean, v.bestValLoss.mean, v.bestValLoss.std, v.label));
        all.push_back({v.trainSeconds.mean, v.bestValLoss.mean, v.label});
    }
    if (all.empty()) {
        p.unavailable = "needs validated runs";
        return p;
    }
    p.series = byName(points);
    // The front: by time, every cell with a lower loss than every faster cell. Lower by more than 0.01 %:
    // the same batch on another thread count reaches the same loss up to the order of float sums, and a
    // slower cell 1e-6 nats better is not a trade-off worth showing.
    std::stable_sort(all.begin(), all.end(),
                     [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    p.front.name = "Pareto front";
    double best = std::numeric_limits<double>::infinity();
    for (const auto& pt : all)
        if (pt.y < best * (1 - 1e-4)) {
            best = pt.y;
            p.front.x.push_back(pt.x);
            p.front.y.push_back(pt.y);
            p.front.yStd.push_back(0);
            p.front.pointLabels.push_back(pt.label);
        }
    return p;
}

}  // namespace

bool isDeviceAxis(const std::string& field) {
    if (field == kLinkAxis) return true;  // the network between the processes is part of the machine
    const auto* f = findConfigField(field);
    return f && f->section == "device";
}

std::vector<std::string> sweepDevices(const Sweep& sweep) {
    std::vector<std::string> out;
    for (const auto& cell : sweep.cells) {
        std::string key;
        for (const auto& [field, value] : cell.setting)
            if (isDeviceAxis(field)) key += (key.empty() ? "" : " · ") + part(field, value);
        if (key.empty()) key = baseDevice(sweep);
        if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
    }
    return out;
}

double logLogSlope(const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (x[i] > 0 && y[i] > 0) pts.emplace_back(std::log(x[i]), std::log(y[i]));
    if (pts.size() < 2) return std::numeric_limits<double>::quiet_NaN();
    double mx = 0, my = 0;
    for (const auto& [a, b] : pts) {
        mx += a;
        my += b;
    }
    mx /= static_cast<double>(pts.size());
    my /= static_cast<double>(pts.size());
    double sxy = 0, sxx = 0;
    for (const auto& [a, b] : pts) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
    }
    return sxx > 0 ? sxy / sxx : std::numeric_limits<double>::quiet_NaN();
}

// Declarative table
std::vector<SweepPlotKind>& sweepPlotKinds() {
    using S = const Sweep&;
    using R = const SweepResults&;
    using B = const std::string&;
    static std::vector<SweepPlotKind> kinds{
        {"throughput-vs-batch", "Throughput × batch", "Throughput against batch size", false,
         [](S s, R r, B) { return throughputVsBatch(s, r); }},
        {"time-vs-data", "Time × data size", "Training time against dataset size", false,
         [](S s, R r, B) { return timeVsData(s, r); }},
        {"speedup", "Speed-up", "Speed-up against a baseline device", true,
         [](S s, R r, B baseline) { return speedup(s, r, baseline); }},
        {"pareto", "Loss × time (Pareto)", "Best validation loss against training time", false,
         [](S s, R r, B) { return pareto(s, r); }},
    };
    return kinds;
}

std::vector<SweepPlot> sweepPlots(const Sweep& sweep, const SweepResults& results,
                                  const std::string& baselineDevice) {
    std::vector<SweepPlot> plots;
    for (const auto& kind : sweepPlotKinds()) {
        plots.push_back(kind.draw(sweep, results, baselineDevice));
        plots.back().id = kind.id;
        if (plots.back().title.empty()) plots.back().title = kind.title;
    }
    return plots;
}

std::string SweepPlot::toCsv() const {
    std::ostringstream out;
    const bool isPareto = !front.x.empty();
    out << "series,x,category,y,y_std,point" << (isPareto ? ",on_front" : "") << "\n";
    for (const auto& s : series)
        for (std::size_t i = 0; i < s.x.size(); ++i) {
            const auto c = static_cast<std::size_t>(s.x[i]);
            const std::string category = categories.empty() || c >= categories.size() ? "" : categories[c];
            const std::string label = i < s.pointLabels.size() ? s.pointLabels[i] : "";
            out << field(s.name) << "," << plotNumber(s.x[i]) << "," << field(category) << ","
                << plotNumber(s.y[i]) << "," << plotNumber(i < s.yStd.size() ? s.yStd[i] : 0) << ","
                << field(label);
            if (isPareto)
                out << ","
                    << (std::find(front.pointLabels.begin(), front.pointLabels.end(), label) !=
                                front.pointLabels.end()
                            ? "true"
                            : "false");
            out << "\n";
        }
    return out.str();
}

}  // namespace wb
