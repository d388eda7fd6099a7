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

nlohmann::json interval_json(const Interval& i) {
  return {{"mean", i.mean}, {"lo", i.lo}, {"hi", i.hi}, {"n", i.n}};
}

nlohmann::json intervals_json(const std::vector<Interval>& is) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& i : is) out.push_back(interval_json(i));
  return out;
}

Interval interval_from_json(const nlohmann::json& j) {
  // JSON has no NaN: the writer stores it as null.
  const auto number = [&](const char* key) {
    const auto& v = j.at(key);
    return v.is_null() ? std::nan("") : v.get<double>();
  };
  return {number("mean"), number("lo"), number("hi"), j.at("n").get<int>()};
}

std::vector<Interval> intervals_from_json(const nlohmann::json& j) {
  std::vector<Interval> out;
  for (const auto& e : j) out.push_back(interval_from_json(e));
  return out;
}

EvalReport evaluate(model::Model<float>& model, const config::RunConfig& cfg, const EvalProgress& progress,
                    const EvalParts& parts, const ProgressiveCurve& progressive) {
  EvalReport report;
  auto go_on = [&](const std::string& phase, double f) { return !progress || progress(phase, f); };
  const bool text = mix_has(cfg, "text") || mix_has(cfg, "niah");
  std::optional<data::ByteCorpus> corpus;
  if (text) corpus = data::ByteCorpus::load(cfg.data.text.path, cfg.data.text.holdout);
  const int batch = std::max(1, cfg.data.batch);

  if (parts.per_position && cfg.eval.per_position.enabled && text) {
    if (!go_on("per-position loss", 0)) return report;
    const int L = config::resolved_per_position_length(cfg);
    const auto seqs = text_sequences(*corpus, cfg.eval.per_position.sequences, L);
    // Polled after every batch, so a stale evaluation (Explore's) stops within one forward.
    PerPositionProgress by_batch;
    by_batch.on_batch = [&](int done, int total) { return go_on("per-position loss", static_cast<double>(done) / total); };
    if (progressive.on_partial) {
      by_batch.on_partial = progressive.on_partial;
      by_batch.first_batch = progressive.first_batch;
    }
    auto p = per_position_loss(model, seqs, cfg.eval.per_position.buckets, batch, cfg.data.seq_len, by_batch);
    if (p.sequences == 0) return report;
    report.per_position = std::move(p);
  }
  if (parts.occupancy && cfg.eval.occupancy.enabled && cfg.model.mixer.type == "memory") {
    if (!go_on("block occupancy", 0)) return report;
    const int L = cfg.eval.occupancy.seq_len > 0 ? cfg.eval.occupancy.seq_len : cfg.data.seq_len;
    const int B = 4;
    // Rows for the memory to read: the run's text, else its needle prompts, else its MQAR rows.
    // Empty when the data cannot make rows that long (MQAR needs a vocabulary beyond the length).
    const auto probe_tokens = [&](int rows, int len, uint64_t seed) {
      std::vector<int32_t> out;
      std::mt19937_64 rng(seed);
      if (text) {
        for (const auto& s : text_sequences(*corpus, rows, len)) out.insert(out.end(), s.begin(), s.end() - 1);
      } else if (mix_has(cfg, "needle") && !mix_has(cfg, "mqar")) {
        const auto& n = cfg.data.needle;
        for (int b = 0; b < rows; ++b) {
          const auto s = data::needle::generate(n, n.forms.front(), len, 50, rng);
          out.insert(out.end(), s.prompt.begin(), s.prompt.end());
        }
      } else if (cfg.data.mqar.vocab > len) {
        const auto& m = cfg.data.mqar;
        for (int b = 0; b < rows; ++b) {
          const auto s = data::mqar::generate(rng, len, m.vocab, m.pairs, m.alpha, m.layout);
          out.insert(out.end(), s.inputs.begin(), s.inputs.end());
        }
      }
      return out;
    };
    const auto tokens = probe_tokens(B, L, 0x0cc);
    if (!tokens.empty()) report.occupancy = block_occupancy(model, tokens, B, L, cfg.eval.occupancy.blocks);

    // Block use at N/4, N/2, N, 2N over more sequences than the picture needs: it is a number
    // with an interval.
    if (parts.block_use) {
      if (!go_on("block use", 0)) return report;
      const auto positions = block_use_positions(model.horizon());
      const int Lu = positions.back(), Bu = 16;
      const auto use_tokens = probe_tokens(Bu, Lu, 0xb10c);
      if (use_tokens.empty()) {
        report.block_use = BlockUseResult{};
        report.block_use->reason = "no sequences of " + std::to_string(Lu) + " tokens (2N) for this data";
      } else {
        report.block_use = block_use(model, use_tokens, Bu, Lu, positions);
      }
    }
  }
  if (parts.mqar && cfg.eval.mqar.enabled) {
    if (!go_on("mqar", 0)) return report;
    report.mqar = mqar_eval(model, cfg);
  }
  if (parts.needle && cfg.eval.needle.enabled && mix_has(cfg, "needle")) {
    if (!go_on("needle", 0)) return report;
    bool cancelled = false;
    report.needle = needle_eval(model, cfg, [&](int done, int total) {
      cancelled = !go_on("needle " + std::to_string(done) + "/" + std::to_string(total), double(done) / total);
      return !cancelled;
    });
    if (cancelled) return report;
  }
  if (parts.niah && cfg.eval.niah.enabled && mix_has(cfg, "niah")) {
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
    // mean, lo, hi, n: mean NLL (nats) over the bucket with its bootstrap interval over sequences.
    for (size_t b = 0; b < p.bucket_nll.size(); ++b) {
      const Interval i = b < p.bucket_interval.size() ? p.bucket_interval[b] : Interval{p.bucket_nll[b], p.bucket_nll[b], p.bucket_nll[b], 0};
      rows.push_back({double(p.bucket_lo[b]), double(p.bucket_hi[b]), i.mean, i.lo, i.hi, double(i.n), std::exp(i.mean)});
    }
    w.write_csv("per_position_buckets.csv", {"position_lo", "position_hi", "mean", "lo", "hi", "n", "ppl"}, rows);
    const double ln2 = std::log(2.0);
    const Interval& m = p.mean_interval;
    w.write_json("per_position.json", {{"seq_len", p.seq_len},
                                       {"sequences", p.sequences},
                                       {"mean_nll", p.mean_nll},
                                       {"bits_per_byte", p.bits_per_byte()},
                                       {"mean_nll_interval", interval_json(m)},
                                       {"bits_per_byte_interval", interval_json({m.mean / ln2, m.lo / ln2, m.hi / ln2, m.n})},
                                       {"nll", p.nll},
                                       {"bucket_lo", p.bucket_lo},
                                       {"bucket_hi", p.bucket_hi},
                                       {"bucket_nll", p.bucket_nll},
                                       {"bucket_interval", intervals_json(p.bucket_interval)},
                                       {"sequences_fingerprint", p.sequences_fingerprint},
                                       {"sequence_nll", p.sequence_nll},
                                       {"sequence_bucket_nll", p.sequence_bucket_nll},
                                       {"train_len", p.train_len},
                                       {"heldout_nll_interval", interval_json(p.train_interval)},
                                       {"heldout_bits_per_byte_interval", interval_json(p.heldout_bits_per_byte())},
                                       {"sequence_train_nll", p.sequence_train_nll}});
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
  if (r.block_use) {
    const auto& u = *r.block_use;
    json j = {{"applicable", u.applicable}};
    if (!u.applicable) {
      j["reason"] = u.reason;
    } else {
      j.update({{"layers", u.layers},
                {"heads", u.heads},
                {"blocks", u.blocks},
                {"sequences", u.sequences},
                {"positions", u.positions},
                {"open_blocks", u.open_blocks},
                {"layout", "share (layers, heads, positions, blocks); entropy (layers, heads, positions)"},
                {"share", u.share},
                {"entropy", intervals_json(u.entropy)},
                {"entropy_open", intervals_json(u.entropy_open)},
                {"mean_entropy", intervals_json(u.mean_entropy)}});
      std::vector<std::vector<double>> rows;
      for (size_t p = 0; p < u.positions.size(); ++p) {
        const auto& i = u.mean_entropy[p];
        rows.push_back({-1, -1, double(u.positions[p]), double(u.open_blocks[p]), i.mean, i.lo, i.hi, double(i.n)});
      }
      for (int l = 0; l < u.layers; ++l)
        for (int h = 0; h < u.heads; ++h)
          for (size_t p = 0; p < u.positions.size(); ++p) {
            const auto& i = u.entropy_at(l, h, static_cast<int>(p));
            rows.push_back({double(l), double(h), double(u.positions[p]), double(u.open_blocks[p]), i.mean, i.lo, i.hi, double(i.n)});
          }
      // layer = head = -1: the mean over layers and heads.
      w.write_csv("block_use.csv", {"layer", "head", "position", "open_blocks", "mean", "lo", "hi", "n"}, rows);
    }
    w.write_json("block_use.json", j);
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
    // Runs evaluated before intervals existed have none: they read back with empty statistics.
    if (j.contains("bucket_interval")) p.bucket_interval = intervals_from_json(j.at("bucket_interval"));
    if (j.contains("mean_nll_interval")) p.mean_interval = interval_from_json(j.at("mean_nll_interval"));
    if (j.contains("sequences_fingerprint")) p.sequences_fingerprint = j.at("sequences_fingerprint").get<uint64_t>();
    if (j.contains("sequence_nll")) p.sequence_nll = j.at("sequence_nll").get<std::vector<double>>();
    if (j.contains("sequence_bucket_nll"))
      p.sequence_bucket_nll = j.at("sequence_bucket_nll").get<std::vector<double>>();
    if (j.contains("train_len") && j.at("train_len").get<int>() > 0) {
      p.train_len = j.at("train_len");
      p.train_interval = interval_from_json(j.at("heldout_nll_interval"));
      p.sequence_train_nll = j.at("sequence_train_nll").get<std::vector<double>>();
    }
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
  if (has("block_use.json")) {
    const auto j = reader.read_json("block_use.json");
    BlockUseResult u;
    u.applicable = j.at("applicable").get<bool>();
    if (!u.applicable) {
      u.reason = j.value("reason", "");
    } else {
      u.layers = j.at("layers");
      u.heads = j.at("heads");
      u.blocks = j.at("blocks");
      u.sequences = j.at("sequences");
      u.positions = j.at("positions").get<std::vector<int>>();
      u.open_blocks = j.at("open_blocks").get<std::vector<int>>();
      u.share = j.at("share").get<std::vector<double>>();
      u.entropy = intervals_from_json(j.at("entropy"));
      u.entropy_open = intervals_from_json(j.at("entropy_open"));
      u.mean_entropy = intervals_from_json(j.at("mean_entropy"));
    }
    r.block_use = u;
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
