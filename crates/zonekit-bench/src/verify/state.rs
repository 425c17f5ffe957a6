//! fio's verify state files (`verify_state_save` / `verify_state_load`): what a writing job had
//! completed when it stopped, so that a later verify run stops where the writes stopped. The
//! format is fio 3.33's (`verify-state.h`, version 3, little-endian), which its
//! `fio-verify-state` tool prints:
//!
//! - a 24-byte header: `u64 version` (3), `u64 size` (of what follows), `u64 crc` (fio's CRC32C
//!   of what follows);
//! - the job's list: `u64 no_comps`, `u32 depth`, `u32 nofiles`, `u64 numberio` (writes
//!   issued), `u64 index` (the job's 0-based number), the random state (`u64 use64` and 48 bytes;
//!   zonekit writes zeros, fio reads them only to resume its own generator), `name` (64 bytes, NUL
//!   padded), then `depth × nofiles` completions of `u64 fileno, u64 offset`, the most recent
//!   first, `no_comps` of them used.

use super::fio_crc32c;

const VERSION: u64 = 3;
const LIST_FIXED: usize = 152;

/// One job's saved state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VerifyState {
    /// The job's name.
    pub name: String,
    /// The job's 0-based number in the run.
    pub index: u64,
    /// `iodepth`.
    pub depth: u32,
    /// Files of the job.
    pub nofiles: u32,
    /// Writes issued.
    pub numberio: u64,
    /// The last completed writes (file number, offset), most recent first.
    pub comps: Vec<(u64, u64)>,
}

/// The file fio names for a job's state: `local-<name>-<index>-verify.state`, `/` in the name
/// turned into `.`.
pub fn file_name(job: &str, index: u64) -> String {
    format!("local-{}-{index}-verify.state", job.replace('/', "."))
}

impl VerifyState {
    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let slots = self.depth as usize * self.nofiles as usize;
        let mut l = vec![0u8; LIST_FIXED + 16 * slots];
        l[0..8].copy_from_slice(&(self.comps.len() as u64).to_le_bytes());
        l[8..12].copy_from_slice(&self.depth.to_le_bytes());
        l[12..16].copy_from_slice(&self.nofiles.to_le_bytes());
        l[16..24].copy_from_slice(&self.numberio.to_le_bytes());
        l[24..32].copy_from_slice(&self.index.to_le_bytes());
        let name = self.name.as_bytes();
        let n = name.len().min(63);
        l[88..88 + n].copy_from_slice(&name[..n]);
        for (i, (f, o)) in self.comps.iter().take(slots).enumerate() {
            let at = LIST_FIXED + 16 * i;
            l[at..at + 8].copy_from_slice(&f.to_le_bytes());
            l[at + 8..at + 16].copy_from_slice(&o.to_le_bytes());
        }
        let mut out = Vec::with_capacity(24 + l.len());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(l.len() as u64).to_le_bytes());
        out.extend_from_slice(&u64::from(fio_crc32c(&l)).to_le_bytes());
        out.extend_from_slice(&l);
        out
    }

    /// Reads a state file's bytes; the error is fio's line for what is wrong.
    pub fn decode(b: &[u8]) -> Result<VerifyState, String> {
        if b.len() < 24 {
            return Err("failed reading verify state header".into());
        }
        let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let version = u64_at(b, 0);
        if version != VERSION {
            return Err(format!("unsupported ({}) version in verify state header", version as u32));
        }
        let size = u64_at(b, 8) as usize;
        let crc = u64_at(b, 16);
        let l = b.get(24..24usize.saturating_add(size)).filter(|l| l.len() >= LIST_FIXED);
        let Some(l) = l else { return Err("failed reading verity state".into()) };
        if u64::from(fio_crc32c(l)) != crc {
            return Err("verify state is corrupt".into());
        }
        let no_comps = u64_at(l, 0) as usize;
        let depth = u32::from_le_bytes(l[8..12].try_into().unwrap_or_default());
        let nofiles = u32::from_le_bytes(l[12..16].try_into().unwrap_or_default());
        let name_bytes = &l[88..152];
        let end = name_bytes.iter().position(|&c| c == 0).unwrap_or(64);
        let mut comps = Vec::new();
        for i in 0..no_comps {
            let at = LIST_FIXED + 16 * i;
            if at + 16 > l.len() {
                return Err("verify state is corrupt".into());
            }
            comps.push((u64_at(l, at), u64_at(l, at + 8)));
        }
        Ok(VerifyState {
            name: String::from_utf8_lossy(&name_bytes[..end]).into_owned(),
            index: u64_at(l, 24),
            depth,
            nofiles,
            numberio: u64_at(l, 16),
            comps,
        })
    }

    /// fio's `verify_state_should_stop`: whether a verify read of `offset` in file `fileno`, after
    /// `reads_done` verify reads, is past what the writing job had completed.
    pub fn should_stop(&self, reads_done: u64, fileno: u64, offset: u64) -> bool {
        let depth = u64::from(self.depth);
        if (reads_done < depth || self.numberio.wrapping_sub(reads_done) > depth) && self.numberio > depth {
            return false;
        }
        !self.comps.iter().any(|&(f, o)| f == fileno && o == offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_of_fios_state_file() {
        let s = VerifyState { name: "j".into(), index: 0, depth: 1, nofiles: 1, numberio: 16, comps: vec![(0, 61440)] };
        let b = s.encode();
        assert_eq!(b.len(), 192, "a depth-1 one-file job's file, as fio writes it");
        assert_eq!(&b[0..8], &3u64.to_le_bytes());
        assert_eq!(&b[8..16], &168u64.to_le_bytes());
        assert_eq!(b[24 + 88], b'j');
        assert_eq!(&b[24 + 160..24 + 168], &61440u64.to_le_bytes());
        assert_eq!(VerifyState::decode(&b).unwrap(), s);
        let mut bad = b.clone();
        bad[40] ^= 1;
        assert_eq!(VerifyState::decode(&bad).unwrap_err(), "verify state is corrupt");
        assert!(VerifyState::decode(&b[..100]).is_err());
        assert_eq!(file_name("a/b", 2), "local-a.b-2-verify.state");
    }

    #[test]
    fn stops_past_the_last_completed_writes() {
        let s = VerifyState { depth: 1, nofiles: 1, numberio: 16, comps: vec![(0, 61440)], ..Default::default() };
        assert!(!s.should_stop(3, 0, 12288), "far from the end: keep going");
        assert!(!s.should_stop(15, 0, 61440), "the last write completed");
        assert!(s.should_stop(15, 0, 57344), "in the window, not completed");
    }
}
