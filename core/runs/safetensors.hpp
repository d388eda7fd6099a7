// The safetensors format (huggingface/safetensors), read and written exactly:
//   8 bytes      N, the header's length, unsigned little-endian
//   N bytes      a JSON object {"<name>": {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]},
//                ..., "__metadata__": {"<key>": "<string>"}}, padded with spaces to a multiple of 8
//   the rest     the tensors' bytes, little-endian, row-major; [b, e) is relative to the data's start
// The data must be covered exactly: no overlaps, no gaps, nothing after the last tensor (as the
// reference reader requires). Checkpoints, exports and anything a Python user loads go through here.
// Tensors hold their raw bytes, so every dtype of the format round-trips; conversions cover
// F32, F64, I64 and I32, the types the engine writes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace proteus::runs {

enum class Dtype { BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };

const char* dtype_name(Dtype d);                           // "F32"
size_t dtype_size(Dtype d);                                // bytes per element
std::optional<Dtype> parse_dtype(std::string_view name);   // nullopt for an unknown name

struct Tensor {
  std::string name;
  Dtype dtype = Dtype::F32;
  std::vector<int64_t> shape;  // [] is a scalar (one element)
  std::vector<uint8_t> bytes;  // numel() * dtype_size(dtype), little-endian, row-major

  int64_t numel() const;  // -1 for a shape with a negative dimension or too many elements

  // Throws std::invalid_argument when values.size() differs from the shape's element count.
  static Tensor from_f32(std::string name, std::vector<int64_t> shape, std::span<const float> values);
  static Tensor from_f64(std::string name, std::vector<int64_t> shape, std::span<const double> values);
  static Tensor from_i64(std::string name, std::vector<int64_t> shape, std::span<const int64_t> values);
  static Tensor from_i32(std::string name, std::vector<int64_t> shape, std::span<const int32_t> values);

  // Throws std::invalid_argument naming the tensor when its dtype is another.
  std::vector<float> to_f32() const;
  std::vector<double> to_f64() const;
  std::vector<int64_t> to_i64() const;
  std::vector<int32_t> to_i32() const;
};

struct SafetensorsFile {
  std::vector<Tensor> tensors;                  // in the order of their data in the file
  std::map<std::string, std::string> metadata;  // "__metadata__"; empty when the file has none

  const Tensor* find(std::string_view name) const;  // nullptr when absent
  const Tensor& at(std::string_view name) const;    // throws std::out_of_range naming the tensor
};

// The file's bytes, the same as the reference writer gives for the same tensors and (at most one
// key of) metadata: tensors laid out by dtype, largest alignment first, then by name, so each is
// aligned to its element size; header keys in its order. Throws InputError
// ("tensor 'w': ...") for a duplicate or empty name, a negative dimension or a byte count that
// does not match the shape.
std::string encode_safetensors(const std::vector<Tensor>& tensors, const std::map<std::string, std::string>& metadata = {});

// Parses and checks bytes; `source` (the file's name) starts every error message.
SafetensorsFile decode_safetensors(std::string_view bytes, const std::string& source);

// Writes atomically (temporary file + rename): a crash mid-write leaves the previous checkpoint.
void write_safetensors(const std::filesystem::path& path, const std::vector<Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// Throws InputError whose field is the file ("ckpt.safetensors: tensor 'w': data_offsets ...").
SafetensorsFile read_safetensors(const std::filesystem::path& path);

}  // namespace proteus::runs
