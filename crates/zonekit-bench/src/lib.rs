//! zonekit-bench: the fio-compatible benchmark behind `zonekit bench`.
