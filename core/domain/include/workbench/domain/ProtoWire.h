// Protocol Buffers' wire format, writing only: the few messages this project writes (TensorBoard's Event
// records, ONNX's ModelProto) encoded field by field, the numbers taken from their published .proto files
// (each writer names its schema). A generated protobuf library would add protoc and libprotobuf to the build
// for encoders this small; what the files are is checked by the readers users run (TensorBoard's reader,
// onnx.checker and onnxruntime in python/tests).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb::proto {

// One message's bytes, appended field by field in the order of the calls.
class Message {
public:
    Message& varint(int field, std::uint64_t value);  // int32, int64, uint64, bool and enum fields
    Message& int64(int field, std::int64_t value) { return varint(field, static_cast<std::uint64_t>(value)); }
    Message& float32(int field, float value);           // fixed32
    Message& float64(int field, double value);          // fixed64
    Message& bytes(int field, std::string_view value);  // string, bytes
    Message& message(int field, const Message& value) { return bytes(field, value.m_bytes); }
    Message& packedInt64(int field, const std::vector<std::int64_t>& values);
    Message& packedFloat32(int field, const std::vector<float>& values);

    const std::string& data() const { return m_bytes; }
    bool empty() const { return m_bytes.empty(); }

private:
    void key(int field, int wireType) { appendVarint(static_cast<std::uint64_t>(field) << 3 | wireType); }
    void appendVarint(std::uint64_t value);
    std::string m_bytes;
};

// For readers that check what was written (tests): the fields of one message, in order, undecoded
// (varints as numbers, fixed-width and length-delimited fields as their bytes). Throws InputError on bytes
// that are not a message.
struct Field {
    int number = 0;
    int wireType = 0;
    std::uint64_t varint = 0;  // wire type 0
    std::string bytes;         // wire types 1, 2 and 5
};
std::vector<Field> parseFields(std::string_view bytes);

}  // namespace wb::proto
