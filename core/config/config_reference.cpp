#include "core/config/config_reference.hpp"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/config/config.hpp"
#include "core/config/config_json.hpp"
#include "core/config/data_values.hpp"
#include "core/config/flat_fields.hpp"
#include "core/config/size_bounds.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/rule_form.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::config {
namespace {

// One row per schema field: what it means, and its range where neither a size bound nor a choice
// table gives it. The page is grouped by the path's first part, in schema order.
struct FieldDoc {
  std::string_view path;
  std::string_view meaning;
  std::string_view range = "";
};

const std::vector<FieldDoc>& field_docs() {
  static const std::vector<FieldDoc> rows = {
      {"name", "the run's name: its folder is RUNS_DIR/NAME (with -sSEED in a seed group)", "a plain folder name: 1 to 200 characters, no '/', '\\' or control characters, not starting with '.'"},
      {"seed", "seeds the weights, the data order and the evaluation's draws: same seed, same bits on one machine", "0 to 2^64 - 1"},
      {"group", "the seed group the run belongs to (set by an experiment's `seeds`); empty outside a group", "as `name`, or empty"},
      {"device", "where it trains; cuda falls back to the CPU with a message when no GPU answers"},
      {"threads", "CPU threads; 0 = all cores"},
      {"runs_dir", "where run folders go (a relative path is taken from the working folder)", "a folder"},
      {"model.vocab", "token ids the model knows: 256 for bytes; data.vocab with bpe"},
      {"model.d_model", "width of the residual stream"},
      {"model.layers", "layers, each a mixer and an MLP"},
      {"model.d_hidden", "SwiGLU hidden width; 0 = 8/3 d_model rounded up to a multiple of 32"},
      {"model.norm_eps", "RMSNorm's epsilon", "> 0"},
      {"model.init_std", "standard deviation of the normal initial weights", "> 0"},
      {"model.mixer.type", "memory (a gated memory rule) or attention (the Transformer reference)"},
      {"model.mixer.rule", "the memory rule (docs/rules.md; math.md section 3)"},
      {"model.mixer.heads", "heads of the mixer"},
      {"model.mixer.d_head", "d_k = d_v per head: the state has D = d_head^2 elements"},
      {"model.mixer.conv", "width of the short causal depthwise convolution on q, k, v; 0 = none"},
      {"model.mixer.decay", "data-dependent retention a_t (Gated DeltaNet's); false: a = 1"},
      {"model.mixer.window", "the window c of a rule with window weights gamma (docs/rules.md)"},
      {"model.mixer.E", "memory blocks; 1 = the ungated baseline (math.md section 2)", "1 to D = d_head^2"},
      {"model.mixer.N", "the schedule's horizon in positions; 0 = data.seq_len"},
      {"model.mixer.schedule.type", "how the E blocks unlock over positions (math.md section 2)"},
      {"model.mixer.schedule.power", "exponent of the power schedule (1 is uniform)", "> 0"},
      {"model.mixer.schedule.unlock", "the custom schedule's unlock positions, E of them, rising, the first 1", "E positions"},
      {"model.mixer.normalize", "how the mask meets the L2 normalisation of q and k (math.md section 3)"},
      {"model.mixer.form", "which form runs the rule: auto, recurrent (checkpointed) or chunked; same function, different cost"},
      {"model.mixer.block_axis", "which way the E blocks run (math.md section 8): key rows, value columns, or across the layer's heads"},
      {"model.mixer.output_gate", "a gate on the read (math.md section 8): o <- RMSNorm(o) ⊙ act(x W_g)"},
      {"model.mlp.chain", "the MLP of each layer as a chain of SwiGLU blocks, each {\"every\": C}: updated every C steps (Hope-Attention)", "1 to 8 blocks; every in [1, 2^20], the first 1"},
      {"model.param_schedule.enabled", "the parameter schedule: MLP hidden units in E blocks, unlocked over training steps"},
      {"model.param_schedule.E", "MLP unit blocks", "1 to d_hidden"},
      {"model.param_schedule.N", "the parameter schedule's horizon in steps; 0 = train.steps"},
      {"model.param_schedule.schedule.type", "how the unit blocks unlock over steps"},
      {"model.param_schedule.schedule.power", "exponent of the power schedule", "> 0"},
      {"model.param_schedule.schedule.unlock", "the custom schedule's unlock steps, E of them", "E steps"},
      {"data.seq_len", "training length in tokens"},
      {"data.batch", "sequences per training step"},
      {"data.tokenizer", "how text becomes tokens (math.md section 8): bytes, or a SentencePiece BPE trained on the training split and kept in the run folder"},
      {"data.vocab", "BPE pieces; 0 with bytes"},
      {"data.tokenizer_hash", "set by training: the hash of RUN/tokenizer.model; leave it out of a config you write", "16 hex digits, or empty"},
      {"data.text.path", "a text file or a folder of them (one document per file); relative paths of the shipped corpus are found from any folder", "a path"},
      {"data.text.holdout", "fraction of the documents held out for evaluation", "(0, 1)"},
      {"data.mix", "the training rows' tasks, each {\"task\": text | niah | mqar | needle, \"weight\": w}", "at least one task with weight > 0"},
      {"data.niah.tasks", "RULER's needle tasks drawn in training rows"},
      {"data.niah.question", "the question's wording, the same in training and evaluation"},
      {"data.niah.answer_weight", "loss weight of the answer bytes in training rows", ">= 0"},
      {"data.mqar.vocab", "MQAR's token ids", "above data.seq_len, at most model.vocab"},
      {"data.mqar.pairs", "key-value pairs per sequence (and the evaluated load)"},
      {"data.mqar.train_pairs", "empty: every training sequence holds `pairs`; else each draws its count from this list (Zoology's mixture)"},
      {"data.mqar.alpha", "power-law exponent of the query gaps (pairs-first)", "> 0"},
      {"data.mqar.layout", "pairs-first (Zoology's) or spread (pairs and queries interleaved)"},
      {"data.needle.vocab", "the token needle's ids: token 0 asks; keys, values and filler split the rest", "at most model.vocab"},
      {"data.needle.forms", "single (one needle) and multikey (distractors beside it)"},
      {"data.needle.distractors", "multikey: needles besides the asked one"},
      {"data.needle.answer_weight", "loss weight of a needle row's answer token", ">= 0"},
      {"train.steps", "training steps"},
      {"train.lr", "peak learning rate (AdamW)", "> 0"},
      {"train.min_lr", "the cosine schedule decays to this", "0 to train.lr"},
      {"train.warmup", "linear warm-up steps"},
      {"train.weight_decay", "AdamW's decoupled weight decay", ">= 0"},
      {"train.beta1", "AdamW's first-moment decay", "[0, 1)"},
      {"train.beta2", "AdamW's second-moment decay", "[0, 1)"},
      {"train.eps", "AdamW's epsilon", "> 0"},
      {"train.grad_clip", "global gradient-norm clip; 0 = off", ">= 0"},
      {"train.log_every", "steps between metrics records"},
      {"train.eval_every", "steps between held-out bits-per-byte checks"},
      {"train.val_batches", "batches in each held-out check"},
      {"train.checkpoint_every", "steps between checkpoints (a cut run resumes from the last)"},
      {"eval.per_position.enabled", "per-position loss after training"},
      {"eval.per_position.seq_len", "evaluated length; 0 = 4 x data.seq_len (past the training length)"},
      {"eval.per_position.sequences", "held-out sequences evaluated"},
      {"eval.per_position.buckets", "log-spaced position buckets of the curve"},
      {"eval.niah.enabled", "RULER-style needle-in-a-haystack grid after training"},
      {"eval.niah.tasks", "empty = data.niah.tasks"},
      {"eval.niah.lengths", "context lengths; empty = half, one and two times data.seq_len"},
      {"eval.niah.depths", "depths, evenly spread over RULER's 40"},
      {"eval.niah.samples", "samples per (depth, length) cell"},
      {"eval.niah.max_new_bytes", "greedy decoding budget; stops at a newline"},
      {"eval.needle.enabled", "the token needle grid after training"},
      {"eval.needle.forms", "empty = data.needle.forms"},
      {"eval.needle.lengths", "lengths in tokens; empty = half, one and two times data.seq_len"},
      {"eval.needle.depths", "depths, evenly spread over RULER's 40"},
      {"eval.needle.samples", "samples per (depth, length) cell"},
      {"eval.mqar.enabled", "MQAR accuracy after training"},
      {"eval.mqar.samples", "MQAR sequences evaluated"},
      {"eval.occupancy.enabled", "block occupancy (how much each block holds) after training"},
      {"eval.occupancy.blocks", "display partition of each head's state (independent of E)"},
      {"eval.occupancy.seq_len", "rows read for occupancy; 0 = data.seq_len"},
  };
  return rows;
}

// "`a`, `b`, `c`".
std::string choice_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out;
}

// The range a choice field takes, from its one name table.
std::map<std::string, std::string> choice_ranges() {
  const auto table = []<class E>(E) { return choice_list(common::choice_names<E>()); };
  return {
      {"device", choice_list(device_names())},
      {"model.mixer.type", table(MixerType{})},
      {"model.mixer.rule", table(memory::Rule{})},
      {"model.mixer.schedule.type", table(memory::ScheduleType{})},
      {"model.param_schedule.schedule.type", table(memory::ScheduleType{})},
      {"model.mixer.normalize", table(memory::KeyNormalize{})},
      {"model.mixer.form", table(memory::RuleForm{})},
      {"model.mixer.block_axis", table(memory::BlockAxis{})},
      {"model.mixer.output_gate", table(OutputGate{})},
      {"data.tokenizer", table(Tokenizer{})},
      {"data.niah.tasks", "each of " + choice_list(niah_task_names())},
      {"eval.niah.tasks", "each of " + choice_list(niah_task_names())},
      {"data.niah.question", choice_list(niah_question_styles())},
      {"data.mqar.layout", choice_list(mqar_layout_names())},
      {"data.needle.forms", "each of " + choice_list(needle_form_names())},
      {"eval.needle.forms", "each of " + choice_list(needle_form_names())},
  };
}

std::string range_of(const FieldDoc& row, const std::map<std::string, std::string>& choices) {
  if (const auto it = choices.find(std::string(row.path)); it != choices.end()) return it->second;
  if (const SizeBound* b = size_bound(row.path)) {
    std::string range = std::to_string(b->lo) + " to " + std::to_string(b->hi);
    return row.range.empty() ? range : range + "; " + std::string(row.range);
  }
  return std::string(row.range);
}

// `|` inside a table cell would end the cell.
std::string cell(std::string text) {
  for (size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

}  // namespace

std::string config_reference_markdown() {
  std::map<std::string, const FieldDoc*> rows;
  for (const auto& row : field_docs()) rows[std::string(row.path)] = &row;
  const auto paths = config_paths();
  const std::set<std::string> in_schema(paths.begin(), paths.end());
  for (const auto& [path, row] : rows)
    if (!in_schema.count(path)) throw std::logic_error("config reference: a row names no schema field: " + path);
  const auto defaults = flat_fields(RunConfig{}, JsonForm::as_given);
  const auto choices = choice_ranges();

  std::ostringstream md;
  md << "# Config reference\n\n"
        "Every field of a run config (JSON), with its default, the values it takes and what it means. "
        "Generated from the schema the reader and the writer walk (`core/config/config_schema.hpp`) by "
        "`proteus config-reference > docs/config.md`; a test fails when this page and the code differ. "
        "A field left out of a file takes its default; an experiment file (`parent`, `variants`, `seeds`, "
        "`sweep`) is described in [data.md](data.md). An unknown field or a value out of range is refused "
        "with a message naming the field.\n";
  std::string section;
  for (const auto& path : paths) {
    const auto it = rows.find(path);
    if (it == rows.end()) throw std::logic_error("config reference: the schema field " + path + " has no row");
    const std::string top = path.find('.') == std::string::npos ? "run" : path.substr(0, path.find('.'));
    if (top != section) {
      section = top;
      md << "\n## " << (top == "run" ? "The run" : "`" + top + "`") << "\n\n"
         << "| field | default | values | meaning |\n|---|---|---|---|\n";
    }
    const auto d = defaults.find(path);
    const std::string value = d == defaults.end() ? "" : d->second.dump();
    md << "| `" << path << "` | `" << cell(value) << "` | " << cell(range_of(*it->second, choices)) << " | "
       << cell(std::string(it->second->meaning)) << " |\n";
  }
  return md.str();
}

}  // namespace proteus::config
