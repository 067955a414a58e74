// Precompiled header for workbench_engine: LibTorch's headers take ~20 s to parse per translation unit.
#pragma once
#include <torch/torch.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
