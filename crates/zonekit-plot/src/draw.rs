//! Figures to PNG or SVG with plotters. Text uses the bundled DejaVu Sans through plotters'
//! `ab_glyph` back end, registered once as `sans-serif`, so no system font library is involved.

use crate::figure::{Axis, Figure, Panel};
use crate::{ImageFormat, PlotError, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// The bundled font (DejaVu Sans; its license is `fonts/DejaVuSans-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
/// The family name every text style uses.
pub const FAMILY: &str = "sans-serif";
/// Widest and tallest picture drawn, in pixels.
pub const MAX_SIDE: u32 = 2000;

static REGISTER: Once = Once::new();

/// Register the bundled font (idempotent).
pub fn register_font() {
    REGISTER.call_once(|| {
        // The font is a fixed, valid file: the only failure is a corrupt build.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// Text style of `size` px in the bundled font.
pub fn font(size: u32) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&BLACK)
}

/// The palette: colour-blind-safe hues (Okabe–Ito order), then grey.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 60, 20),
    RGBColor(100, 100, 100),
];

/// Palette colour `i` (cycling).
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A number for a tick label: integers with thousands separators, else up to 3 significant digits.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        let i = v.round() as i64;
        let s = i.unsigned_abs().to_string();
        let mut out = String::new();
        for (k, c) in s.chars().enumerate() {
            if k > 0 && (s.len() - k).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        if i < 0 { format!("-{out}") } else { out }
    } else {
        let d = if a >= 10.0 {
            1
        } else if a >= 1.0 {
            2
        } else {
            3
        };
        let s = format!("{v:.d$}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Split `text` into lines of at most about `width` characters, at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for w in text.split(' ') {
        let cur = lines.last_mut().expect("never empty");
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            lines.push(w.to_string());
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(w);
        }
    }
    lines
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Pixel size of a figure: up to 700 × 340 per panel, within [`MAX_SIDE`].
pub fn figure_size(fig: &Figure) -> (u32, u32) {
    let cols = fig.columns.max(1) as u32;
    let rows = fig.panels.len().div_ceil(fig.columns.max(1)).max(1) as u32;
    let w = (cols * 700).clamp(800, MAX_SIDE);
    let h = (rows * 340 + 60).min(MAX_SIDE);
    (w, h)
}

/// Draw `fig` into `path` (PNG or SVG by its extension).
pub fn write_figure(fig: &Figure, path: &Path) -> Result<()> {
    let size = figure_size(fig);
    let out = |e: String| PlotError::Output(format!("{}: {e}", path.display()));
    match ImageFormat::of(path)? {
        ImageFormat::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            draw_figure(&root, fig).and_then(|()| root.present().map_err(err)).map_err(out)
        }
        ImageFormat::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw_figure(&root, fig).and_then(|()| root.present().map_err(err)).map_err(out)
        }
    }
}

/// `fig` as SVG text (tests read its titles and legends).
pub fn figure_svg(fig: &Figure) -> Result<String> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, figure_size(fig)).into_drawing_area();
        draw_figure(&root, fig).and_then(|()| root.present().map_err(err)).map_err(PlotError::Output)?;
    }
    Ok(s)
}

/// Draw a figure on a drawing area.
pub fn draw_figure<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> std::result::Result<(), String> {
    register_font();
    root.fill(&WHITE).map_err(err)?;
    let body = root.titled(&fig.title, font(22)).map_err(err)?;
    let cols = fig.columns.max(1);
    let rows = fig.panels.len().div_ceil(cols).max(1);
    let cells = body.split_evenly((rows, cols));
    for (p, area) in fig.panels.iter().zip(cells.iter()) {
        draw_panel(area, p)?;
    }
    Ok(())
}

fn draw_note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    note: &str,
    top: i32,
) -> std::result::Result<(), String> {
    let (w, _) = area.dim_in_pixel();
    let chars = ((w as usize).saturating_sub(120) / 7).max(30);
    let style = font(13).color(&RGBColor(170, 30, 30));
    for (i, line) in wrap(note, chars).iter().enumerate() {
        area.draw_text(line, &style, (90, top + 18 * i as i32)).map_err(err)?;
    }
    Ok(())
}

/// Draw one panel.
pub fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel) -> std::result::Result<(), String> {
    let area = area.margin(6, 6, 10, 14);
    let ext = p.extent();
    let (Some((xr, yr)), true) = (p.x_range.zip(p.y_range).or(ext), ext.is_some()) else {
        let inner = area.titled(&p.title, font(16)).map_err(err)?;
        inner
            .draw(&Rectangle::new(
                [(0, 0), (inner.dim_in_pixel().0 as i32 - 1, inner.dim_in_pixel().1 as i32 - 1)],
                RGBColor(200, 200, 200),
            ))
            .map_err(err)?;
        return draw_note(&inner, p.note.as_deref().unwrap_or("no data"), 30);
    };
    let (mut x0, mut x1) = xr;
    if let Axis::Categories(c) = &p.x_axis {
        (x0, x1) = (-0.4, c.len().max(1) as f64 - 0.6);
    }
    if x1 <= x0 {
        (x0, x1) = (x0 - 0.5, x0 + 0.5);
    }
    let (y0, mut y1) = yr;
    // Headroom above the data for the legend.
    let cdf = p.x_axis == Axis::Log10;
    y1 = if cdf {
        100.0
    } else if y1 > y0 {
        y1 + (y1 - y0) * 0.35
    } else {
        y0 + 1.0
    };
    let mut chart = ChartBuilder::on(&area)
        .caption(&p.title, font(16))
        .margin(4)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let span = x1 - x0;
    let xfmt = |v: &f64| -> String {
        match &p.x_axis {
            Axis::Linear => num(*v),
            Axis::Log10 if span >= 1.5 => {
                if (v - v.round()).abs() < 1e-6 {
                    num(10f64.powf(v.round()))
                } else {
                    String::new()
                }
            }
            Axis::Log10 => num(10f64.powf(*v)),
            Axis::Categories(c) => {
                if (v - v.round()).abs() < 1e-6 && *v >= 0.0 {
                    c.get(v.round() as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
        }
    };
    let yfmt = |v: &f64| num(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(RGBColor(238, 238, 238))
        .bold_line_style(RGBColor(215, 215, 215));
    if let Axis::Categories(c) = &p.x_axis {
        mesh.x_labels(c.len() + 1);
    }
    mesh.draw().map_err(err)?;
    for b in &p.bands {
        let c = color(b.color);
        let mut pts: Vec<(f64, f64)> = b.points.iter().map(|&(x, _, h)| (x, h)).collect();
        pts.extend(b.points.iter().rev().map(|&(x, l, _)| (x, l)));
        chart
            .draw_series(std::iter::once(Polygon::new(pts, c.mix(0.22).filled())))
            .map_err(err)?
            .label(b.label.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], c.mix(0.3).filled()));
    }
    for s in &p.series {
        let c = color(s.color);
        let style = c.stroke_width(2);
        let anno = if s.dashed {
            chart.draw_series(DashedLineSeries::new(s.points.iter().copied(), 6, 4, style)).map_err(err)?
        } else {
            chart.draw_series(LineSeries::new(s.points.iter().copied(), style)).map_err(err)?
        };
        let dashed = s.dashed;
        anno.label(s.label.as_str()).legend(move |(x, y)| {
            let w = if dashed { 7 } else { 18 };
            PathElement::new(vec![(x, y), (x + w, y)], c.stroke_width(2))
        });
        if matches!(p.x_axis, Axis::Categories(_)) {
            chart.draw_series(s.points.iter().map(|&pt| Circle::new(pt, 3, c.filled()))).map_err(err)?;
        }
    }
    if !p.series.is_empty() || !p.bands.is_empty() {
        chart
            .configure_series_labels()
            .position(if cdf { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperRight })
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font(font(12))
            .draw()
            .map_err(err)?;
    }
    if let Some(n) = &p.note {
        draw_note(&area, n, 30)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(12345.4), "12,345");
        assert_eq!(num(-1500.0), "-1,500");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(0.125), "0.125");
        assert_eq!(num(10.0), "10");
    }

    #[test]
    fn wrapping_keeps_words() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("longword", 3), ["longword"]);
    }
}
