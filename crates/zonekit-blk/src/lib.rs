//! zonekit-blk: zonekit's block layer.
//!
//! Requests and completions, the I/O engines that carry them out ([`engine`]: psync / sync /
//! pvsync / pvsync2 / vsync, io_uring, libaio on Linux native AIO, null), aligned buffers
//! ([`AlignedBuf`]), opening and laying out job files ([`file`]), the real clock ([`clock`]) and
//! simulated time with its discrete-event scheduler ([`sim`]), and the kernel's view of a zoned
//! device ([`zoned`]: queue limits, split requests, management ranges, zone write plugging, the
//! device queue, [`BlockDevice`]).
//!
//! All `unsafe` code is in the private `sys` module, behind the safe types exported here.

pub mod clock;
pub mod engine;
pub mod file;
pub mod request;
pub mod sim;
mod sys;
pub mod zoned;

pub use clock::{Clock, RealClock};
pub use engine::{
    BufferError, BufferMemory, CallsMade, Completion, CpuOptions, Ddir, DeviceEngineConfig, DiskCounts,
    E4defragOptions, Engine, EngineConfig, EngineError, EngineKind, ExecOptions, FileOp, FileOpsOptions, HandOff, Io,
    IoJobs, LibaioOptions, MmapAccess, MmapOptions, NetOptions, NetProto, OffloadEngine, Pvsync2Options, Queued,
    ScsiOptions, ScsiWriteMode, StopFlag, UringOptions, open_device_engine, open_engine,
};
pub use sim::{Scheduler, SimClock};
pub use sys::buf::{AlignedBuf, page_size};
pub use zoned::dispatch::{DeviceQueue, QueueConfig};
pub use zoned::{BlkError, BlockDevice, LimitOverrides, QueueLimits};

/// Poll `fut` on this thread until it is ready (for futures that never wait on a waker, such as
/// the real clock's sleep).
#[cfg(test)]
pub(crate) fn run_to_completion<F: std::future::Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
