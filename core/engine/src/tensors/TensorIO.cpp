// Tensors to and from safetensors (see TensorIO.h).
#include "tensors/TensorIO.h"

#include <cstring>
#include <sstream>

#include "workbench/domain/Errors.h"
#include "workbench/domain/RunFolder.h"

namespace wb {

std::string safetensorsDtype(torch::ScalarType type) {
    switch (type) {
        case torch::kFloat32:
            return "F32";
        case torch::kFloat64:
            return "F64";
        case torch::kFloat16:
            return "F16";
        case torch::kBFloat16:
            return "BF16";
        case torch::kInt64:
            return "I64";
        case torch::kInt32:
            return "I32";
        case torch::kUInt8:
            return "U8";
        case torch::kBool:
            return "BOOL";
        default:
            throw std::logic_error("safetensors: unsupported tensor type");
    }
}

static torch::ScalarType scalarType(const std::string& d) {
    if (d == "F32") return torch::kFloat32;
    if (d == "F64") return torch::kFloat64;
    if (d == "F16") return torch::kFloat16;
    if (d == "BF16") return torch::kBFloat16;
    if (d == "I64") return torch::kInt64;
    if (d == "I32") return torch::kInt32;
    if (d == "U8") return torch::kUInt8;
    if (d == "BOOL") return torch::kBool;
    return torch::kFloat32;  // other dtypes never reach here: callers check for floating types first
}

static bool supported(const std::string& d) {
    return d == "F32" || d == "F64" || d == "F16" || d == "BF16" || d == "I64" || d == "I32" || d == "U8" ||
           d == "BOOL";
}

void saveSafetensors(const std::string& path, const NamedTensors& tensors,
                     const std::map<std::string, std::string>& metadata) {
    std::vector<torch::Tensor> keep;  // holds the CPU copies alive while serialising
    std::vector<safetensors::OutTensor> out;
    keep.reserve(tensors.size());
    for (const auto& [name, t] : tensors) {
        keep.push_back(t.detach().to(torch::kCPU).contiguous());
        const auto& c = keep.back();
        safetensors::OutTensor o;
        o.name = name;
        o.dtype = safetensorsDtype(c.scalar_type());
        o.shape = c.sizes().vec();
        o.data = c.data_ptr();
        o.size = static_cast<std::size_t>(c.numel()) * c.element_size();
        out.push_back(std::move(o));
    }
    writeFileAtomic(path, safetensors::serialize(out, metadata));
}

torch::Tensor toTensor(const safetensors::File& file, const safetensors::TensorEntry& e) {
    if (!supported(e.dtype)) throw InputError("tensor '" + e.name + "': unsupported dtype " + e.dtype);
    auto t = torch::empty(e.shape, torch::TensorOptions().dtype(scalarType(e.dtype)));
    if (e.size) std::memcpy(t.data_ptr(), file.bytes(e), e.size);
    return t;
}

static std::string shapeText(at::IntArrayRef s) {
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
    return os.str() + ']';
}

void loadInto(const safetensors::File& file, const NamedTensors& targets, const std::string& source) {
    torch::NoGradGuard noGrad;
    for (const auto& [name, target] : targets) {
        const auto* e = file.find(name);
        if (!e) throw InputError(source, 0, "tensor '" + name + "' is missing");
        if (e->dtype != "F32" && e->dtype != "F16" && e->dtype != "BF16" && e->dtype != "F64")
            throw InputError(source, 0,
                             "tensor '" + name + "': expected a floating dtype, found " + e->dtype);
        if (at::IntArrayRef(e->shape) != target.sizes())
            throw InputError(source, 0,
                             "tensor '" + name + "': expected shape " + shapeText(target.sizes()) +
                                 ", found " + shapeText(e->shape));
        target.copy_(toTensor(file, *e));
    }
}

}  // namespace wb
