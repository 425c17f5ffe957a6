//! Timing models in persistent devices' metadata (formats 3 and 4), and older formats without one.

use std::path::Path;
use zonekit_core::{BlockIo, DeviceError, ZoneManagement, ZoneOp, ZoneReport};
use zonekit_dev::persistent::{META_FILE, create_dir, open_dir};
use zonekit_dev::{DataMode, ModelSpec, profile};

fn meta(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join(META_FILE)).unwrap()).unwrap()
}

#[test]
fn a_profile_device_stores_and_reopens_its_model() {
    for name in ["smr-hm-15tb", "smr-hm-30tb", "zns-zn540", "nullb-small"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dev");
        let p = profile(name).unwrap();
        let d = create_dir(&dir, &p.config(), DataMode::None).unwrap();
        assert_eq!(d.model_spec(), p.model, "{name}");
        drop(d);
        let m = meta(&dir);
        assert_eq!(m["format"].as_u64(), Some(4));
        assert_eq!(m["queue"]["max_sectors_kb"].as_u64(), Some(u64::from(p.max_sectors_kb)), "{name}");
        match p.model {
            Some(spec) => {
                assert_eq!(m["model"]["name"].as_str(), Some(spec.name()), "{name}");
                let stored = m["model"]["params"].as_object().unwrap();
                assert_eq!(stored.len(), spec.params().len(), "{name}: every parameter is stored");
            }
            None => assert!(m.get("model").is_none(), "{name}"),
        }
        let d = open_dir(&dir, "again", true).unwrap();
        assert_eq!(d.model_spec(), p.model, "{name}: the model survives a reopen, sources included");
        assert_eq!(d.timing_model().is_some(), p.model.is_some());
        if let Some(model) = d.timing_model() {
            assert_eq!(model.name(), p.model.unwrap().name());
            assert_eq!(model.params(), p.model.unwrap().params());
        }
    }
}

#[test]
fn a_format_2_directory_opens_without_a_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("old");
    std::fs::create_dir(&dir).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format2-smr/zonekit.meta");
    std::fs::copy(from, dir.join(META_FILE)).unwrap();
    let d = open_dir(&dir, "old", false).unwrap();
    assert_eq!(d.info().geometry.nr_zones, 55_880);
    assert_eq!(d.model_spec(), None);
    assert!(d.timing_model().is_none());
    drop(d);
    // Opened for writing, the metadata stays as it was (format 2, no model).
    let before = std::fs::read(dir.join(META_FILE)).unwrap();
    drop(open_dir(&dir, "old", true).unwrap());
    assert_eq!(std::fs::read(dir.join(META_FILE)).unwrap(), before);
}

#[test]
fn a_bad_model_in_metadata_is_corrupt() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("dev");
    drop(create_dir(&dir, &profile("smr-hm-15tb").unwrap().config(), DataMode::None).unwrap());
    let good = meta(&dir);
    type Damage = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Damage)> = vec![
        ("unknown timing model 'tape'", Box::new(|m| m["model"]["name"] = "tape".into())),
        ("'rpm' is missing", Box::new(|m| drop(m["model"]["params"].as_object_mut().unwrap().remove("rpm")))),
        ("bad value", Box::new(|m| m["model"]["params"]["rpm"] = "fast".into())),
        ("unknown timing model parameter 'warp'", Box::new(|m| m["model"]["params"]["warp"] = "9".into())),
        ("rpm must be positive", Box::new(|m| m["model"]["params"]["rpm"] = "0".into())),
        ("format 2 has no `model`", Box::new(|m| m["format"] = 2.into())),
        ("not device metadata", Box::new(|m| m["model"]["params"] = 7.into())),
    ];
    for (why, change) in cases {
        let mut m = good.clone();
        change(&mut m);
        std::fs::write(dir.join(META_FILE), serde_json::to_vec(&m).unwrap()).unwrap();
        match open_dir(&dir, "dev", false) {
            Err(DeviceError::Corrupt(msg)) => assert!(msg.contains(why), "{why}: {msg}"),
            other => panic!("{why}: {other:?}"),
        }
    }
}

#[test]
fn media_sectors_follow_the_write_pointers() {
    let p = profile("zbc-small").unwrap();
    let d = zonekit_dev::EmulatedDevice::new(
        "t",
        zonekit_core::DeviceKind::Emulated { store: "memory".into(), profile: None },
        &p.config(),
        Box::new(zonekit_dev::store::MemoryStore::new()),
    );
    let zs = d.info().geometry.zone_size;
    assert_eq!(d.media_sectors(0, 64), 64, "a conventional zone is all media");
    assert_eq!(d.media_sectors(zs, 64), 0, "an empty zone has none");
    d.write_at(zs, &[0u8; 8192]).unwrap();
    assert_eq!(d.media_sectors(zs, 64), 16);
    assert_eq!(d.media_sectors(zs - 8, 64), 8 + 16, "across the conventional and the sequential zone");
    d.zone_mgmt(ZoneOp::Finish, zs, zs).unwrap();
    assert_eq!(d.media_sectors(zs, 64), 64, "a full zone");
    assert_eq!(d.media_sectors(d.info().geometry.capacity, 8), 0, "out of range");
    // A profile with a model gives one; one without does not.
    assert!(d.timing_model().is_none());
    let spec = profile("smr-hm-15tb").unwrap().model.unwrap();
    assert!(matches!(spec, ModelSpec::Hdd(_)));
}
