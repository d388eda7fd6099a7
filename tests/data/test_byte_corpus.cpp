// The byte corpus: loading a folder and a single file, the fixed held-out split (deterministic,
// disjoint, independent of order and seed), windows that stay inside their split, the errors,
// and the shipped default corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "core/data/byte_corpus.hpp"
#include "core/common/input_error.hpp"
#include "tests/data/temp_corpus.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using proteus::InputError;
using proteus::data::ByteCorpus;
using proteus::data::Document;
using proteus::data::Split;
using proteus::data::testing::default_corpus_path;
using proteus::data::testing::letter_documents;
using proteus::data::testing::TempDir;

std::set<std::string> names(const ByteCorpus& c, Split split) {
  std::set<std::string> out;
  for (const auto& d : c.documents(split)) out.insert(d.name);
  return out;
}

using proteus::test_support::field_of;

TEST(ByteCorpus, LoadsEveryTxtFileOfAFolderAndNothingElse) {
  TempDir dir;
  for (int i = 0; i < 10; ++i)
    dir.write("doc" + std::to_string(i) + ".txt", "Document number " + std::to_string(i) + ".\n");
  dir.write("README.md", "not a document");
  dir.write("sub/deeper.txt", "not read either");
  const auto c = ByteCorpus::load(dir.path().string(), 0.2);
  EXPECT_EQ(c.documents(Split::train).size() + c.documents(Split::val).size(), 10u);
  EXPECT_EQ(c.documents(Split::val).size(), 2u);
  for (Split s : {Split::train, Split::val}) {
    for (const auto& d : c.documents(s)) {
      EXPECT_NE(d.text.find("Document number"), std::string::npos) << d.name;
      EXPECT_EQ(d.name.rfind("doc", 0), 0u) << d.name;
    }
    EXPECT_EQ(c.stream(s).find("not"), std::string::npos);
  }
}

// Issue 34: a symlink loop in a corpus folder is not a document and never an abort.
TEST(ByteCorpus, ASymlinkLoopInTheFolderIsSkipped) {
  TempDir dir;
  for (int i = 0; i < 10; ++i)
    dir.write("doc" + std::to_string(i) + ".txt", "Document number " + std::to_string(i) + ".\n");
  std::filesystem::create_symlink("loop.txt", dir / "loop.txt");
  const auto c = ByteCorpus::load(dir.path().string(), 0.2);
  EXPECT_EQ(c.documents(Split::train).size() + c.documents(Split::val).size(), 10u);
}

TEST(ByteCorpus, SplitIsDeterministicDisjointAndComplete) {
  TempDir dir;
  for (int i = 0; i < 40; ++i) dir.write("essay-" + std::to_string(i) + ".txt", std::string(100, char('a' + i % 26)));
  const auto a = ByteCorpus::load(dir.path().string(), 0.1);
  const auto b = ByteCorpus::load(dir.path().string(), 0.1);
  EXPECT_EQ(names(a, Split::val), names(b, Split::val));
  EXPECT_EQ(names(a, Split::val).size(), 4u);
  std::set<std::string> all = names(a, Split::train);
  for (const auto& n : names(a, Split::val)) EXPECT_TRUE(all.insert(n).second) << n << " is in both splits";
  EXPECT_EQ(all.size(), 40u);
}

TEST(ByteCorpus, SplitDependsOnNamesNotOnOrder) {
  auto docs = letter_documents(20, 50);
  const auto forward = ByteCorpus::from_documents(docs, 0.25);
  std::reverse(docs.begin(), docs.end());
  const auto backward = ByteCorpus::from_documents(docs, 0.25);
  EXPECT_EQ(names(forward, Split::val), names(backward, Split::val));
  EXPECT_EQ(names(forward, Split::val).size(), 5u);
  // Not simply the first or last names: the order is a hash of the names.
  const auto val = names(forward, Split::val);
  EXPECT_FALSE(val == (std::set<std::string>{"doc00.txt", "doc01.txt", "doc02.txt", "doc03.txt", "doc04.txt"}));
  EXPECT_FALSE(val == (std::set<std::string>{"doc15.txt", "doc16.txt", "doc17.txt", "doc18.txt", "doc19.txt"}));
}

TEST(ByteCorpus, HeldOutSplitHasAtLeastOneAndLeavesOneToTrainOn) {
  EXPECT_EQ(ByteCorpus::from_documents(letter_documents(3, 10), 0.01).documents(Split::val).size(), 1u);
  EXPECT_EQ(ByteCorpus::from_documents(letter_documents(3, 10), 0.99).documents(Split::train).size(), 1u);
}

TEST(ByteCorpus, SingleFileIsCutIntoParagraphGroups) {
  std::string text;
  std::vector<std::string> paragraphs;
  for (int i = 0; i < 60; ++i) {
    std::string p = "Paragraph " + std::to_string(i) + ".";
    while (p.size() < 300 + size_t(i) * 7) p += " More words here.";
    paragraphs.push_back(p);
    text += p + (i % 3 == 0 ? "\n\n\n" : "\n  \n");
  }
  TempDir dir;
  const auto c = ByteCorpus::load(dir.write("book.txt", text), 0.1);
  std::vector<Document> all = c.documents(Split::train);
  for (const auto& d : c.documents(Split::val)) all.push_back(d);
  std::sort(all.begin(), all.end(), [](const Document& a, const Document& b) {
    return std::stoi(a.name.substr(a.name.find('#') + 1)) < std::stoi(b.name.substr(b.name.find('#') + 1));
  });
  ASSERT_GE(all.size(), 4u);
  std::string joined;
  for (size_t k = 0; k < all.size(); ++k) {
    EXPECT_EQ(all[k].name, "book.txt#" + std::to_string(k));
    EXPECT_LE(all[k].text.size(), 8192u);
    if (k + 1 < all.size()) {
      EXPECT_GE(all[k].text.size(), 2048u) << all[k].name;
    }
    joined += (k ? "\n\n" : "") + all[k].text;
  }
  std::string want;
  for (size_t i = 0; i < paragraphs.size(); ++i) want += (i ? "\n\n" : "") + paragraphs[i];
  EXPECT_EQ(joined, want);
  EXPECT_FALSE(c.documents(Split::val).empty());
}

TEST(ByteCorpus, FileWithoutBlankLinesIsCutAtLineEnds) {
  std::string text;
  for (int i = 0; text.size() < 30000; ++i)
    text += "Line " + std::to_string(i) + " of a file with one paragraph per line.\n";
  TempDir dir;
  const auto c = ByteCorpus::load(dir.write("lines.txt", text), 0.2);
  const size_t n = c.documents(Split::train).size() + c.documents(Split::val).size();
  EXPECT_GE(n, 4u);
  for (Split s : {Split::train, Split::val})
    for (const auto& d : c.documents(s)) {
      EXPECT_LE(d.text.size(), 8192u);
      EXPECT_EQ(d.text.rfind("Line ", 0), 0u) << "a piece should start at a line: " << d.text.substr(0, 20);
    }
}

TEST(ByteCorpus, CrlfFilesSplitLikeLf) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += std::string(400, 'x') + "\r\n\r\n";
  TempDir dir;
  const auto c = ByteCorpus::load(dir.write("crlf.txt", text), 0.2);
  EXPECT_GE(c.documents(Split::train).size() + c.documents(Split::val).size(), 2u);
  for (Split s : {Split::train, Split::val})
    for (const auto& d : c.documents(s)) EXPECT_EQ(d.text.find_first_not_of("x\n"), std::string::npos);
}

TEST(ByteCorpus, ErrorsNameTheField) {
  TempDir dir;
  EXPECT_EQ(field_of([&] { ByteCorpus::load((dir.path() / "missing").string(), 0.05); }), "data.text.path");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.path().string(), 0.05); }), "data.text.path");  // no .txt files
  dir.write("blank.txt", "  \n\n \t\n");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.path().string(), 0.05); }), "data.text.path");  // no text
  dir.write("one.txt", "Only one short document.");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.path().string(), 0.05); }), "data.text.holdout");
  dir.write("two.txt", "A second document.");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.path().string(), 0.05); }), "(no error)");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.path().string(), 0.0); }), "data.text.holdout");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.path().string(), 1.0); }), "data.text.holdout");
  EXPECT_EQ(field_of([&] { ByteCorpus::load(dir.write("small.txt", "too small to split"), 0.05); }),
            "data.text.holdout");
}

TEST(ByteCorpus, WindowsStayInTheirSplitAndHaveTheirLength) {
  const auto c = ByteCorpus::from_documents(letter_documents(20, 300), 0.2);
  std::set<char> val_letters;
  for (const auto& d : c.documents(Split::val)) val_letters.insert(d.text[0]);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    const auto rows = c.sample_windows(Split::val, 3, 64, rng);
    ASSERT_EQ(rows.size(), 3u * 65u);
    for (int32_t t : rows) {
      ASSERT_TRUE(t >= 0 && t < 256);
      if (t != '\n') {
        ASSERT_TRUE(val_letters.count(char(t))) << "byte " << char(t) << " is not from the held-out split";
      }
    }
    for (char ch : c.window(Split::train, 1000, rng)) {  // longer than a split's document: wraps
      if (ch != '\n') {
        ASSERT_FALSE(val_letters.count(ch));
      }
    }
  }
}

TEST(ByteCorpus, SameGeneratorSameWindows) {
  const auto c = ByteCorpus::from_documents(letter_documents(20, 300), 0.2);
  std::mt19937_64 a(11), b(11), other(12);
  const auto wa = c.sample_windows(Split::train, 4, 100, a);
  EXPECT_EQ(wa, c.sample_windows(Split::train, 4, 100, b));
  EXPECT_NE(wa, c.sample_windows(Split::train, 4, 100, other));
}

TEST(ByteCorpus, DefaultCorpusIsTheBrownCorpusAsAscii) {
  const auto c = ByteCorpus::load(default_corpus_path(), 0.05);
  EXPECT_EQ(c.documents(Split::train).size() + c.documents(Split::val).size(), 500u);
  EXPECT_EQ(c.documents(Split::val).size(), 25u);
  const size_t bytes = c.stream(Split::train).size() + c.stream(Split::val).size();
  EXPECT_GT(bytes, 5'000'000u);
  EXPECT_LT(bytes, 8'000'000u);
  for (Split s : {Split::train, Split::val})
    for (unsigned char ch : c.stream(s)) ASSERT_TRUE(ch == '\n' || (ch >= 32 && ch < 127)) << int(ch);
  const std::string first_sentence = "The Fulton County Grand Jury said Friday";  // ca01.txt
  EXPECT_TRUE(c.stream(Split::train).find(first_sentence) != std::string::npos ||
              c.stream(Split::val).find(first_sentence) != std::string::npos);
  EXPECT_EQ(c.stream(Split::train).find("/at "), std::string::npos) << "part-of-speech tags left in";
}

}  // namespace
