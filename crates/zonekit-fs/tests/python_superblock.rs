//! The superblock against an independent formatter: a few lines of Python written from the
//! kernel's `struct zonefs_super` (fs/zonefs/zonefs.h), sharing nothing with zonekit. Python 3
//! is required: the test fails, not skips, without it.

mod common;

use common::{Shape, blk, device};
use std::process::Command;
use zonekit_core::BlockIo;
use zonekit_fs::{MountOptions, Volume, superblock::Superblock};

/// Python: write a superblock to argv[1] (label "from-python", UUID 10..1f, features uid, gid
/// and perm with 4242, 4343 and 0604), or check the one in argv[2] and print its fields.
const SCRIPT: &str = r#"
import struct, sys, zlib
# struct zonefs_super: __packed, little-endian: magic, crc, label[64], uuid[16], features,
# uid, gid, perm, then reserved bytes up to 4096.
LAYOUT = "<II64s16sQIII"
def crc(block):
    # crc32(~0U, ...) as the kernel computes it: zlib's CRC-32 without its final inversion.
    return zlib.crc32(block[:4] + bytes(4) + block[8:]) ^ 0xFFFFFFFF
if sys.argv[1] == "write":
    head = struct.pack(LAYOUT, 0x5A4F4653, 0, b"from-python", bytes(range(16, 32)), 0xE, 4242, 4343, 0o604)
    block = head + bytes(4096 - len(head))
    block = block[:4] + struct.pack("<I", crc(block)) + block[8:]
    open(sys.argv[2], "wb").write(block)
else:
    block = open(sys.argv[2], "rb").read()
    assert len(block) == 4096, len(block)
    magic, stored, label, uuid, features, uid, gid, perm = struct.unpack_from(LAYOUT, block)
    assert magic == 0x5A4F4653, hex(magic)
    assert stored == crc(block), (hex(stored), hex(crc(block)))
    assert block[struct.calcsize(LAYOUT):] == bytes(4096 - struct.calcsize(LAYOUT))
    print(label.rstrip(b"\0").decode(), uuid.hex(), features, uid, gid, oct(perm), struct.calcsize(LAYOUT))
"#;

fn python(args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .args(args)
        .output()
        .expect("python3 is needed by this test (it is the independent formatter)");
    assert!(out.status.success(), "python3 failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn mounts_a_superblock_written_by_python() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("super.bin");
    python(&["write", path.to_str().unwrap()]);
    let block = std::fs::read(&path).unwrap();

    let sb = Superblock::parse(&block).expect("zonekit parses Python's superblock");
    assert_eq!(sb.label(), "from-python");
    assert_eq!(sb.uuid_string(), "10111213-1415-1617-1819-1a1b1c1d1e1f");
    assert_eq!((sb.file_uid(), sb.file_gid(), sb.file_perm()), (4242, 4343, 0o604));
    assert_eq!(sb.encode().as_slice(), block.as_slice(), "zonekit would write the same bytes");

    // Mounted from a device whose zone 0 holds it.
    let dev = device(Shape::default());
    dev.write_at(0, &block).unwrap();
    let vol = Volume::mount(blk(&dev), MountOptions::default()).unwrap();
    let st = vol.stat(vol.lookup_path("seq/0").unwrap());
    assert_eq!((st.uid, st.gid, st.mode), (4242, 4343, 0o100604));
}

#[test]
fn python_reads_zonekit_superblocks() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("super.bin");
    let mut sb = Superblock::new(*b"0123456789abcdef");
    sb.set_label("zonekit").unwrap();
    sb.features = zonekit_fs::Features::AGGR_CNV | zonekit_fs::Features::PERM;
    sb.perm = 0o750;
    std::fs::write(&path, sb.encode()).unwrap();
    let out = python(&["check", path.to_str().unwrap()]);
    assert_eq!(out.trim(), "zonekit 30313233343536373839616263646566 9 0 0 0o750 108");
}
