// safetensors writer and bounds-checked reader (see Safetensors.h).
#include "workbench/domain/Safetensors.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace wb::safetensors {

namespace {
constexpr std::uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;  // the reference reader's limit
constexpr int kMaxRank = 8;

[[noreturn]] void fail(const std::string& source, const std::string& reason) {
    throw InputError(source, 0, "not a valid safetensors file: " + reason);
}
}  // namespace

std::size_t dtypeSize(const std::string& d) {
    if (d == "F64" || d == "I64" || d == "U64") return 8;
    if (d == "F32" || d == "I32" || d == "U32") return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
    if (d == "I8" || d == "U8" || d == "BOOL") return 1;
    return 0;
}

std::int64_t TensorEntry::elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

const TensorEntry* File::find(const std::string& name) const {
    for (const auto& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

File parse(std::string bytes, const std::string& source) {
    if (bytes.size() < 8) fail(source, "shorter than its 8-byte header length");
    std::uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[i]);
    if (headerLen < 2 || headerLen > kMaxHeaderBytes || headerLen > bytes.size() - 8)
        fail(source, "header length " + std::to_string(headerLen) + " does not fit a file of " +
                         std::to_string(bytes.size()) + " bytes");
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(bytes.begin() + 8,
                                       bytes.begin() + 8 + static_cast<std::ptrdiff_t>(headerLen));
    } catch (const nlohmann::json::exception&) {
        fail(source, "the header is not JSON");
    }
    if (!header.is_object()) fail(source, "the header is not a JSON object");

    File file;
    const std::size_t dataSize = bytes.size() - 8 - headerLen;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (auto it = header.begin(); it != header.end(); ++it) {
        const auto& v = it.value();
        if (it.key() == "__metadata__") {
            if (!v.is_object()) fail(source, "__metadata__ is not an object");
            for (auto m = v.begin(); m != v.end(); ++m) {
                if (!m.value().is_string()) fail(source, "__metadata__." + m.key() + " is not a string");
                file.metadata[m.key()] = m.value().get<std::string>();
            }
            continue;
        }
        const std::string where = "tensor '" + it.key() + "'";
        if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
            fail(source, where + " lacks dtype, shape or data_offsets");
        TensorEntry e;
        e.name = it.key();
        if (!v["dtype"].is_string()) fail(source, where + ": dtype is not a string");
        e.dtype = v["dtype"].get<std::string>();
        const std::size_t itemSize = dtypeSize(e.dtype);
        if (itemSize == 0) fail(source, where + ": unknown dtype " + e.dtype);
        const auto& shape = v["shape"];
        if (!shape.is_array() || shape.size() > kMaxRank)
            fail(source, where + ": shape is not an array of rank <= 8");
        // extent: the product of the non-zero sizes, which bounds every stride. Checked even when a zero
        // size makes the tensor empty, so that [0, 2^64-1] is refused (it would become a negative int64).
        std::uint64_t elements = 1, extent = 1;
        for (const auto& d : shape) {
            if (!d.is_number_unsigned()) fail(source, where + ": shape has a negative or non-integer size");
            const auto dim = d.get<std::uint64_t>();
            if (dim > 0 && extent > std::numeric_limits<std::uint64_t>::max() / 16 / dim)
                fail(source, where + ": shape is too large");
            elements *= dim;
            if (dim > 0) extent *= dim;
            e.shape.push_back(static_cast<std::int64_t>(dim));
        }
        const auto& offsets = v["data_offsets"];
        if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
            !offsets[1].is_number_unsigned())
            fail(source, where + ": data_offsets is not [begin, end]");
        const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
        if (begin > end || end > dataSize)
            fail(source, where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                             "] outside the " + std::to_string(dataSize) + "-byte data section");
        if (end - begin != elements * itemSize)
            fail(source, where + ": " + std::to_string(end - begin) + " bytes for a shape that needs " +
                             std::to_string(elements * itemSize));
        e.offset = static_cast<std::size_t>(begin);
        e.size = static_cast<std::size_t>(end - begin);
        ranges.emplace_back(e.offset, e.offset + e.size);
        file.tensors.push_back(std::move(e));
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t i = 1; i < ranges.size(); ++i)
        if (ranges[i].first < ranges[i - 1].second) fail(source, "two tensors overlap in the data section");
    bytes.erase(0, 8 + headerLen);
    file.data = std::move(bytes);
    return file;
}

File read(const std::string& path) { return parse(readFile(path), path); }

std::string serialize(const std::vector<OutTensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
    std::vector<const OutTensor*> sorted;
    for (const auto& t : tensors) sorted.push_back(&t);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });

    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::size_t offset = 0;
    for (const auto* t : sorted) {
        std::size_t expected = dtypeSize(t->dtype);
        for (auto d : t->shape) expected *= static_cast<std::size_t>(d);
        if (expected != t->size || dtypeSize(t->dtype) == 0)
            throw std::logic_error("safetensors::serialize: size mismatch for " + t->name);
        header[t->name] = {
            {"dtype", t->dtype}, {"shape", t->shape}, {"data_offsets", {offset, offset + t->size}}};
        offset += t->size;
    }
    std::string headerText = header.dump();
    headerText.append((8 - headerText.size() % 8) % 8, ' ');  // keeps the data 8-byte aligned
    std::string out;
    out.reserve(8 + headerText.size() + offset);
    std::uint64_t len = headerText.size();
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
    out += headerText;
    for (const auto* t : sorted) out.append(static_cast<const char*>(t->data), t->size);
    return out;
}

}  // namespace wb::safetensors
