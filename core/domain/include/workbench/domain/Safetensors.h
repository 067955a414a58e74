// The safetensors format, written and read by the project itself: 8-byte little-endian header length, a
// JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {string: string}}, then raw data.
// The reader trusts nothing: every length, offset, dtype and shape is checked against the file before use.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wb::safetensors {

// Bytes per element of a safetensors dtype ("F32", "BF16", "I64", ...); 0 for an unknown dtype.
std::size_t dtypeSize(const std::string& dtype);

struct TensorEntry {
    std::string name;
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::size_t offset = 0;  // into File::data
    std::size_t size = 0;    // bytes
    std::int64_t elements() const;
};

struct File {
    std::map<std::string, std::string> metadata;
    std::vector<TensorEntry> tensors;  // in header order
    std::string data;                  // the data section (after the header)

    const TensorEntry* find(const std::string& name) const;
    const char* bytes(const TensorEntry& entry) const { return data.data() + entry.offset; }
};

// Parses a whole file's bytes. Throws InputError(sourceName, 0, reason) for anything inconsistent.
File parse(std::string fileBytes, const std::string& sourceName);
File read(const std::string& path);

struct OutTensor {
    std::string name;
    std::string dtype;
    std::vector<std::int64_t> shape;
    const void* data = nullptr;
    std::size_t size = 0;  // bytes; must equal product(shape) * dtypeSize(dtype)
};

// Serialises tensors (sorted by name, as the reference implementation does) with metadata.
std::string serialize(const std::vector<OutTensor>& tensors,
                      const std::map<std::string, std::string>& metadata);

}  // namespace wb::safetensors
