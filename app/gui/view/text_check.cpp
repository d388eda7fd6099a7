#include "app/gui/view/text_check.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <sstream>


namespace proteus::gui {
namespace {

struct GlyphUv {
  float u0, v0, u1, v1;
  ImWchar codepoint;
  float x0, x1, y0, advance;  // the glyph's box and advance, in pixels at its font's size
};

// Every visible glyph's texture rectangle, keyed by its top-left corner (a trimmed quad's corner
// lies inside its glyph's rectangle, so lookups search the rectangles around it).
std::vector<GlyphUv> glyph_rects(const ImFontAtlas& atlas) {
  std::vector<GlyphUv> out;
  for (const ImFont* font : atlas.Fonts)
    for (const ImFontGlyph& g : font->Glyphs)
      if (g.Visible) out.push_back({g.U0, g.V0, g.U1, g.V1, static_cast<ImWchar>(g.Codepoint), g.X0, g.X1, g.Y0, g.AdvanceX});
  return out;
}

struct Quad {
  ImVec2 min, max;       // the quad's bounding box on screen
  ImVec2 uv_min, uv_max;
};

struct Glyph {
  ImWchar codepoint;
  bool cut;
  ImVec2 min, max;
  float line_y;  // the top of the line it was drawn on (its box's top less the glyph's offset)
};

// The quad PrimRectUV writes at index k (vertices a, a+1, a+2, a+3; indices a a+1 a+2 a a+2 a+3),
// if that is what is there.
bool quad_at(const ImDrawList& list, const ImDrawCmd& cmd, unsigned k, Quad& q) {
  const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset + k;
  const unsigned a = idx[0];
  if (idx[1] != a + 1 || idx[2] != a + 2 || idx[3] != a || idx[4] != a + 2 || idx[5] != a + 3) return false;
  const ImDrawVert* v = list.VtxBuffer.Data + cmd.VtxOffset + a;
  if (v[0].uv.x == v[2].uv.x || v[0].uv.y == v[2].uv.y) return false;  // untextured (the white pixel)
  q.min = q.max = v[0].pos;
  for (int i = 1; i < 4; ++i) {
    q.min = ImVec2(std::min(q.min.x, v[i].pos.x), std::min(q.min.y, v[i].pos.y));
    q.max = ImVec2(std::max(q.max.x, v[i].pos.x), std::max(q.max.y, v[i].pos.y));
  }
  q.uv_min = ImVec2(std::min(v[0].uv.x, v[2].uv.x), std::min(v[0].uv.y, v[2].uv.y));
  q.uv_max = ImVec2(std::max(v[0].uv.x, v[2].uv.x), std::max(v[0].uv.y, v[2].uv.y));
  return true;
}

// The glyph whose texture rectangle holds the quad's, and whether the quad shows all of it
// across (trimmed_x) and down (trimmed_y).
const GlyphUv* glyph_of(const std::vector<GlyphUv>& glyphs, const Quad& q, bool& trimmed_x, bool& trimmed_y) {
  constexpr float eps = 1e-6f;
  for (const auto& g : glyphs) {
    if (q.uv_min.x < g.u0 - eps || q.uv_min.y < g.v0 - eps || q.uv_max.x > g.u1 + eps || q.uv_max.y > g.v1 + eps) continue;
    trimmed_x = !(std::abs(q.uv_min.x - g.u0) < eps && std::abs(q.uv_max.x - g.u1) < eps);
    trimmed_y = !(std::abs(q.uv_min.y - g.v0) < eps && std::abs(q.uv_max.y - g.v1) < eps);
    return &g;
  }
  return nullptr;
}

std::string utf8(ImWchar c) {
  char buf[8] = {};
  ImTextCharToUtf8(buf, c);
  return buf;
}

// Runs of glyphs on one line (a run ends where the next glyph is left of the last or on another
// line: glyphs share their line's top, give or take the font's glyph offsets).
void collect_runs(const std::vector<Glyph>& glyphs, const char* window, std::vector<DrawnText>& out) {
  size_t start = 0;
  for (size_t i = 1; i <= glyphs.size(); ++i) {
    const bool ends = i == glyphs.size() || std::abs(glyphs[i].line_y - glyphs[i - 1].line_y) > 1.0f ||
                      glyphs[i].min.x < glyphs[i - 1].min.x;
    if (!ends) continue;
    DrawnText run{window ? window : "", "", glyphs[start].min.x, glyphs[start].min.y, 0, false};
    for (size_t j = start; j < i; ++j) {
      run.text += utf8(glyphs[j].codepoint);
      run.height = std::max(run.height, glyphs[j].max.y - glyphs[j].min.y);
      run.cut |= glyphs[j].cut;
    }
    out.push_back(std::move(run));
    start = i;
  }
}

}  // namespace

std::vector<DrawnText> drawn_text(const ImDrawData& draw_data, const ImFontAtlas& atlas) {
  const auto glyphs = glyph_rects(atlas);
  std::vector<DrawnText> out;
  for (int l = 0; l < draw_data.CmdListsCount; ++l) {
    const ImDrawList& list = *draw_data.CmdLists[l];
    // Text may leave a window along an axis it scrolls on: that is scrolling, not cutting.
    const ImGuiWindow* window = list._OwnerName ? ImGui::FindWindowByName(list._OwnerName) : nullptr;
    // Without a horizontal scrollbar a user cannot scroll sideways, however wide the content.
    const bool scrolls_x = window && (window->Flags & ImGuiWindowFlags_HorizontalScrollbar) && window->ScrollMax.x > 0;
    const bool scrolls_y = window && window->ScrollMax.y > 0;
    std::vector<Glyph> seen;
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) continue;
      const ImVec4 clip = cmd.ClipRect;
      for (unsigned k = 0; k + 6 <= cmd.ElemCount;) {
        Quad q;
        bool trimmed_x = false, trimmed_y = false;
        const GlyphUv* g = quad_at(list, cmd, k, q) ? glyph_of(glyphs, q, trimmed_x, trimmed_y) : nullptr;
        if (!g) {
          k += 3;  // one triangle on
          continue;
        }
        // A glyph's box may reach past its advance (or before its pen position) by its bearing:
        // text whose pen stays inside the clip is whole even when a last glyph's box pokes out.
        const float px_per_unit = g->x1 > g->x0 ? (q.max.x - q.min.x) / (g->x1 - g->x0) : 1.0f;
        const float right_bearing = std::max(0.0f, g->x1 - g->advance) * px_per_unit;
        const float left_bearing = std::max(0.0f, -g->x0) * px_per_unit;
        const bool out_x = q.min.x < clip.x - left_bearing - 0.5f || q.max.x > clip.z + right_bearing + 0.5f;
        const bool out_y = q.min.y < clip.y - 0.5f || q.max.y > clip.w + 0.5f;
        // ImGui drops the glyphs it can tell are outside the clip; any left outside (turned text,
        // which the figure painter adds unclipped) are cut as much as those across the edge.
        // A glyph trimmed at the bottom of a window that scrolls down is scrolled, not cut.
        const bool cut = ((trimmed_x || out_x) && !scrolls_x) || ((trimmed_y || out_y) && !scrolls_y);
        seen.push_back({g->codepoint, cut, q.min, q.max, q.min.y - g->y0 * px_per_unit});
        k += 6;
      }
    }
    collect_runs(seen, list._OwnerName, out);
  }
  return out;
}

std::vector<CutText> find_cut_text(const ImDrawData& draw_data, const ImFontAtlas& atlas) {
  auto runs = drawn_text(draw_data, atlas);
  std::erase_if(runs, [](const DrawnText& r) { return !r.cut; });
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (!w->Active || w->Hidden || (w->Flags & ImGuiWindowFlags_HorizontalScrollbar)) continue;
    const float past = w->DC.CursorMaxPos.x - w->InnerClipRect.Max.x;
    // A collapsing header's frame reaches half the window padding past the clip edge by ImGui's
    // design (the header itself is drawn whole): that much is not a cut item.
    if (past > std::floor(std::max(w->WindowPadding.x, ImGui::GetStyle().WindowPadding.x) * 0.5f) + 1.0f)
      runs.push_back({w->Name, "(an item reaches " + std::to_string(int(std::ceil(past))) + " px past the window's right edge)",
                      w->InnerClipRect.Max.x, w->Pos.y, 0, true});
  }
  return runs;
}

std::string describe_cut_text(const CutText& cut) {
  std::ostringstream line;
  line << "cut-off text in " << cut.window << " at (" << cut.x << ", " << cut.y << "): \"" << cut.text << '"';
  return line.str();
}

}  // namespace proteus::gui
