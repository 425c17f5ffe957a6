//! `zonekit bench`, and its one option of zonekit's own, `--plot DIR`: after the run, the run's
//! plots (from its JSON result and the log files it wrote) and the map of its device go to DIR.
//! Handled here, around the benchmark, so the benchmark's option table stays fio's.

use crate::error::{CliError, CliResult};
use std::io::Write;

/// Take `--plot DIR` / `--plot=DIR` out of `args`.
pub fn take_plot_dir(args: &mut Vec<String>) -> CliResult<Option<String>> {
    let mut dir = None;
    let mut i = 0;
    while i < args.len() {
        if let Some(v) = args[i].strip_prefix("--plot=") {
            dir = Some(v.to_string());
            args.remove(i);
        } else if args[i] == "--plot" {
            if i + 1 >= args.len() {
                return Err(CliError::Usage("--plot: needs a directory".into()));
            }
            dir = Some(args.remove(i + 1));
            args.remove(i);
        } else {
            i += 1;
        }
    }
    match dir {
        Some(d) if d.is_empty() => Err(CliError::Usage("--plot: needs a directory".into())),
        d => Ok(d),
    }
}

/// The value of `--NAME=V` (or `--NAME V`), the last one given.
fn arg_value(args: &[String], name: &str) -> Option<String> {
    let long = format!("--{name}");
    let mut v = None;
    for (i, a) in args.iter().enumerate() {
        if let Some(x) = a.strip_prefix(&format!("{long}=")) {
            v = Some(x.to_string());
        } else if *a == long {
            v = args.get(i + 1).cloned();
        }
    }
    v
}

/// `zonekit bench ARGS`.
pub fn bench(mut args: Vec<String>, out: &mut impl Write) -> CliResult {
    let plot = take_plot_dir(&mut args)?;
    let Some(dir) = plot else {
        let mut err = std::io::stderr();
        return match zonekit_bench::cli::main(&args, out, &mut err) {
            0 => Ok(()),
            code => Err(CliError::Exit(code)),
        };
    };
    with_plots(args, &dir, out)
}

#[cfg(not(feature = "plot"))]
fn with_plots(_args: Vec<String>, _dir: &str, _out: &mut impl Write) -> CliResult {
    Err(CliError::Usage("--plot: this zonekit was built without the plot feature".into()))
}

#[cfg(feature = "plot")]
fn with_plots(mut args: Vec<String>, dir: &str, out: &mut impl Write) -> CliResult {
    use std::path::{Path, PathBuf};
    let dirp = Path::new(dir);
    std::fs::create_dir_all(dirp).map_err(|e| CliError::io(format!("--plot {dir}"), e))?;
    // The plots need the JSON result: add json+ to the formats asked for, and show the user only
    // what they asked for.
    let formats = arg_value(&args, "output-format");
    let asked_json = formats.as_deref().is_some_and(|f| f.split(',').any(|x| x.starts_with("json")));
    let to_file = arg_value(&args, "output");
    if !asked_json {
        args.push(format!("--output-format={},json+", formats.as_deref().unwrap_or("normal")));
    }
    let started = std::time::SystemTime::now();
    let mut buf = Vec::new();
    let code = zonekit_bench::cli::main(&args, &mut buf, &mut std::io::stderr());
    let text = match &to_file {
        Some(f) => std::fs::read_to_string(f).unwrap_or_default(),
        None => String::from_utf8_lossy(&buf).into_owned(),
    };
    // fio prints the JSON object last, after any normal or terse report.
    let json_at = text.find("\n{").map(|i| i + 1).or_else(|| text.starts_with('{').then_some(0));
    if to_file.is_none() {
        let shown = match json_at {
            Some(i) if !asked_json => &text[..i],
            _ => &text[..],
        };
        crate::error::output(out.write_all(shown.as_bytes()))?;
    }
    if code != 0 {
        return Err(CliError::Exit(code));
    }
    let Some(i) = json_at else {
        return Err(CliError::Failed("--plot: the run printed no JSON result".into()));
    };
    let result = dirp.join("result.json");
    std::fs::write(&result, &text[i..]).map_err(|e| CliError::io(result.display().to_string(), e))?;
    // The logs this run wrote: fio log names in the working directory, newer than the run.
    let mut files: Vec<PathBuf> = vec![result];
    let mut logs: Vec<PathBuf> = std::fs::read_dir(".")
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().and_then(|n| n.to_str()).and_then(zonekit_plot::logs::classify).is_some()
                        && p.metadata().and_then(|m| m.modified()).is_ok_and(|t| t >= started)
                })
                .collect()
        })
        .unwrap_or_default();
    logs.sort();
    files.extend(logs);
    let run_png = dirp.join("run.png");
    crate::cmd::plot::plot_files(&files, &run_png, &mut std::io::stderr())?;
    // The device's map, when the run had one device.
    if let Some(f) = arg_value(&args, "filename").filter(|f| !f.contains(':')) {
        let dev = crate::cmd::DevArg { dev: f, zone_size: None, zone_capacity: None };
        if let Err(e) = crate::cmd::plot::map_device(&dev, &dirp.join("map.png")) {
            eprintln!("{e}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn plot_dir_is_taken_out() {
        let mut a = v(&["--name=x", "--plot", "d", "--rw=write"]);
        assert_eq!(take_plot_dir(&mut a).unwrap().as_deref(), Some("d"));
        assert_eq!(a, v(&["--name=x", "--rw=write"]));
        let mut a = v(&["--plot=e"]);
        assert_eq!(take_plot_dir(&mut a).unwrap().as_deref(), Some("e"));
        assert!(a.is_empty());
        assert!(take_plot_dir(&mut v(&["--plot"])).is_err());
        assert!(take_plot_dir(&mut v(&["--plot="])).is_err());
        assert_eq!(take_plot_dir(&mut v(&["a.fio"])).unwrap(), None);
    }
}
