// bf16 products on AMX tiles (see Bf16Amx.h). The tiles of one call: C's 16 rows x 32 columns (one panel)
// in two accumulator tiles, A's 16 pairs of 16 rows in one, the panel's two 16-column halves of 16 pairs
// in two; a pair count that is not a multiple of 16 ends with three smaller tiles for the remainder. Each
// A tile is loaded once for both halves of the panel. Where every pair count is whole tiles, a wide block
// of up to 32 rows keeps four accumulators, and each B tile is loaded once for both row tiles. Compiled for
// AMX by function attribute only, so the binary still runs on any x86-64: callers check usable() first.
#include "model/Bf16Amx.h"

#include "EnvSwitch.h"
#include "model/Bf16Detail.h"
#include "model/CpuCapability.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#define WB_HAVE_AMX 1
#define WB_AMX __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl")))
#endif

namespace wb::bf16kernels::amx {

using detail::kCols;

namespace {

constexpr std::int64_t kTilePairs = 16;  // k pairs of one A tile (64 bytes a row) and rows of one B tile
constexpr int kHalf = 16;                // columns of a B or C tile: half a panel

// Tile registers of a block of up to 16 rows: tmm0 and tmm1 the accumulators (the panel's halves), tmm2 A,
// tmm3 and tmm4 B's halves, tmm5 to tmm7 the remainder's A and B halves. Of a wide block (17 to 32 rows, no
// remainder): tmm0 to tmm3 the accumulators (rows 0-15 and the rest, each half of the panel), tmm4 and tmm5
// A's two row tiles, tmm6 and tmm7 B's halves. The intrinsics take the register's number as written (GCC
// pastes it into the instruction), so the numbers in the code are literal.
enum Tile : int { kC0 = 0, kC1 = 1, kA = 2, kB0 = 3, kB1 = 4, kATail = 5, kBTail0 = 6, kBTail1 = 7 };
enum WideTile : int { kC00 = 0, kC01 = 1, kC10 = 2, kC11 = 3, kA0 = 4, kA1 = 5, kWideB0 = 6, kWideB1 = 7 };

// LDTILECFG's 64-byte operand (palette 1): each tile's rows and bytes a row.
struct alignas(64) TileConfig {
    std::uint8_t palette = 1;
    std::uint8_t startRow = 0;
    std::uint8_t reserved[14] = {};
    std::uint16_t bytesPerRow[16] = {};
    std::uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64);

// The shape the tiles of this thread are configured for, if any: rows of C and the remainder's pairs.
struct Configured {
    bool loaded = false;
    int rows = 0;
    std::int64_t tailPairs = 0;
};
constexpr std::int64_t kWide = -1;  // Configured::tailPairs of a wide block's shape
thread_local Configured t_configured;

std::int64_t tailOf(const Term& term) { return term.pairs % kTilePairs; }

#ifdef WB_HAVE_AMX

WB_AMX void configure(int rows, std::int64_t tailPairs) {
    if (t_configured.loaded && t_configured.rows == rows && t_configured.tailPairs == tailPairs) return;
    TileConfig config;
    const auto set = [&](Tile tile, int tileRows, std::int64_t bytes) {
        config.rows[tile] = static_cast<std::uint8_t>(tileRows);
        config.bytesPerRow[tile] = static_cast<std::uint16_t>(bytes);
    };
    set(kC0, rows, kHalf * 4);
    set(kC1, rows, kHalf * 4);
    set(kA, rows, kTilePairs * 4);
    set(kB0, kTilePairs, kHalf * 4);
    set(kB1, kTilePairs, kHalf * 4);
    if (tailPairs > 0) {
        set(kATail, rows, tailPairs * 4);
        set(kBTail0, static_cast<int>(tailPairs), kHalf * 4);
        set(kBTail1, static_cast<int>(tailPairs), kHalf * 4);
    }
    _tile_loadconfig(&config);
    t_configured = {true, rows, tailPairs};
}

// The tiles of a wide block: rows 16 < rows <= 32, no remainder of pairs.
WB_AMX void configureWide(int rows) {
    if (t_configured.loaded && t_configured.rows == rows && t_configured.tailPairs == kWide) return;
    TileConfig config;
    const auto set = [&](WideTile tile, int tileRows) {
        config.rows[tile] = static_cast<std::uint8_t>(tileRows);
        config.bytesPerRow[tile] = static_cast<std::uint16_t>(kHalf * 4);  // 16 floats, or 16 pairs
    };
    const int second = rows - kTileRows;
    set(kC00, kTileRows);
    set(kC01, kTileRows);
    set(kC10, second);
    set(kC11, second);
    set(kA0, kTileRows);
    set(kA1, second);
    set(kWideB0, static_cast<int>(kTilePairs));
    set(kWideB1, static_cast<int>(kTilePairs));
    _tile_loadconfig(&config);
    t_configured = {true, rows, kWide};
}

// A wide block's panel p into out (32 rows x 32 floats): each B tile loaded once for both row tiles.
WB_AMX void panelSumsWide(const Term* terms, int count, std::int64_t p, const float* bias32, float* out) {
    constexpr long kPanelRowBytes = 2 * kCols * 2;
    if (bias32) {
        _tile_loadd(0, bias32, 0);
        _tile_loadd(1, bias32 + kHalf, 0);
        _tile_loadd(2, bias32, 0);
        _tile_loadd(3, bias32 + kHalf, 0);
    } else {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
    }
    for (int t = 0; t < count; ++t) {
        const Term& term = terms[t];
        const long aBytes = static_cast<long>(term.stride * 4);
        const std::uint32_t* second = term.rows + kTileRows * term.stride;
        const std::uint16_t* panel = term.packed + p * term.panelStride;
        for (std::int64_t q = 0; q < term.pairs; q += kTilePairs) {
            const std::uint16_t* b = panel + q * 2 * kCols;
            _tile_loadd(6, b, kPanelRowBytes);
            _tile_loadd(4, term.rows + q, aBytes);
            _tile_dpbf16ps(0, 4, 6);
            _tile_loadd(5, second + q, aBytes);
            _tile_dpbf16ps(2, 5, 6);
            _tile_loadd(7, b + 2 * kHalf, kPanelRowBytes);
            _tile_dpbf16ps(1, 4, 7);
            _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, out, 2 * kHalf * 4);
    _tile_stored(1, out + kHalf, 2 * kHalf * 4);
    _tile_stored(2, out + kTileRows * kCols, 2 * kHalf * 4);
    _tile_stored(3, out + kTileRows * kCols + kHalf, 2 * kHalf * 4);
}

// Panel p's sums for the configured rows into out (rows x 32 floats, 128 bytes a row), started from the
// bias's 32 values (every row loads the same: stride 0) or from zero.
WB_AMX void panelSums(const Term* terms, int count, std::int64_t p, const float* bias32, float* out) {
    constexpr long kPanelRowBytes = 2 * kCols * 2;  // a row pair of a panel: 32 columns x 2 bf16
    if (bias32) {
        _tile_loadd(0, bias32, 0);
        _tile_loadd(1, bias32 + kHalf, 0);
    } else {
        _tile_zero(0);
        _tile_zero(1);
    }
    for (int t = 0; t < count; ++t) {
        const Term& term = terms[t];
        const long aBytes = static_cast<long>(term.stride * 4);
        const std::uint16_t* panel = term.packed + p * term.panelStride;
        const std::int64_t full = term.pairs / kTilePairs * kTilePairs;
        for (std::int64_t q = 0; q < full; q += kTilePairs) {
            const std::uint16_t* b = panel + q * 2 * kCols;
            _tile_loadd(2, term.rows + q, aBytes);
            _tile_loadd(3, b, kPanelRowBytes);
            _tile_loadd(4, b + 2 * kHalf, kPanelRowBytes);
            _tile_dpbf16ps(0, 2, 3);
            _tile_dpbf16ps(1, 2, 4);
        }
        if (full < term.pairs) {
            const std::uint16_t* b = panel + full * 2 * kCols;
            _tile_loadd(5, term.rows + full, aBytes);
            _tile_loadd(6, b, kPanelRowBytes);
            _tile_loadd(7, b + 2 * kHalf, kPanelRowBytes);
            _tile_dpbf16ps(0, 5, 6);
            _tile_dpbf16ps(1, 5, 7);
        }
    }
    _tile_stored(0, out, 2 * kHalf * 4);
    _tile_stored(1, out + kHalf, 2 * kHalf * 4);
}

// The sums' rows written to C's columns [0, columns) (with accumulate, added to what C holds).
WB_AMX void writeRows(const float* sums, int rows, float* c, std::int64_t ldc, std::int64_t columns,
                      bool accumulate) {
    const __mmask16 m0 = columns >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << columns) - 1);
    const __mmask16 m1 = columns >= 32   ? 0xFFFF
                         : columns <= 16 ? 0
                                         : static_cast<__mmask16>((1u << (columns - 16)) - 1);
    for (int r = 0; r < rows; ++r) {
        __m512 v0 = _mm512_load_ps(sums + r * kCols), v1 = _mm512_load_ps(sums + r * kCols + kHalf);
        float* out = c + r * ldc;
        if (accumulate) {
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, out));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, out + kHalf));
        }
        _mm512_mask_storeu_ps(out, m0, v0);
        _mm512_mask_storeu_ps(out + kHalf, m1, v1);
    }
}

WB_AMX void rowBlockAmx(const Term* terms, int count, int rows, std::int64_t p0, std::int64_t p1,
                        const float* bias, float* c, std::int64_t ldc, std::int64_t n, bool accumulate) {
    const bool wide = rows > kTileRows;
    if (wide) {
        configureWide(rows);
    } else {
        std::int64_t tailPairs = 0;
        for (int t = 0; t < count; ++t) tailPairs = std::max(tailPairs, tailOf(terms[t]));
        configure(rows, tailPairs);
    }
    alignas(64) float sums[kWideRows * kCols];
    for (std::int64_t p = p0; p < p1; ++p) {
        const float* bias32 = bias ? bias + p * kCols : nullptr;
        if (wide)
            panelSumsWide(terms, count, p, bias32, sums);
        else
            panelSums(terms, count, p, bias32, sums);
        writeRows(sums, rows, c + p * kCols, ldc, std::min(kCols, n - p * kCols), accumulate);
    }
}

WB_AMX void releaseTiles() { _tile_release(); }

#endif  // WB_HAVE_AMX

}  // namespace

bool usable() {
#ifdef WB_HAVE_AMX
    static const bool yes = [] {
        if (!cpuCapabilityAllows(CpuLevel::Avx512) || switchedOff("LSTM_WORKBENCH_AMX")) return false;
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
        const bool amxBf16 = (d >> 22) & 1u, amxTile = (d >> 24) & 1u;
        if (!amxBf16 || !amxTile) return false;
        // Linux hands out the tiles' 8 KB of register state only to a process that asks
        // (ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); the answer holds for all of its threads.
        constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
        return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
    }();
    return yes;
#else
    return false;
#endif
}

bool takes(const Term* terms, int count) {
    std::int64_t tail = 0;
    for (int t = 0; t < count; ++t) {
        const std::int64_t own = tailOf(terms[t]);
        if (own == 0) continue;
        if (tail != 0 && own != tail) return false;
        tail = own;
    }
    return true;
}

bool takesWide(const Term* terms, int count) {
    for (int t = 0; t < count; ++t)
        if (tailOf(terms[t]) != 0) return false;
    return true;
}

void rowBlock(const Term* terms, int count, int rows, std::int64_t p0, std::int64_t p1, const float* bias,
              float* c, std::int64_t ldc, std::int64_t n, bool accumulate) {
#ifdef WB_HAVE_AMX
    if (rows <= 0 || p1 <= p0 || rows > (takesWide(terms, count) ? kWideRows : kTileRows)) return;
    rowBlockAmx(terms, count, rows, p0, p1, bias, c, ldc, n, accumulate);
#else
    (void)terms, (void)count, (void)rows, (void)p0, (void)p1, (void)bias, (void)c, (void)ldc, (void)n,
        (void)accumulate;
#endif
}

TileScope::~TileScope() {
#ifdef WB_HAVE_AMX
    if (!t_configured.loaded) return;
    releaseTiles();
    t_configured = {};
#endif
}

}  // namespace wb::bf16kernels::amx
