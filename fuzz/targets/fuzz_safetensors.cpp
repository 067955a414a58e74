// safetensors::parse on the fuzz input as a whole file. Whatever it accepts must be safe to use: every
// tensor's bytes lie inside the data section, sizes match dtype x shape, and serialize() writes a file
// that parses back to the same tensors and metadata.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Safetensors.h"

namespace st = wb::safetensors;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    st::File file;
    try {
        file = st::parse(std::string(reinterpret_cast<const char*>(data), size), "model.safetensors");
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(e.file() == "model.safetensors");
        return 0;
    }
    std::vector<st::OutTensor> out;
    for (const auto& t : file.tensors) {
        FUZZ_CHECK(t.offset <= file.data.size() && t.size <= file.data.size() - t.offset);
        FUZZ_CHECK(st::dtypeSize(t.dtype) > 0);
        FUZZ_CHECK(t.shape.size() <= 8);
        // Sizes are int64 and their product (the largest stride) fits one, zero sizes aside.
        std::int64_t extent = 1;
        for (auto d : t.shape) {
            FUZZ_CHECK(d >= 0);
            FUZZ_CHECK(!__builtin_mul_overflow(extent, d > 0 ? d : 1, &extent));
        }
        FUZZ_CHECK(t.elements() >= 0);
        FUZZ_CHECK(static_cast<std::uint64_t>(t.elements()) * st::dtypeSize(t.dtype) == t.size);
        FUZZ_CHECK(file.find(t.name) != nullptr);
        out.push_back({t.name, t.dtype, t.shape, file.bytes(t), t.size});
    }
    const std::string written = st::serialize(out, file.metadata);
    const st::File again = st::parse(written, "model.safetensors (written back)");
    FUZZ_CHECK(again.metadata == file.metadata);
    FUZZ_CHECK(again.tensors.size() == file.tensors.size());
    for (const auto& t : again.tensors) {
        const auto* orig = file.find(t.name);
        FUZZ_CHECK(orig && orig->dtype == t.dtype && orig->shape == t.shape && orig->size == t.size);
        FUZZ_CHECK(file.data.compare(orig->offset, orig->size, again.data, t.offset, t.size) == 0);
    }
    return 0;
}
