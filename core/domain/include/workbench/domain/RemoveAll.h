// Deletes a file or a folder with everything in it, as std::filesystem::remove_all does, without calling it.
//
// Why not remove_all itself: PyTorch's own LibTorch (the manylinux wheels, 2.11 for one) carries and exports
// a copy of libstdc++'s std::filesystem, whose remove_all calls recursive_directory_iterator::__erase through
// a weak reference that GCC 12's libstdc++ (and older) does not define. Against such a libstdc++ it is
// null, and a program whose remove_all binds to PyTorch's copy jumps to address 0 as soon as the folder has
// something in it (seen on the GPU machine: every test that cleaned up a folder). The other std::filesystem
// functions of that copy do not have such a reference (README, "Building against PyTorch's
// LibTorch"), so this walks the tree with them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <system_error>

namespace wb {

// Removes path and, when it is a folder (not a link to one), everything under it. Returns how many entries
// went; a path that does not exist is 0 and no error. On an error, ec says which and the count is
// static_cast<std::uintmax_t>(-1), like remove_all; what could be removed before it is gone.
std::uintmax_t removeAll(const std::filesystem::path& path, std::error_code& ec);

// The same, throwing std::filesystem::filesystem_error.
std::uintmax_t removeAll(const std::filesystem::path& path);

}  // namespace wb
