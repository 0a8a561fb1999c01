//! The units of a large copy on several threads of the caller's rayon pool. The calling thread
//! starts on the first units at once and helpers join as they come, each claiming the next run
//! of units from a shared counter (guided: a share of what is left, never under a minimum, so
//! the runs are long at first and short at the end); the caller returns when every claimed
//! unit is done. A helper that comes late finds less or nothing left, and the caller never
//! waits for one that has not claimed anything.
//!
//! After a copy a helper stays ready for [`STANDBY`] for the same calling thread's next one
//! (while running any other work of its pool that is waiting), so back-to-back copies do not
//! wait each time for a sleeping thread to wake: on a VM that is up to a few hundred
//! microseconds (BENCHMARKS.md, "Two threads"). The calling thread posts each copy where its
//! ready helpers look and spawns only the helpers that are not ready; a thread's pool never
//! changes, so its helpers are always of its own pool.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

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
    /// Helpers still wanted: a ready helper or a spawned one joins only while some are.
    seats: AtomicUsize,
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
                lock(&self.panic).get_or_insert(payload);
            }
            self.done.fetch_add(last - first, Ordering::Release);
        }
    }

    /// Take a seat if one is left and units are still to claim: a helper that comes after
    /// the last claim has nothing to do here.
    #[allow(deprecated)] // `fetch_update` is `try_update` on newer nightlies, not in Rust 1.80
    fn seat(&self) -> bool {
        self.next.load(Ordering::Relaxed) < self.units
            && self
                .seats
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| s.checked_sub(1))
                .is_ok()
    }
}

/// How long a helper stays ready for its calling thread's next copy, unless
/// [`set_helper_standby`](crate::set_helper_standby) says otherwise (BENCHMARKS.md, "Two threads").
const STANDBY: Duration = Duration::from_micros(if cfg!(miri) { 20 } else { 200 });

/// The wait of a helper starting to wait now.
fn standby_now() -> Duration {
    super::standby::helper_standby().unwrap_or(STANDBY)
}

/// Where one calling thread posts its copies for the helpers ready for them.
struct Standby {
    /// Copies posted so far; a ready helper watches it change.
    posted: AtomicUsize,
    /// The copy posted last, until it ends.
    job: Mutex<Option<Arc<Shared>>>,
    /// Helpers ready for the next copy.
    ready: AtomicUsize,
    /// How long a helper stays ready: `None` for [`standby_now`].
    wait: Option<Duration>,
    /// Set when the calling thread ends: no copy comes any more.
    closed: AtomicBool,
    /// Helpers spawned for copies posted here.
    #[cfg(test)]
    spawned: AtomicUsize,
}

/// A calling thread's [`Standby`]; its helpers stop waiting when it ends.
struct Poster(Arc<Standby>);

impl Drop for Poster {
    fn drop(&mut self) {
        self.0.closed.store(true, Ordering::Relaxed);
    }
}

thread_local! {
    static POSTER: Poster = Poster(Arc::new(Standby::new(None)));
}

impl Standby {
    fn new(wait: Option<Duration>) -> Self {
        Standby {
            posted: AtomicUsize::new(0),
            job: Mutex::new(None),
            ready: AtomicUsize::new(0),
            wait,
            closed: AtomicBool::new(false),
            #[cfg(test)]
            spawned: AtomicUsize::new(0),
        }
    }

    /// A helper's life: join `job`, posted as copy number `seen`, if it still wants a helper,
    /// and then every copy posted here while the helper is ready.
    fn help(self: Arc<Self>, mut job: Arc<Shared>, mut seen: usize) {
        if !job.seat() {
            // A ready helper took the seat, or the copy has no unit left to claim.
            return;
        }
        loop {
            job.work();
            drop(job);
            match self.next_copy(&mut seen) {
                Some(next) => job = next,
                None => return,
            }
        }
    }

    /// Wait up to `wait` for a copy posted after number `seen` that wants a helper, running
    /// the pool's other work meanwhile; the copy with a seat taken, or `None` once the wait is
    /// over or the calling thread has ended.
    fn next_copy(&self, seen: &mut usize) -> Option<Arc<Shared>> {
        // A helper counts as ready until it has its seat: a caller that sees it ready spawns
        // no helper for it, one that does not may spawn one too many, which finds no seat.
        self.ready.fetch_add(1, Ordering::SeqCst);
        let wait = self.wait.unwrap_or_else(standby_now);
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            let posted = self.posted.load(Ordering::SeqCst);
            if posted != *seen {
                *seen = posted;
                if let Some(job) = self.seat_in_posted() {
                    self.ready.fetch_sub(1, Ordering::SeqCst);
                    return Some(job);
                }
            }
            polls = polls.wrapping_add(1);
            if polls % 64 == 0 {
                // Other work of this pool comes first, and then any other thread that waits
                // for this core: a ready helper only keeps the core from going idle.
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    std::thread::yield_now();
                }
                if start.elapsed() >= wait || self.closed.load(Ordering::Relaxed) {
                    self.ready.fetch_sub(1, Ordering::SeqCst);
                    // A caller that posted before the line above counted this helper as
                    // ready and spawned none for it (both sides are `SeqCst`).
                    return match self.posted.load(Ordering::SeqCst) {
                        posted if posted != *seen => self.seat_in_posted(),
                        _ => None,
                    };
                }
            }
            std::hint::spin_loop();
        }
    }

    /// The copy posted last, with a seat taken, if it is still running and wants a helper.
    fn seat_in_posted(&self) -> Option<Arc<Shared>> {
        let job = lock(&self.job).clone()?;
        job.seat().then_some(job)
    }
}

/// A mutex's value, also after a panic elsewhere (nothing here is left half-written).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A thread claims at least this many bytes of output at a time: the shared counter then stays
/// cold next to the copying (some units, of grouped axes, are a few hundred bytes).
const CLAIM_BYTES: usize = 64 * 1024;

/// Run `unit(u)` once for every `u < units` (of `bytes` output bytes in all) on the calling
/// thread and the other threads of the caller's rayon pool (outside one, the global pool's
/// threads, leaving the caller a core);
/// returns when all have run. A panic in a unit is resumed on the calling thread once no unit
/// is running any more (the rest of the units claimed with it do not run).
pub(super) fn for_each<F: Fn(usize) + Sync>(units: usize, bytes: usize, unit: F) {
    let batch = CLAIM_BYTES / (bytes / units.max(1)).max(1);
    let helpers = match rayon::current_thread_index() {
        // A thread of the pool is one of its threads: the others help.
        Some(_) => rayon::current_num_threads() - 1,
        // A thread outside any pool works besides the global pool's threads: they all help,
        // as many as leave the caller a core of its own (the default global pool has one
        // thread per core, and then one of them stays out).
        None => rayon::current_num_threads().min(cores() - 1),
    };
    // A fresh one during the thread's teardown, where its own is gone.
    let standby = POSTER
        .try_with(|p| Arc::clone(&p.0))
        .unwrap_or_else(|_| Arc::new(Standby::new(None)));
    share(&standby, units, helpers, batch, unit);
}

/// The cores this process may use (`available_parallelism`, read once; 1 when unknown).
fn cores() -> usize {
    static CORES: AtomicUsize = AtomicUsize::new(0);
    match CORES.load(Ordering::Relaxed) {
        0 => {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get());
            CORES.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// [`for_each`] with up to `helpers` threads besides the caller, each claim at least `batch`
/// units, posted at `standby`.
fn share<F: Fn(usize) + Sync>(
    standby: &Arc<Standby>,
    units: usize,
    helpers: usize,
    batch: usize,
    unit: F,
) {
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
        seats: AtomicUsize::new(helpers),
        panic: Mutex::new(None),
        job: call::<F>,
        ctx: (&unit as *const F).cast(),
    });
    *lock(&standby.job) = Some(Arc::clone(&shared));
    let seen = standby.posted.fetch_add(1, Ordering::SeqCst) + 1;
    let ready = standby.ready.load(Ordering::SeqCst);
    for _ in ready.min(helpers)..helpers {
        #[cfg(test)]
        standby.spawned.fetch_add(1, Ordering::Relaxed);
        let (standby, shared) = (Arc::clone(standby), Arc::clone(&shared));
        rayon::spawn(move || standby.help(shared, seen));
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
    {
        // A copy that a unit of this one posted (through an element's `Clone`) took the slot
        // over and has cleared it.
        let mut posted = lock(&standby.job);
        if posted.as_ref().is_some_and(|job| Arc::ptr_eq(job, &shared)) {
            *posted = None;
        }
    }
    let payload = lock(&shared.panic).take();
    if let Some(payload) = payload {
        panic::resume_unwind(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::{share, standby_now, Poster, Standby, STANDBY};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Waits until `done()`, failing after a minute (ten under Miri, which interprets one
    /// thread at a time: a helper's spawn alone takes it seconds, more on a loaded machine).
    fn wait_for(what: &str, done: impl Fn() -> bool) {
        let limit = Duration::from_secs(if cfg!(miri) { 600 } else { 60 });
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < limit, "{what}");
            std::thread::yield_now();
        }
    }

    /// Two units, the first of which waits for the second to start: the copy ends only if a
    /// helper runs the second (the caller claims the first, a claim being one unit here).
    fn two_threads(standby: &Arc<Standby>) {
        let second = AtomicUsize::new(0);
        share(standby, 2, 1, 1, |u| {
            if u == 0 {
                wait_for("a helper took the second unit", || {
                    second.load(Ordering::SeqCst) == 1
                });
            } else {
                second.store(1, Ordering::SeqCst);
            }
        });
    }

    /// A helper stays ready after a copy and takes the same thread's next copy without a
    /// spawn; it stops waiting when the calling thread's poster is gone.
    #[test]
    fn a_ready_helper_takes_the_next_copy() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            let poster = Poster(Arc::new(Standby::new(Some(Duration::from_secs(600)))));
            let standby = Arc::clone(&poster.0);
            two_threads(&standby);
            assert_eq!(standby.spawned.load(Ordering::SeqCst), 1);
            for _ in 0..3 {
                wait_for("the helper is ready", || {
                    standby.ready.load(Ordering::SeqCst) == 1
                });
                two_threads(&standby);
            }
            assert_eq!(
                standby.spawned.load(Ordering::SeqCst),
                1,
                "no spawn after the first"
            );
            drop(poster);
            wait_for("the helper left", || Arc::strong_count(&standby) == 1);
            assert_eq!(standby.ready.load(Ordering::SeqCst), 0);
        });
    }

    /// The wait `set_helper_standby` sets is the one a helper of a default poster keeps: with
    /// none, no helper is ready after a copy and the next copy spawns again.
    #[test]
    fn the_standby_switch_is_read_at_each_wait() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        crate::copy::set_helper_standby(Duration::ZERO);
        assert_eq!(standby_now(), Duration::ZERO);
        pool.install(|| {
            let standby = Arc::new(Standby::new(None));
            for copies in 1..=3 {
                two_threads(&standby);
                wait_for("the helper left", || Arc::strong_count(&standby) == 1);
                assert_eq!(standby.ready.load(Ordering::SeqCst), 0);
                assert_eq!(standby.spawned.load(Ordering::SeqCst), copies);
            }
        });
        // Past u64 nanoseconds (584 years) the wait saturates.
        crate::copy::set_helper_standby(Duration::MAX);
        assert_eq!(standby_now(), Duration::from_nanos(u64::MAX - 1));
        crate::copy::set_helper_standby(STANDBY);
        assert_eq!(standby_now(), STANDBY);
    }

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
        let standby = Arc::new(Standby::new(Some(STANDBY)));
        for &helpers in helpers_ {
            for &units in units_ {
                for &batch in batches {
                    let runs: Vec<AtomicUsize> = (0..units).map(|_| AtomicUsize::new(0)).collect();
                    share(&standby, units, helpers, batch, |u| {
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
            share(&Arc::new(Standby::new(Some(STANDBY))), 500, 2, 7, |u| {
                sum.fetch_add(u, Ordering::Relaxed);
            })
        });
        assert_eq!(sum.into_inner(), 500 * 499 / 2);
    }

    /// A unit may run a copy of its own on the same thread's standby (an element's `Clone`
    /// may copy): both copies run every unit once.
    #[test]
    fn a_copy_inside_a_unit() {
        let standby = Arc::new(Standby::new(Some(STANDBY)));
        let (outer, inner) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let units = if cfg!(miri) { 4 } else { 64 };
        share(&standby, units, 2, 1, |_| {
            outer.fetch_add(1, Ordering::Relaxed);
            share(&standby, units, 2, 1, |u| {
                inner.fetch_add(u + 1, Ordering::Relaxed);
            });
        });
        assert_eq!(outer.into_inner(), units);
        assert_eq!(inner.into_inner(), units * units * (units + 1) / 2);
        assert!(standby.job.lock().unwrap().is_none(), "the slot is cleared");
    }

    /// A panicking unit reaches the caller with its own payload once no unit is running, and
    /// no unit starts after the caller has it.
    #[test]
    fn a_panic_reaches_the_caller_after_the_other_units() {
        let (started, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let caught = std::panic::catch_unwind(|| {
            share(&Arc::new(Standby::new(Some(STANDBY))), 64, 3, 1, |u| {
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
