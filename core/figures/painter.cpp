// The cairo file painter: measures text with cairo (unhinted, so the image and the vector
// surfaces lay out alike), takes the figure's Layout and paints its primitives on an image (PNG),
// SVG or PDF surface. No layout decision is made here.
#include "core/figures/painter.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <numbers>
#include <stdexcept>

#include "core/common/input_error.hpp"
#include "core/common/atomic_file.hpp"

namespace proteus::figures {
namespace {

constexpr const char* kFont = "sans-serif";

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// Unhinted metrics: the same layout on the image and the vector surfaces.
void set_unhinted(cairo_t* cr) {
  cairo_font_options_t* o = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
  cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY);
  cairo_set_font_options(cr, o);
  cairo_font_options_destroy(o);
}

void set_font(cairo_t* cr, const TextStyle& style) {
  cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL, style.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, style.size);
}

double advance(cairo_t* cr, const std::string& s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  return e.x_advance;
}

MeasureText measure_with(cairo_t* cr) {
  return [cr](const std::string& s, const TextStyle& style) {
    set_font(cr, style);
    return advance(cr, s);
  };
}

// Paints a Layout's primitives in order; consecutive clipped ones share one clip.
class CairoPainter {
 public:
  CairoPainter(cairo_t* cr, const Layout& layout) : cr_(cr), L_(layout) {}

  void paint() {
    cairo_set_source_rgb(cr_, 1, 1, 1);
    cairo_paint(cr_);
    for (const auto& p : L_.primitives) {
      if (p.clipped != clipping_) {
        if (p.clipped) {
          cairo_save(cr_);
          cairo_rectangle(cr_, L_.plot.x, L_.plot.y, L_.plot.w, L_.plot.h);
          cairo_clip(cr_);
        } else {
          cairo_restore(cr_);
        }
        clipping_ = p.clipped;
      }
      std::visit([this](const auto& shape) { draw(shape); }, p.shape);
    }
    if (clipping_) cairo_restore(cr_);
  }

 private:
  void source(const Rgb& c, double alpha = 1) { cairo_set_source_rgba(cr_, c[0], c[1], c[2], alpha); }

  void draw(const Lines& l) {
    source(l.stroke.color);
    cairo_set_line_width(cr_, l.stroke.width);
    cairo_set_dash(cr_, l.stroke.dash.empty() ? nullptr : l.stroke.dash.data(), static_cast<int>(l.stroke.dash.size()), 0);
    cairo_set_line_join(cr_, l.stroke.round_join ? CAIRO_LINE_JOIN_ROUND : CAIRO_LINE_JOIN_MITER);
    for (const auto& b : l.boxes) cairo_rectangle(cr_, b.x, b.y, b.w, b.h);
    for (const auto& path : l.paths)
      for (size_t i = 0; i < path.size(); ++i)
        if (i == 0) cairo_move_to(cr_, path[i].x, path[i].y);
        else cairo_line_to(cr_, path[i].x, path[i].y);
    cairo_stroke(cr_);
    cairo_set_dash(cr_, nullptr, 0, 0);
    cairo_set_line_join(cr_, CAIRO_LINE_JOIN_MITER);
  }

  void draw(const Fill& f) {
    source(f.color, f.alpha);
    cairo_rectangle(cr_, f.box.x, f.box.y, f.box.w, f.box.h);
    cairo_fill(cr_);
  }

  void draw(const Cells&) {
    // Crisp cell edges on the image; vector surfaces ignore it.
    cairo_set_antialias(cr_, CAIRO_ANTIALIAS_NONE);
    for (const auto& c : L_.cells) {
      source(c.color);
      cairo_rectangle(cr_, c.box.x, c.box.y, c.box.w, c.box.h);
      cairo_fill(cr_);
    }
    cairo_set_antialias(cr_, CAIRO_ANTIALIAS_DEFAULT);
  }

  void draw(const Band& b) {
    if (b.upper.empty() || b.upper.size() != b.lower.size()) return;
    source(b.color, b.alpha);
    cairo_move_to(cr_, b.upper[0].x, b.upper[0].y);
    for (size_t i = 1; i < b.upper.size(); ++i) cairo_line_to(cr_, b.upper[i].x, b.upper[i].y);
    for (size_t i = b.lower.size(); i-- > 0;) cairo_line_to(cr_, b.lower[i].x, b.lower[i].y);
    cairo_close_path(cr_);
    cairo_fill(cr_);
  }

  void draw(const Dots& d) {
    source(d.color);
    for (const auto& c : d.centres) {
      cairo_new_sub_path(cr_);
      cairo_arc(cr_, c.x, c.y, d.radius, 0, 2 * std::numbers::pi);
    }
    cairo_fill(cr_);
  }

  void draw(const Text& t) {
    set_font(cr_, t.style);
    source(t.color);
    auto show = [&](double x, double y) {
      cairo_move_to(cr_, x - t.ax * advance(cr_, t.text), y + (1 - t.ay) * kCapHeight * t.style.size);
      cairo_show_text(cr_, t.text.c_str());
    };
    if (!t.vertical) return show(t.at.x, t.at.y);
    cairo_save(cr_);
    cairo_translate(cr_, t.at.x, t.at.y);
    cairo_rotate(cr_, -std::numbers::pi / 2);
    show(0, 0);
    cairo_restore(cr_);
  }

  void draw(const Gradient& g) {
    if (g.stops.empty()) return;
    cairo_pattern_t* p = cairo_pattern_create_linear(0, g.box.y + g.box.h, 0, g.box.y);
    const double last = std::max<double>(1, g.stops.size() - 1);
    for (size_t i = 0; i < g.stops.size(); ++i)
      cairo_pattern_add_color_stop_rgb(p, static_cast<double>(i) / last, g.stops[i][0], g.stops[i][1], g.stops[i][2]);
    cairo_rectangle(cr_, g.box.x, g.box.y, g.box.w, g.box.h);
    cairo_set_source(cr_, p);
    cairo_fill(cr_);
    cairo_pattern_destroy(p);
  }

  cairo_t* cr_;
  const Layout& L_;
  bool clipping_ = false;
};

void paint(cairo_t* cr, const Figure& f, double width_pt, double height_pt) {
  set_unhinted(cr);
  const Layout layout = layout_figure(f, width_pt, height_pt, measure_with(cr));
  CairoPainter(cr, layout).paint();
}

void check(cairo_status_t s, const char* what) {
  if (s != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cairo: ") + what + ": " + cairo_status_to_string(s));
}

#if defined(__SANITIZE_ADDRESS__)
#define PROTEUS_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROTEUS_LEAK_CHECKED 1
#endif
#endif

// Under a leak checker, cairo's and fontconfig's process-wide caches (font faces, the font
// configuration) are freed at exit, so that only real leaks are reported; it runs before the
// checker's own exit hook, which was registered first. Only the painter uses cairo here.
void release_font_caches_at_exit() {
#if defined(PROTEUS_LEAK_CHECKED)
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit([] {
      cairo_debug_reset_static_data();
      FcFini();
    });
  });
#endif
}

using SurfacePtr = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using ContextPtr = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

}  // namespace

FileFormat format_for(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".png") return FileFormat::png;
  if (ext == ".svg") return FileFormat::svg;
  if (ext == ".pdf") return FileFormat::pdf;
  throw InputError(file.string(), "unknown figure format '" + file.extension().string() +
                                      "' (expected .png, .svg or .pdf)");
}

void check_figure_size(double width_pt, double height_pt, double png_dpi) {
  auto in = [](const char* field, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "must be in [%g, %g], got %g", lo, hi, v);
      throw InputError(field, buf);
    }
  };
  in("width", width_pt, 50, 5000);
  in("height", height_pt, 50, 5000);
  in("dpi", png_dpi, 10, 2400);
  const double w = std::round(width_pt * png_dpi / 72), h = std::round(height_pt * png_dpi / 72);
  // cairo's image surfaces stop at 32767 pixels a side.
  if (w > 32767 || h > 32767) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "the PNG would be %.0f x %.0f pixels (at most 32767 a side)", w, h);
    throw InputError("dpi", buf);
  }
}

Layout file_layout(const Figure& f, double width_pt, double height_pt) {
  release_font_caches_at_exit();
  SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1), cairo_surface_destroy);
  check(cairo_surface_status(surface.get()), "image surface");
  ContextPtr cr(cairo_create(surface.get()), cairo_destroy);
  set_unhinted(cr.get());
  return layout_figure(f, width_pt, height_pt, measure_with(cr.get()));
}

std::string render_figure(const Figure& f, FileFormat format, double width_pt, double height_pt, double png_dpi) {
  check_figure_size(width_pt, height_pt, png_dpi);
  release_font_caches_at_exit();
  std::string bytes;
  if (format == FileFormat::png) {
    const double scale = png_dpi / 72;
    const long w = std::lround(width_pt * scale), h = std::lround(height_pt * scale);
    SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(w), static_cast<int>(h)),
                       cairo_surface_destroy);
    check(cairo_surface_status(surface.get()), "image surface");
    {
      ContextPtr cr(cairo_create(surface.get()), cairo_destroy);
      cairo_scale(cr.get(), scale, scale);
      paint(cr.get(), f, width_pt, height_pt);
      check(cairo_status(cr.get()), "painting");
    }
    cairo_surface_flush(surface.get());
    check(cairo_surface_write_to_png_stream(surface.get(), append_bytes, &bytes), "writing PNG");
    return bytes;
  }
  SurfacePtr surface(format == FileFormat::svg
                         ? cairo_svg_surface_create_for_stream(append_bytes, &bytes, width_pt, height_pt)
                         : cairo_pdf_surface_create_for_stream(append_bytes, &bytes, width_pt, height_pt),
                     cairo_surface_destroy);
  check(cairo_surface_status(surface.get()), format == FileFormat::svg ? "SVG surface" : "PDF surface");
  if (format == FileFormat::pdf) {
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
    if (!f.title.empty()) cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, f.title.c_str());
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "Proteus Lab");
#endif
  }
  {
    ContextPtr cr(cairo_create(surface.get()), cairo_destroy);
    paint(cr.get(), f, width_pt, height_pt);
    check(cairo_status(cr.get()), "painting");
  }
  cairo_surface_finish(surface.get());  // flushes the document's tail into `bytes`
  check(cairo_surface_status(surface.get()), "finishing");
  return bytes;
}

void save_figure(const Figure& f, const std::filesystem::path& file, double width_pt, double height_pt,
                 double png_dpi) {
  const FileFormat format = format_for(file);
  common::write_file_atomically(file, render_figure(f, format, width_pt, height_pt, png_dpi));
}

}  // namespace proteus::figures
