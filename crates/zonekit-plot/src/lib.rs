//! zonekit's pictures: plots of a benchmark run read back from fio's JSON result and log files,
//! maps of a device's zones, and the `zoned_qd1_writes` comparison tables, drawn with `plotters`
//! to PNG or SVG with a bundled font (DejaVu Sans), so no gnuplot, Python or system font library
//! is needed.
//!
//! The data each picture shows is built first as plain values ([`figure::Figure`]), which tests
//! check against the logs; [`draw`] only turns a figure into pixels or SVG.

pub mod draw;
pub mod figure;
pub mod logs;
pub mod map;
pub mod result;
pub mod run;
pub mod table;

use std::fmt;
use std::path::Path;

/// A picture that could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlotError {
    /// Bad input: an unreadable or malformed result, log or table file, or an unknown output
    /// format (the CLI exits 2).
    Input(String),
    /// The picture could not be written (the CLI exits 1).
    Output(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Input(m) | PlotError::Output(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PlotError {}

/// Result of this crate.
pub type Result<T> = std::result::Result<T, PlotError>;

/// The two output formats, chosen by the output file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// `.png`
    Png,
    /// `.svg`
    Svg,
}

impl ImageFormat {
    /// The format of `path` by its extension (`.png` or `.svg`, any case).
    pub fn of(path: &Path) -> Result<ImageFormat> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(PlotError::Input(format!("{}: the output file must end in .png or .svg", path.display()))),
        }
    }
}
