//! Helpers shared by the zonekit crate's end-to-end tests.

use std::process::Command;

/// Fails the test when fio is missing: the tests that compare zonekit with fio 3.33 live in
/// `needs_tools` modules, which `scripts/test.sh` runs, and must never pass unseen without fio.
pub fn require_fio() {
    let ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok, "fio is not installed (apt-get install fio): this test compares zonekit with it");
}
