//! `--debug`: `help` lists fio 3.33's debug classes as fio does; other values are named as fio
//! names them (zonekit prints none of fio's trace lines, and says so).
//!
//! The side-by-side test needs `fio` and fails without it.

use std::process::Command;

fn zonekit(args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_zonekit")).arg("bench").args(args).current_dir(dir.path()).output().unwrap()
}

#[test]
fn debug_help_and_classes() {
    for arg in ["--debug=help", "--debug=?"] {
        let o = zonekit(&[arg]);
        assert!(o.status.success(), "{o:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.starts_with("zonekit: dumping debug options:process,file,io,mem,"), "{out}");
        assert!(out.ends_with(",steadystate,helperthread,zbd,all\n"), "{out}");
    }
    let o = zonekit(&["--debug=parse,file,io,job:2,jobs,nosuch,all", "--name=d", "--size=64k", "--ioengine=null"]);
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    for line in [
        "zonekit: set debug option parse\n",
        "zonekit: set debug option file\n",
        "zonekit: set debug option io\n",
        "zonekit: set debug jobno 2\n",
        "zonekit: missing job number\n",
        "zonekit: debug mask nosuch not found\n",
        "zonekit: set all debug options\n",
    ] {
        assert!(err.contains(line), "{line:?} in {err}");
    }
    assert!(err.contains("trace lines are not printed"), "{err}");
}

mod needs_tools {
    use super::*;

    #[test]
    #[ignore = "needs fio: scripts/test.sh runs it (cargo test -- --ignored needs_tools::)"]
    fn debug_help_as_fio() {
        let fio = Command::new("fio").arg("--debug=help").output().expect("fio is needed (apt-get install fio)");
        assert!(fio.status.success());
        let want = String::from_utf8_lossy(&fio.stdout).replacen("fio: ", "zonekit: ", 1);
        assert_eq!(String::from_utf8_lossy(&zonekit(&["--debug=help"]).stdout), want);
    }
}
