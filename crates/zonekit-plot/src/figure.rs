//! What a picture shows, as plain values: panels with titles, axis labels, series of points,
//! percentile bands and notes. Built from the input files, checked by tests, then drawn.

/// A picture: a title over a grid of panels, filled row by row.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figure {
    /// The picture's title.
    pub title: String,
    /// Panels per row (several runs side by side are columns).
    pub columns: usize,
    /// The panels, row-major.
    pub panels: Vec<Panel>,
}

/// How an axis's numbers read.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Axis {
    /// Plain numbers.
    #[default]
    Linear,
    /// The values are log10 of the quantity; ticks show the quantity.
    Log10,
    /// The values are indices of these category names.
    Categories(Vec<String>),
}

/// One chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Panel {
    /// Caption above the chart.
    pub title: String,
    /// X axis label, with its unit.
    pub x_label: String,
    /// Y axis label, with its unit.
    pub y_label: String,
    /// How the x values read.
    pub x_axis: Axis,
    /// Lines.
    pub series: Vec<Series>,
    /// Shaded areas between two curves.
    pub bands: Vec<Band>,
    /// Shown instead of (or below) the data: what is missing and which option adds it.
    pub note: Option<String>,
    /// The y axis's range, when panels of a row share it; else from the data.
    pub y_range: Option<(f64, f64)>,
    /// The x axis's range, when panels of a row share it; else from the data.
    pub x_range: Option<(f64, f64)>,
}

/// A line.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub label: String,
    /// (x, y) points in x order.
    pub points: Vec<(f64, f64)>,
    /// Index into the palette.
    pub color: usize,
    /// Drawn dashed (reference figures, percentiles above the median).
    pub dashed: bool,
}

/// A shaded area between a lower and an upper curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Legend entry.
    pub label: String,
    /// (x, low, high) in x order.
    pub points: Vec<(f64, f64, f64)>,
    /// Index into the palette.
    pub color: usize,
}

impl Panel {
    /// The data's x and y extents (bands included), `None` when there is nothing to draw.
    pub fn extent(&self) -> Option<((f64, f64), (f64, f64))> {
        let pts = self.series.iter().flat_map(|s| s.points.iter().copied());
        let band = self.bands.iter().flat_map(|b| b.points.iter().flat_map(|&(x, l, h)| [(x, l), (x, h)]));
        let mut it = pts.chain(band).filter(|(x, y)| x.is_finite() && y.is_finite());
        let (x0, y0) = it.next()?;
        let (mut xr, mut yr) = ((x0, x0), (y0, y0));
        for (x, y) in it {
            xr = (xr.0.min(x), xr.1.max(x));
            yr = (yr.0.min(y), yr.1.max(y));
        }
        Some((xr, yr))
    }
}

/// Give every panel of each row the same x and y ranges (y from 0), so runs side by side compare
/// at a glance. Rows whose panels use categories or log axes share too.
pub fn share_rows(fig: &mut Figure) {
    let cols = fig.columns.max(1);
    for row in fig.panels.chunks_mut(cols) {
        let ext: Vec<_> = row.iter().filter_map(Panel::extent).collect();
        if ext.is_empty() {
            continue;
        }
        let x0 = ext.iter().map(|e| e.0.0).fold(f64::INFINITY, f64::min);
        let x1 = ext.iter().map(|e| e.0.1).fold(f64::NEG_INFINITY, f64::max);
        let y0 = ext.iter().map(|e| e.1.0).fold(f64::INFINITY, f64::min).min(0.0);
        let y1 = ext.iter().map(|e| e.1.1).fold(f64::NEG_INFINITY, f64::max);
        for p in row.iter_mut() {
            p.x_range.get_or_insert((x0, x1));
            p.y_range.get_or_insert((y0, y1));
        }
    }
}
