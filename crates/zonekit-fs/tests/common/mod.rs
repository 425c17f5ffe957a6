//! Devices for the tests: emulated, memory store.

#![allow(dead_code)]

use std::sync::Arc;
use zonekit_blk::BlockDevice;
use zonekit_core::{DeviceKind, Geometry, Limits, Personality, QueueSettings, ZonedDevice};
use zonekit_dev::{
    DeviceConfig, EmulatedDevice,
    store::{MemoryStore, NoneStore},
};

/// A device's shape; sizes in KiB.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub zones: u32,
    pub conv: u32,
    pub zone_kib: u64,
    pub cap_kib: u64,
    pub max_open: u32,
    pub max_active: u32,
    pub lbs: u32,
    pub personality: Personality,
    /// Keep no data (the `none` store).
    pub no_data: bool,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape {
            zones: 8,
            conv: 2,
            zone_kib: 64,
            cap_kib: 64,
            max_open: 0,
            max_active: 0,
            lbs: 512,
            personality: Personality::NullBlk,
            no_data: false,
        }
    }
}

/// An emulated memory-store device of `shape`.
pub fn device(shape: Shape) -> Arc<EmulatedDevice> {
    let zs = shape.zone_kib * 2;
    let geometry = Geometry::with_zones(zs, shape.zones, shape.cap_kib * 2, shape.conv, shape.lbs).unwrap();
    let limits = Limits { max_open: shape.max_open, max_active: shape.max_active, max_append_sectors: zs }
        .normalized(&geometry)
        .unwrap();
    let config = DeviceConfig {
        personality: shape.personality,
        geometry,
        limits,
        profile: None,
        rotational: false,
        vendor: "test".into(),
        description: "zonefs test device".into(),
        model: None,
        queue: QueueSettings::default(),
    };
    if shape.no_data {
        let kind = DeviceKind::Emulated { store: "none".into(), profile: None };
        return Arc::new(EmulatedDevice::new("testdev", kind, &config, Box::new(NoneStore)));
    }
    let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
    Arc::new(EmulatedDevice::new("testdev", kind, &config, Box::new(MemoryStore::new())))
}

/// `dev` behind the block layer.
pub fn blk(dev: &Arc<EmulatedDevice>) -> BlockDevice {
    let d: Arc<dyn ZonedDevice> = dev.clone();
    BlockDevice::new(d)
}

/// A fixed UUID, so outputs are stable.
pub const UUID: [u8; 16] =
    [0x59, 0x0d, 0x2c, 0x75, 0x0a, 0x00, 0x4f, 0x10, 0xbd, 0x18, 0xf3, 0xc2, 0x25, 0x81, 0xd6, 0x38];
