#include "core/eval/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/data/byte_corpus.hpp"
#include "core/data/mqar.hpp"
#include "core/data/needle.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::eval {
namespace {

bool mix_has(const config::RunConfig& cfg, const std::string& task) {
  for (const auto& m : cfg.data.mix)
    if (m.task == task && m.weight > 0) return true;
  return false;
}

// Held-out text sequences of seq_len + 1 bytes, the same for every run of a corpus.
std::vector<std::vector<int32_t>> text_sequences(const data::ByteCorpus& corpus, int n, int seq_len) {
  std::mt19937_64 rng(0x7e57u);
  const auto flat = corpus.sample_windows(data::Split::val, n, seq_len, rng);
  std::vector<std::vector<int32_t>> out(n);
  for (int i = 0; i < n; ++i)
    out[i].assign(flat.begin() + static_cast<size_t>(i) * (seq_len + 1),
                  flat.begin() + static_cast<size_t>(i + 1) * (seq_len + 1));
  return out;
}

// "51 3 77": every asked needle's depth, percent, the requested one first.
std::string needle_depths_text(const std::vector<int>& depths) {
  std::string out;
  for (int d : depths) {
    if (!out.empty()) out += ' ';
    out += std::to_string(d);
  }
  return out;
}

}  // namespace

EvalReport evaluate(model::Model<float>& model, const config::RunConfig& cfg, const EvalProgress& progress) {
  EvalReport report;
  auto go_on = [&](const std::string& phase, double f) { return !progress || progress(phase, f); };
  const bool text = mix_has(cfg, "text") || mix_has(cfg, "niah");
  std::optional<data::ByteCorpus> corpus;
  if (text) corpus = data::ByteCorpus::load(cfg.data.text.path, cfg.data.text.holdout);
  const int batch = std::max(1, cfg.data.batch);

  if (cfg.eval.per_position.enabled && text) {
    if (!go_on("per-position loss", 0)) return report;
    const int L = cfg.eval.per_position.seq_len > 0 ? cfg.eval.per_position.seq_len : 2 * cfg.data.seq_len;
    const auto seqs = text_sequences(*corpus, cfg.eval.per_position.sequences, L);
    report.per_position = per_position_loss(model, seqs, cfg.eval.per_position.buckets, batch);
  }
  if (cfg.eval.occupancy.enabled && cfg.model.mixer.type == "memory") {
    if (!go_on("block occupancy", 0)) return report;
    const int L = cfg.eval.occupancy.seq_len > 0 ? cfg.eval.occupancy.seq_len : cfg.data.seq_len;
    const int B = 4;
    std::vector<int32_t> tokens;
    if (text) {
      for (const auto& s : text_sequences(*corpus, B, L)) tokens.insert(tokens.end(), s.begin(), s.end() - 1);
    } else if (mix_has(cfg, "needle") && !mix_has(cfg, "mqar")) {
      std::mt19937_64 rng(0x0cc);
      const auto& n = cfg.data.needle;
      for (int b = 0; b < B; ++b) {
        const auto s = data::needle::generate(n, n.forms.front(), L, 50, rng);
        tokens.insert(tokens.end(), s.prompt.begin(), s.prompt.end());
      }
    } else {
      std::mt19937_64 rng(0x0cc);
      const auto& m = cfg.data.mqar;
      for (int b = 0; b < B; ++b) {
        const auto s = data::mqar::generate(rng, L, m.vocab, m.pairs, m.alpha, m.layout);
        tokens.insert(tokens.end(), s.inputs.begin(), s.inputs.end());
      }
    }
    report.occupancy = block_occupancy(model, tokens, B, L, cfg.eval.occupancy.blocks);
  }
  if (cfg.eval.mqar.enabled) {
    if (!go_on("mqar", 0)) return report;
    report.mqar = mqar_eval(model, cfg);
  }
  if (cfg.eval.needle.enabled && mix_has(cfg, "needle")) {
    if (!go_on("needle", 0)) return report;
    bool cancelled = false;
    report.needle = needle_eval(model, cfg, [&](int done, int total) {
      cancelled = !go_on("needle " + std::to_string(done) + "/" + std::to_string(total), double(done) / total);
      return !cancelled;
    });
    if (cancelled) return report;
  }
  if (cfg.eval.niah.enabled && mix_has(cfg, "niah")) {
    if (!go_on("niah", 0)) return report;
    bool cancelled = false;
    report.niah = niah_eval(model, cfg, corpus ? &*corpus : nullptr, [&](int done, int total) {
      cancelled = !go_on("niah " + std::to_string(done) + "/" + std::to_string(total), double(done) / total);
      return !cancelled;
    });
  }
  return report;
}

void write_eval_report(runs::RunWriter& w, const EvalReport& r) {
  using nlohmann::json;
  if (r.per_position) {
    const auto& p = *r.per_position;
    std::vector<std::vector<double>> rows;
    for (size_t t = 0; t < p.nll.size(); ++t) rows.push_back({double(t + 1), p.nll[t], std::exp(p.nll[t])});
    w.write_csv("per_position.csv", {"position", "nll", "ppl"}, rows);
    rows.clear();
    for (size_t b = 0; b < p.bucket_nll.size(); ++b)
      rows.push_back({double(p.bucket_lo[b]), double(p.bucket_hi[b]), p.bucket_nll[b], std::exp(p.bucket_nll[b])});
    w.write_csv("per_position_buckets.csv", {"position_lo", "position_hi", "nll", "ppl"}, rows);
    w.write_json("per_position.json", {{"seq_len", p.seq_len},
                                       {"sequences", p.sequences},
                                       {"mean_nll", p.mean_nll},
                                       {"bits_per_byte", p.bits_per_byte()},
                                       {"nll", p.nll},
                                       {"bucket_lo", p.bucket_lo},
                                       {"bucket_hi", p.bucket_hi},
                                       {"bucket_nll", p.bucket_nll}});
  }
  if (r.niah) {
    json tasks = json::array();
    std::vector<std::vector<std::string>> rows;
    for (const auto& g : r.niah->tasks) {
      tasks.push_back({{"task", g.task}, {"lengths", g.lengths}, {"depths", g.depths}, {"score", g.score}, {"mean", g.mean}});
      for (size_t d = 0; d < g.depths.size(); ++d)
        for (size_t l = 0; l < g.lengths.size(); ++l)
          rows.push_back({g.task, std::to_string(g.depths[d]), std::to_string(g.lengths[l]), std::to_string(g.at(d, l))});
    }
    w.write_csv("niah.csv", {"task", "depth", "length", "score"}, rows);
    rows.clear();
    for (const auto& s : r.niah->samples)
      rows.push_back({s.task, std::to_string(s.length), std::to_string(s.depth), needle_depths_text(s.needle_depths),
                      s.expected, s.prediction, std::to_string(s.score)});
    w.write_csv("niah_samples.csv", {"task", "length", "depth", "needle_depths", "expected", "prediction", "score"},
                rows);
    w.write_json("niah.json", {{"tasks", tasks}});
  }
  if (r.needle) {
    const auto& n = *r.needle;
    json forms = json::array();
    std::vector<std::vector<std::string>> rows;
    for (const auto& g : n.forms) {
      forms.push_back({{"form", g.task}, {"lengths", g.lengths}, {"depths", g.depths}, {"score", g.score}, {"mean", g.mean}});
      for (size_t d = 0; d < g.depths.size(); ++d)
        for (size_t l = 0; l < g.lengths.size(); ++l)
          rows.push_back({g.task, std::to_string(g.depths[d]), std::to_string(g.lengths[l]), std::to_string(g.at(d, l)),
                          std::to_string(n.samples)});
    }
    w.write_csv("needle.csv", {"form", "depth", "length_tokens", "accuracy", "samples"}, rows);
    w.write_json("needle.json", {{"unit", "tokens"},
                                 {"score", "greedy answer token correct, % of samples per cell"},
                                 {"vocab", n.vocab},
                                 {"distractors", n.distractors},
                                 {"samples", n.samples},
                                 {"forms", forms}});
  }
  if (r.mqar)
    w.write_json("mqar.json", {{"samples", r.mqar->samples},
                               {"answers", r.mqar->answers},
                               {"accuracy", r.mqar->accuracy},
                               {"layout", r.mqar->layout},
                               {"note", r.mqar->note}});
  if (r.occupancy) {
    const auto& o = *r.occupancy;
    w.write_json("occupancy.json", {{"layers", o.layers},
                                    {"heads", o.heads},
                                    {"seq_len", o.seq_len},
                                    {"blocks", o.blocks},
                                    {"layout", "(layers, heads, seq_len, blocks)"},
                                    {"norms", o.norms}});
  }
}

EvalReport read_eval_report(const runs::RunReader& reader) {
  EvalReport r;
  const auto files = reader.results();
  auto has = [&](const std::string& f) { return std::find(files.begin(), files.end(), f) != files.end(); };
  if (has("per_position.json")) {
    const auto j = reader.read_json("per_position.json");
    PerPositionResult p;
    p.seq_len = j.at("seq_len");
    p.sequences = j.at("sequences");
    p.mean_nll = j.at("mean_nll");
    p.nll = j.at("nll").get<std::vector<double>>();
    p.bucket_lo = j.at("bucket_lo").get<std::vector<int>>();
    p.bucket_hi = j.at("bucket_hi").get<std::vector<int>>();
    p.bucket_nll = j.at("bucket_nll").get<std::vector<double>>();
    r.per_position = p;
  }
  if (has("niah.json")) {
    NiahResult n;
    const auto niah = reader.read_json("niah.json");  // kept alive: the loop runs over a part of it
    for (const auto& t : niah.at("tasks")) {
      NiahTaskGrid g;
      g.task = t.at("task");
      g.lengths = t.at("lengths").get<std::vector<int>>();
      g.depths = t.at("depths").get<std::vector<int>>();
      g.score = t.at("score").get<std::vector<double>>();
      g.mean = t.at("mean");
      n.tasks.push_back(g);
    }
    r.niah = n;
  }
  if (has("needle.json")) {
    const auto j = reader.read_json("needle.json");
    NeedleResult n;
    n.vocab = j.at("vocab");
    n.distractors = j.at("distractors");
    n.samples = j.at("samples");
    for (const auto& f : j.at("forms")) {
      NiahTaskGrid g;
      g.task = f.at("form");
      g.lengths = f.at("lengths").get<std::vector<int>>();
      g.depths = f.at("depths").get<std::vector<int>>();
      g.score = f.at("score").get<std::vector<double>>();
      g.mean = f.at("mean");
      n.forms.push_back(g);
    }
    r.needle = n;
  }
  if (has("mqar.json")) {
    const auto j = reader.read_json("mqar.json");
    MqarResult m;
    m.samples = j.at("samples");
    m.answers = j.at("answers");
    m.accuracy = j.at("accuracy");
    // Runs written before the layout switch used Zoology's layout and carry no note.
    m.layout = j.value("layout", std::string("pairs-first"));
    m.note = j.value("note", std::string());
    r.mqar = m;
  }
  if (has("occupancy.json")) {
    const auto j = reader.read_json("occupancy.json");
    OccupancyResult o;
    o.layers = j.at("layers");
    o.heads = j.at("heads");
    o.seq_len = j.at("seq_len");
    o.blocks = j.at("blocks");
    o.norms = j.at("norms").get<std::vector<float>>();
    r.occupancy = o;
  }
  return r;
}

}  // namespace proteus::eval
