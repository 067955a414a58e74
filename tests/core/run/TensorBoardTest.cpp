// TensorBoard event files (workbench/domain/TensorBoard.h) and the protobuf wire format under them: CRC-32C's
// check value, records read back with both CRCs checked, a file cut mid-record, a flipped byte. What
// TensorBoard itself reads from a run's files is python/tests/test_tensorboard.py's job.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/TestSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/ProtoWire.h"
#include "workbench/domain/TensorBoard.h"

namespace {

std::filesystem::path onlyEventFile(const wbtest::TempDir& dir) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) files.push_back(e.path());
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? std::filesystem::path() : files[0];
}

const wb::proto::Field& field(const std::vector<wb::proto::Field>& fields, int number) {
    for (const auto& f : fields)
        if (f.number == number) return f;
    throw std::runtime_error("no field " + std::to_string(number));
}

}  // namespace

TEST(TensorBoard, Crc32cHasItsCheckValue) {
    EXPECT_EQ(wb::crc32c("123456789"), 0xE3069283u);  // the CRC catalogue's check value for CRC-32C
    EXPECT_EQ(wb::crc32c(""), 0u);
    // TFRecord's mask: rotate right by 15, add a constant.
    const std::uint32_t c = wb::crc32c("abc");
    EXPECT_EQ(wb::maskedCrc32c("abc"), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST(TensorBoard, VarintsAndFieldsRoundTrip) {
    wb::proto::Message m;
    m.varint(1, 300).int64(2, -1).bytes(3, "hi").float32(4, 1.5f).float64(5, -2.25);
    // 300 is the encoding guide's example: field 1 varint, 0xAC 0x02.
    EXPECT_EQ(m.data().substr(0, 3), std::string("\x08\xAC\x02", 3));
    const auto fields = wb::proto::parseFields(m.data());
    ASSERT_EQ(fields.size(), 5u);
    EXPECT_EQ(fields[0].varint, 300u);
    EXPECT_EQ(static_cast<std::int64_t>(fields[1].varint), -1);  // a negative int64 takes ten bytes
    EXPECT_EQ(fields[2].bytes, "hi");
    float f = 0;
    std::memcpy(&f, fields[3].bytes.data(), 4);
    EXPECT_EQ(f, 1.5f);
    double d = 0;
    std::memcpy(&d, fields[4].bytes.data(), 8);
    EXPECT_EQ(d, -2.25);
    EXPECT_THROW(wb::proto::parseFields(std::string("\x0A\x05hi", 4)), wb::InputError);
}

TEST(TensorBoard, WritesEventsThatReadBack) {
    wbtest::TempDir dir;
    {
        wb::TensorBoardWriter w(dir.str());
        EXPECT_NE(w.path().find("events.out.tfevents."), std::string::npos);
        w.scalar("val/loss", 20, 1.25);
        w.text("val/samples", 20, "a poem");
        w.sessionStart(21);
    }
    const auto records = wb::readTfRecords(onlyEventFile(dir).string());
    ASSERT_EQ(records.size(), 4u);
    EXPECT_EQ(field(wb::proto::parseFields(records[0]), 3).bytes, "brain.Event:2");  // Event.file_version
    const auto scalar = wb::proto::parseFields(records[1]);
    EXPECT_EQ(field(scalar, 2).varint, 20u);  // Event.step
    const auto value = wb::proto::parseFields(field(wb::proto::parseFields(field(scalar, 5).bytes), 1).bytes);
    EXPECT_EQ(field(value, 1).bytes, "val/loss");
    float f = 0;
    std::memcpy(&f, field(value, 2).bytes.data(), 4);  // Summary.Value.simple_value
    EXPECT_EQ(f, 1.25f);
    const auto session = wb::proto::parseFields(records[3]);
    EXPECT_EQ(field(session, 2).varint, 21u);
    EXPECT_EQ(field(wb::proto::parseFields(field(session, 7).bytes), 1).varint, 1u);  // SessionLog START
}

TEST(TensorBoard, AFileCutMidRecordReadsUpToTheCutAndAFlippedByteIsAnError) {
    wbtest::TempDir dir;
    {
        wb::TensorBoardWriter w(dir.str());
        w.scalar("train/loss", 1, 2.0);
        w.scalar("train/loss", 2, 1.0);
    }
    const auto path = onlyEventFile(dir);
    const auto bytes = wbtest::readText(path);
    wbtest::writeText(path, bytes.substr(0, bytes.size() - 3));  // a writer killed inside its last record
    EXPECT_EQ(wb::readTfRecords(path.string()).size(), 2u);
    auto flipped = bytes;
    flipped[flipped.size() - 10] ^= 0x40;
    wbtest::writeText(path, flipped);
    EXPECT_THROW(wb::readTfRecords(path.string()), wb::InputError);
}

TEST(TensorBoard, AFolderThatCannotHoldTheFileIsAnInputError) {
    EXPECT_THROW(wb::TensorBoardWriter("/nonexistent/folder"), wb::InputError);
}
