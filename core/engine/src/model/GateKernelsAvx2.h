// The gate kernels of LstmKernels.h (one row of a step: the forward's activations and cell update, the
// backward's gate gradients) in AVX2 and FMA intrinsics, for the CPUs without AVX-512 that most people train
// on. What the AVX-512 ones in LstmKernels.cpp do, 8 lanes wide: the activations fused with the cell update
// (one pass over a row), the row's tail as a masked vector, reciprocals by estimate and Newton steps, and
// the saved rows of the backward's next step fetched while this one computes. Before them an AVX2 CPU ran
// the row functions as GCC vectorised them for `avx2`: each of the forward's three loops in its own pass,
// without FMA (the target enables AVX2 alone), a division per activation, and a row's last elements in a
// 4-wide epilogue and scalar code.
//
// LstmKernels.cpp picks them where the CPU has AVX2 and FMA, the AVX-512 kernels do not run, and
// LSTM_WORKBENCH_CPU_CAPABILITY allows AVX2; LSTM_WORKBENCH_AVX2_GATES=off keeps the row functions (for a
// side-by-side measurement).
#pragma once

#include <cstdint>

namespace wb::lstmkernels::avx2gates {

// This CPU runs them, the capability cap allows AVX2, and they are not switched off.
bool available();

// One row: g holds the pre-activations (i, f, g, o; 4h floats), overwritten with the activations; writes
// c, tanh(c) and h = o tanh(c).
void forwardRow(float* g, const float* cp, float* cn, float* tc, float* hn, std::int64_t h);

// One row's gate gradients (di, df, dg, do into d) and dc for the step before (in place), from the saved
// activations a; stepBack as in lstmkernels::backwardRows.
void gradRow(const float* a, const float* cp, const float* tc, const float* dOut, const float* dhRec,
             float* dc, float* d, std::int64_t h, std::int64_t stepBack);

}  // namespace wb::lstmkernels::avx2gates
