// The regression runner of the normal build: feeds every file of the folders it is given (the committed
// seeds and regressions of one fuzz target) to that target's LLVMFuzzerTestOneInput, once each, in name
// order. A crash, sanitizer report or broken invariant fails the test the way it failed the fuzzer.
//
//   fuzz_regression_<target> FOLDER...    (a missing folder is skipped; none holding a file is an error)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    std::vector<fs::path> inputs;
    for (int a = 1; a < argc; ++a) {
        std::error_code ec;
        if (!fs::is_directory(argv[a], ec)) continue;
        for (const auto& entry : fs::directory_iterator(argv[a])) {
            const std::string name = entry.path().filename().string();
            if (entry.is_regular_file() && name[0] != '.' && name != "README.md")
                inputs.push_back(entry.path());
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "fuzz regression: no inputs in the given folders\n");
        return 1;
    }
    std::sort(inputs.begin(), inputs.end());
    for (const auto& path : inputs) {
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) {
            std::fprintf(stderr, "fuzz regression: cannot read %s\n", path.c_str());
            return 1;
        }
        std::fprintf(stderr, "fuzz regression: %s (%zu bytes)\n", path.c_str(), bytes.size());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("fuzz regression: %zu inputs passed\n", inputs.size());
    return 0;
}
