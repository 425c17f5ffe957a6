//! The memory store: sparse chunks per zone, dropped on reset.

use super::Store;
use std::collections::{BTreeMap, HashMap};
use std::io;
use zonekit_core::Transition;

const CHUNK: u64 = 64 * 1024;

/// Keeps data in memory, in 64 KiB chunks allocated on first write; a reset frees the zone's chunks.
#[derive(Debug, Default)]
pub struct MemoryStore {
    zones: HashMap<u32, BTreeMap<u64, Box<[u8]>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Bytes of chunks allocated (for tests and `dev info`).
    pub fn allocated_bytes(&self) -> u64 {
        self.zones.values().map(|z| z.len() as u64 * CHUNK).sum()
    }
}

/// Split `[offset, offset + len)` into (chunk index, offset in chunk, length) pieces.
fn pieces(offset: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize)> {
    let end = offset + len as u64;
    let mut pos = offset;
    std::iter::from_fn(move || {
        if pos >= end {
            return None;
        }
        let idx = pos / CHUNK;
        let in_chunk = (pos % CHUNK) as usize;
        let n = ((CHUNK - pos % CHUNK).min(end - pos)) as usize;
        pos += n as u64;
        Some((idx, in_chunk, n))
    })
}

impl Store for MemoryStore {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn read(&mut self, zone: u32, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let chunks = self.zones.get(&zone);
        let mut done = 0;
        for (idx, at, n) in pieces(offset, buf.len()) {
            let dst = &mut buf[done..done + n];
            match chunks.and_then(|c| c.get(&idx)) {
                Some(chunk) => dst.copy_from_slice(&chunk[at..at + n]),
                None => dst.fill(0),
            }
            done += n;
        }
        Ok(())
    }

    fn write(&mut self, zone: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        let chunks = self.zones.entry(zone).or_default();
        let mut done = 0;
        for (idx, at, n) in pieces(offset, data.len()) {
            let chunk = chunks.entry(idx).or_insert_with(|| vec![0u8; CHUNK as usize].into_boxed_slice());
            chunk[at..at + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
        Ok(())
    }

    fn zone_changed(&mut self, t: &Transition) -> io::Result<()> {
        // A moved write pointer (fault injection) leaves the bytes beyond it in place, as a
        // device's media keeps them: reads stop at the write pointer, and writes overwrite them.
        if t.discards_data() {
            self.zones.remove(&t.zone);
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_round_trip_across_chunks() {
        let mut s = MemoryStore::new();
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        s.write(3, 60_000, &data).unwrap();
        let mut back = vec![0xaau8; data.len() + 1000];
        s.read(3, 59_000, &mut back).unwrap();
        assert!(back[..1000].iter().all(|&b| b == 0));
        assert_eq!(&back[1000..], &data[..]);
        let mut other = [1u8; 16];
        s.read(4, 0, &mut other).unwrap();
        assert_eq!(other, [0u8; 16]);
        assert_eq!(s.allocated_bytes(), 4 * CHUNK, "bytes 60,000..260,000 touch chunks 0-3");
    }
}
