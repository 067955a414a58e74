// Protocol Buffers' wire format (see ProtoWire.h); the encoding is
// https://protobuf.dev/programming-guides/encoding/ (little-endian fixed widths, base-128 varints).
#include "workbench/domain/ProtoWire.h"

#include <cstring>

#include "workbench/domain/Errors.h"

namespace wb::proto {

namespace {
enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

template <typename T>
void appendLittleEndian(std::string& out, T value) {
    char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));  // x86-64 and aarch64 Linux are little-endian, as the wire is
    out.append(raw, sizeof(T));
}
}  // namespace

void Message::appendVarint(std::uint64_t value) {
    while (value >= 0x80) {
        m_bytes.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    m_bytes.push_back(static_cast<char>(value));
}

Message& Message::varint(int field, std::uint64_t value) {
    key(field, kVarint);
    appendVarint(value);
    return *this;
}

Message& Message::float32(int field, float value) {
    key(field, kFixed32);
    appendLittleEndian(m_bytes, value);
    return *this;
}

Message& Message::float64(int field, double value) {
    key(field, kFixed64);
    appendLittleEndian(m_bytes, value);
    return *this;
}

Message& Message::bytes(int field, std::string_view value) {
    key(field, kLengthDelimited);
    appendVarint(value.size());
    m_bytes.append(value);
    return *this;
}

Message& Message::packedInt64(int field, const std::vector<std::int64_t>& values) {
    Message packed;
    for (auto v : values) packed.appendVarint(static_cast<std::uint64_t>(v));
    return bytes(field, packed.m_bytes);
}

Message& Message::packedFloat32(int field, const std::vector<float>& values) {
    std::string packed;
    for (auto v : values) appendLittleEndian(packed, v);
    return bytes(field, packed);
}

namespace {
std::uint64_t readVarint(std::string_view bytes, std::size_t& at) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (at >= bytes.size()) throw InputError("protobuf: a varint runs past the end of the message");
        const auto byte = static_cast<unsigned char>(bytes[at++]);
        value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return value;
    }
    throw InputError("protobuf: a varint longer than 10 bytes");
}

std::string take(std::string_view bytes, std::size_t& at, std::uint64_t size) {
    if (size > bytes.size() - at) throw InputError("protobuf: a field runs past the end of the message");
    std::string out(bytes.substr(at, size));
    at += size;
    return out;
}
}  // namespace

std::vector<Field> parseFields(std::string_view bytes) {
    std::vector<Field> fields;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const auto key = readVarint(bytes, at);
        Field f;
        f.number = static_cast<int>(key >> 3);
        f.wireType = static_cast<int>(key & 7);
        if (f.number == 0) throw InputError("protobuf: field number 0");
        switch (f.wireType) {
            case kVarint:
                f.varint = readVarint(bytes, at);
                break;
            case kFixed64:
                f.bytes = take(bytes, at, 8);
                break;
            case kLengthDelimited:
                f.bytes = take(bytes, at, readVarint(bytes, at));
                break;
            case kFixed32:
                f.bytes = take(bytes, at, 4);
                break;
            default:
                throw InputError("protobuf: wire type " + std::to_string(f.wireType) +
                                 " is not written here");
        }
        fields.push_back(std::move(f));
    }
    return fields;
}

}  // namespace wb::proto
