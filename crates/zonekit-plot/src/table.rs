//! Side-by-side tables as line charts: a CSV with a header `table,x_name,x,SERIES...` and one
//! row per cell; one panel per table, x as categories in file order, series named `commit …`
//! drawn dashed (reference figures), the others solid; series k and k+2 share a colour (the
//! same mode measured and referenced).

use crate::figure::{Axis, Figure, Panel, Series};
use crate::{PlotError, Result};

/// Parse the CSV into a figure titled `title`, with y values in `y_label`.
pub fn figure(what: &str, text: &str, title: &str, y_label: &str) -> Result<Figure> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let bad = |n: usize, why: &str| PlotError::Input(format!("{what}:{n}: {why}"));
    let head: Vec<&str> = lines.next().ok_or_else(|| bad(1, "empty table"))?.split(',').map(str::trim).collect();
    if head.len() < 4 {
        return Err(bad(1, "the header is table,x_name,x,SERIES..."));
    }
    let names = &head[3..];
    let mut panels: Vec<Panel> = Vec::new();
    for (i, l) in lines.enumerate() {
        let cols: Vec<&str> = l.split(',').map(str::trim).collect();
        if cols.len() != head.len() {
            return Err(bad(i + 2, &format!("{} columns, the header has {}", cols.len(), head.len())));
        }
        if panels.last().is_none_or(|p| p.title != cols[0]) {
            panels.push(Panel {
                title: cols[0].to_string(),
                x_label: cols[1].replace('_', " "),
                y_label: y_label.to_string(),
                x_axis: Axis::Categories(Vec::new()),
                series: names
                    .iter()
                    .enumerate()
                    .map(|(k, n)| Series {
                        label: n.to_string(),
                        points: Vec::new(),
                        color: k % 2,
                        dashed: n.starts_with("commit"),
                    })
                    .collect(),
                ..Panel::default()
            });
        }
        let p = panels.last_mut().expect("pushed above");
        let Axis::Categories(cats) = &mut p.x_axis else { unreachable!() };
        let x = cats.len() as f64;
        cats.push(cols[2].to_string());
        for (k, v) in cols[3..].iter().enumerate() {
            let y: f64 = v.parse().map_err(|_| bad(i + 2, &format!("not a number: {v:?}")))?;
            p.series[k].points.push((x, y));
        }
    }
    Ok(Figure { title: title.to_string(), columns: panels.len().clamp(1, 2), panels })
}
