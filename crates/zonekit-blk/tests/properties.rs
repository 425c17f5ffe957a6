//! Properties of the block layer's request rules (`zonekit_blk::zoned`): splits cover a request
//! exactly and never cross a zone or exceed `max_sectors`; a sequential stream written through the
//! block layer lands whole whatever its chunking, as on the kernel's device; no call panics or
//! returns an errno outside what a block device file returns.

use proptest::prelude::*;
use std::sync::Arc;
use zonekit_blk::BlockDevice;
use zonekit_blk::zoned::{QueueLimits, ZoneAppendMode, mgmt, split};
use zonekit_core::{DeviceKind, Errno, Geometry, Limits, Personality, QueueSettings, ZoneOp};
use zonekit_dev::store::MemoryStore;
use zonekit_dev::{DeviceConfig, EmulatedDevice};

fn limits() -> impl Strategy<Value = QueueLimits> {
    (prop::sample::select(vec![512u32, 4096]), 0u32..3, 1u64..64, 1u64..40, 0u32..6).prop_map(
        |(lbs, pbs_shift, chunk_blocks, nr_zones, kb_shift)| {
            let lbs_sectors = u64::from(lbs) / 512;
            let chunk = chunk_blocks * lbs_sectors;
            QueueLimits {
                zoned: "host-managed".into(),
                capacity: chunk * nr_zones,
                logical_block_size: lbs,
                physical_block_size: lbs << pbs_shift,
                chunk_sectors: chunk,
                nr_zones: nr_zones as u32,
                max_open_zones: 0,
                max_active_zones: 0,
                zone_append: ZoneAppendMode::Native,
                zone_append_max_bytes: 0,
                zone_write_granularity: lbs,
                max_sectors_kb: (lbs / 1024).max(4) << kb_shift,
                max_sectors: u64::from((lbs / 1024).max(4) << kb_shift) * 2,
                zoned_qd1_writes: false,
            }
        },
    )
}

fn device(p: Personality, zone_size: u64, nr_zones: u32, conv: u32, lbs: u32, max_sectors_kb: u32) -> BlockDevice {
    let geometry = Geometry::with_zones(zone_size, nr_zones, zone_size, conv, lbs).unwrap();
    let limits = Limits { max_open: 0, max_active: 0, max_append_sectors: zone_size }.normalized(&geometry).unwrap();
    let config = DeviceConfig {
        personality: p,
        geometry,
        limits,
        profile: None,
        rotational: false,
        vendor: "test".into(),
        description: "property test device".into(),
        model: None,
        queue: QueueSettings { max_sectors_kb, zoned_qd1_writes: false },
    };
    let kind = DeviceKind::Emulated { store: "memory".into(), profile: None };
    BlockDevice::new(Arc::new(EmulatedDevice::new("t", kind, &config, Box::new(MemoryStore::new()))))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn pieces_cover_the_request_within_the_limits(l in limits(), start in 0u64..10_000, len in 0u64..20_000) {
        let lbs = l.lbs_sectors();
        let (sector, sectors) = (start * lbs, len * lbs);
        let mut next = sector;
        for p in split::pieces(&l, sector, sectors) {
            prop_assert_eq!(p.sector, next);
            prop_assert!(p.sectors > 0 && p.sectors <= l.max_sectors());
            prop_assert_eq!(p.sectors % lbs, 0);
            prop_assert_eq!(p.sector / l.chunk_sectors, (p.sector + p.sectors - 1) / l.chunk_sectors, "crosses a zone");
            prop_assert_eq!(p.buf_offset as u64, (p.sector - sector) * 512);
            next += p.sectors;
        }
        prop_assert_eq!(next, sector + sectors);
    }

    #[test]
    fn cuts_and_plans_never_panic(l in limits(), offset in any::<u64>(), len in any::<u64>(), op in 0usize..4) {
        if let Ok(c) = split::cut_write(&l, offset, len) {
            prop_assert!(c.bytes <= len && c.sector * 512 + c.bytes <= l.capacity * 512);
        }
        if let Ok(c) = split::cut_read(&l, offset, len) {
            prop_assert!(c.bytes <= len);
        }
        if let Ok(p) = mgmt::plan(&l, ZoneOp::ALL[op], offset, len) {
            prop_assert!(!p.is_empty() && p.len() <= u64::from(l.nr_zones));
        }
    }

    #[test]
    fn a_sequential_stream_lands_whole_whatever_its_chunks(
        p in prop::sample::select(Personality::ALL.to_vec()),
        lbs in prop::sample::select(vec![512u32, 4096]),
        kb in prop::sample::select(vec![4u32, 8, 64, 1280]),
        chunks in prop::collection::vec(1u64..64, 1..40),
    ) {
        let dev = device(p, 64, 12, 1, lbs, kb);
        let lbs_bytes = u64::from(lbs);
        let end = dev.limits().capacity * 512;
        let mut pos = 64 * 512; // the first sequential zone
        let mut expect = Vec::new();
        for (i, c) in chunks.iter().enumerate() {
            let buf = vec![i as u8 + 1; (c * lbs_bytes) as usize];
            match dev.write(pos, &buf) {
                Ok(n) => {
                    prop_assert_eq!(n as u64, (buf.len() as u64).min(end - pos));
                    expect.extend_from_slice(&buf[..n]);
                    pos += n as u64;
                }
                Err(e) => {
                    prop_assert_eq!(pos, end, "only the device end stops a stream: {}", e);
                    prop_assert_eq!(e.errno, Errno::ENOSPC);
                }
            }
        }
        let mut back = vec![0u8; expect.len()];
        prop_assert_eq!(dev.read(64 * 512, &mut back).unwrap(), expect.len());
        prop_assert!(back == expect, "read back what was written");
    }

    #[test]
    fn calls_never_panic_and_return_block_device_errnos(
        p in prop::sample::select(Personality::ALL.to_vec()),
        ops in prop::collection::vec((0usize..6, any::<u64>(), 0u64..200_000), 1..30),
    ) {
        let dev = device(p, 64, 8, 1, 512, 8);
        let allowed = [Errno::EIO, Errno::EREMOTEIO, Errno::EINVAL, Errno::ENOSPC, Errno::ETOOMANYREFS, Errno::EOVERFLOW];
        for (kind, a, b) in ops {
            // Offsets mostly inside the device, sometimes anywhere.
            let offset = if a % 4 == 0 { a } else { a % (600 * 512) };
            let len = (b % 100_000) as usize;
            let r = match kind {
                0 => dev.write(offset, &vec![1u8; len]).map(drop),
                1 => dev.read(offset, &mut vec![0u8; len]).map(drop),
                2 => dev.zone_mgmt(ZoneOp::ALL[(b % 4) as usize], offset / 512, b),
                3 => dev.zone_append(offset / 512, &vec![2u8; len]).map(drop),
                4 => dev.report_zones(offset / 512, len % 9, &mut Vec::new()),
                _ => dev.flush(),
            };
            if let Err(e) = r {
                prop_assert!(allowed.contains(&e.errno), "{:?}", e);
            }
        }
    }
}
