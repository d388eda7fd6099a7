// The run's settings in the controls column: model, memory blocks, data, training, device. Every
// widget edits the editor's config in place; the caller revalidates when one changed.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/schedule_controls.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/config/config.hpp"
#include "core/config/data_values.hpp"
#include "core/config/memory_regime.hpp"
#include "core/data/niah.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/rule_form.hpp"

namespace proteus::gui {
namespace {

double mix_weight(const config::DataConfig& d, const std::string& task) {
  for (const auto& m : d.mix)
    if (m.task == task) return m.weight;
  return 0.0;
}

void set_mix_weight(config::DataConfig& d, const std::string& task, double w) {
  for (auto it = d.mix.begin(); it != d.mix.end(); ++it)
    if (it->task == task) {
      if (w > 0) it->weight = w;
      else d.mix.erase(it);
      return;
    }
  if (w > 0) d.mix.push_back({task, w});
}

// The MLP chain (model.mlp.chain, Hope-Attention): block 1 updates every step; each later block's
// period is a field, and buttons add a block (4x the last period) or drop the last.
bool draw_mlp_chain(ExperimentEditor& ed) {
  bool changed = false;
  const auto& chain = ed.config().model.mlp.chain;
  ImGui::TextUnformatted("MLP chain");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("model.mlp.chain: SwiGLU blocks one after another in each layer (Hope-Attention's\n"
                      "chain behind the attention mixer), block i updated every chain[i].every training\n"
                      "steps with the mean of its summed gradients; block 1 updates every step");
  for (int i = 1; i < static_cast<int>(chain.size()); ++i) {
    int every = chain[i].every;
    const std::string label = "block " + std::to_string(i + 1) + " every";
    ImGui::PushID(i);
    if (input_int(label.c_str(), every, 1, config::kMaxMlpEvery, 1, 4)) ed.set_mlp_every(i, every), changed = true;
    ImGui::PopID();
  }
  if (static_cast<int>(chain.size()) < config::kMaxMlpChain && ImGui::SmallButton("+ MLP block"))
    ed.add_mlp_block(), changed = true;
  if (chain.size() > 1) {
    flow_same_line(ImGui::CalcTextSize("- MLP block").x + 2 * ImGui::GetStyle().FramePadding.x);
    if (ImGui::SmallButton("- MLP block")) ed.remove_mlp_block(), changed = true;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", config::describe_mlp_chain(ed.config().model.mlp).c_str());
  ImGui::PopStyleColor();
  return changed;
}

// Each section edits the editor's config in place (ExperimentEditor::edit_config, or its edits that
// keep the config valid) and returns true when a widget changed it.
bool draw_model_section(ExperimentEditor& ed) {
  bool changed = ed.edit_config([](config::RunConfig& c) {
    bool edited = false;
    auto& m = c.model.mixer;
    edited |= combo("mixer", m.type);
    if (m.type == config::MixerType::memory) {
      edited |= combo("rule", m.rule);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", ("The memory rule (model.mixer.rule; docs/rules.md): " +
                                 std::string(memory::describe(m.rule).summary)).c_str());
    }
    edited |= input_config_int("d_model", "model.d_model", c.model.d_model, 8, 64);
    edited |= input_config_int("layers", "model.layers", c.model.layers);
    edited |= input_config_int("heads", "model.mixer.heads", m.heads);
    edited |= input_config_int("d_head", "model.mixer.d_head", m.d_head, 2, 16);
    if (m.type == config::MixerType::memory) {
      edited |= input_config_int("conv width", "model.mixer.conv", m.conv);
      edited |= ImGui::Checkbox("data-dependent decay", &m.decay);
      if (memory::rule_uses_gamma(m.rule))
        edited |= input_config_int((std::string(memory::rule_name(m.rule)) + " window").c_str(), "model.mixer.window",
                                   m.window);
      edited |= combo("output gate", m.output_gate);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("A gate on the memory's read (model.mixer.output_gate): none (the default), swish (the\n"
                          "gated RMSNorm fla's Gated DeltaNet uses) or sigmoid: RMSNorm(o) * act(W_g x) per head");
    }
    return edited;
  });
  changed |= draw_mlp_chain(ed);
  return changed;
}

// Which form runs, the block axis and the normalisation: the choices with nothing to keep valid.
bool draw_mixer_choices(config::MixerConfig& m) {
  bool changed = combo("form", m.form);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", ("Which form of the rule runs (model.mixer.form): auto (" + std::string(memory::auto_form_rule()) +
                             "),\nrecurrent, or chunked. Same function, other cost.")
                                .c_str());
  changed |= combo("block axis", m.block_axis);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Which way the E blocks run (model.mixer.block_axis): key_rows (d_head / E key rows per\n"
                      "block, the default), value_rows (d_head / E value dimensions; E must divide d_head) or\n"
                      "layer (across the layer's heads, one head after another; E must divide heads x d_head)");
  changed |= combo("normalize", m.normalize);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("How the mask meets the normalisation of q and k (model.mixer.normalize):\n"
                      "normalize_then_mask (the paper's), mask_then_normalize, capped_renormalize");
  return changed;
}

bool draw_memory_section(ExperimentEditor& ed) {
  bool changed = draw_schedule_controls(ed, ScheduleLayout::column);
  // The ratios that place the run in the paper's regime (8-16 rows, 32-64 tokens) or outside it.
  ImGui::TextWrapped("%s", config::describe_regime(config::memory_regime(ed.config())).c_str());
  changed |= ed.edit_config([](config::RunConfig& edited) { return draw_mixer_choices(edited.model.mixer); });
  if (ed.config().model.mixer.schedule.type == memory::ScheduleType::custom)
    ImGui::TextDisabled("drag the unlock points under the activation map");
  return changed;
}

// A checkbox per NIAH task, flowing over as many rows as the column needs.
bool draw_niah_tasks(config::DataConfig& d) {
  bool changed = false;
  ImGui::TextUnformatted("NIAH tasks");
  int col = 0;
  for (const auto& t : data::niah::task_names()) {
    bool on = std::find(d.niah.tasks.begin(), d.niah.tasks.end(), t) != d.niah.tasks.end();
    if (col++) flow_same_line(ImGui::GetFrameHeight() + label_width(t.c_str()));
    if (ImGui::Checkbox(t.c_str(), &on)) {
      if (on) d.niah.tasks.push_back(t);
      else d.niah.tasks.erase(std::find(d.niah.tasks.begin(), d.niah.tasks.end(), t));
      changed = true;
    }
  }
  return changed;
}

// Bytes or a BPE trained on the training split (math.md section 8), through the editor, which keeps
// model.vocab equal to the tokenizer's.
bool draw_tokenizer(ExperimentEditor& ed) {
  const auto& d = ed.config().data;
  config::Tokenizer tokenizer = d.tokenizer;
  bool changed = false;
  if (combo("tokenizer", tokenizer)) ed.set_tokenizer(tokenizer), changed = true;
  if (d.tokenizer == config::Tokenizer::bpe) {
    int pieces = d.vocab;
    if (input_config_int("BPE pieces", "data.vocab", pieces, 256, 1024)) ed.set_bpe_vocab(pieces), changed = true;
    ImGui::TextDisabled("trained on the training split when the run starts, kept in the run folder; "
                        "seq_len and positions count tokens");
  }
  return changed;
}

// The data fields past the tokenizer, edited in place.
bool draw_data_fields(config::DataConfig& d) {
  bool changed = false;
  changed |= input_config_int("seq_len", "data.seq_len", d.seq_len, 32, 256);
  changed |= input_config_int("batch", "data.batch", d.batch);
  for (const auto& task : config::mix_task_names()) {
    float w = static_cast<float>(mix_weight(d, task));
    if (ImGui::SliderFloat(("weight: " + task).c_str(), &w, 0.0f, 1.0f, "%.2f"))
      set_mix_weight(d, task, w), changed = true;
  }
  changed |= ImGui::InputText("text file or folder", &d.text.path);
  ImGui::TextDisabled("any UTF-8 text file, or a folder of them");
  if (mix_weight(d, "niah") > 0) changed |= draw_niah_tasks(d);
  if (mix_weight(d, "mqar") > 0) {
    changed |= input_config_int("MQAR pairs", "data.mqar.pairs", d.mqar.pairs);
    changed |= input_config_int("MQAR vocab", "data.mqar.vocab", d.mqar.vocab, 256, 1024);
    if (!d.mqar.train_pairs.empty()) {
      std::string mix;
      for (int p : d.mqar.train_pairs) mix += (mix.empty() ? "" : ", ") + std::to_string(p);
      // The preset's mixture is kept as it is; "MQAR pairs" is then the load it is evaluated at.
      ImGui::TextDisabled("trained on %s pairs per sequence (data.mqar.train_pairs)", mix.c_str());
    }
  }
  return changed;
}

bool draw_data_section(ExperimentEditor& ed) {
  bool changed = draw_tokenizer(ed);
  return ed.edit_config([](config::RunConfig& c) { return draw_data_fields(c.data); }) || changed;
}

bool draw_training_section(config::TrainConfig& t) {
  bool changed = false;
  changed |= input_config_int("steps", "train.steps", t.steps, 10, 100);
  changed |= input_double("learning rate", t.lr, 1e-6, 1.0);
  changed |= input_double("min lr", t.min_lr, 0.0, 1.0);
  changed |= input_config_int("warm-up", "train.warmup", t.warmup, 10, 100);
  changed |= input_config_int("eval every", "train.eval_every", t.eval_every, 10, 100);
  changed |= input_config_int("log every", "train.log_every", t.log_every);
  return changed;
}

bool draw_device_section(config::RunConfig& c, const DeviceInfo& device) {
  bool changed = false;
  changed |= combo("device", c.device, config::device_names());
  changed |= input_config_int("CPU threads", "threads", c.threads);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("0 = all cores");
  ImGui::TextWrapped("%s", device.summary.c_str());
  if (c.device == "cuda" && !device.cuda) ImGui::TextDisabled("cuda requested: the run will fall back to the CPU");
  return changed;
}

}  // namespace

bool draw_run_settings(LabApp& app) {
  auto& ed = app.editor.experiment;
  const auto& c = ed.config();
  bool changed = false;
  if (ImGui::CollapsingHeader("Model", ImGuiTreeNodeFlags_DefaultOpen)) changed |= draw_model_section(ed);
  if (c.model.mixer.type == config::MixerType::memory && ImGui::CollapsingHeader("Memory blocks", ImGuiTreeNodeFlags_DefaultOpen))
    changed |= draw_memory_section(ed);
  if (ImGui::CollapsingHeader("Data")) changed |= draw_data_section(ed);
  if (ImGui::CollapsingHeader("Training", ImGuiTreeNodeFlags_DefaultOpen))
    changed |= ed.edit_config([](config::RunConfig& edited) { return draw_training_section(edited.train); });
  if (ImGui::CollapsingHeader("Device", ImGuiTreeNodeFlags_DefaultOpen))
    changed |= ed.edit_config([&](config::RunConfig& edited) { return draw_device_section(edited, app.device); });
  return changed;
}

}  // namespace proteus::gui
