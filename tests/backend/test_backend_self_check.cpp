// The self-check that guards users from a wrong kernel, proven on the CPU with fake backends
// registered under test names: a backend with a wrong matmul (or one that throws) is refused
// with a message naming the op and its error, and the run gets the CPU; a correct one passes and
// is selected; the verdict is kept for the process (the second request runs no check). A wrong
// chunked form of one rule is refused for that rule alone: the backend stays, the rule runs its
// recurrent form, and the run says so in one line (the per-op fallback a new GPU kernel relies on):
// delta's and swla's. A rule wrong on both forms is refused alone (delta's, gla's): a model of it
// runs on the CPU, every other op and rule keeps the device.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "core/backend/cases/case_check.hpp"
#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/cases/op_cases.hpp"
#include "core/backend/registry.hpp"
#include "core/backend/check/self_check.hpp"
#include "core/memory/gated_rule.hpp"
#include "tests/backend/faulty_backend.hpp"

namespace {

using namespace proteus::backend;
using proteus::backend::testing::Fault;
using proteus::backend::testing::FaultyBackend;

int factory_calls = 0;

void register_fake(const std::string& name, Fault fault) {
  register_backend(name, [name, fault](int, std::string*) -> std::unique_ptr<Backend<float>> {
    ++factory_calls;
    return std::make_unique<FaultyBackend>(fault, name);
  });
}

TEST(SelfCheck, RefusesAWrongMatmulAndNamesIt) {
  register_fake("test-wrong-matmul", Fault::matmul_off);
  const auto choice = make_backend("test-wrong-matmul", 1);
  std::printf("  what the run prints: %s\n", choice.message.c_str());
  EXPECT_EQ(choice.device, "cpu");
  ASSERT_NE(choice.backend, nullptr);
  EXPECT_EQ(choice.backend->name(), "cpu");
  EXPECT_NE(choice.message.find("test-wrong-matmul failed its self-check"), std::string::npos) << choice.message;
  EXPECT_NE(choice.message.find("matmul (out: normalised error"), std::string::npos) << choice.message;
  EXPECT_NE(choice.message.find("running on the CPU"), std::string::npos) << choice.message;
  // Only matmul is wrong: no other op is blamed.
  EXPECT_EQ(choice.message.find("memory_rule"), std::string::npos) << choice.message;
}

TEST(SelfCheck, RefusesABackendWhoseOpThrows) {
  register_fake("test-throwing-add", Fault::throws);
  const auto choice = make_backend("test-throwing-add", 1);
  EXPECT_EQ(choice.device, "cpu");
  EXPECT_NE(choice.message.find("add (threw: add: launch failed (injected))"), std::string::npos) << choice.message;
}

TEST(SelfCheck, SelectsACorrectBackendAndChecksItOncePerProcess) {
  register_fake("test-plain-cpu", Fault::none);
  const int calls_before = FaultyBackend::matmul_calls, factory_before = factory_calls;
  const auto first = make_backend("test-plain-cpu", 1);
  EXPECT_EQ(first.device, "test-plain-cpu");
  ASSERT_NE(first.backend, nullptr);
  EXPECT_EQ(first.backend->name(), "test-plain-cpu");
  EXPECT_TRUE(first.message.empty()) << first.message;
  EXPECT_GT(FaultyBackend::matmul_calls, calls_before) << "the first request must run the check";

  const int calls_after_first = FaultyBackend::matmul_calls;
  const auto second = make_backend("test-plain-cpu", 1);
  EXPECT_EQ(second.device, "test-plain-cpu");
  EXPECT_EQ(factory_calls, factory_before + 2);
  EXPECT_EQ(FaultyBackend::matmul_calls, calls_after_first) << "the verdict is kept: no second check";
}

TEST(SelfCheck, KeepsARefusalForTheProcess) {
  register_fake("test-wrong-twice", Fault::dw_overwritten);
  const auto first = make_backend("test-wrong-twice", 1);
  const int calls = FaultyBackend::matmul_calls;
  const auto second = make_backend("test-wrong-twice", 1);
  EXPECT_EQ(first.device, "cpu");
  EXPECT_EQ(second.device, "cpu");
  EXPECT_EQ(second.message, first.message);
  EXPECT_NE(second.message.find("matmul (dw: normalised error"), std::string::npos) << second.message;
  EXPECT_EQ(FaultyBackend::matmul_calls, calls);
}

// A backend whose chunked form of `wrong` is off: the self-check refuses that rule's chunked form
// alone, keeps the device, says so in one line, and every case then passes (`wrong` on the recurrent form).
void expect_only_rule_falls_back(Fault fault, proteus::memory::Rule wrong, proteus::memory::Rule other) {
  FaultyBackend be(fault);
  const std::string name(proteus::memory::rule_name(wrong));
  const SelfCheckVerdict v = self_check(be);
  EXPECT_TRUE(v.passed) << v.failure;
  ASSERT_EQ(v.chunked_refused.size(), 1u);
  EXPECT_EQ(v.chunked_refused[0], wrong);
  EXPECT_TRUE(be.chunked_form_refused(wrong));
  EXPECT_FALSE(be.chunked_form_refused(other));
  EXPECT_NE(v.notice.find("chunked form of memory rule " + name + " (memory_rule (memory_rule_" + name +
                          "_E1: o: normalised error"),
            std::string::npos)
      << v.notice;
  EXPECT_EQ(v.notice.find('\n'), std::string::npos) << "one line";
  auto oracle = make_cpu_backend<double>(1);
  for (const auto& c : op_cases()) EXPECT_TRUE(check_case(c, be, *oracle).passed()) << c.name;
}

TEST(SelfCheck, AWrongChunkedFormFallsBackToRecurrentForThatRuleOnly) {
  expect_only_rule_falls_back(Fault::chunked_delta_off, proteus::memory::Rule::delta, proteus::memory::Rule::linear);
}

// swla's chunked cases are guarded the same way (its chunked form is new on the GPU too).
TEST(SelfCheck, AWrongChunkedSwlaFallsBackToRecurrentForSwlaOnly) {
  expect_only_rule_falls_back(Fault::chunked_swla_off, proteus::memory::Rule::swla, proteus::memory::Rule::delta);
}

TEST(SelfCheck, KeepsTheDeviceAndSaysWhichRuleFellBack) {
  register_fake("test-wrong-chunked-delta", Fault::chunked_delta_off);
  for (int request = 0; request < 2; ++request) {  // the second instance gets the kept verdict's refusal
    const auto choice = make_backend("test-wrong-chunked-delta", 1);
    std::printf("  what the run prints: %s\n", choice.message.c_str());
    EXPECT_EQ(choice.device, "test-wrong-chunked-delta");
    ASSERT_NE(choice.backend, nullptr);
    EXPECT_TRUE(choice.backend->chunked_form_refused(proteus::memory::Rule::delta));
    EXPECT_FALSE(choice.backend->chunked_form_refused(proteus::memory::Rule::comba));
    EXPECT_NE(choice.message.find("device test-wrong-chunked-delta: the chunked form of memory rule delta"),
              std::string::npos)
        << choice.message;
    EXPECT_NE(choice.message.find("it runs on the recurrent kernel"), std::string::npos) << choice.message;
  }
}

// A rule wrong on its recurrent form too costs that rule, not the device: the backend stays for
// every other op and rule (each rule is its own kernel instance), the rule is refused on it, and
// the run's one line says a model of it runs on the CPU.
void expect_only_rule_refused(const std::string& device, Fault fault, proteus::memory::Rule wrong,
                              proteus::memory::Rule other) {
  register_fake(device, fault);
  const std::string name(proteus::memory::rule_name(wrong));
  for (int request = 0; request < 2; ++request) {  // the second instance gets the kept verdict's refusal
    const auto choice = make_backend(device, 1);
    std::printf("  what the run prints: %s\n", choice.message.c_str());
    EXPECT_EQ(choice.device, device);
    ASSERT_NE(choice.backend, nullptr);
    EXPECT_TRUE(choice.backend->rule_refused(wrong));
    EXPECT_FALSE(choice.backend->rule_refused(other));
    EXPECT_FALSE(choice.backend->chunked_form_refused(other));
    EXPECT_NE(choice.message.find("memory rule " + name + " (memory_rule (memory_rule_" + name + "_E1"),
              std::string::npos)
        << choice.message;
    EXPECT_NE(choice.message.find("a model of it runs on the CPU"), std::string::npos) << choice.message;
    EXPECT_EQ(choice.message.find('\n'), std::string::npos) << "one line";
  }
  // Every case of the other rules and ops passes on the backend it keeps.
  const auto kept = make_backend(device, 1);
  auto oracle = make_cpu_backend<double>(1);
  for (const auto& c : op_cases()) {
    if (c.op == Op::memory_rule && c.shape.rule == wrong) continue;
    EXPECT_TRUE(check_case(c, *kept.backend, *oracle).passed()) << c.name;
  }
}

TEST(SelfCheck, RefusesTheRuleWhenItsRecurrentFormIsWrongToo) {
  expect_only_rule_refused("test-wrong-delta", Fault::delta_off, proteus::memory::Rule::delta,
                           proteus::memory::Rule::comba);
}

// gla's recurrent CUDA kernel is new and not yet run on a GPU: this is what guards it.
TEST(SelfCheck, AWrongGlaKernelCostsGlaOnly) {
  expect_only_rule_refused("test-wrong-gla", Fault::gla_off, proteus::memory::Rule::gla,
                           proteus::memory::Rule::linear);
}

// A chunked kernel that faults the device (on CUDA an illegal address poisons the context): the
// self-check runs the chunked cases last and stops at the fault with every other op checked...
TEST(SelfCheck, StopsAtAChunkedCaseThatLosesTheDevice) {
  FaultyBackend be(Fault::chunked_comba_faults);
  const SelfCheckVerdict v = self_check(be);
  FaultyBackend::reset_device();
  EXPECT_FALSE(v.passed);
  ASSERT_TRUE(v.device_lost_by.has_value());
  EXPECT_EQ(*v.device_lost_by, proteus::memory::Rule::comba);
  EXPECT_NE(v.failure.find("memory_rule_comba_E1"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("illegal memory access"), std::string::npos) << v.failure;
  // Every case that is no chunked form's ran before it, and passed.
  int not_chunked = 0;
  for (const auto& c : op_cases()) not_chunked += !c.chunked_rule;
  EXPECT_GE(v.cases, not_chunked);
}

// ... and the registry resets the device, makes the backend again with comba's chunked form
// refused, and keeps it: one faulting kernel costs its rule, not the device.
TEST(SelfCheck, ResetsALostDeviceAndRefusesOnlyTheFaultingRule) {
  register_backend(
      "test-faulting-comba",
      [](int, std::string*) -> std::unique_ptr<Backend<float>> {
        return std::make_unique<FaultyBackend>(Fault::chunked_comba_faults, "test-faulting-comba");
      },
      FaultyBackend::reset_device);
  const int resets = FaultyBackend::resets;
  const auto choice = make_backend("test-faulting-comba", 1);
  std::printf("  what the run prints: %s\n", choice.message.c_str());
  EXPECT_EQ(FaultyBackend::resets, resets + 1);
  EXPECT_FALSE(FaultyBackend::device_poisoned);
  EXPECT_EQ(choice.device, "test-faulting-comba");
  ASSERT_NE(choice.backend, nullptr);
  EXPECT_TRUE(choice.backend->chunked_form_refused(proteus::memory::Rule::comba));
  EXPECT_FALSE(choice.backend->chunked_form_refused(proteus::memory::Rule::delta));
  EXPECT_NE(choice.message.find("chunked form of memory rule comba"), std::string::npos) << choice.message;
  EXPECT_NE(choice.message.find("faulted the device, which was reset"), std::string::npos) << choice.message;
  // The backend it returns runs every case, comba on its recurrent form.
  auto oracle = make_cpu_backend<double>(1);
  for (const auto& c : op_cases()) EXPECT_TRUE(check_case(c, *choice.backend, *oracle).passed()) << c.name;
}

// A device that cannot be reset is refused, saying why.
TEST(SelfCheck, RefusesALostDeviceThatCannotBeReset) {
  register_fake("test-faulting-no-reset", Fault::chunked_comba_faults);
  const auto choice = make_backend("test-faulting-no-reset", 1);
  FaultyBackend::reset_device();
  EXPECT_EQ(choice.device, "cpu");
  EXPECT_NE(choice.message.find("left the device unusable"), std::string::npos) << choice.message;
  EXPECT_NE(choice.message.find("cannot be reset"), std::string::npos) << choice.message;
}

TEST(SelfCheck, SkipsUnsupportedCasesAndPasses) {
  FaultyBackend be(Fault::no_attention);
  const SelfCheckVerdict v = self_check(be);
  EXPECT_TRUE(v.passed) << v.failure;
  EXPECT_EQ(v.skipped, 1);
  EXPECT_GT(v.cases, 20);
}

}  // namespace
