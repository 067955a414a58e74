// wb::removeAll: what std::filesystem::remove_all does, walked entry by entry (io/RemoveAll.h says why).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/TestSupport.h"
#include "workbench/domain/RemoveAll.h"

namespace fs = std::filesystem;

namespace {

TEST(RemoveAll, RemovesAFolderWithEverythingInItAndCountsTheEntries) {
    wbtest::TempDir dir;
    const auto root = dir.path() / "run";
    wbtest::writeText(root / "a.txt", "a");
    wbtest::writeText(root / "sub" / "b.txt", "b");
    wbtest::writeText(root / "sub" / "deeper" / "c.txt", "c");
    fs::create_directories(root / "empty");
    std::error_code ec;
    EXPECT_EQ(wb::removeAll(root, ec), 7u);  // 3 files, 3 folders below, and the folder itself
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_FALSE(fs::exists(root));
    EXPECT_TRUE(fs::exists(dir.path()));
}

TEST(RemoveAll, RemovesAFileAndTakesAMissingPathAsNothingToDo) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "f", "x");
    EXPECT_EQ(wb::removeAll(dir.path() / "f"), 1u);
    EXPECT_FALSE(fs::exists(dir.path() / "f"));
    std::error_code ec = std::make_error_code(std::errc::io_error);
    EXPECT_EQ(wb::removeAll(dir.path() / "missing", ec), 0u);
    EXPECT_FALSE(ec) << "a missing path is not an error, and an earlier error is cleared";
}

TEST(RemoveAll, RemovesALinkNotTheFolderItPointsTo) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "kept" / "data.txt", "keep me");
    fs::create_directories(dir.path() / "run");
    fs::create_directory_symlink(dir.path() / "kept", dir.path() / "run" / "link");
    EXPECT_EQ(wb::removeAll(dir.path() / "run"), 2u);
    EXPECT_TRUE(fs::exists(dir.path() / "kept" / "data.txt"));
}

TEST(RemoveAll, SaysWhatStoppedIt) {
    wbtest::TempDir dir;
    wbtest::writeText(dir.path() / "f", "x");
    std::error_code ec;
    EXPECT_EQ(wb::removeAll(dir.path() / "f" / "x", ec), static_cast<std::uintmax_t>(-1));
    EXPECT_EQ(ec, std::errc::not_a_directory) << ec.message();
    EXPECT_THROW(wb::removeAll(dir.path() / "f" / "x"), fs::filesystem_error);
    EXPECT_TRUE(fs::exists(dir.path() / "f"));
}

TEST(RemoveAll, KeepsWhatItCouldNotRemove) {
    if (geteuid() == 0) GTEST_SKIP() << "root may remove from a folder it cannot write";
    wbtest::TempDir dir;
    const auto locked = dir.path() / "run" / "locked";
    wbtest::writeText(locked / "f", "x");
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    std::error_code ec;
    EXPECT_EQ(wb::removeAll(dir.path() / "run", ec), static_cast<std::uintmax_t>(-1));
    EXPECT_EQ(ec, std::errc::permission_denied) << ec.message();
    EXPECT_TRUE(fs::exists(locked / "f"));
}

}  // namespace
