#include "core/model/model_backend.hpp"

#include "core/backend/ops/open_widths_rule.hpp"
#include "core/memory/rule_descriptor.hpp"

namespace proteus::model {

backend::BackendChoice make_model_backend(const config::RunConfig& cfg) {
  backend::BackendChoice choice = backend::make_backend(cfg.device, cfg.threads);
  const config::MixerConfig& mixer = cfg.model.mixer;
  if (choice.device == "cpu" || mixer.type != config::MixerType::memory) return choice;
  backend::OpShape shape;  // the training shape; the refusals this answers do not depend on T
  shape.rule = mixer.rule;
  shape.B = cfg.data.batch, shape.T = cfg.data.seq_len, shape.H = mixer.heads;
  shape.d_k = mixer.d_head, shape.d_v = mixer.d_head, shape.window = mixer.window;
  shape.open_widths = mixer.block_axis != memory::BlockAxis::key_rows && mixer.E > 1;
  std::string why;
  if (choice.backend->rule_refused(mixer.rule))
    why = "its kernels disagreed with the CPU in the device's self-check";
  else if (backend::OpenWidthsRule<float>::supported(*choice.backend, shape, &why))
    return choice;
  const std::string asked = choice.device;
  backend::BackendChoice cpu = backend::make_backend("cpu", cfg.threads);
  cpu.message = "device " + asked + " cannot run model.mixer.rule " + std::string(memory::rule_name(mixer.rule)) +
                " for this model (" + why + "); running on the CPU";
  return cpu;
}

}  // namespace proteus::model
