// The backend a model gets: the device asked for, unless that device's backend refuses the model's
// memory rule, when the model runs on the CPU with one line naming the rule and the reason (a rule
// with a retention per key row on a backend whose kernels read one a step, as CUDA's do). Proven
// with a fake backend registered under a test name.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/backend/registry.hpp"
#include "core/model/model_backend.hpp"
#include "tests/backend/faulty_backend.hpp"

namespace {

using namespace proteus;
using backend::testing::Fault;
using backend::testing::FaultyBackend;

config::RunConfig config_on(const std::string& device, memory::Rule rule) {
  config::RunConfig cfg;
  cfg.device = device;
  cfg.threads = 1;
  cfg.model.mixer.rule = rule;
  return cfg;
}

// A model of gla on `device` was sent to the CPU, with one line naming the device, the rule and why.
void expect_gla_moved_to_cpu(const std::string& device, const std::string& why) {
  const auto moved = model::make_model_backend(config_on(device, memory::Rule::gla));
  EXPECT_EQ(moved.device, "cpu");
  ASSERT_NE(moved.backend, nullptr);
  EXPECT_EQ(moved.backend->name(), "cpu");
  EXPECT_NE(moved.message.find("device " + device + " cannot run model.mixer.rule gla"), std::string::npos)
      << moved.message;
  EXPECT_NE(moved.message.find(why), std::string::npos) << moved.message;
  EXPECT_NE(moved.message.find("running on the CPU"), std::string::npos) << moved.message;
}

TEST(ModelBackend, ARuleTheDeviceRefusesRunsOnTheCpuAndSaysSo) {
  backend::register_backend("test-scalar-retention", [](int, std::string*) -> std::unique_ptr<backend::Backend<float>> {
    return std::make_unique<FaultyBackend>(Fault::scalar_retention, "test-scalar-retention");
  });
  const auto kept = model::make_model_backend(config_on("test-scalar-retention", memory::Rule::delta));
  EXPECT_EQ(kept.device, "test-scalar-retention");
  ASSERT_NE(kept.backend, nullptr);
  EXPECT_EQ(kept.backend->name(), "test-scalar-retention");
  EXPECT_TRUE(kept.message.empty()) << kept.message;

  expect_gla_moved_to_cpu("test-scalar-retention", "one retention a step (injected)");
}

// A rule the device's self-check refused (its kernel disagreed with the CPU on both forms) sends
// its models to the CPU; a model of another rule keeps the device.
TEST(ModelBackend, ARuleTheSelfCheckRefusedRunsOnTheCpuAndSaysSo) {
  backend::register_backend("test-wrong-gla-kernel", [](int, std::string*) -> std::unique_ptr<backend::Backend<float>> {
    return std::make_unique<FaultyBackend>(Fault::gla_off, "test-wrong-gla-kernel");
  });
  const auto kept = model::make_model_backend(config_on("test-wrong-gla-kernel", memory::Rule::linear));
  EXPECT_EQ(kept.device, "test-wrong-gla-kernel");
  expect_gla_moved_to_cpu("test-wrong-gla-kernel", "disagreed with the CPU in the device's self-check");
}

TEST(ModelBackend, TheCpuIsKeptAsItIs) {
  const auto cpu = model::make_model_backend(config_on("cpu", memory::Rule::gla));
  EXPECT_EQ(cpu.device, "cpu");
  EXPECT_TRUE(cpu.message.empty()) << cpu.message;
}

}  // namespace
