//! The units of a large copy on several threads of the caller's rayon pool. The calling thread
//! starts on the first units at once and helpers join as they wake, each claiming the next run
//! of units from a shared counter (guided: a share of what is left, never under a minimum, so
//! the runs are long at first and short at the end); the caller returns when every claimed
//! unit is done. A helper that wakes late finds less or nothing left, and the caller never
//! waits for one that has not claimed anything: where idle cores take long to wake (a VM's
//! halted vCPU, up to a few hundred microseconds), a copy still runs at about one thread's
//! speed or better (BENCHMARKS.md, "Two threads").

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One copy's units as its threads share them.
struct Shared {
    /// The next unit to claim; claims at or past `units` find nothing.
    next: AtomicUsize,
    /// Units finished, by any thread.
    done: AtomicUsize,
    units: usize,
    /// The fewest units per claim.
    batch: usize,
    /// Threads sharing the units: a claim takes at most `1 / (2 * threads)` of those left.
    threads: usize,
    /// The first panic of a unit, for the caller to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Runs unit `u` of the caller's closure at `ctx`.
    job: unsafe fn(*const (), usize),
    ctx: *const (),
}

// SAFETY: `ctx` points to the caller's `Sync` closure and is only used, through `job`, for a
// unit claimed below `units`; the caller keeps the closure alive until every such unit is done
// (`share` waits for `done == units`), so sharing `Shared` shares `&F` for that long only.
unsafe impl Send for Shared {}
// SAFETY: as for `Send`.
unsafe impl Sync for Shared {}

impl Shared {
    /// Claim and run batches of units until none is left; a panicking unit ends its batch,
    /// whose units all count as done.
    fn work(&self) {
        loop {
            let mut first = self.next.load(Ordering::Relaxed);
            let last = loop {
                if first >= self.units {
                    return;
                }
                let left = self.units - first;
                let take = (left / (2 * self.threads)).max(self.batch).min(left);
                match self.next.compare_exchange_weak(
                    first,
                    first + take,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break first + take,
                    Err(now) => first = now,
                }
            };
            let run = panic::catch_unwind(AssertUnwindSafe(|| {
                for u in first..last {
                    // SAFETY: unit `u` is below `units` and claimed by this thread alone, so the
                    // caller is still waiting in `share` and the closure at `ctx` is alive.
                    unsafe { (self.job)(self.ctx, u) }
                }
            }));
            if let Err(payload) = run {
                let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(payload);
            }
            self.done.fetch_add(last - first, Ordering::Release);
        }
    }
}

/// A thread claims at least this many bytes of output at a time: the shared counter then stays
/// cold next to the copying (some units, of grouped axes, are a few hundred bytes).
const CLAIM_BYTES: usize = 64 * 1024;

/// Run `unit(u)` once for every `u < units` (of `bytes` output bytes in all) on the calling
/// thread and the other threads of the caller's rayon pool (the global pool outside one);
/// returns when all have run. A panic in a unit is resumed on the calling thread once no unit
/// is running any more (the rest of the units claimed with it do not run).
pub(super) fn for_each<F: Fn(usize) + Sync>(units: usize, bytes: usize, unit: F) {
    let batch = CLAIM_BYTES / (bytes / units.max(1)).max(1);
    share(units, rayon::current_num_threads() - 1, batch, unit);
}

/// [`for_each`] with up to `helpers` threads besides the caller, each claim at least `batch`
/// units.
fn share<F: Fn(usize) + Sync>(units: usize, helpers: usize, batch: usize, unit: F) {
    let batch = batch.max(1);
    let helpers = helpers.min(units.div_ceil(batch).saturating_sub(1));
    if helpers == 0 {
        (0..units).for_each(unit);
        return;
    }
    /// # Safety
    /// `ctx` must point to a live `F`.
    unsafe fn call<F: Fn(usize)>(ctx: *const (), u: usize) {
        // SAFETY: the caller's contract.
        unsafe { (*ctx.cast::<F>())(u) }
    }
    let shared = Arc::new(Shared {
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        units,
        batch,
        threads: helpers + 1,
        panic: Mutex::new(None),
        job: call::<F>,
        ctx: (&unit as *const F).cast(),
    });
    for _ in 0..helpers {
        let shared = Arc::clone(&shared);
        rayon::spawn(move || shared.work());
    }
    shared.work();
    // Every unit is claimed; wait for the helpers' last ones (a batch is some 64 KiB to 1 MiB
    // of output, so this is short unless a helper was descheduled).
    let mut spins = 0u32;
    while shared.done.load(Ordering::Acquire) < units {
        if spins < 4096 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    let payload = shared
        .panic
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(payload) = payload {
        panic::resume_unwind(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::share;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Every unit runs exactly once, with 0 to 7 helpers and batches of 1 to 64 units (more
    /// than there are), inside and outside a pool.
    #[test]
    fn every_unit_once() {
        // Fewer under Miri, which runs every thread on one.
        let (helpers_, units_, batches): (&[usize], &[usize], &[usize]) = if cfg!(miri) {
            (&[0, 2], &[0, 1, 17], &[1, 3])
        } else {
            (&[0, 1, 2, 3, 7], &[0, 1, 2, 3, 17, 1000], &[0, 1, 3, 64])
        };
        for &helpers in helpers_ {
            for &units in units_ {
                for &batch in batches {
                    let runs: Vec<AtomicUsize> = (0..units).map(|_| AtomicUsize::new(0)).collect();
                    share(units, helpers, batch, |u| {
                        runs[u].fetch_add(1, Ordering::Relaxed);
                    });
                    assert!(
                        runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                        "{units} units, {helpers} helpers, batch {batch}"
                    );
                }
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let sum = AtomicUsize::new(0);
        pool.install(|| {
            share(500, 2, 7, |u| {
                sum.fetch_add(u, Ordering::Relaxed);
            })
        });
        assert_eq!(sum.into_inner(), 500 * 499 / 2);
    }

    /// A panicking unit reaches the caller with its own payload once no unit is running, and
    /// no unit starts after the caller has it.
    #[test]
    fn a_panic_reaches_the_caller_after_the_other_units() {
        let (started, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let caught = std::panic::catch_unwind(|| {
            share(64, 3, 1, |u| {
                started.fetch_add(1, Ordering::SeqCst);
                if u == 5 {
                    panic!("unit five");
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
                finished.fetch_add(1, Ordering::SeqCst);
            })
        });
        let payload = caught.expect_err("the unit's panic");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"unit five"));
        let (s, f) = (
            started.load(Ordering::SeqCst),
            finished.load(Ordering::SeqCst),
        );
        assert_eq!(s, f + 1, "every unit but the panicking one had finished");
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(
            started.load(Ordering::SeqCst),
            s,
            "no unit started after the return"
        );
    }
}
