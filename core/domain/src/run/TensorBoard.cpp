// TensorBoard event files (see workbench/domain/TensorBoard.h). Field numbers are those of TensorBoard's
// event.proto, summary.proto, tensor.proto, tensor_shape.proto and the hparams plugin's plugin_data.proto,
// and of google/protobuf/struct.proto's Value.
#include "workbench/domain/TensorBoard.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "workbench/domain/Errors.h"
#include "workbench/domain/ProtoWire.h"

namespace wb {

namespace {

using proto::Message;

namespace event {  // tensorboard.Event
constexpr int kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5, kSessionLog = 7;
}
namespace summary {  // tensorboard.Summary and Summary.Value
constexpr int kValue = 1;
constexpr int kTag = 1, kSimpleValue = 2, kTensor = 8, kMetadata = 9;
}  // namespace summary
namespace metadata {  // tensorboard.SummaryMetadata and its PluginData
constexpr int kPluginData = 1, kDataClass = 4;
constexpr int kPluginName = 1, kContent = 2;
constexpr int kDataClassTensor = 2;
}  // namespace metadata
namespace tensor {  // tensorboard.TensorProto, TensorShapeProto
constexpr int kDtype = 1, kShape = 2, kStringVal = 8;
constexpr int kDtString = 7;
}  // namespace tensor
namespace hparams {  // tensorboard.hparams.HParamsPluginData, SessionStartInfo; google.protobuf.Value
constexpr int kSessionStartInfo = 3, kSessionEndInfo = 4;
constexpr int kEndStatus = 1, kEndTimeSecs = 2;  // SessionEndInfo
constexpr int kHparams = 1, kStartTimeSecs = 5;
constexpr int kMapKey = 1, kMapValue = 2;
constexpr int kNumberValue = 2, kStringValue = 3, kBoolValue = 4;
}  // namespace hparams
constexpr int kSessionLogStatus = 1, kSessionLogStart = 1;

double nowSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string eventAt(std::int64_t step, int field, const Message& what) {
    Message e;
    e.float64(event::kWallTime, nowSeconds()).int64(event::kStep, step).message(field, what);
    return e.data();
}

Message pluginMetadata(const std::string& plugin, const std::string& content, int dataClass) {
    Message data;
    data.bytes(metadata::kPluginName, plugin);
    if (!content.empty()) data.bytes(metadata::kContent, content);
    Message m;
    m.message(metadata::kPluginData, data);
    if (dataClass) m.varint(metadata::kDataClass, static_cast<std::uint64_t>(dataClass));
    return m;
}

std::string fileName() {
    static std::atomic<int> counter{0};  // two runs of one process in one second get two files
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const auto seconds = static_cast<long long>(nowSeconds());
    return "events.out.tfevents." + std::to_string(seconds) + "." + host + "." + std::to_string(::getpid()) +
           "." + std::to_string(counter++);
}

std::array<std::uint32_t, 256> crcTable() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;  // Castagnoli, reflected
        table[i] = c;
    }
    return table;
}

std::string littleEndian(std::uint64_t v, int bytes) {
    std::string out;
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i) & 0xff));
    return out;
}

std::uint64_t readLittleEndian(std::string_view bytes) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i)
        v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
    return v;
}

}  // namespace

std::uint32_t crc32c(std::string_view bytes) {
    static const auto table = crcTable();
    std::uint32_t c = 0xFFFFFFFFu;
    for (const char ch : bytes) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::uint32_t maskedCrc32c(std::string_view bytes) {
    const auto c = crc32c(bytes);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

TensorBoardWriter::TensorBoardWriter(const std::string& dir) {
    m_path = (std::filesystem::path(dir) / fileName()).string();
    m_file = std::fopen(m_path.c_str(), "wbx");
    if (!m_file)
        throw InputError(m_path, 0, std::string("cannot create the event file: ") + std::strerror(errno));
    Message e;
    e.float64(event::kWallTime, nowSeconds()).bytes(event::kFileVersion, "brain.Event:2");
    try {
        write(e.data());
    } catch (...) {
        std::fclose(m_file);  // the destructor of a half-made writer never runs
        throw;
    }
}

TensorBoardWriter::~TensorBoardWriter() {
    if (m_file) std::fclose(m_file);
}

void TensorBoardWriter::write(const std::string& event) {
    const auto length = littleEndian(event.size(), 8);
    std::string record =
        length + littleEndian(maskedCrc32c(length), 4) + event + littleEndian(maskedCrc32c(event), 4);
    if (std::fwrite(record.data(), 1, record.size(), m_file) != record.size() || std::fflush(m_file) != 0)
        throw InputError(m_path, 0, std::string("cannot write the event file: ") + std::strerror(errno));
}

void TensorBoardWriter::flush() {
    if (std::fflush(m_file) != 0)
        throw InputError(m_path, 0, std::string("cannot write the event file: ") + std::strerror(errno));
}

void TensorBoardWriter::scalar(const std::string& tag, std::int64_t step, double value) {
    Message v;
    v.bytes(summary::kTag, tag).float32(summary::kSimpleValue, static_cast<float>(value));
    write(eventAt(step, event::kSummary, Message().message(summary::kValue, v)));
}

void TensorBoardWriter::text(const std::string& tag, std::int64_t step, const std::string& markdown) {
    Message t;
    t.varint(tensor::kDtype, tensor::kDtString)
        .message(tensor::kShape, Message())
        .bytes(tensor::kStringVal, markdown);
    Message v;
    v.bytes(summary::kTag, tag)
        .message(summary::kMetadata, pluginMetadata("text", "", metadata::kDataClassTensor))
        .message(summary::kTensor, t);
    write(eventAt(step, event::kSummary, Message().message(summary::kValue, v)));
}

void TensorBoardWriter::hparams(const std::vector<std::pair<std::string, HParam>>& values) {
    Message start;
    for (const auto& [name, value] : values) {
        Message v;
        if (const auto* d = std::get_if<double>(&value)) v.float64(hparams::kNumberValue, *d);
        if (const auto* s = std::get_if<std::string>(&value)) v.bytes(hparams::kStringValue, *s);
        if (const auto* b = std::get_if<bool>(&value)) v.varint(hparams::kBoolValue, *b ? 1 : 0);
        start.message(hparams::kHparams,
                      Message().bytes(hparams::kMapKey, name).message(hparams::kMapValue, v));
    }
    start.float64(hparams::kStartTimeSecs, nowSeconds());
    const auto content = Message().message(hparams::kSessionStartInfo, start).data();
    Message v;
    v.bytes(summary::kTag, "_hparams_/session_start_info")
        .message(summary::kMetadata, pluginMetadata("hparams", content, 0));
    write(eventAt(0, event::kSummary, Message().message(summary::kValue, v)));
}

void TensorBoardWriter::sessionStatus(SessionStatus status) {
    Message end;
    end.varint(hparams::kEndStatus, static_cast<std::uint64_t>(status))
        .float64(hparams::kEndTimeSecs, nowSeconds());
    const auto content = Message().message(hparams::kSessionEndInfo, end).data();
    Message v;
    v.bytes(summary::kTag, "_hparams_/session_end_info")
        .message(summary::kMetadata, pluginMetadata("hparams", content, 0));
    write(eventAt(0, event::kSummary, Message().message(summary::kValue, v)));
}

void TensorBoardWriter::sessionStart(std::int64_t step) {
    write(eventAt(step, event::kSessionLog, Message().varint(kSessionLogStatus, kSessionLogStart)));
}

std::vector<std::string> readTfRecords(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open the file");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string_view all(bytes);
    std::vector<std::string> records;
    std::size_t at = 0;
    while (all.size() - at >= 12) {
        const auto header = all.substr(at, 8);
        if (readLittleEndian(all.substr(at + 8, 4)) != maskedCrc32c(header))
            throw InputError(path, 0,
                             "record " + std::to_string(records.size() + 1) + ": its length fails its CRC",
                             static_cast<std::int64_t>(at));
        const auto length = readLittleEndian(header);
        if (length > all.size() - at - 12 || all.size() - at - 12 - length < 4)
            break;  // cut inside: a writer mid-record
        const auto data = all.substr(at + 12, length);
        if (readLittleEndian(all.substr(at + 12 + length, 4)) != maskedCrc32c(data))
            throw InputError(path, 0,
                             "record " + std::to_string(records.size() + 1) + ": its data fails its CRC",
                             static_cast<std::int64_t>(at));
        records.emplace_back(data);
        at += 16 + length;
    }
    return records;
}

}  // namespace wb
