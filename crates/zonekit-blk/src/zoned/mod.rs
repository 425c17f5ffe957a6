//! The block layer's view of a zoned device, as Linux's (6.12): zone write plugging and the
//! single-context QD1 worker ([`plug`]).

pub mod dispatch;
pub mod plug;
