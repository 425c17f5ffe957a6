//! Built-in drive profiles. Each states where its figures come from; `docs/devices.md` repeats it.

use crate::config::DeviceConfig;
use crate::model::{HddParams, ModelSpec, ZnsParams};
use zonekit_core::{Geometry, Limits, Personality};

const MIB: u64 = 1 << 20;
const SECTORS_PER_MIB: u64 = MIB / 512;

/// A built-in device: name, geometry, limits and the source of its figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// Name, as `@NAME` device specs use it.
    pub name: &'static str,
    /// Transport rules.
    pub personality: Personality,
    /// Zone size in MiB.
    pub zone_size_mib: u64,
    /// Zone capacity in MiB.
    pub zone_capacity_mib: u64,
    /// Number of zones.
    pub nr_zones: u32,
    /// Conventional zones at the start.
    pub nr_conv_zones: u32,
    /// Logical block size in bytes.
    pub block_size: u32,
    /// Open limit (0 = none).
    pub max_open: u32,
    /// Active limit (0 = none).
    pub max_active: u32,
    /// Zone append limit in sectors.
    pub max_append_sectors: u64,
    /// Spinning disk.
    pub rotational: bool,
    /// The block layer's largest request in KiB (`/sys/block/X/queue/max_sectors_kb`) for the
    /// drive on its usual host: where reads and writes are split and plugged writes stop merging.
    pub max_sectors_kb: u32,
    /// Vendor string for reports.
    pub vendor: &'static str,
    /// What the profile models.
    pub description: &'static str,
    /// Where the figures come from.
    pub source: &'static str,
    /// The drive's timing model, if the profile has one (`docs/models.md`).
    pub model: Option<ModelSpec>,
}

/// The 15 TB HC620-class disk: HC310 mechanics, ≈255 MB/s maximum sustained rate at the OD.
pub const HC620_15TB_MODEL: HddParams = HddParams {
    rate_od_bps: 255_000_000,
    rate_id_bps: 120_000_000,
    surfaces: 16,
    sources: &[
        ("rate_od_bps", "WD HC620 class: ≈255 MB/s maximum sustained transfer rate (reference §3.1) [M]"),
        ("rate_id_bps", "ri/ro ≈ 0.47 of a 3.5\" platter (reference §3.2): 0.47 × 255 MB/s [M]"),
        ("surfaces", "HC620: 8 platters (reference §3.1), 16 surfaces"),
    ],
    ..HddParams::ENTERPRISE_7200
};

/// The 30 TB disk of Linux commit 1365b6904f: the same mechanics, a media rate giving ≈245 MB/s of
/// sequential writes at the first sequential zones.
pub const SMR_30TB_MODEL: HddParams = HddParams {
    rate_od_bps: 246_000_000,
    rate_id_bps: 115_600_000,
    surfaces: 20,
    write_settle_ns: 2_500_000,
    sources: &[
        (
            "rate_od_bps",
            "chosen so that the first sequential zones (1 % in, r = 0.996) stream at 245 MB/s, the commit's sequential write rate (Linux commit 1365b6904f)",
        ),
        ("rate_id_bps", "ri/ro ≈ 0.47 of a 3.5\" platter (reference §3.2): 0.47 × 246 MB/s [M]"),
        ("surfaces", "zonekit's choice: 10 platters, 20 surfaces, for a 30 TB 3.5\" drive [M]"),
        (
            "write_settle_ns",
            "fitted on the sequential table of Linux commit 1365b6904f (docs/models.md): from 2.2 ms each switch between two adjacent zones misses a revolution, as the commit's QD 128 cell (112 MB/s) shows, without moving QD 1-64 (from 3 ms QD 64 loses revolutions too); 2.5 ms. A shingled write settles to a tighter off-track limit than the CMR HC310's 0.09-0.8 ms (write minus read seek), whose range it exceeds",
        ),
    ],
    ..HddParams::ENTERPRISE_7200
};

/// Every built-in profile.
pub const PROFILES: &[Profile] = &[
    // A 15 TB host-managed SMR disk of the WD Ultrastar DC HC620 class (HSH721415AL): 55,880 zones of
    // 256 MiB (29,297,213,440 sectors), zones 0-523 conventional, the first sequential zone at sector
    // 274,726,912, at most 128 open sequential zones, no active limit, 4 KiB logical blocks.
    // Source: zonedstorage.io's fio benchmarking guide and libzbc's zone listing of the drive.
    Profile {
        name: "smr-hm-15tb",
        personality: Personality::Zbc,
        zone_size_mib: 256,
        zone_capacity_mib: 256,
        nr_zones: 55_880,
        nr_conv_zones: 524,
        block_size: 4096,
        max_open: 128,
        max_active: 0,
        max_append_sectors: 2048,
        rotational: true,
        // A SATA disk behind AHCI: libata allows 65,535-sector commands (LBA48), and Linux caps
        // the default request at BLK_DEF_MAX_SECTORS_CAP, 2,560 sectors.
        max_sectors_kb: 1280,
        vendor: "WDC HSH721415AL (emulated)",
        description: "15 TB host-managed SMR HDD, WD Ultrastar DC HC620 class",
        source: "zonedstorage.io fio guide and libzbc zone listing of the HSH721415AL (55,880 x 256 MiB zones, 524 conventional, max 128 open)",
        model: Some(ModelSpec::Hdd(HC620_15TB_MODEL)),
    },
    // The unnamed 30 TB SMR SATA disk measured in Linux commit 1365b6904f ("block: allow submitting
    // all zone writes from a single context"), built with the 15 TB drive's rules: 256 MiB zones,
    // 111,760 zones, the first 1,118 (1 %) conventional, at most 128 open, 4 KiB logical blocks.
    Profile {
        name: "smr-hm-30tb",
        personality: Personality::Zbc,
        zone_size_mib: 256,
        zone_capacity_mib: 256,
        nr_zones: 111_760,
        nr_conv_zones: 1_118,
        block_size: 4096,
        max_open: 128,
        max_active: 0,
        max_append_sectors: 2048,
        rotational: true,
        // The commit's disk is SATA, behind AHCI: the kernel's default cap, as for the 15 TB one.
        max_sectors_kb: 1280,
        vendor: "SMR 30TB (emulated)",
        description: "30 TB host-managed SMR HDD (the drive of Linux commit 1365b6904f)",
        source: "Linux commit 1365b6904f (30 TB SMR SATA HDD); geometry built with the 15 TB drive's rules (256 MiB zones, 1 % conventional, max 128 open)",
        model: Some(ModelSpec::Hdd(SMR_30TB_MODEL)),
    },
    // A WD Ultrastar DC ZN540-class NVMe ZNS SSD: 2 GiB zones of 1,077 MiB capacity (the figure
    // used in published ZNS studies of the ZN540), at most 14 open and 14 active zones (zonedstorage.io
    // ZNS guide), no conventional zones, 4 KiB blocks. 1,904 zones (about 2 TB of capacity) is
    // zonekit's choice; so is the 512 KiB zone append limit (QEMU's default MDTS).
    Profile {
        name: "zns-zn540",
        personality: Personality::Zns,
        zone_size_mib: 2048,
        zone_capacity_mib: 1077,
        nr_zones: 1_904,
        nr_conv_zones: 0,
        block_size: 4096,
        max_open: 14,
        max_active: 14,
        max_append_sectors: 1024,
        rotational: false,
        // The nvme driver sets max_hw_sectors from the controller's MDTS; zonekit gives the drive
        // a 512 KiB MDTS (the profile's zone append limit, QEMU's default MDTS of 7 with 4 KiB
        // pages), below the 1,280 KiB default cap, so max_sectors_kb = max_hw_sectors_kb = 512.
        max_sectors_kb: 512,
        vendor: "WDC ZN540 (emulated)",
        description: "NVMe ZNS SSD, WD Ultrastar DC ZN540 class",
        source: "zone capacity 1,077 MiB of 2 GiB zones as published ZNS studies of the ZN540 use it; max 14 open / 14 active from zonedstorage.io; 1,904 zones is zonekit's choice",
        model: Some(ModelSpec::Zns(ZnsParams::ZN540)),
    },
    // A large null_blk device without limits and without timing, for speed work and tests: what
    // `modprobe null_blk zoned=1 zone_size=256 size=1048576` gives (512-byte blocks, no
    // conventional zones, no open or active limit).
    Profile {
        name: "nullb-1t",
        personality: Personality::NullBlk,
        zone_size_mib: 256,
        zone_capacity_mib: 256,
        nr_zones: 4096,
        nr_conv_zones: 0,
        block_size: 512,
        max_open: 0,
        max_active: 0,
        max_append_sectors: 255,
        rotational: false,
        // null_blk's max_sectors parameter defaults to BLK_DEF_MAX_SECTORS_CAP: 1,280 KiB.
        max_sectors_kb: 1280,
        vendor: "nullb (emulated)",
        description: "1 TiB null_blk zoned device, no zone limits, no timing (speed work and tests)",
        source: "null_blk configfs: size=1048576 zone_size=256 zoned=1 (Linux defaults otherwise: 512-byte blocks, no limits); zone_append_max_bytes 130560 as null_blk reports it",
        model: None,
    },
    // Small devices for tests and demos. nullb-small matches the zoned null_blk device that the VM
    // test creates (16 x 4 MiB zones, 1 conventional, max 4 open / 8 active, 255-sector zone
    // appends), zbc-small the scsi_debug one (zbc=managed zone_size_mb=4 zone_nr_conv=1
    // dev_size_mb=64 zone_max_open=4).
    Profile {
        name: "nullb-small",
        personality: Personality::NullBlk,
        zone_size_mib: 4,
        zone_capacity_mib: 4,
        nr_zones: 16,
        nr_conv_zones: 1,
        block_size: 512,
        max_open: 4,
        max_active: 8,
        max_append_sectors: 255,
        rotational: false,
        // null_blk's default, as for nullb-1t.
        max_sectors_kb: 1280,
        vendor: "nullb (emulated)",
        description: "small null_blk zoned device for tests and demos",
        source: "null_blk (Linux 6.1) configfs: size=64 zone_size=4 zone_nr_conv=1 zone_max_open=4 zone_max_active=8 memory_backed=1; zone_append_max_bytes 130560 as sysfs shows it",
        model: None,
    },
    Profile {
        name: "zbc-small",
        personality: Personality::Zbc,
        zone_size_mib: 4,
        zone_capacity_mib: 4,
        nr_zones: 16,
        nr_conv_zones: 1,
        block_size: 512,
        max_open: 4,
        max_active: 0,
        max_append_sectors: 8192,
        rotational: true,
        // The kernel's default cap for a SCSI disk that states no optimal transfer length.
        max_sectors_kb: 1280,
        vendor: "Linux scsi_debug (emulated)",
        description: "small host-managed SCSI disk for tests and demos",
        source: "scsi_debug module parameters zbc=managed zone_size_mb=4 zone_nr_conv=1 dev_size_mb=64 zone_max_open=4 (zone_append_max_bytes 4 MiB)",
        model: None,
    },
    Profile {
        name: "zns-small",
        personality: Personality::Zns,
        zone_size_mib: 4,
        zone_capacity_mib: 3,
        nr_zones: 16,
        nr_conv_zones: 0,
        block_size: 4096,
        max_open: 4,
        max_active: 6,
        max_append_sectors: 1024,
        rotational: false,
        // QEMU's default MDTS of 7 (128 pages of 4 KiB): max_hw_sectors_kb 512.
        max_sectors_kb: 512,
        vendor: "QEMU NVMe ZNS (emulated)",
        description: "small ZNS namespace for tests and demos",
        source: "QEMU nvme-ns zoned.zone_size=4M zoned.zone_capacity=3M zoned.max_open=4 zoned.max_active=6",
        model: None,
    },
];

/// Look a profile up by name.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

impl Profile {
    /// Capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.zone_size_mib * MIB * u64::from(self.nr_zones)
    }

    /// The device configuration. Profiles are checked by the test suite, so this cannot fail.
    pub fn config(&self) -> DeviceConfig {
        let geometry = Geometry::with_zones(
            self.zone_size_mib * SECTORS_PER_MIB,
            self.nr_zones,
            self.zone_capacity_mib * SECTORS_PER_MIB,
            self.nr_conv_zones,
            self.block_size,
        )
        .expect("built-in profile geometry is valid");
        let limits = Limits {
            max_open: self.max_open,
            max_active: self.max_active,
            max_append_sectors: self.max_append_sectors,
        }
        .normalized(&geometry)
        .expect("built-in profile limits are valid");
        DeviceConfig {
            personality: self.personality,
            geometry,
            limits,
            profile: Some(self.name.to_string()),
            rotational: self.rotational,
            vendor: self.vendor.to_string(),
            description: self.description.to_string(),
            model: self.model,
            queue: zonekit_core::QueueSettings {
                max_sectors_kb: self.max_sectors_kb,
                ..zonekit_core::QueueSettings::defaults(self.rotational)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_builds_and_keeps_its_limits() {
        for p in PROFILES {
            let c = p.config();
            assert_eq!(c.limits.max_open, p.max_open, "{}", p.name);
            assert_eq!(c.limits.max_active, p.max_active, "{}", p.name);
            assert!(!p.name.contains(':'), "fio splits filenames on ':'");
            assert_eq!(c.queue.max_sectors_kb, p.max_sectors_kb, "{}", p.name);
            assert_eq!(c.queue.zoned_qd1_writes, p.rotational, "{}: QD1 writes on spinning disks", p.name);
            assert!(p.max_sectors_kb >= crate::config::min_max_sectors_kb(p.block_size), "{}", p.name);
        }
    }

    #[test]
    fn smr_15tb_matches_the_drive() {
        let g = profile("smr-hm-15tb").unwrap().config().geometry;
        assert_eq!(g.capacity, 29_297_213_440);
        assert_eq!(g.nr_zones, 55_880);
        assert_eq!(g.zone_start(524), 274_726_912);
        assert_eq!(g.zone_size, 524_288);
        let g = profile("smr-hm-30tb").unwrap().config().geometry;
        assert_eq!((g.nr_zones, g.nr_conv_zones), (111_760, 1_118));
        let n = profile("nullb-1t").unwrap().config();
        assert_eq!(n.geometry.capacity_bytes(), 1 << 40);
        assert_eq!((n.limits.max_open, n.limits.max_active, n.geometry.nr_conv_zones), (0, 0, 0));
        let z = profile("zns-zn540").unwrap().config();
        assert_eq!(z.geometry.zone_capacity, 1077 * 2048);
        assert_eq!(z.geometry.zone_size, 2048 * 2048);
    }
}
