// The run configuration as plain structs: every default lives here, in one place. The JSON
// reader and writer (config_json.hpp) validate against these and name the field path of any
// error ("model.mixer.E: must be in [1, 1024], got 0"). Nothing here includes JSON, so the
// model and the trainer take these structs without knowing the file format.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/rule_form.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::config {

// The config's own enumerated choices; a rule, its form, normalisation, block axis and schedule type
// are the memory room's enums. Each has one name table (config.cpp, core/memory): the JSON reader
// and writer, the window's combos, the help and the messages all read it, and nothing past the
// reader compares a choice's name.
enum class MixerType { memory, attention };  // attention: the Transformer reference
enum class OutputGate { none, swish, sigmoid };
enum class Tokenizer { bytes, bpe };
const std::vector<common::Named<MixerType>>& name_table(MixerType);
const std::vector<common::Named<OutputGate>>& name_table(OutputGate);
const std::vector<common::Named<Tokenizer>>& name_table(Tokenizer);
// JSON (nlohmann finds these by argument-dependent lookup) holds a choice as its name, never a number.
template <class Json>
void to_json(Json& j, MixerType value) { j = std::string(common::choice_name(value)); }
template <class Json>
void to_json(Json& j, OutputGate value) { j = std::string(common::choice_name(value)); }
template <class Json>
void to_json(Json& j, Tokenizer value) { j = std::string(common::choice_name(value)); }

struct MixerConfig {
  MixerType type = MixerType::memory;
  memory::Rule rule = memory::kDefaultRule;  // core/memory/rule_descriptor.cpp's table; docs/rules.md
  int heads = 2;
  int d_head = 32;              // d_k = d_v per head; the state has D = d_head^2 elements
  int conv = 4;                 // short causal depthwise convolution width; 0 = none
  bool decay = true;            // data-dependent retention a_t (Gated DeltaNet etc.); false: a = 1
  int window = 2;               // window c of a rule with window weights (rule_uses_gamma)
  int E = 1;                    // memory blocks; 1 = the baseline
  int N = 0;                    // schedule horizon in positions; 0 = data.seq_len
  memory::ScheduleSpec schedule;
  // How the mask meets the L2 normalisation of q and k (math.md section 3 is the first):
  //   normalize_then_mask   q, k normalised over all d_k rows, then masked (the paper's gating)
  //   mask_then_normalize   re-normalised over the open rows: an early write has full strength
  //   capped_renormalize    the same, but never scaled up past what an evenly spread key gets
  //                         (sqrt(d_k / open rows)): stable, and weak keys stay weak
  memory::KeyNormalize normalize = memory::KeyNormalize::normalize_then_mask;
  // Which form of the rule runs: auto (memory::resolve_rule_form, core/memory/rule_form.hpp, says
  // which) | recurrent (with checkpoints) | chunked (an error where it does not apply). Same
  // function, different cost.
  memory::RuleForm form = memory::RuleForm::automatic;
  // Which way the E blocks run (math.md section 8, core/memory/block_axis.hpp): key_rows (d_k / E key
  // rows per block, the default) | value_rows (d_v / E value dimensions; E must divide d_head) |
  // layer (blocks across the layer's heads; E must divide heads * d_head). value_rows and layer
  // take normalize_then_mask (E > 1).
  memory::BlockAxis block_axis = memory::BlockAxis::key_rows;
  // A gate on the read (math.md section 8): none (the default) | swish (fla's gated RMSNorm of Gated
  // DeltaNet) | sigmoid: o <- RMSNorm_h(o) ⊙ act(x W_g) per head, W_g: d_model -> heads * d_head.
  OutputGate output_gate = OutputGate::none;
};

// The paper's Hope-style extension: MLP hidden units in E blocks, unlocked over training steps.
struct ParamScheduleConfig {
  bool enabled = false;
  int E = 4;
  int N = 0;  // horizon in training steps; 0 = train.steps
  memory::ScheduleSpec schedule;
};

// One SwiGLU block of the MLP chain (math.md section 8, Hope-Attention): its parameters are updated
// every `every` training steps, with the mean of the gradients summed over those steps.
struct MlpBlockConfig {
  int every = 1;
};

// The MLP of each layer: a chain of SwiGLU blocks y = MLP_m(... MLP_1(h)), each with its own update
// period (C_1 = 1). The default, one block updated every step, is the one-MLP model.
struct MlpConfig {
  std::vector<MlpBlockConfig> chain = {MlpBlockConfig{}};
};

// The longest MLP chain a layer takes, and the longest update period of one of its blocks.
inline constexpr int kMaxMlpChain = 8;
inline constexpr int kMaxMlpEvery = 1 << 20;

struct ModelConfig {
  int vocab = 256;    // bytes
  int d_model = 128;
  int layers = 2;
  int d_hidden = 0;   // SwiGLU hidden width; 0 = 8/3 d_model rounded up to a multiple of 32
  double norm_eps = 1e-5;
  double init_std = 0.02;
  MixerConfig mixer;
  MlpConfig mlp;
  ParamScheduleConfig param_schedule;
};

struct TextConfig {
  std::string path = "assets/corpus/brown";  // a text file or a folder of them (one document per file)
  double holdout = 0.05;                     // fraction of documents held out for validation
};

struct NiahConfig {
  std::vector<std::string> tasks = {"s-niah-1"};  // s-niah-1..3, mk-niah-1..3, mv-niah, mq-niah
  std::string question = "short";                 // short | ruler (same wording in training and eval)
  double answer_weight = 1.0;                     // loss weight of the answer bytes in training rows
};

struct MqarConfig {
  int vocab = 8192;   // must exceed the sequence length
  int pairs = 8;
  // Empty: every training sequence holds `pairs`. Else each training sequence draws its count from
  // this list (Zoology's mixture), so one trained model is evaluated at every load (`pairs`).
  std::vector<int> train_pairs;
  double alpha = 0.01;  // power-law exponent of the query gaps (pairs-first)
  std::string layout = "pairs-first";  // pairs-first (Zoology's) | spread (pairs and queries interleaved)
};

// The token-level needle task (core/data/needle.hpp).
struct NeedleConfig {
  int vocab = 64;  // token 0 asks; keys, values (a quarter each) and filler split the rest
  std::vector<std::string> forms = {"single", "multikey"};
  int distractors = 3;  // multikey: needles besides the asked one
  // Loss weight of the answer token, a row's only weighted token: near seq_len, a needle row
  // weighs in the loss as much as a text row does (whose seq_len tokens weigh 1 each).
  double answer_weight = 1.0;
};

struct MixItem {
  std::string task = "text";  // text | niah | mqar | needle
  double weight = 1.0;
};

struct DataConfig {
  int seq_len = 256;  // tokens
  int batch = 8;
  // How text becomes tokens (math.md section 8): bytes (256 ids, today's model) | bpe (a SentencePiece
  // BPE of `vocab` pieces trained on the training split, kept in the run folder as tokenizer.model;
  // model.vocab follows vocab unless a file gives both). Text and its evaluation only: MQAR, the needle and NIAH rows
  // keep their own ids, so bpe is refused where the mix draws them.
  Tokenizer tokenizer = Tokenizer::bytes;
  int vocab = 0;                 // bpe pieces; 0 with bytes
  std::string tokenizer_hash;    // set by training: the hash of RUN/tokenizer.model (16 hex digits)
  TextConfig text;
  std::vector<MixItem> mix = {MixItem{}};
  NiahConfig niah;
  MqarConfig mqar;
  NeedleConfig needle;
};

struct TrainConfig {
  int steps = 300;
  double lr = 3e-3;
  double min_lr = 3e-4;      // cosine decays to this
  int warmup = 30;           // linear warm-up steps
  double weight_decay = 0.1;
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double grad_clip = 1.0;    // global norm; 0 = off
  int log_every = 10;
  int eval_every = 100;      // held-out bits per byte
  int val_batches = 4;
  int checkpoint_every = 100;
};

struct PerPositionEvalConfig {
  bool enabled = true;
  int seq_len = 0;    // 0 = 4 x data.seq_len (past the training length, as far as the paper looks)
  int sequences = 128;  // enough for intervals that separate a real effect from noise
  int buckets = 24;   // log-spaced position buckets
};

struct NiahEvalConfig {
  bool enabled = true;
  std::vector<std::string> tasks;  // empty = data.niah.tasks
  std::vector<int> lengths;        // empty = half, one and two times data.seq_len
  int depths = 5;                  // evenly spread over RULER's 40 depths
  int samples = 4;                 // per (depth, length) cell
  int max_new_bytes = 48;          // greedy decoding budget; stops at a newline
};

struct NeedleEvalConfig {
  bool enabled = true;
  std::vector<std::string> forms;  // empty = data.needle.forms
  std::vector<int> lengths;        // tokens; empty = half, one and two times data.seq_len
  int depths = 5;                  // evenly spread over RULER's 40 depths
  int samples = 16;                // per (depth, length) cell
};

struct MqarEvalConfig {
  bool enabled = false;
  int samples = 64;
};

struct OccupancyEvalConfig {
  bool enabled = true;
  int blocks = 16;   // display partition of each head's state (independent of E)
  int seq_len = 0;   // 0 = data.seq_len
};

struct EvalConfig {
  PerPositionEvalConfig per_position;
  NiahEvalConfig niah;
  NeedleEvalConfig needle;
  MqarEvalConfig mqar;
  OccupancyEvalConfig occupancy;
};

struct RunConfig {
  std::string name = "run";
  uint64_t seed = 1;
  // The seed group this run belongs to ("quickstart-baseline" for "quickstart-baseline-s2"): the runs
  // of one variant trained with an experiment's "seeds"; empty for a run outside any group.
  std::string group;
  std::string device = "cpu";  // cpu | cuda (falls back to cpu with a message when no GPU)
  int threads = 0;             // CPU threads; 0 = all cores
  std::string runs_dir = "runs";
  ModelConfig model;
  DataConfig data;
  TrainConfig train;
  EvalConfig eval;
};

// The devices a run may name (device: cpu, cuda): the validator, the window's list and the messages.
const std::vector<std::string>& device_names();

// One line for the window: "MLP chain: 3 SwiGLU blocks, updated every 1, 4, 16 steps", or "MLP: one
// SwiGLU block, updated every step" for the default.
std::string describe_mlp_chain(const MlpConfig& mlp);

// Derived values with their defaults resolved (d_hidden, horizons, eval lengths).
int resolved_d_hidden(const ModelConfig& m);
int resolved_mixer_horizon(const RunConfig& c);
int resolved_param_horizon(const RunConfig& c);
// The per-position evaluation's length: eval.per_position.seq_len, or 4 x data.seq_len (the paper
// evaluates to 4x its training length).
int resolved_per_position_length(const RunConfig& c);

}  // namespace proteus::config
