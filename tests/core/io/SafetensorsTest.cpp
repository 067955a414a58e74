// safetensors writer/reader: round trip, the exact byte layout other tools expect, and rejection of every
// inconsistent header before any data is read.
#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "tensors/TensorIO.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Safetensors.h"

using namespace wb;

namespace {
std::string withHeader(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    std::uint64_t len = header.size();
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((len >> (8 * i)) & 0xff);
    return out + header + data;
}

void expectRejected(const std::string& bytes, const std::string& needle) {
    try {
        safetensors::parse(bytes, "x.safetensors");
        FAIL() << "accepted a bad file (" << needle << ")";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("x.safetensors"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}
}  // namespace

TEST(Safetensors, RoundTripKeepsValuesShapesAndMetadata) {
    wbtest::TempDir dir;
    auto a = torch::randn({3, 4});
    auto b = torch::arange(10, torch::kInt64);
    saveSafetensors(dir.file("t.safetensors"), {{"b", b}, {"a", a}}, {{"step", "12"}});
    const auto file = safetensors::read(dir.file("t.safetensors"));
    EXPECT_EQ(file.metadata.at("step"), "12");
    ASSERT_EQ(file.tensors.size(), 2u);
    EXPECT_EQ(file.tensors[0].name, "a");  // sorted by name, as the reference implementation writes
    EXPECT_TRUE(torch::equal(toTensor(file, *file.find("a")), a));
    EXPECT_TRUE(torch::equal(toTensor(file, *file.find("b")), b));
    EXPECT_TRUE(wbtest::listTree(dir.path()) == std::vector<std::string>{"t.safetensors"});  // no temp left
}

TEST(Safetensors, LayoutIsLittleEndianLengthJsonHeaderThenAlignedData) {
    float values[2] = {1.5f, -2.0f};
    const auto bytes = safetensors::serialize({{"w", "F32", {2}, values, sizeof values}}, {});
    std::uint64_t len = 0;
    std::memcpy(&len, bytes.data(), 8);
    EXPECT_EQ(len % 8, 0u);
    const auto header = nlohmann::json::parse(bytes.substr(8, len));
    EXPECT_EQ(header["w"]["dtype"], "F32");
    EXPECT_EQ(header["w"]["data_offsets"][1], 8);
    float back[2];
    std::memcpy(back, bytes.data() + 8 + len, sizeof back);
    EXPECT_EQ(back[0], 1.5f);
    EXPECT_EQ(back[1], -2.0f);
}

TEST(Safetensors, RejectsInconsistentFiles) {
    const std::string data(16, '\0');
    expectRejected("abc", "shorter");
    expectRejected(withHeader("{}", "").substr(0, 9), "header length");
    {
        std::string huge(8, '\xff');
        expectRejected(huge + "{}", "header length");
    }
    expectRejected(withHeader("not json", data), "not JSON");
    expectRejected(withHeader("[1,2]", data), "not a JSON object");
    expectRejected(withHeader(R"({"w":{"dtype":"F32","shape":[2]}})", data), "lacks");
    expectRejected(withHeader(R"({"w":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", data),
                   "unknown dtype");
    expectRejected(withHeader(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data),
                   "negative");
    expectRejected(withHeader(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,80]}})", data), "outside");
    expectRejected(withHeader(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data), "needs 12");
    expectRejected(withHeader(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", data), "outside");
    expectRejected(withHeader(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                              data),
                   "overlap");
    expectRejected(
        withHeader(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", data),
        "too large");
    expectRejected(withHeader(R"({"__metadata__":{"step":3}})", data), "not a string");
}

TEST(Safetensors, LoadIntoChecksNamesShapesAndDtypes) {
    wbtest::TempDir dir;
    saveSafetensors(dir.file("m.safetensors"),
                    {{"w", torch::ones({2, 3})}, {"ids", torch::zeros({2}, torch::kInt64)}}, {});
    const auto file = safetensors::read(dir.file("m.safetensors"));
    auto target = torch::zeros({2, 3});
    loadInto(file, {{"w", target}}, "m");
    EXPECT_TRUE(torch::equal(target, torch::ones({2, 3})));
    auto wrongShape = torch::zeros({3, 2});
    EXPECT_THROW(loadInto(file, {{"w", wrongShape}}, "m"), InputError);
    EXPECT_THROW(loadInto(file, {{"missing", target}}, "m"), InputError);
    auto ids = torch::zeros({2});
    EXPECT_THROW(loadInto(file, {{"ids", ids}}, "m"), InputError);
}
