//! What the benchmark binaries share.

/// A rayon pool of `n` threads, for measuring a call at a thread count through one
/// `install` per call, as a user with their own pool calls it.
///
/// # Panics
///
/// When the operating system refuses the threads.
pub fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a rayon pool")
}

/// Pools of 1 and 2 threads, each with its count: the thread counts every bench reports.
pub fn pools() -> Vec<(usize, rayon::ThreadPool)> {
    [1, 2].into_iter().map(|n| (n, pool(n))).collect()
}
