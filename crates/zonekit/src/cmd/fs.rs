//! `zonekit fs ls|stat|cat`: read a zonefs volume through the library, without a mount (for
//! checks where FUSE is absent). The volume is mounted read-only: nothing on the device changes.

use super::DevArg;
use super::mkfs::fs_error;
use crate::error::{CliResult, output};
use std::io::Write;
use zonekit_fs::volume::{S_IFDIR, VolumeStat};
use zonekit_fs::{MountOptions, Node, OpenFlags, Volume};

/// Arguments of `zonekit fs ls` and `zonekit fs stat`.
#[derive(Debug, clap::Args)]
pub struct PathArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// A path in the volume (`seq`, `seq/0`, `/cnv/1`) [default: the root].
    #[arg(value_name = "PATH", default_value = "/")]
    pub path: String,
}

/// Arguments of `zonekit fs cat`.
#[derive(Debug, clap::Args)]
pub struct CatArgs {
    /// The device.
    #[command(flatten)]
    pub dev: DevArg,
    /// The file (`seq/0`, `cnv/1`).
    #[arg(value_name = "PATH")]
    pub path: String,
}

fn mount(dev: &DevArg) -> CliResult<Volume> {
    let blk = dev.open_blk(false)?;
    let opts = MountOptions { read_only: true, ..MountOptions::default() };
    Volume::mount(blk, opts).map_err(|e| fs_error(&dev.dev, &e))
}

/// `-rw-r-----`, `dr-xr-xr-x`.
fn mode_string(mode: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(if mode & S_IFDIR != 0 { 'd' } else { '-' });
    for shift in [6, 3, 0] {
        let bits = (mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    s
}

fn ls_line(st: &VolumeStat, name: &str) -> String {
    format!("{:>8} {} {:>2} {:>5} {:>5} {:>14} {name}", st.ino, mode_string(st.mode), st.nlink, st.uid, st.gid, st.size)
}

/// `zonekit fs ls`: `ls -lin`'s columns (inode, mode, links, uid, gid, size, name) for the
/// entries of a directory, or for one file.
pub fn ls(args: &PathArgs, w: &mut impl Write) -> CliResult {
    let vol = mount(&args.dev)?;
    let spec = &args.dev.dev;
    let node = vol.lookup_path(&args.path).map_err(|e| fs_error(spec, &e))?;
    if let Node::File(_) = node {
        return output(writeln!(w, "{}", ls_line(&vol.stat(node), args.path.trim_start_matches('/'))));
    }
    for e in vol.readdir(node).map_err(|e| fs_error(spec, &e))? {
        output(writeln!(w, "{}", ls_line(&vol.stat(e.node), &e.name)))?;
    }
    Ok(())
}

/// `zonekit fs stat`: a node's attributes; for the root, also the volume's (superblock,
/// `statfs`, the sysfs counters).
pub fn stat(args: &PathArgs, w: &mut impl Write) -> CliResult {
    let vol = mount(&args.dev)?;
    let spec = &args.dev.dev;
    let node = vol.lookup_path(&args.path).map_err(|e| fs_error(spec, &e))?;
    let st = vol.stat(node);
    let mut s = String::new();
    use std::fmt::Write as _;
    let kind = if matches!(node, Node::File(_)) { "regular file" } else { "directory" };
    let _ = writeln!(s, "  File: {}", args.path);
    let _ = writeln!(s, "  Type: {kind}");
    let _ = writeln!(s, " Inode: {}", st.ino);
    let _ =
        writeln!(s, "Access: ({:04o}/{})  Uid: {}  Gid: {}", st.mode & 0o7777, mode_string(st.mode), st.uid, st.gid);
    let _ = writeln!(s, " Links: {}", st.nlink);
    let _ = writeln!(s, "  Size: {}", st.size);
    let _ = writeln!(s, "Blocks: {} (512-byte)  IO Block: {}", st.blocks, st.blksize);
    if let Node::File(id) = node {
        let f = vol.layout().file(id);
        let _ = writeln!(
            s,
            "  Zone: {} ({} zone{} from sector {}, capacity {} bytes)",
            f.first_zone,
            f.nr_zones,
            if f.nr_zones == 1 { "" } else { "s" },
            f.start,
            f.capacity_bytes()
        );
    }
    if node == Node::Root {
        let sb = vol.superblock();
        let fs = vol.statfs();
        let _ = writeln!(s, "Volume:");
        let _ = writeln!(s, "  UUID: {}", sb.uuid_string());
        let label = sb.label();
        let _ = writeln!(s, "  Label: {}", if label.is_empty() { "(none)" } else { &label });
        let _ = writeln!(s, "  Features: 0x{:x}", sb.features.0);
        let _ = writeln!(s, "  Block size: {}", fs.bsize);
        let _ = writeln!(s, "  Blocks: total {} free {} available {}", fs.blocks, fs.bfree, fs.bavail);
        let _ = writeln!(s, "  Inodes: total {} free {}", fs.files, fs.ffree);
        let c = vol.sysfs();
        for (k, v) in c.attributes() {
            let _ = writeln!(s, "  {k}: {v}");
        }
    }
    output(write!(w, "{s}"))
}

/// `zonekit fs cat`: a file's bytes (up to its size) to standard output.
pub fn cat(args: &CatArgs, w: &mut impl Write) -> CliResult {
    let vol = mount(&args.dev)?;
    let spec = &args.dev.dev;
    let node = vol.lookup_path(&args.path).map_err(|e| fs_error(spec, &e))?;
    let Node::File(id) = node else {
        let e = zonekit_fs::FsError::refused(zonekit_core::Errno::EISDIR, format!("{}: is a directory", args.path));
        return Err(fs_error(spec, &e));
    };
    let f = vol.open(id, OpenFlags::default()).map_err(|e| fs_error(spec, &e))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = vol.read(&f, at, &mut buf).map_err(|e| fs_error(spec, &e))?;
        if n == 0 {
            break;
        }
        output(w.write_all(&buf[..n]))?;
        at += n as u64;
    }
    vol.release(f);
    output(w.flush())
}
