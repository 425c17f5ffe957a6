//! The `zonekit` binary: everything is in the library, see `zonekit_cli::run`.

fn main() {
    std::process::exit(zonekit_cli::run(std::env::args_os()));
}
