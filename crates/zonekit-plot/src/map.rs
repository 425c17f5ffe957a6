//! The map of a device's zones: every zone a cell, coloured by its condition, the written part
//! (write pointer past the zone start over the zone capacity) in the full colour and the rest
//! pale, a legend with the number of zones in each condition.
//!
//! Cells run left to right, then top to bottom, zone 0 at the top left. The grid takes at most
//! [`GRID_W`] × [`GRID_H`] px: a cell is as large as fits (at most 64 px, at least 2 px); when the
//! zones do not fit at 2 px a cell, each cell stands for a run of consecutive zones, coloured by
//! the condition most of them have, filled to their mean level.

use crate::draw::{font, num, register_font};
use crate::{ImageFormat, PlotError, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use zonekit_core::zone::ALL_CONDS;
use zonekit_core::{Zone, ZoneCond, ZoneType};

/// Width of the cell grid, px.
pub const GRID_W: u32 = 1600;
/// Height of the cell grid, px.
pub const GRID_H: u32 = 1200;

/// One cell of the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// First zone of the cell.
    pub first: u64,
    /// Zones in the cell.
    pub zones: u64,
    /// The condition shown (the most common one of its zones).
    pub cond: ZoneCond,
    /// Written fraction, 0..=1.
    pub fill: f64,
}

/// The map's data.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneMap {
    /// Title (the device).
    pub title: String,
    /// Zones in the device.
    pub zones: u64,
    /// Zones per cell (1 unless the device has more zones than cells fit).
    pub per_cell: u64,
    /// Cells per row.
    pub columns: u32,
    /// Cell side, px.
    pub cell_px: u32,
    /// Cells, zone order.
    pub cells: Vec<Cell>,
    /// Zones per condition, in [`ALL_CONDS`] order.
    pub counts: [u64; 8],
}

/// Name of a condition as the legend shows it.
pub fn cond_label(c: ZoneCond) -> &'static str {
    match c {
        ZoneCond::NotWp => "conventional",
        ZoneCond::Empty => "empty",
        ZoneCond::ImplicitOpen => "implicit open",
        ZoneCond::ExplicitOpen => "explicit open",
        ZoneCond::Closed => "closed",
        ZoneCond::ReadOnly => "read-only",
        ZoneCond::Full => "full",
        ZoneCond::Offline => "offline",
    }
}

/// Colour of a condition.
pub fn cond_color(c: ZoneCond) -> RGBColor {
    match c {
        ZoneCond::NotWp => RGBColor(110, 110, 110),
        ZoneCond::Empty => RGBColor(150, 150, 150),
        ZoneCond::ImplicitOpen => RGBColor(0, 158, 115),
        ZoneCond::ExplicitOpen => RGBColor(86, 180, 233),
        ZoneCond::Closed => RGBColor(230, 159, 0),
        ZoneCond::ReadOnly => RGBColor(204, 121, 167),
        ZoneCond::Full => RGBColor(0, 90, 160),
        ZoneCond::Offline => RGBColor(200, 30, 30),
    }
}

fn cond_index(c: ZoneCond) -> usize {
    ALL_CONDS.iter().position(|&x| x == c).unwrap_or(0)
}

/// Written fraction of a zone.
pub fn fill(z: &Zone) -> f64 {
    match z.cond {
        ZoneCond::Full => 1.0,
        ZoneCond::NotWp => 1.0,
        ZoneCond::Empty | ZoneCond::ReadOnly | ZoneCond::Offline => 0.0,
        _ if z.zone_type == ZoneType::Conventional || z.capacity == 0 => 1.0,
        _ => (z.wp.saturating_sub(z.start) as f64 / z.capacity as f64).clamp(0.0, 1.0),
    }
}

/// Lay out a device's zones (all of them, in order).
pub fn layout(title: &str, zones: &[Zone]) -> ZoneMap {
    let n = zones.len() as u64;
    let mut counts = [0u64; 8];
    for z in zones {
        counts[cond_index(z.cond)] += 1;
    }
    let max_cells = (GRID_W / 2) as u64 * (GRID_H / 2) as u64;
    let per_cell = n.div_ceil(max_cells).max(1);
    let ncells = n.div_ceil(per_cell).max(1);
    // The largest square cell for which the grid fits.
    let mut cell_px = 64u32;
    while cell_px > 2 {
        let cols = (GRID_W / cell_px) as u64;
        if ncells.div_ceil(cols) * cell_px as u64 <= GRID_H as u64 {
            break;
        }
        cell_px -= 1;
    }
    let columns = ((GRID_W / cell_px) as u64).min(ncells).max(1) as u32;
    let cells = zones
        .chunks(per_cell as usize)
        .enumerate()
        .map(|(i, ch)| {
            let mut by = [0u64; 8];
            for z in ch {
                by[cond_index(z.cond)] += 1;
            }
            let top = (0..8).max_by_key(|&k| (by[k], std::cmp::Reverse(k))).unwrap_or(1);
            Cell {
                first: i as u64 * per_cell,
                zones: ch.len() as u64,
                cond: ALL_CONDS[top],
                fill: ch.iter().map(fill).sum::<f64>() / ch.len() as f64,
            }
        })
        .collect();
    ZoneMap { title: title.to_string(), zones: n, per_cell, columns, cell_px, cells, counts }
}

/// Image size of a map: the grid plus margins for the title, row labels and legend.
pub fn map_size(m: &ZoneMap) -> (u32, u32) {
    let rows = (m.cells.len() as u32).div_ceil(m.columns.max(1));
    let w = (m.columns * m.cell_px + 110).max(760);
    let h = rows * m.cell_px + 190;
    (w, h)
}

/// Draw a map into `path` (PNG or SVG by its extension).
pub fn write_map(m: &ZoneMap, path: &Path) -> Result<()> {
    let size = map_size(m);
    let out = |e: String| PlotError::Output(format!("{}: {e}", path.display()));
    match ImageFormat::of(path)? {
        ImageFormat::Png => {
            let root = BitMapBackend::new(path, size).into_drawing_area();
            draw_map(&root, m).and_then(|()| root.present().map_err(|x| x.to_string())).map_err(out)
        }
        ImageFormat::Svg => {
            let root = SVGBackend::new(path, size).into_drawing_area();
            draw_map(&root, m).and_then(|()| root.present().map_err(|x| x.to_string())).map_err(out)
        }
    }
}

/// A map as SVG text.
pub fn map_svg(m: &ZoneMap) -> Result<String> {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, map_size(m)).into_drawing_area();
        draw_map(&root, m).and_then(|()| root.present().map_err(|x| x.to_string())).map_err(PlotError::Output)?;
    }
    Ok(s)
}

/// Draw a map on a drawing area.
pub fn draw_map<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, m: &ZoneMap) -> std::result::Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    register_font();
    root.fill(&WHITE).map_err(e)?;
    root.draw_text(&m.title, &font(20), (20, 12)).map_err(e)?;
    let sub = if m.per_cell == 1 {
        format!(
            "{} zones, one cell each, zone 0 top left, left to right; the dark part of a cell is written (write pointer / zone capacity)",
            num(m.zones as f64)
        )
    } else {
        format!(
            "{} zones, {} consecutive zones per cell (the most common condition, mean fill), zone 0 top left",
            num(m.zones as f64),
            m.per_cell
        )
    };
    root.draw_text(&sub, &font(12).color(&RGBColor(60, 60, 60)), (20, 40)).map_err(e)?;
    // Legend: swatch, name and count per condition, two rows of four.
    for (i, c) in ALL_CONDS.iter().enumerate() {
        let x = 20 + (i as i32 % 4) * 180;
        let y = 64 + (i as i32 / 4) * 22;
        root.draw(&Rectangle::new([(x, y), (x + 14, y + 14)], cond_color(*c).filled())).map_err(e)?;
        let t = format!("{}: {}", cond_label(*c), num(m.counts[i] as f64));
        root.draw_text(&t, &font(13), (x + 20, y)).map_err(e)?;
    }
    let (gx, gy) = (90i32, 120i32);
    let px = m.cell_px as i32;
    let gap = if px >= 6 { 1 } else { 0 };
    let rows = (m.cells.len() as u32).div_ceil(m.columns.max(1));
    // Row labels: the first zone of a row, every few rows so they do not overlap.
    let every = (16 / px).max(1) as u32;
    for r in (0..rows).step_by(every as usize) {
        let z = r as u64 * m.columns as u64 * m.per_cell;
        let style = font(11).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Right,
            plotters::style::text_anchor::VPos::Center,
        ));
        root.draw_text(&num(z as f64), &style, (gx - 6, gy + r as i32 * px + px / 2)).map_err(e)?;
    }
    for (i, c) in m.cells.iter().enumerate() {
        let (col, row) = (i as i32 % m.columns as i32, i as i32 / m.columns as i32);
        let (x, y) = (gx + col * px, gy + row * px);
        let full = cond_color(c.cond);
        let pale = full.mix(0.28);
        let w = px - gap;
        root.draw(&Rectangle::new([(x, y), (x + w, y + w)], WHITE.filled())).map_err(e)?;
        root.draw(&Rectangle::new([(x, y), (x + w, y + w)], pale.filled())).map_err(e)?;
        let fw = (c.fill * w as f64).round() as i32;
        if fw > 0 {
            root.draw(&Rectangle::new([(x, y), (x + fw, y + w)], full.filled())).map_err(e)?;
        }
        if px >= 40 {
            let t = format!("{}", c.first);
            root.draw_text(&t, &font(11).color(&BLACK), (x + 3, y + 2)).map_err(e)?;
            if !matches!(c.cond, ZoneCond::NotWp) {
                let t = format!("{:.0}%", c.fill * 100.0);
                root.draw_text(&t, &font(11).color(&BLACK), (x + 3, y + w - 14)).map_err(e)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(i: u64, cond: ZoneCond, written: u64) -> Zone {
        Zone {
            start: i * 100,
            len: 100,
            capacity: 80,
            wp: i * 100 + written,
            zone_type: if cond == ZoneCond::NotWp { ZoneType::Conventional } else { ZoneType::SeqWriteRequired },
            cond,
            non_seq: false,
            reset: false,
        }
    }

    #[test]
    fn sixteen_zones_are_large_cells_with_fill() {
        let zs: Vec<Zone> = (0..16)
            .map(|i| {
                zone(
                    i,
                    if i < 2 {
                        ZoneCond::NotWp
                    } else if i == 2 {
                        ZoneCond::ImplicitOpen
                    } else {
                        ZoneCond::Empty
                    },
                    if i == 2 { 20 } else { 0 },
                )
            })
            .collect();
        let m = layout("d", &zs);
        assert_eq!(m.per_cell, 1);
        assert_eq!(m.cell_px, 64);
        assert_eq!(m.cells.len(), 16);
        assert_eq!(m.cells[2].fill, 0.25);
        assert_eq!(m.counts[cond_index(ZoneCond::Empty)], 13);
        assert_eq!(m.counts[cond_index(ZoneCond::NotWp)], 2);
    }

    #[test]
    fn a_large_drive_fits_within_2000_px() {
        let zs: Vec<Zone> = (0..55_880).map(|i| zone(i, ZoneCond::Empty, 0)).collect();
        let m = layout("d", &zs);
        assert_eq!(m.per_cell, 1);
        let (w, h) = map_size(&m);
        assert!(w <= 2000 && h <= 2000, "{w}x{h}");
        assert!(m.cell_px >= 4);
        let zs: Vec<Zone> =
            (0..1_000_000).map(|i| zone(i, if i % 3 == 0 { ZoneCond::Full } else { ZoneCond::Empty }, 0)).collect();
        let m = layout("d", &zs);
        assert!(m.per_cell > 1);
        let (w, h) = map_size(&m);
        assert!(w <= 2000 && h <= 2000, "{w}x{h}");
        assert_eq!(m.cells[0].cond, ZoneCond::Empty);
    }
}
