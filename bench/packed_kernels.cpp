// The fused LSTM's per-step products on their own (lstmkernels::gemmPackedRows): one timestep's
// C[rows, 4H] = bias + x_t W_ih^T + h W_hh^T against weights packed once, as the recurrence runs them, for
// each instruction set this CPU has, beside the machine's floor (the 1024^3 product of the `bench` command,
// ATen's BLAS). Prints GFLOP/s (median of rounds) and the share of the floor; with --json one object per
// line. Also the packed backward's two per-step products, dG_t W_hh and dG_t W_ih against both weights packed
// as [4H, .] ("dG W packed": K = 4H, each panel four times the forward's); with AVX-512 the backward's fp32
// weight-gradient sums over the same steps (lstmkernels::addColumnPartsProduct, "dW step sums"); and last the
// packing of W_hh in the forward's and the backward's layout.
//
//   workbench_kernel_bench [--hidden 512] [--input 512] [--rows 16,32] [--rounds 7] [--json]
//
// Each timed round runs T = 73 steps (poems' sequence) over the same packed weights, the rows' inputs moving
// with the step as in training (time-major [T, rows, E]), so the weights come from where the recurrence finds
// them: L2 for small H, the last-level cache for poems' 2 x 4 MB.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device/DeviceSetup.h"
#include "model/LstmKernels.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace lk = wb::lstmkernels;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The floor: ATen's 1024^3 product at one thread, as `bench` measures it (best of a few).
double floorGflops() {
    torch::manual_seed(0);
    const auto a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
    auto c = torch::mm(a, b);
    std::vector<double> rates;
    for (int i = 0; i < 7; ++i) {
        const auto t0 = Clock::now();
        torch::mm_out(c, a, b);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        rates.push_back(2.0 * 1024 * 1024 * 1024 / s / 1e9);
    }
    return *std::max_element(rates.begin(), rates.end());
}

struct Shape {
    std::int64_t rows, input, hidden, steps;
};

// What one round times: every step's products.
enum class Variant {
    BothPacked,       // x_t W_ih^T + h W_hh^T against both weights packed (the packed way, H <= the L2 limit)
    RecurrentPacked,  // h W_hh^T alone against W_hh packed (the input projections of all steps done before)
    RecurrentBlas,    // h W_hh^T alone through ATen's product (the BLAS way: BLAS packs W_hh every call)
    WeightGradSums,   // the backward's weight-gradient sums, [x_t, h]^T dG_t a few steps at a time (AVX-512)
    BackwardPacked,   // the packed backward's dG_t W_hh and dG_t W_ih (dx_t) against both weights packed [4H,
                      // .]
};
const char* variantName(Variant v) {
    switch (v) {
        case Variant::BothPacked:
            return "both packed";
        case Variant::RecurrentPacked:
            return "h W_hh packed";
        case Variant::RecurrentBlas:
            return "h W_hh BLAS";
        case Variant::WeightGradSums:
            return "dW step sums";
        case Variant::BackwardPacked:
            return "dG W packed";
    }
    return "";
}

struct Buffers {
    std::vector<float> packedIh, packedHh, x, h, bias, gates;
    std::vector<float> packedIhBack, packedHhBack, rec,
        dx;                                    // BackwardPacked: W_ih [4H, E], W_hh [4H, H] packed
    std::vector<float> stepGates, weightSums;  // WeightGradSums: a few steps' gate gradients, [E + H, 4H]
    torch::Tensor wHhT;                        // [H, 4H] for the BLAS variant
};

// GFLOP/s of one round: every step's products, then the next step's h from the gates (a cheap stand-in
// for the cell update that keeps the data moving).
double timeRound(const Shape& s, Variant v, lk::PackedIsa isa, Buffers& m) {
    const std::int64_t n = 4 * s.hidden;
    const auto t0 = Clock::now();
    // WeightGradSums: as the backward adds them, about 128 gate-gradient rows at a time (FusedLstm.cpp).
    const std::int64_t stepsPerSum = std::clamp<std::int64_t>((127 + s.rows) / s.rows, 1, 16);
    for (std::int64_t t = 0; t < s.steps; ++t) {
        if (v == Variant::WeightGradSums) {
            const std::int64_t count = std::min(stepsPerSum, s.steps - t);
            std::vector<wb::ColumnPart> parts;
            for (std::int64_t j = 0; j < count; ++j) {
                parts.push_back({m.x.data() + (t + j) * s.rows * s.input, nullptr, 0, s.input, s.input});
                parts.push_back({m.h.data(), nullptr, 0, s.hidden, s.hidden});
            }
            lk::addColumnPartsProduct(parts.data(), 2, static_cast<int>(count), s.rows, m.stepGates.data(), n,
                                      n, m.weightSums.data(), n, isa);
            t += count - 1;
            continue;
        }
        if (v == Variant::BackwardPacked) {
            // dG_t moves with the step as the walk's gate gradients do; the recurrent gradient feeds nothing
            // here (the walk's next gate kernel reads it, a small cost beside these products).
            const float* dg = m.stepGates.data() + (t % 16) * s.rows * n;
            const lk::PackedOperand toH{dg, n, m.packedHhBack.data(), n},
                toX{dg, n, m.packedIhBack.data(), n};
            lk::gemmPackedRows(&toH, 1, nullptr, m.rec.data(), s.hidden, 0, s.rows, s.hidden, false, isa);
            lk::gemmPackedRows(&toX, 1, nullptr, m.dx.data() + t * s.rows * s.input, s.input, 0, s.rows,
                               s.input, false, isa);
            continue;
        }
        const lk::PackedOperand both[2] = {
            {m.x.data() + t * s.rows * s.input, s.input, m.packedIh.data(), s.input},
            {m.h.data(), s.hidden, m.packedHh.data(), s.hidden}};
        if (v == Variant::BothPacked)
            lk::gemmPackedRows(both, 2, m.bias.data(), m.gates.data(), n, 0, s.rows, n, false, isa);
        else if (v == Variant::RecurrentPacked)
            lk::gemmPackedRows(both + 1, 1, nullptr, m.gates.data(), n, 0, s.rows, n, true, isa);
        else {
            auto hs = torch::from_blob(m.h.data(), {s.rows, s.hidden});
            auto gs = torch::from_blob(m.gates.data(), {s.rows, n});
            gs.addmm_(hs, m.wHhT);
        }
        for (std::int64_t r = 0; r < s.rows; ++r)
            for (std::int64_t j = 0; j < s.hidden; ++j) m.h[r * s.hidden + j] = 1e-3f * m.gates[r * n + j];
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::int64_t k =
        v == Variant::BothPacked || v == Variant::WeightGradSums || v == Variant::BackwardPacked
            ? s.input + s.hidden
            : s.hidden;
    return 2.0 * s.steps * s.rows * k * n / seconds / 1e9;
}

std::vector<std::int64_t> parseList(const char* text) {
    std::vector<std::int64_t> out;
    for (const char* p = text; *p;) {
        char* end = nullptr;
        out.push_back(std::strtoll(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
    }
    return out;
}

// One variant's line: its median rate, the spread and the share of the floor (as JSON with --json).
void printCell(Variant v, lk::PackedIsa isa, const std::vector<double>& rates, std::int64_t rows,
               std::int64_t input, std::int64_t hidden, double floor, bool json) {
    const double rate = median(rates);
    const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    const char* isaName = v == Variant::RecurrentBlas ? "blas" : lk::packedIsaName(isa);
    if (json)
        std::printf(
            "{\"variant\": \"%s\", \"isa\": \"%s\", \"rows\": %lld, \"input\": %lld, \"hidden\": %lld, "
            "\"gflops\": %.2f, \"gflops_min\": %.2f, \"gflops_max\": %.2f, \"floor_gflops\": %.2f, "
            "\"share_of_floor\": %.4f}\n",
            variantName(v), isaName, static_cast<long long>(rows), static_cast<long long>(input),
            static_cast<long long>(hidden), rate, *lo, *hi, floor, rate / floor);
    else
        std::printf(
            "%-14s %-6s rows %3lld E %4lld H %4lld: %6.1f GFLOP/s (%.1f-%.1f), %5.1f %% of the floor %.1f\n",
            variantName(v), isaName, static_cast<long long>(rows), static_cast<long long>(input),
            static_cast<long long>(hidden), rate, *lo, *hi, 100 * rate / floor, floor);
}

// The packing itself, once per layer call of the recurrence, in both layouts it meets: the forward's W_hh^T
// (k = H, n = 4H; B's columns are W_hh's rows, so the packing transposes) and the backward's W_hh (k = 4H,
// n = H; rows contiguous). Median microseconds of `rounds` packings, and GB/s of the floats read and written.
void printPacking(std::int64_t hidden, std::int64_t rounds, bool json) {
    const std::int64_t n = 4 * hidden;
    const auto w = torch::randn({n, hidden});  // W_hh [4H, H]
    std::vector<float> packed(
        static_cast<std::size_t>(std::max(lk::packedPanelsSize(hidden, n), lk::packedPanelsSize(n, hidden))));
    struct Layout {
        const char* name;
        std::int64_t strideK, strideN, k, n;
    };
    const Layout layouts[2] = {{"W_hh^T (forward)", 1, hidden, hidden, n},
                               {"W_hh (backward)", hidden, 1, n, hidden}};
    for (const auto& l : layouts) {
        std::vector<double> micros;
        for (std::int64_t r = 0; r <= rounds; ++r) {
            const auto t0 = Clock::now();
            lk::packPanels(w.data_ptr<float>(), l.strideK, l.strideN, l.k, l.n, packed.data());
            if (r > 0) micros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
        const double us = median(micros), gbs = 2.0 * 4 * static_cast<double>(l.k * l.n) / us / 1e3;
        if (json)
            std::printf("{\"variant\": \"pack %s\", \"hidden\": %lld, \"us\": %.1f, \"gb_per_s\": %.2f}\n",
                        l.name, static_cast<long long>(hidden), us, gbs);
        else
            std::printf("pack %-18s H %4lld: %8.1f us, %5.1f GB/s read and written\n", l.name,
                        static_cast<long long>(hidden), us, gbs);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::int64_t hidden = 512, input = 512, rounds = 7;
    std::vector<std::int64_t> rowCounts = {16, 32};
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--hidden" && hasValue)
            hidden = std::atoll(argv[++i]);
        else if (arg == "--input" && hasValue)
            input = std::atoll(argv[++i]);
        else if (arg == "--rows" && hasValue)
            rowCounts = parseList(argv[++i]);
        else if (arg == "--rounds" && hasValue)
            rounds = std::atoll(argv[++i]);
        else if (arg == "--json")
            json = true;
        else {
            std::fprintf(stderr, "usage: %s [--hidden H] [--input E] [--rows R,R] [--rounds N] [--json]\n",
                         argv[0]);
            return 2;
        }
    }
    wb::applyCpuThreads(1);  // LibTorch and OpenBLAS: one thread each, as each worker of a split step
    const double floor = floorGflops();
    const std::int64_t n = 4 * hidden, steps = 73;
    torch::manual_seed(1);
    Buffers m;
    const auto wIhT = torch::randn({input, n}) * 0.05;
    m.wHhT = torch::randn({hidden, n}) * 0.05;
    m.packedIh.resize(static_cast<std::size_t>(lk::packedPanelsSize(input, n)));
    m.packedHh.resize(static_cast<std::size_t>(lk::packedPanelsSize(hidden, n)));
    lk::packPanels(wIhT.data_ptr<float>(), n, 1, input, n, m.packedIh.data());
    lk::packPanels(m.wHhT.data_ptr<float>(), n, 1, hidden, n, m.packedHh.data());
    m.packedIhBack.resize(static_cast<std::size_t>(lk::packedPanelsSize(n, input)));
    m.packedHhBack.resize(static_cast<std::size_t>(lk::packedPanelsSize(n, hidden)));
    lk::packPanels(wIhT.data_ptr<float>(), 1, n, n, input, m.packedIhBack.data());
    lk::packPanels(m.wHhT.data_ptr<float>(), 1, n, n, hidden, m.packedHhBack.data());
    m.bias.assign(static_cast<std::size_t>(n), 0.01f);
    for (const auto rows : rowCounts) {
        const Shape s{rows, input, hidden, steps};
        const auto xs = torch::randn({steps * rows * input});
        m.x.assign(xs.data_ptr<float>(), xs.data_ptr<float>() + xs.numel());
        m.h.assign(static_cast<std::size_t>(rows * hidden), 0.1f);
        m.gates.assign(static_cast<std::size_t>(rows * n), 0.0f);
        m.rec.assign(static_cast<std::size_t>(rows * hidden), 0.0f);
        m.dx.assign(static_cast<std::size_t>(steps * rows * input), 0.0f);
        m.stepGates.assign(static_cast<std::size_t>(16 * rows * n), 1e-3f);
        m.weightSums.assign(static_cast<std::size_t>((input + hidden) * n), 0.0f);
        // Every variant once per round, in turn, so that a neighbour's burst hits them alike.
        struct Cell {
            Variant v;
            lk::PackedIsa isa;
            std::vector<double> rates;
        };
        std::vector<Cell> cells;
        for (const auto isa : lk::packedIsas())
            if (isa != lk::PackedIsa::Portable) {
                cells.push_back({Variant::BothPacked, isa, {}});
                cells.push_back({Variant::RecurrentPacked, isa, {}});
                cells.push_back({Variant::BackwardPacked, isa, {}});
            }
        cells.push_back({Variant::RecurrentBlas, lk::packedIsa(), {}});
        if (lk::packedIsa() == lk::PackedIsa::Avx512)  // the only ISA the sums have a kernel for
            cells.push_back({Variant::WeightGradSums, lk::PackedIsa::Avx512, {}});
        for (auto& c : cells) timeRound(s, c.v, c.isa, m);  // warm-up
        for (std::int64_t r = 0; r < rounds; ++r)
            for (auto& c : cells) c.rates.push_back(timeRound(s, c.v, c.isa, m));
        for (const auto& c : cells) printCell(c.v, c.isa, c.rates, rows, input, hidden, floor, json);
    }
    printPacking(hidden, rounds, json);
    return 0;
}
