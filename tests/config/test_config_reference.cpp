// docs/config.md is the page the schema generates (`proteus config-reference`): every field the
// reader knows has a row with its default and values, and the committed page is exactly that text.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/config/config_json.hpp"
#include "core/config/config_reference.hpp"

namespace {

TEST(ConfigReference, EveryFieldOfTheSchemaHasARowWithItsDefault) {
  const std::string page = proteus::config::config_reference_markdown();
  for (const auto& path : proteus::config::config_paths())
    EXPECT_NE(page.find("| `" + path + "` |"), std::string::npos) << path;
  EXPECT_NE(page.find("| `model.mixer.E` | `1` | 1 to D = d_head^2 |"), std::string::npos);
  EXPECT_NE(page.find("| `data.seq_len` | `256` | 8 to 1048576 |"), std::string::npos) << "bounds from size_bounds()";
  EXPECT_NE(page.find("`linear`, `delta`, `comba`, `titans`, `swla`"), std::string::npos) << "rules from their table";
}

TEST(ConfigReference, TheCommittedPageIsTheGeneratedOne) {
  std::ifstream in(std::string(PROTEUS_SOURCE_DIR) + "/docs/config.md");
  ASSERT_TRUE(in) << "docs/config.md is missing: proteus config-reference > docs/config.md";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), proteus::config::config_reference_markdown())
      << "docs/config.md differs from the schema: regenerate it with proteus config-reference > docs/config.md";
}

}  // namespace
