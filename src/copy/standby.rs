//! How long the helpers of a parallel copy stay ready for the calling thread's next copy:
//! [`set_helper_standby`], read by `parallel` at each wait.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The wait [`set_helper_standby`] set, in nanoseconds; `u64::MAX` while unset.
static STANDBY_SET: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets how long the helper threads of a parallel copy stay ready for the same calling
/// thread's next copy: 200 µs unless set; `Duration::ZERO` lets them go back to their pool as
/// soon as a copy ends. Applies to the waits that start after the call, on every pool. Without
/// the `rayon` feature copies are serial and there is nothing to set.
///
/// While ready, a helper runs any other work waiting in its pool and yields its core to any
/// other thread, so the work after a copy loses no wall-clock time to it; what it costs is CPU
/// time when the copy is followed by an idle gap of about the wait (up to the wait per copy),
/// and what it saves is a sleeping thread's wake-up (up to a few hundred microseconds on a
/// virtual machine) when copies come back to back (BENCHMARKS.md, "Two threads"). Turn it off
/// where CPU time is billed, or where other threads should have the cores at once.
///
/// ```
/// use std::time::Duration;
///
/// ndarray_reshape::set_helper_standby(Duration::ZERO); // no waiting after a copy
/// ndarray_reshape::set_helper_standby(Duration::from_micros(200)); // the default
/// ```
pub fn set_helper_standby(wait: Duration) {
    let ns = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
    STANDBY_SET.store(ns.min(u64::MAX - 1), Ordering::Relaxed);
}

/// The wait [`set_helper_standby`] set, if it was.
#[cfg_attr(not(feature = "rayon"), allow(dead_code))]
pub(super) fn helper_standby() -> Option<Duration> {
    match STANDBY_SET.load(Ordering::Relaxed) {
        u64::MAX => None,
        ns => Some(Duration::from_nanos(ns)),
    }
}
