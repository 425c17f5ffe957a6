//! The slot rules shared by the kernel queues that own their I/O buffers ([`super::uring::Ring`],
//! [`super::aio::Aio`]): one buffer per slot, a slot busy from the moment its I/O is queued until
//! its completion is reaped, and a busy slot's buffer never lent out (the kernel may be using it).

use super::buf::SlotBuffers;

/// Data direction of a transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rw {
    /// Read into the slot's buffer.
    Read,
    /// Write from the slot's buffer.
    Write,
}

/// Why an I/O could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushError {
    /// All slots are queued or in flight, or this slot is: reap first.
    Busy,
    /// The slot does not exist.
    BadSlot,
    /// The transfer is larger than a slot's buffer.
    TooLong,
}

/// The buffer of slot `tag` of `bufs`, unless `busy` says an I/O holds it (or the slot does not
/// exist): the rule that keeps a buffer the kernel may touch from being lent out.
#[inline]
pub(super) fn free_slot_buffer<'a>(busy: &[bool], bufs: &'a mut SlotBuffers, tag: usize) -> Option<&'a mut [u8]> {
    if *busy.get(tag)? {
        return None;
    }
    bufs.get_mut(tag)
}

/// Whether slot `tag` can take an I/O when `in_use` of `depth` slots are queued or in the kernel.
#[inline]
pub(super) fn claim_slot(busy: &[bool], tag: usize, in_use: u32, depth: u32) -> Result<(), PushError> {
    match busy.get(tag) {
        None => Err(PushError::BadSlot),
        Some(true) => Err(PushError::Busy),
        Some(false) if in_use >= depth => Err(PushError::Busy),
        Some(false) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_slot_is_neither_lent_nor_claimed() {
        let mut bufs = SlotBuffers::new(2, 512, 0).unwrap();
        let busy = [true, false];
        assert!(free_slot_buffer(&busy, &mut bufs, 0).is_none());
        assert_eq!(free_slot_buffer(&busy, &mut bufs, 1).map(|b| b.len()), Some(512));
        assert!(free_slot_buffer(&busy, &mut bufs, 2).is_none());
        assert_eq!(claim_slot(&busy, 0, 1, 2), Err(PushError::Busy));
        assert_eq!(claim_slot(&busy, 1, 1, 2), Ok(()));
        assert_eq!(claim_slot(&busy, 1, 2, 2), Err(PushError::Busy));
        assert_eq!(claim_slot(&busy, 2, 0, 2), Err(PushError::BadSlot));
    }
}
