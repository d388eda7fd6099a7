// safetensors: round trips, files built byte by byte, the reference writer's exact layout, every
// kind of damage refused with the file and tensor named, and atomic replacement.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/input_error.hpp"
#include "core/runs/safetensors.hpp"
#include "tests/support/required_check.hpp"
#include "tests/support/run_command.hpp"

namespace {

using proteus::InputError;
using namespace proteus::runs;
namespace fs = std::filesystem;

// 8-byte little-endian length, the header text as given, then the data.
std::string file_bytes(const std::string& header, const std::string& data) {
  std::string out;
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string float_bytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

// The message decode_safetensors refuses `bytes` with, or a failed test when it accepts them.
std::string refusal(const std::string& bytes) {
  try {
    decode_safetensors(bytes, "bad.safetensors");
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "bad.safetensors") << e.what();
    return e.reason();
  }
  ADD_FAILURE() << "accepted a damaged file";
  return "";
}

class safetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("proteus-safetensors-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(safetensors, RoundTripOfEveryEngineType) {
  const std::vector<float> w = {1.5f, -2.25f, 3.0f, 1e-30f, -0.0f, 65504.0f};
  const std::vector<double> s = {0.1, -1e300, 1.0 / 3.0};
  const std::vector<int64_t> step = {-9223372036854775807LL - 1, 0, 42};
  const std::vector<int32_t> small = {7, -7};
  const std::vector<Tensor> tensors = {
      Tensor::from_f32("blocks.0.w", {2, 3}, w),
      Tensor::from_f64("adam.v", {3}, s),
      Tensor::from_i64("step", {3}, step),
      Tensor::from_i32("ids", {2}, small),
      Tensor::from_f32("scalar", {}, std::vector<float>{2.5f}),
      Tensor::from_f32("empty", {0, 4}, std::vector<float>{}),
  };
  const std::map<std::string, std::string> meta = {{"format", "proteus"}, {"step", "300"}};
  const fs::path path = dir_ / "model.safetensors";
  write_safetensors(path, tensors, meta);

  const SafetensorsFile f = read_safetensors(path);
  EXPECT_EQ(f.metadata, meta);
  ASSERT_EQ(f.tensors.size(), tensors.size());
  EXPECT_EQ(f.at("blocks.0.w").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f.at("blocks.0.w").to_f32(), w);
  EXPECT_TRUE(std::signbit(f.at("blocks.0.w").to_f32()[4]));
  EXPECT_EQ(f.at("adam.v").to_f64(), s);
  EXPECT_EQ(f.at("step").to_i64(), step);
  EXPECT_EQ(f.at("ids").to_i32(), small);
  EXPECT_EQ(f.at("scalar").shape.size(), 0u);
  EXPECT_EQ(f.at("scalar").numel(), 1);
  EXPECT_EQ(f.at("scalar").to_f32(), std::vector<float>{2.5f});
  EXPECT_EQ(f.at("empty").numel(), 0);
  EXPECT_EQ(f.find("missing"), nullptr);
  EXPECT_THROW(f.at("missing"), std::out_of_range);
  EXPECT_THROW(f.at("step").to_f32(), std::invalid_argument);
  EXPECT_THROW(Tensor::from_f32("x", {2, 2}, w), std::invalid_argument);

  // The file is exactly 8 + header + data, and the header length is a multiple of 8.
  const std::string raw = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  uint64_t n = 0;
  std::memcpy(&n, raw.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(raw.size(), 8 + n + 6 * 4 + 3 * 8 + 3 * 8 + 2 * 4 + 4);
}

TEST_F(safetensors, EveryTensorIsAlignedToItsElementSize) {
  // Odd-sized tensors of mixed widths: the writer puts wider elements first.
  const std::vector<Tensor> tensors = {
      Tensor{"bytes", Dtype::U8, {3}, {1, 2, 3}},
      Tensor::from_f32("f", {1}, std::vector<float>{1}),
      Tensor::from_f64("d", {1}, std::vector<double>{2}),
      Tensor{"half", Dtype::F16, {1}, {0, 0x3c}},
  };
  const std::string bytes = encode_safetensors(tensors);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  const auto header = nlohmann::json::parse(bytes.substr(8, n));
  for (const auto& t : tensors) {
    const uint64_t begin = header[t.name]["data_offsets"][0];
    EXPECT_EQ((8 + n + begin) % dtype_size(t.dtype), 0u) << t.name;
  }
  const SafetensorsFile f = decode_safetensors(bytes, "mem");
  EXPECT_EQ(f.tensors.front().name, "d");  // the file's data order
  EXPECT_EQ(f.at("half").dtype, Dtype::F16);
  EXPECT_EQ(f.at("bytes").bytes, (std::vector<uint8_t>{1, 2, 3}));
}

TEST(safetensors_bytes, HandBuiltFileParses) {
  // The header as any writer might lay it out: metadata last, keys in another order, padded.
  const std::string header =
      R"({"b":{"data_offsets":[8,16],"shape":[1],"dtype":"I64"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
      R"("__metadata__":{"who":"hand"}})"
      "   ";
  std::string data = float_bytes({1.0f, -2.5f});
  data += std::string("\x07\x00\x00\x00\x00\x00\x00\x80", 8);  // INT64_MIN + 7, little-endian
  // Check the hand-written float bytes too: 1.0f = 0x3f800000, -2.5f = 0xc0200000.
  EXPECT_EQ(data.substr(0, 8), std::string("\x00\x00\x80\x3f\x00\x00\x20\xc0", 8));

  const SafetensorsFile f = decode_safetensors(file_bytes(header, data), "hand.safetensors");
  ASSERT_EQ(f.tensors.size(), 2u);
  EXPECT_EQ(f.tensors[0].name, "a");
  EXPECT_EQ(f.at("a").to_f32(), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_EQ(f.at("b").to_i64(), (std::vector<int64_t>{-9223372036854775807LL - 1 + 7}));
  EXPECT_EQ(f.metadata.at("who"), "hand");
}

TEST(safetensors_bytes, WriterGivesTheReferenceBytes) {
  // What the reference writer produces for one F32 tensor of shape (1, 2, 3) holding 0..5: a
  // 64-byte header (already a multiple of 8, so no padding), then the floats.
  const std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header.size(), 64u);
  const std::string expected = std::string("\x40\x00\x00\x00\x00\x00\x00\x00", 8) + header +
                               float_bytes({0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
  const std::vector<float> values = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(encode_safetensors({Tensor::from_f32("attn.0", {1, 2, 3}, values)}), expected);

  // A one-character-shorter name and one more dimension: 65 bytes, padded with 7 spaces to 72.
  const std::string header2 = R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})";
  ASSERT_EQ(header2.size(), 65u);
  const std::string expected2 = std::string("\x48\x00\x00\x00\x00\x00\x00\x00", 8) + header2 + "       " +
                                float_bytes({0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
  EXPECT_EQ(encode_safetensors({Tensor::from_f32("attn0", {1, 1, 2, 3}, values)}), expected2);

  // No tensors: "{}" and six spaces; metadata alone goes first.
  EXPECT_EQ(encode_safetensors({}), std::string("\x08\x00\x00\x00\x00\x00\x00\x00{}      ", 16));
  EXPECT_EQ(encode_safetensors({}, {{"framework", "pt"}}),
            std::string("\x28\x00\x00\x00\x00\x00\x00\x00", 8) + R"({"__metadata__":{"framework":"pt"}})" + "     ");
  EXPECT_TRUE(decode_safetensors(encode_safetensors({}), "empty").tensors.empty());
}

TEST(safetensors_bytes, DamagedFilesAreRefusedNamingTheTensor) {
  const std::string eight = float_bytes({1.0f, 2.0f});
  const auto has = [](const std::string& reason, std::initializer_list<const char*> parts) {
    for (const char* p : parts) EXPECT_NE(reason.find(p), std::string::npos) << "'" << p << "' not in: " << reason;
  };
  has(refusal("abc"), {"too short"});
  has(refusal(std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10)), {"header length 255", "past the end"});
  has(refusal(std::string("\x00\x00\x00\x00\x00\x00\x01\x00", 8)), {"larger than the format allows"});
  has(refusal(file_bytes("[1,2]   ", "")), {"JSON object"});
  has(refusal(file_bytes("{\"a\":", "")), {"not valid JSON"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", eight)),
      {"tensor 'w'", "[0, 16]", "past the end of the data (8 bytes)"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight)),
      {"tensor 'w'", "end before they begin"});
  has(refusal(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                         eight + std::string(4, '\0'))),
      {"tensor 'b'", "overlap tensor 'a'"});
  has(refusal(file_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                         R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                         eight + std::string(4, '\0'))),
      {"tensor 'b'", "unused"});
  has(refusal(file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight + "xx")),
      {"2 bytes of data follow the last tensor", "'a'"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight)),
      {"tensor 'w'", "needs 12"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", eight)),
      {"tensor 'w'", "unknown dtype \"F33\""});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight)), {"tensor 'w'", "shape"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[2]}})", eight)), {"tensor 'w'", "data_offsets"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                         eight)),
      {"tensor 'w'", "twice"});
  has(refusal(file_bytes(R"({"w":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}})", eight)),
      {"tensor 'w'", "too large"});
  has(refusal(file_bytes(R"({"__metadata__":{"k":3}})", "")), {"__metadata__.k"});
}

TEST_F(safetensors, ReadErrorsNameTheFile) {
  const fs::path path = dir_ / "cut.safetensors";
  write_safetensors(path, {Tensor::from_f32("w", {4}, std::vector<float>{1, 2, 3, 4})});
  fs::resize_file(path, fs::file_size(path) - 4);  // a truncated copy
  try {
    read_safetensors(path);
    FAIL() << "a truncated file was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), path.generic_string());
    EXPECT_NE(e.reason().find("tensor 'w'"), std::string::npos) << e.what();
  }
  try {
    read_safetensors(dir_ / "absent.safetensors");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.what(), (dir_ / "absent.safetensors").generic_string() + ": cannot open");
  }
}

TEST_F(safetensors, AFailedWriteKeepsThePreviousCheckpoint) {
  const fs::path path = dir_ / "ckpt.safetensors";
  write_safetensors(path, {Tensor::from_f64("w", {2}, std::vector<double>{1, 2})}, {{"step", "100"}});
  for (int i = 0; i < 5; ++i)
    write_safetensors(path, {Tensor::from_f64("w", {2}, std::vector<double>{1.0 * i, 2})}, {{"step", "200"}});
  // A bad tensor is refused before anything touches the file.
  Tensor broken{"w", Dtype::F32, {3}, {0, 0, 0, 0}};
  EXPECT_THROW(write_safetensors(path, {broken}), InputError);
  EXPECT_THROW(write_safetensors(path, {Tensor::from_f32("a", {1}, std::vector<float>{1}),
                                        Tensor::from_f32("a", {1}, std::vector<float>{2})}),
               InputError);
  const SafetensorsFile f = read_safetensors(path);
  EXPECT_EQ(f.metadata.at("step"), "200");
  EXPECT_EQ(f.at("w").to_f64(), (std::vector<double>{4, 2}));
  // No temporaries are left behind.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  // Writing into a missing directory fails loudly and leaves nothing.
  EXPECT_THROW(write_safetensors(dir_ / "no" / "such.safetensors", {}), std::runtime_error);
}

// Against Python: experiments/reference/safetensors_io.py (the safetensors package when installed,
// else its own reader and writer of the format) reads our file and writes one we read. Needs python3
// with torch: a skip elsewhere, a failure under scripts/test.sh (tests/support/required_check.hpp).
TEST_F(safetensors, AgreesWithPython) {
  const std::string python = proteus::test_support::python_with("torch");
  if (python.empty()) PROTEUS_SKIP_UNLESS_REQUIRED("no python3 with torch found (Debian: python3-torch)");
  const fs::path ours = dir_ / "ours.safetensors";
  const fs::path theirs = dir_ / "theirs.safetensors";
  write_safetensors(ours, {Tensor::from_f32("w", {2}, std::vector<float>{1.5f, -2.0f}),
                           Tensor::from_i64("n", {1}, std::vector<int64_t>{7})},
                    {{"k", "v"}});
  const fs::path script = dir_ / "check.py";
  std::ofstream(script) << "import sys\n"
                           "sys.path.insert(0, sys.argv[3])\n"
                           "import torch, safetensors_io\n"
                           "t = safetensors_io.load(sys.argv[1])\n"
                           "assert t['w'].dtype == torch.float32 and t['w'].tolist() == [1.5, -2.0], t\n"
                           "assert t['n'].dtype == torch.int64 and t['n'].tolist() == [7], t\n"
                           "safetensors_io.save(sys.argv[2], {'x': torch.tensor([0.25, 8.0], dtype=torch.float64)},\n"
                           "                    metadata={'from': 'python'})\n";
  const auto r = proteus::test_support::run_program({python, script.string(), ours.string(), theirs.string(),
                                                     std::string(PROTEUS_SOURCE_DIR) + "/experiments/reference"});
  ASSERT_EQ(r.status, 0) << "python could not read our file, or could not write its own:\n" << r.out;
  const SafetensorsFile f = read_safetensors(theirs);
  EXPECT_EQ(f.at("x").to_f64(), (std::vector<double>{0.25, 8.0}));
  EXPECT_EQ(f.metadata.at("from"), "python");
}

}  // namespace
