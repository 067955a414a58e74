// decodeUtf8 and isValidUtf8 on arbitrary bytes: they must agree, an error must be an InputError that
// points inside the input, and valid text must survive decode -> encode unchanged (less a BOM).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzSupport.h"
#include "workbench/domain/Errors.h"
#include "workbench/domain/Utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const bool valid = wb::isValidUtf8(bytes);
    try {
        const std::u32string cps = wb::decodeUtf8(bytes, "input.txt");
        FUZZ_CHECK(valid);
        const std::size_t bom = bytes.size() >= 3 && bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
        FUZZ_CHECK(wb::encodeUtf8(cps) == bytes.substr(bom));
        FUZZ_CHECK(wb::countCodePoints(bytes.substr(bom)) == cps.size());
        for (char32_t cp : cps) FUZZ_CHECK(cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF));
    } catch (const wb::InputError& e) {
        FUZZ_CHECK(!valid);
        FUZZ_CHECK(e.file() == "input.txt");
        FUZZ_CHECK(e.byteOffset() >= 0 && static_cast<std::size_t>(e.byteOffset()) < size);
        FUZZ_CHECK(e.line() >= 1);
    }
    // appendUtf8 never produces invalid UTF-8, whatever value it is given.
    if (size >= 4) {
        char32_t v = 0;
        for (int k = 0; k < 4; ++k) v = (v << 8) | data[k];
        FUZZ_CHECK(wb::isValidUtf8(wb::encodeUtf8(v)));
    }
    return 0;
}
