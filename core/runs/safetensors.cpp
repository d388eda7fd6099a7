// safetensors encoding and decoding. The decoder checks everything the reference reader checks
// (header length, JSON, dtypes, shapes against byte counts, offsets covering the data exactly), so
// a file that loads here loads in Python, and a damaged file is refused with the tensor named.
#include "core/runs/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/common/atomic_file.hpp"
#include "core/common/file_read.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/common/json_read.hpp"

namespace proteus::runs {
namespace {

using nlohmann::json;

// The format is little-endian; raw copies are only correct on a little-endian host.
static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

constexpr const char* kMetadataKey = "__metadata__";
constexpr uint64_t kMaxHeader = 100'000'000;  // the reference reader's limit
constexpr size_t kMaxFileBytes = size_t{64} << 30;  // read whole: far past any checkpoint of this lab

struct DtypeInfo {
  Dtype dtype;
  const char* name;
  size_t size;
};

constexpr DtypeInfo kDtypes[] = {
    {Dtype::BOOL, "BOOL", 1}, {Dtype::U8, "U8", 1},   {Dtype::I8, "I8", 1},     {Dtype::F8_E5M2, "F8_E5M2", 1},
    {Dtype::F8_E4M3, "F8_E4M3", 1}, {Dtype::I16, "I16", 2}, {Dtype::U16, "U16", 2}, {Dtype::F16, "F16", 2},
    {Dtype::BF16, "BF16", 2}, {Dtype::I32, "I32", 4}, {Dtype::U32, "U32", 4}, {Dtype::F32, "F32", 4},
    {Dtype::F64, "F64", 8},   {Dtype::I64, "I64", 8}, {Dtype::U64, "U64", 8},
};

const DtypeInfo& info(Dtype d) {
  for (const auto& i : kDtypes)
    if (i.dtype == d) return i;
  throw std::invalid_argument("safetensors: unknown dtype enum value");
}

std::string quote(const std::string& name) { return "'" + common::clipped(name, common::kShownPath) + "'"; }

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// Elements of a shape, or nullopt on a negative dimension or an overflow of int64.
std::optional<int64_t> element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t dim : shape) {
    if (dim < 0) return std::nullopt;
    if (dim != 0 && n > std::numeric_limits<int64_t>::max() / dim) return std::nullopt;
    n *= dim;
  }
  return n;
}

template <class T>
Tensor from_values(std::string name, std::vector<int64_t> shape, std::span<const T> values, Dtype dtype) {
  const auto n = element_count(shape);
  if (!n || static_cast<uint64_t>(*n) != values.size())
    throw std::invalid_argument("tensor " + quote(name) + ": shape " + shape_text(shape) + " does not hold " +
                                std::to_string(values.size()) + " values");
  Tensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

template <class T>
std::vector<T> to_values(const Tensor& t, Dtype want) {
  if (t.dtype != want)
    throw std::invalid_argument("tensor " + quote(t.name) + ": is " + dtype_name(t.dtype) + ", not " + dtype_name(want));
  if (t.bytes.size() % sizeof(T) != 0)
    throw std::invalid_argument("tensor " + quote(t.name) + ": " + std::to_string(t.bytes.size()) +
                                " bytes is not a whole number of " + dtype_name(want) + " elements");
  std::vector<T> out(t.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), t.bytes.data(), t.bytes.size());
  return out;
}

uint64_t read_u64_le(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void write_u64_le(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// A non-negative JSON integer, or nullopt.
std::optional<uint64_t> as_index(const json& j) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return static_cast<uint64_t>(j.get<int64_t>());
  return std::nullopt;
}

struct Entry {
  Tensor tensor;
  uint64_t begin = 0, end = 0;
};

}  // namespace

const char* dtype_name(Dtype d) { return info(d).name; }
size_t dtype_size(Dtype d) { return info(d).size; }

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& i : kDtypes)
    if (name == i.name) return i.dtype;
  return std::nullopt;
}

int64_t Tensor::numel() const { return element_count(shape).value_or(-1); }

Tensor Tensor::from_f32(std::string name, std::vector<int64_t> shape, std::span<const float> values) {
  return from_values(std::move(name), std::move(shape), values, Dtype::F32);
}
Tensor Tensor::from_f64(std::string name, std::vector<int64_t> shape, std::span<const double> values) {
  return from_values(std::move(name), std::move(shape), values, Dtype::F64);
}
Tensor Tensor::from_i64(std::string name, std::vector<int64_t> shape, std::span<const int64_t> values) {
  return from_values(std::move(name), std::move(shape), values, Dtype::I64);
}
Tensor Tensor::from_i32(std::string name, std::vector<int64_t> shape, std::span<const int32_t> values) {
  return from_values(std::move(name), std::move(shape), values, Dtype::I32);
}

std::vector<float> Tensor::to_f32() const { return to_values<float>(*this, Dtype::F32); }
std::vector<double> Tensor::to_f64() const { return to_values<double>(*this, Dtype::F64); }
std::vector<int64_t> Tensor::to_i64() const { return to_values<int64_t>(*this, Dtype::I64); }
std::vector<int32_t> Tensor::to_i32() const { return to_values<int32_t>(*this, Dtype::I32); }

const Tensor* SafetensorsFile::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const Tensor& SafetensorsFile::at(std::string_view name) const {
  if (const Tensor* t = find(name)) return *t;
  throw std::out_of_range("no tensor '" + std::string(name) + "' in this safetensors file");
}

std::string encode_safetensors(const std::vector<Tensor>& tensors, const std::map<std::string, std::string>& metadata) {
  // Dtypes in the format's order of increasing alignment, taken from the last, then names: every
  // tensor starts at a multiple of its element size, and the layout is the reference writer's.
  std::vector<const Tensor*> order;
  for (const auto& t : tensors) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const Tensor* a, const Tensor* b) {
    if (a->dtype != b->dtype) return static_cast<int>(a->dtype) > static_cast<int>(b->dtype);
    return a->name < b->name;
  });

  // Keys in the reference writer's order (metadata first; dtype, shape, data_offsets), so the same
  // tensors give the same bytes.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const Tensor* t : order) {
    const std::string at = "tensor " + quote(t->name);
    if (t->name.empty() || t->name == kMetadataKey)
      throw InputError("safetensors", at + ": is not a usable tensor name");
    if (!names.insert(t->name).second) throw InputError("safetensors", at + ": appears twice");
    const auto n = element_count(t->shape);
    if (!n) throw InputError("safetensors", at + ": shape " + shape_text(t->shape) + " is not a valid shape");
    const uint64_t want = static_cast<uint64_t>(*n) * dtype_size(t->dtype);
    if (t->bytes.size() != want)
      throw InputError("safetensors", at + ": holds " + std::to_string(t->bytes.size()) + " bytes, shape " +
                                          shape_text(t->shape) + " of " + dtype_name(t->dtype) + " needs " +
                                          std::to_string(want));
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    entry["dtype"] = dtype_name(t->dtype);
    entry["shape"] = t->shape;
    entry["data_offsets"] = {offset, offset + want};
    header[t->name] = std::move(entry);
    offset += want;
  }

  std::string text;
  try {
    text = header.dump(-1, ' ', false, json::error_handler_t::strict);
  } catch (const nlohmann::ordered_json::type_error&) {
    throw InputError("safetensors", "a tensor name or a metadata string is not valid UTF-8");
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + text.size() + offset);
  write_u64_le(out, text.size());
  out += text;
  for (const Tensor* t : order) out.append(reinterpret_cast<const char*>(t->bytes.data()), t->bytes.size());
  return out;
}

namespace {

// Every error names the file it came from.
struct Failure {
  const std::string& source;
  InputError operator()(const std::string& reason) const { return InputError(source, reason); }
};

// The header's length, checked against the format's bound and the file's size.
uint64_t header_length(std::string_view bytes, const Failure& fail) {
  if (bytes.size() < 8)
    throw fail("too short for a safetensors file (" + std::to_string(bytes.size()) + " bytes, the header length alone is 8)");
  const uint64_t n = read_u64_le(bytes.data());
  if (n > kMaxHeader) throw fail("header length " + std::to_string(n) + " is larger than the format allows (100000000)");
  if (n > bytes.size() - 8)
    throw fail("header length " + std::to_string(n) + " runs past the end of the file (" +
               std::to_string(bytes.size()) + " bytes)");
  return n;
}

// The header as a JSON object, a tensor named twice refused.
json parse_header(std::string_view text, const std::string& source, const Failure& fail) {
  if (text.empty() || text.front() != '{') throw fail("the header must be a JSON object starting with '{'");
  common::check_json_shape(text, source, {kMaxHeader, 64, "a safetensors header"});
  // nlohmann keeps the last of two equal keys; the callback sees both, so a duplicate is refused.
  std::set<std::string> keys;
  std::string duplicate;
  json header;
  try {
    header = json::parse(text, [&](int depth, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::key && depth == 1 && !keys.insert(parsed.get<std::string>()).second &&
          duplicate.empty())
        duplicate = parsed.get<std::string>();
      return true;
    });
  } catch (const json::parse_error& e) {
    std::string detail = e.what();
    if (detail.size() > 200) detail = detail.substr(0, 197) + "...";  // it quotes the text it read
    throw fail("the header is not valid JSON: " + detail);
  }
  if (!header.is_object()) throw fail("the header must be a JSON object");
  if (!duplicate.empty()) throw fail("tensor " + quote(duplicate) + ": appears twice in the header");
  return header;
}

// One tensor's header entry: its dtype, shape and offsets, whose byte count must match the shape.
Entry read_entry(const std::string& name, const json& value, uint64_t data_size, const Failure& fail) {
  const std::string at = "tensor " + quote(name);
  if (!value.is_object()) throw fail(at + ": expected {\"dtype\", \"shape\", \"data_offsets\"}");
  Entry e;
  e.tensor.name = name;
  const auto dtype = value.find("dtype");
  if (dtype == value.end() || !dtype->is_string()) throw fail(at + ": dtype is missing or not a string");
  const auto parsed = parse_dtype(dtype->get<std::string>());
  if (!parsed) throw fail(at + ": unknown dtype " + common::quoted(dtype->get<std::string>()));
  e.tensor.dtype = *parsed;
  const auto shape = value.find("shape");
  if (shape == value.end() || !shape->is_array()) throw fail(at + ": shape is missing or not an array");
  for (const auto& dim : *shape) {
    const auto d = as_index(dim);
    if (!d || *d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw fail(at + ": shape " + shape->dump() + " holds something other than a non-negative integer");
    e.tensor.shape.push_back(static_cast<int64_t>(*d));
  }
  const auto offsets = value.find("data_offsets");
  if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 || !as_index((*offsets)[0]) ||
      !as_index((*offsets)[1]))
    throw fail(at + ": data_offsets must be [begin, end], two non-negative integers");
  e.begin = *as_index((*offsets)[0]);
  e.end = *as_index((*offsets)[1]);
  const std::string range = "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin) throw fail(at + ": " + range + " end before they begin");
  if (e.end > data_size)
    throw fail(at + ": " + range + " run past the end of the data (" + std::to_string(data_size) + " bytes)");
  const auto count = element_count(e.tensor.shape);
  const uint64_t size = dtype_size(e.tensor.dtype);
  if (!count || (size > 1 && static_cast<uint64_t>(*count) > std::numeric_limits<uint64_t>::max() / size))
    throw fail(at + ": shape " + shape_text(e.tensor.shape) + " is too large");
  const uint64_t want = static_cast<uint64_t>(*count) * size;
  if (e.end - e.begin != want)
    throw fail(at + ": " + range + " hold " + std::to_string(e.end - e.begin) + " bytes, shape " +
               shape_text(e.tensor.shape) + " of " + dtype_name(e.tensor.dtype) + " needs " + std::to_string(want));
  return e;
}

// The data must be tiled exactly: sorted by offsets, each tensor starts where the last ended.
void check_tiling(std::vector<Entry>& entries, uint64_t data_size, const Failure& fail) {
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    const std::string at = "tensor " + quote(e.tensor.name);
    const std::string range = "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    if (e.begin < covered)
      throw fail(at + ": data_offsets " + range + " overlap tensor " + quote(previous->tensor.name) + " [" +
                 std::to_string(previous->begin) + ", " + std::to_string(previous->end) + "]");
    if (e.begin > covered)
      throw fail(at + ": data_offsets " + range + " leave bytes [" + std::to_string(covered) + ", " +
                 std::to_string(e.begin) + ") of the data unused");
    covered = e.end;
    previous = &e;
  }
  if (covered != data_size)
    throw fail(std::to_string(data_size - covered) + " bytes of data follow the last tensor" +
               (previous ? " (" + quote(previous->tensor.name) + ")" : std::string()));
}

}  // namespace

SafetensorsFile decode_safetensors(std::string_view bytes, const std::string& source) {
  const Failure fail{source};
  const uint64_t n = header_length(bytes, fail);
  const json header = parse_header(bytes.substr(8, n), source, fail);
  const uint64_t data_size = bytes.size() - 8 - n;
  const std::string_view data = bytes.substr(8 + n);
  SafetensorsFile file;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name != kMetadataKey) {
      entries.push_back(read_entry(name, value, data_size, fail));
      continue;
    }
    if (!value.is_object()) throw fail("__metadata__: expected an object of strings");
    for (const auto& [key, v] : value.items()) {
      if (!v.is_string()) throw fail("__metadata__." + key + ": expected a string, got " + v.dump());
      file.metadata[key] = v.get<std::string>();
    }
  }
  check_tiling(entries, data_size, fail);
  for (Entry& e : entries) {
    e.tensor.bytes.assign(reinterpret_cast<const uint8_t*>(data.data() + e.begin),
                          reinterpret_cast<const uint8_t*>(data.data() + e.end));
    file.tensors.push_back(std::move(e.tensor));
  }
  return file;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::string bytes;
  try {
    bytes = encode_safetensors(tensors, metadata);
  } catch (const InputError& e) {
    throw InputError(path.generic_string(), e.reason());
  }
  common::write_file_atomically(path, bytes);
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  return decode_safetensors(common::read_file(path, kMaxFileBytes, "a safetensors file"), path.generic_string());
}

}  // namespace proteus::runs
