//! Property tests: the file rules against a small model, and the device's write pointer never
//! moved wrongly by a refused call.

mod common;

use common::{Shape, blk, device};
use proptest::prelude::*;
use zonekit_core::{Errno, ZoneReport};
use zonekit_fs::{MkfsOptions, MountOptions, Node, OpenFlags, Superblock, Volume, mkfs::mkfs};

const BS: u64 = 512;
/// Sequential file capacity: 48 KiB of a 64 KiB zone.
const CAP: u64 = 48 * 1024;

#[derive(Debug, Clone)]
enum Op {
    Write { offset: u64, len: u64, append: bool, direct: bool },
    Truncate(u64),
}

fn op() -> impl Strategy<Value = Op> {
    // Offsets and lengths near block multiples, at and past the capacity.
    let pos = prop_oneof![(0..=CAP / BS + 2).prop_map(|b| b * BS), 0..CAP + 2048];
    prop_oneof![
        4 => (pos.clone(), pos, any::<bool>(), prop::bool::weighted(0.9))
            .prop_map(|(offset, len, append, direct)| Op::Write { offset, len: len / 4, append, direct }),
        1 => prop_oneof![Just(0), Just(CAP), Just(4096), 0..CAP].prop_map(Op::Truncate),
    ]
}

/// The kernel's rules for one sequential file of size `size`: the new size, or the errno.
fn model(size: u64, op: &Op) -> Result<u64, Errno> {
    match *op {
        Op::Write { offset, len, append, direct } => {
            if offset >= CAP {
                return Err(Errno::EFBIG);
            }
            if !direct {
                return Err(Errno::EIO);
            }
            if len == 0 {
                return Ok(size);
            }
            let pos = if append { size } else { offset };
            if pos >= CAP {
                return Err(Errno::EFBIG);
            }
            let n = len.min(CAP - pos);
            if pos % BS != 0 || n % BS != 0 || pos != size {
                return Err(Errno::EINVAL);
            }
            Ok(pos + n)
        }
        // The size picks the zone operation first, so a truncate to the current size is EPERM
        // unless that size is 0 or the capacity (then nothing is done).
        Op::Truncate(to) if to == 0 || to == CAP => Ok(to),
        Op::Truncate(_) => Err(Errno::EPERM),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn sequential_file_follows_the_model(ops in prop::collection::vec(op(), 1..40)) {
        let dev = device(Shape { zones: 4, conv: 1, zone_kib: 64, cap_kib: 48, ..Shape::default() });
        mkfs(&blk(&dev), &MkfsOptions { uuid: Some([1; 16]), ..Default::default() }).unwrap();
        let vol = Volume::mount(blk(&dev), MountOptions::default()).unwrap();
        let Node::File(id) = vol.lookup_path("seq/0").unwrap() else { unreachable!() };
        let mut size = 0u64;
        let mut fill = 0u8;
        for op in &ops {
            let got = match *op {
                Op::Write { offset, len, append, direct } => {
                    fill = fill.wrapping_add(1);
                    let f = vol.open(id, OpenFlags { write: true, direct, append }).unwrap();
                    let r = vol.write(&f, offset, &vec![fill; len as usize]);
                    vol.release(f);
                    r.map(|_| ())
                }
                Op::Truncate(to) => vol.truncate(id, to),
            };
            let want = model(size, op);
            prop_assert_eq!(got.as_ref().err().map(|e| e.errno()), want.err(), "{:?}: {:?}", op, got);
            if let Ok(s) = want {
                size = s;
            }
            prop_assert_eq!(vol.stat(Node::File(id)).size, size);
            // The zone's write pointer is the file size, whatever was refused.
            let mut z = Vec::new();
            dev.report_zones(128, 1, &mut z).unwrap();
            let wp = if size == CAP { z[0].cond == zonekit_core::ZoneCond::Full } else { z[0].wp - z[0].start == size / 512 };
            prop_assert!(wp, "{:?}: zone {:?}, size {}", op, z[0], size);
        }
    }

    #[test]
    fn conventional_file_is_random_access(writes in prop::collection::vec((0..70_000u64, 0..3000usize, any::<u8>()), 1..20)) {
        let dev = device(Shape { zones: 4, conv: 2, zone_kib: 64, cap_kib: 64, ..Shape::default() });
        mkfs(&blk(&dev), &MkfsOptions { uuid: Some([1; 16]), ..Default::default() }).unwrap();
        let vol = Volume::mount(blk(&dev), MountOptions::default()).unwrap();
        let Node::File(id) = vol.lookup_path("cnv/0").unwrap() else { unreachable!() };
        let f = vol.open(id, OpenFlags { write: true, ..Default::default() }).unwrap();
        let mut model = vec![0u8; 65536];
        for (offset, len, byte) in writes {
            let r = vol.write(&f, offset, &vec![byte; len]);
            if offset >= 65536 {
                prop_assert_eq!(r.unwrap_err().errno(), Errno::EFBIG);
                continue;
            }
            let n = len.min(65536 - offset as usize);
            prop_assert_eq!(r.unwrap(), n);
            model[offset as usize..offset as usize + n].fill(byte);
        }
        let mut back = vec![0u8; 70_000];
        prop_assert_eq!(vol.read(&f, 0, &mut back).unwrap(), 65536);
        prop_assert!(back[..65536] == model[..]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Any bytes parse or fail with an error; none panics.
    #[test]
    fn superblock_parse_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..4200)) {
        let _ = Superblock::parse(&bytes);
    }

    /// A superblock with any one bit flipped is refused (the CRC sees every single-bit error;
    /// a flip in the magic is "not formatted").
    #[test]
    fn a_flipped_bit_is_refused(bit in 0usize..4096 * 8, uid in any::<u32>(), perm in 0u32..0o1000) {
        let mut sb = Superblock::new([7; 16]);
        sb.features = zonekit_fs::Features::UID | zonekit_fs::Features::PERM;
        sb.uid = uid;
        sb.perm = perm;
        let mut b = sb.encode();
        prop_assert_eq!(Superblock::parse(&b), Ok(sb));
        b[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(Superblock::parse(&b).is_err());
    }

    /// Mount options: anything parses or is EINVAL.
    #[test]
    fn mount_options_parse_or_einval(s in "[a-z=,-]{0,40}") {
        if let Err(e) = MountOptions::parse(&s) {
            prop_assert_eq!(e.errno(), Errno::EINVAL);
        }
    }
}
