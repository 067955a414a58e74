// A folder removed entry by entry (see RemoveAll.h for why not std::filesystem::remove_all).
#include "workbench/domain/RemoveAll.h"

namespace wb {

namespace fs = std::filesystem;

namespace {

constexpr auto kFailed = static_cast<std::uintmax_t>(-1);

std::uintmax_t removeTree(const fs::path& path, std::error_code& ec) {
    const auto status = fs::symlink_status(path, ec);
    if (ec) {
        if (ec == std::errc::no_such_file_or_directory) ec.clear();
        return ec ? kFailed : 0;
    }
    std::uintmax_t removed = 0;
    if (status.type() == fs::file_type::directory) {
        // Removing the entry the iterator stands on is safe; the iterator reads on past it.
        for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
            const auto n = removeTree(it->path(), ec);
            if (ec) return kFailed;
            removed += n;
        }
        if (ec) return kFailed;
    }
    if (fs::remove(path, ec)) ++removed;
    return ec ? kFailed : removed;
}

}  // namespace

std::uintmax_t removeAll(const fs::path& path, std::error_code& ec) {
    ec.clear();
    return removeTree(path, ec);
}

std::uintmax_t removeAll(const fs::path& path) {
    std::error_code ec;
    const auto removed = removeAll(path, ec);
    if (ec) throw fs::filesystem_error("cannot remove", path, ec);
    return removed;
}

}  // namespace wb
