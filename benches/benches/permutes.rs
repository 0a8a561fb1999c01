//! This crate's permuting copies against the fastest out-of-place transposers there are, on the
//! relayouts models do: HPTT (C++, through the `hptt` bindings, with OpenMP; only with the
//! bench member's `hptt` feature; `f32`, `f64` and complex `f64` only), `strided-perm` (a Rust
//! port of HPTT, generic over the element, threads through `threadteam`), the `transpose`
//! crate on the 2-D cases, and memcpy of the same bytes. Elements of 16, 8, 4, 2 and 1 bytes
//! (`u16` and `u8` stand for `f16`/`bf16` and `int8`/image data: the copy moves bits), flips
//! (negative strides) and a batched transpose besides the permutes.
//!
//! Every contestant writes into a reused, C-contiguous output buffer (warm), reading the
//! C-contiguous input permuted by the case's axes and flipped along its flipped axes (NumPy's
//! `transpose(x, perm)[..., ::-1]` made contiguous), once on one thread and once on two.
//! Every result is checked against ndarray's own iteration before timing. GB/s counts every
//! byte read once and written once.
//!
//! T threads in all, for every contestant (a calling thread that copies is one of them): HPTT
//! with an OpenMP team of T, `strided-perm` with a `threadteam` pool of T (the caller works in
//! both). This crate is called in one of three ways (`--way=`), as its users call it:
//! - `pool` (the default): from a thread of a rayon pool of T, the way a `par_iter` body or
//!   code already inside `install` calls it: the repetitions run inside one `install`;
//! - `install`: through one `install` per copy on a pool of T (the hand-off counted each
//!   time); the table then has `install_T`, an empty `install` on the same pool, the part of
//!   the time that is rayon's hand-off and not the copy, and on the 2-D cases
//!   `install_transpose_1`, the `transpose` crate's copy handed off the same way (what a copy
//!   of that size costs in that calling way, whoever makes it);
//! - `main`: from the main thread, with rayon's global pool of T - 1 (which only exists for
//!   T = 2: at one thread the main thread alone is the pool way's copy, which the 1-thread
//!   column then shows).
//!
//! The contestants are interleaved: each of [`ROUNDS`] rounds times every contestant once, for
//! at least [`TIMING`] each (after a [`SETTLE`] pause and a [`WARM`] untimed run of its own),
//! each round in its own order, and a contestant's figure is its median round. A machine whose
//! speed drifts between neighbouring measurements then moves all contestants of a round
//! together, and the ratios hold. The output is the GB/s table, then this crate against the
//! faster peer at each thread count, and the geometric mean.
//!
//! `python3 scripts/bench_peers.py permutes` builds HPTT with its AVX kernels and runs this
//! bench; without HPTT: `cargo bench -p ndarray_reshape_bench --bench permutes`. Arguments: a
//! substring of the case names to run only those, `--only=ours,hptt` to run only the
//! contestants whose names start with one of those (a contestant alone in the process, with no
//! other pool's threads about), `--rounds` to print every round's GB/s too, `--way=` as above,
//! `--test` to check every contestant and time nothing.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ndarray::{Array, ArrayView, Axis, IxDyn};
use ndarray_reshape::{Np, Order, ReshapeExt};
use strided_view::{StridedView, StridedViewMut};
use threadteam::{Exec, Pool};

/// Rounds of the interleaved measurement.
const ROUNDS: usize = 9;

/// Each timing repeats its contestant for at least this long.
const TIMING: Duration = Duration::from_millis(25);

/// The pause before each timing, in which the threads of the contestant before (OpenMP's and
/// `threadteam`'s spin a while when idle) go to sleep and stop taking the cores.
const SETTLE: Duration = Duration::from_millis(20);

/// After the pause, each contestant runs untimed for about this long: its own threads are
/// asleep then, and the first copies after a pause run at a third to a half of the speed of
/// the later ones on this VM (for every contestant), which a short timing would mostly count.
const WARM: Duration = Duration::from_millis(3);

/// The calibration of a contestant's repetitions: copies until this long has passed.
const CALIBRATE: Duration = Duration::from_millis(10);

/// The element types of the cases, with their HPTT entry point where HPTT has one.
trait Elem: Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static {
    fn of(i: usize) -> Self;
    /// HPTT's row-major transpose of `src` (of `shape`) by `perm` into `out`; `None` when
    /// HPTT has no kernel for this element.
    #[cfg(feature = "hptt")]
    const HPTT: Option<fn(&[usize], &[Self], &[usize], &mut [Self], usize)>;
}

/// `Elem` for a float type with its HPTT function; values are exact (no case has more than
/// 2^24 elements).
macro_rules! elem {
    ($t:ty, $hptt:ident) => {
        impl Elem for $t {
            fn of(i: usize) -> Self {
                i as $t
            }
            #[cfg(feature = "hptt")]
            const HPTT: Option<fn(&[usize], &[Self], &[usize], &mut [Self], usize)> =
                Some(|perm, src, shape, out, threads| {
                    let order = hptt::MemoryOrder::RowMajor;
                    hptt::$hptt(perm, 1.0, src, shape, 0.0, out, threads, order).unwrap();
                });
        }
    };
}
elem!(f32, transpose_f32);
elem!(f64, transpose_f64);

/// `Elem` for an integer type HPTT has no kernel for; values wrap.
macro_rules! bits {
    ($t:ty) => {
        impl Elem for $t {
            fn of(i: usize) -> Self {
                (i % (<$t>::MAX as usize + 1)) as $t
            }
            #[cfg(feature = "hptt")]
            const HPTT: Option<fn(&[usize], &[Self], &[usize], &mut [Self], usize)> = None;
        }
    };
}
bits!(u16);
bits!(u8);

/// A complex `f64` as its two parts: 16-byte elements, HPTT's `Complex64`.
impl Elem for [f64; 2] {
    fn of(i: usize) -> Self {
        [i as f64, -(i as f64)]
    }
    #[cfg(feature = "hptt")]
    const HPTT: Option<fn(&[usize], &[Self], &[usize], &mut [Self], usize)> =
        Some(|perm, src, shape, out, threads| {
            use hptt::Complex64;
            // SAFETY: `Complex64` is `#[repr(C)]` with two `f64` fields: the layout of
            // `[f64; 2]`.
            let (src, out) = unsafe {
                (
                    std::slice::from_raw_parts(src.as_ptr().cast::<Complex64>(), src.len()),
                    std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<Complex64>(), out.len()),
                )
            };
            let (one, zero) = (Complex64::new(1.0, 0.0), Complex64::new(0.0, 0.0));
            let order = hptt::MemoryOrder::RowMajor;
            hptt::transpose_c64(perm, one, src, shape, zero, out, threads, false, order).unwrap();
        });
}

/// A case: `(name, input shape, permutation, flipped axes of the result, element bytes)`.
type Case = (
    &'static str,
    &'static [usize],
    &'static [usize],
    &'static [usize],
    usize,
);

/// The cases.
#[rustfmt::skip]
const CASES: &[Case] = &[
    ("t1024_f32", &[1024, 1024], &[1, 0], &[], 4),
    ("t4096_f32", &[4096, 4096], &[1, 0], &[], 4),
    ("t4096_f64", &[4096, 4096], &[1, 0], &[], 8),
    ("t256_f64", &[256, 256], &[1, 0], &[], 8),
    ("t1024_c64", &[1024, 1024], &[1, 0], &[], 16),
    ("p64x4_0231", &[64, 64, 64, 64], &[0, 2, 3, 1], &[], 4),
    ("swin_window", &[32, 8, 7, 8, 7, 96], &[0, 1, 3, 2, 4, 5], &[], 4),
    ("attention_heads", &[16, 512, 12, 64], &[0, 2, 1, 3], &[], 4),
    ("channel_shuffle", &[32, 4, 58, 28, 28], &[0, 2, 1, 3, 4], &[], 4),
    ("pixel_shuffle", &[4, 64, 2, 2, 128, 128], &[0, 1, 4, 2, 5, 3], &[], 4),
    ("rank6", &[16, 32, 8, 32, 8, 16], &[5, 2, 0, 4, 1, 3], &[], 4),
    ("rank8_reversed", &[8; 8], &[7, 6, 5, 4, 3, 2, 1, 0], &[], 4),
    // The batched transpose of attention scores and of burn-flex's audit.
    ("batched_t_f32", &[8, 2048, 256], &[0, 2, 1], &[], 4),
    ("batched_t_u16", &[8, 2048, 256], &[0, 2, 1], &[], 2),
    // 2- and 1-byte elements: half-precision and quantized models, images.
    ("t256_u8", &[256, 256], &[1, 0], &[], 1),
    ("t1024_u8", &[1024, 1024], &[1, 0], &[], 1),
    ("t1024_u16", &[1024, 1024], &[1, 0], &[], 2),
    ("hwc_chw_u8", &[8, 224, 224, 3], &[0, 3, 1, 2], &[], 1),
    ("chw_hwc_u8", &[8, 3, 224, 224], &[0, 2, 3, 1], &[], 1),
    ("pixel_shuffle_u8", &[4, 64, 2, 2, 128, 128], &[0, 1, 4, 2, 5, 3], &[], 1),
    ("channel_shuffle_u16", &[32, 4, 58, 28, 28], &[0, 2, 1, 3, 4], &[], 2),
    ("attention_heads_u16", &[16, 512, 12, 64], &[0, 2, 1, 3], &[], 2),
    ("swin_window_u16", &[32, 8, 7, 8, 7, 96], &[0, 1, 3, 2, 4, 5], &[], 2),
    // Flips of a 16 MiB `f32` array: along the rows, along the columns, along both.
    ("flip_rows_f32", &[4096, 1024], &[0, 1], &[0], 4),
    ("flip_cols_f32", &[4096, 1024], &[0, 1], &[1], 4),
    ("flip_all_f32", &[4096, 1024], &[0, 1], &[0, 1], 4),
];

/// C-contiguous strides of `shape`, in elements.
fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut s = vec![1isize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as isize;
    }
    s
}

/// How this crate is called (`--way=`, see the module docs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    Pool,
    Install,
    Main,
}

struct Pools {
    /// Pools of one and two threads.
    rayon: [rayon::ThreadPool; 2],
    way: Way,
    team: Pool,
}

/// A contestant and its thread count.
#[derive(Clone, Copy, Debug)]
enum Who {
    Ours(usize),
    StridedPerm(usize),
    #[cfg(feature = "hptt")]
    Hptt(usize),
    TransposeCrate,
    Memcpy,
    /// An empty `install` on the pool of this many threads (`--way=install`).
    Install(usize),
    /// The `transpose` crate through one `install` per copy on the one-thread pool
    /// (`--way=install`, 2-D cases).
    InstallTranspose,
}

impl Who {
    fn name(self) -> String {
        match self {
            Who::Ours(t) => format!("ours_{t}"),
            Who::StridedPerm(t) => format!("strided_perm_{t}"),
            #[cfg(feature = "hptt")]
            Who::Hptt(t) => format!("hptt_{t}"),
            Who::TransposeCrate => "transpose_crate_1".to_owned(),
            Who::Memcpy => "memcpy".to_owned(),
            Who::Install(t) => format!("install_{t}"),
            Who::InstallTranspose => "install_transpose_1".to_owned(),
        }
    }
}

/// The median GB/s of every contestant on one case (none with `test`, which only checks
/// them).
fn case<A: Elem>(
    (shape, perm, flips): (&[usize], &[usize], &[usize]),
    pools: &Pools,
    (test, rounds, only): (bool, bool, &[String]),
) -> Vec<(Who, f64)> {
    let n: usize = shape.iter().product();
    let base = Array::from_iter((0..n).map(A::of))
        .into_shape_with_order(IxDyn(shape))
        .unwrap();
    let src = base.as_slice().unwrap();
    let mut view: ArrayView<'_, A, IxDyn> = base.view().permuted_axes(IxDyn(perm));
    for &k in flips {
        view.invert_axis(Axis(k));
    }
    let out_shape = view.shape().to_vec();
    let out_strides = c_strides(&out_shape);
    // The same view for strided-perm: element [0, ...] of the flipped view and its strides.
    let offset = view.as_ptr() as isize - src.as_ptr() as isize;
    let strided_src = StridedView::<A>::new(
        src,
        &out_shape,
        view.strides(),
        offset / std::mem::size_of::<A>() as isize,
    )
    .unwrap();
    let two_d = shape.len() == 2 && flips.is_empty();

    let mut who = vec![Who::Ours(1), Who::StridedPerm(1)];
    #[cfg(feature = "hptt")]
    if A::HPTT.is_some() && flips.is_empty() {
        who.push(Who::Hptt(1));
    }
    who.extend([Who::Ours(2), Who::StridedPerm(2)]);
    #[cfg(feature = "hptt")]
    if A::HPTT.is_some() && flips.is_empty() {
        who.push(Who::Hptt(2));
    }
    if two_d {
        who.push(Who::TransposeCrate);
    }
    who.push(Who::Memcpy);
    if pools.way == Way::Install {
        who.extend([Who::Install(1), Who::Install(2)]);
        if two_d {
            who.push(Who::InstallTranspose);
        }
    }
    if !only.is_empty() {
        who.retain(|w| only.iter().any(|o| w.name().starts_with(o.as_str())));
    }

    // `reps` copies by `w` into `out`.
    let copy = |out: &mut [A]| {
        black_box(&view)
            .reshape_copy_into(Np::new([-1], Order::C), out)
            .unwrap();
    };
    let run = |w: Who, out: &mut [A], reps: usize| match w {
        Who::Ours(2) if pools.way == Way::Main => (0..reps).for_each(|_| copy(out)),
        Who::Ours(t) if pools.way == Way::Install => {
            for _ in 0..reps {
                pools.rayon[t - 1].install(|| copy(out));
            }
        }
        Who::Ours(t) => pools.rayon[t - 1].install(|| (0..reps).for_each(|_| copy(out))),
        Who::Install(t) => {
            for _ in 0..reps {
                pools.rayon[t - 1].install(|| black_box(&mut *out));
            }
        }
        Who::StridedPerm(t) => {
            for _ in 0..reps {
                let exec = match t {
                    1 => Exec::serial(),
                    _ => Exec::new(&pools.team, t).unwrap(),
                };
                let mut dst = StridedViewMut::<A>::new(out, &out_shape, &out_strides, 0).unwrap();
                strided_perm::copy_into(&mut dst, black_box(&strided_src), exec).unwrap();
            }
        }
        #[cfg(feature = "hptt")]
        Who::Hptt(t) => {
            let hptt = A::HPTT.unwrap();
            for _ in 0..reps {
                hptt(perm, black_box(src), shape, out, t);
            }
        }
        Who::TransposeCrate => {
            for _ in 0..reps {
                transpose::transpose(black_box(src), out, shape[1], shape[0]);
            }
        }
        Who::InstallTranspose => {
            for _ in 0..reps {
                pools.rayon[0].install(|| {
                    transpose::transpose(black_box(src), &mut *out, shape[1], shape[0])
                });
            }
        }
        Who::Memcpy => {
            for _ in 0..reps {
                out.copy_from_slice(black_box(src));
            }
        }
    };

    let expected: Vec<A> = view.iter().copied().collect();
    let mut out = vec![A::of(1); n];
    for &w in who
        .iter()
        .filter(|w| !matches!(w, Who::Memcpy | Who::Install(_)))
    {
        run(w, &mut out, 1);
        assert_eq!(out, expected, "{w:?}");
        out.fill(A::of(1));
    }
    if test {
        return Vec::new();
    }

    // Repetitions per timing and per warm-up, from the mean copy time over `CALIBRATE` (one
    // slow copy, after a thread's wake-up, must not shorten every timing).
    let reps: Vec<(usize, usize)> = who
        .iter()
        .map(|&w| {
            run(w, &mut out, 1);
            let (t, mut copies) = (Instant::now(), 0);
            while t.elapsed() < CALIBRATE {
                run(w, &mut out, 1);
                copies += 1;
            }
            let once = (t.elapsed().as_secs_f64() / copies as f64).max(1e-7);
            let times = |d: Duration| (d.as_secs_f64() / once).ceil() as usize;
            (times(TIMING), times(WARM))
        })
        .collect();
    let mut times = vec![Vec::with_capacity(ROUNDS); who.len()];
    // Each round runs the contestants in its own order (a fixed shuffle), so none always
    // follows the same one: what ran just before, and on which threads, moves the next
    // contestant's figure.
    let mut order: Vec<usize> = (0..who.len()).collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..ROUNDS {
        for i in (1..order.len()).rev() {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            order.swap(i, (seed >> 33) as usize % (i + 1));
        }
        for &k in &order {
            let w = who[k];
            let (reps, warm) = reps[k];
            std::thread::sleep(SETTLE);
            run(w, &mut out, warm);
            let t = Instant::now();
            run(w, &mut out, reps);
            times[k].push(t.elapsed().as_secs_f64() / reps as f64);
        }
    }
    let bytes = 2.0 * (n * std::mem::size_of::<A>()) as f64;
    if rounds {
        for (w, t) in who.iter().zip(&times) {
            let gbs: Vec<String> = t
                .iter()
                .map(|t| format!("{:.1}", bytes / t / 1e9))
                .collect();
            println!("ROUNDS {} {}", w.name(), gbs.join(" "));
        }
    }
    who.iter()
        .zip(times)
        .map(|(&w, mut t)| {
            t.sort_by(f64::total_cmp);
            (w, bytes / t[ROUNDS / 2] / 1e9)
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let test = args.iter().any(|a| a == "--test");
    let rounds = args.iter().any(|a| a == "--rounds");
    let filter = args.iter().find(|a| !a.starts_with('-')).cloned();
    let only: Vec<String> = args
        .iter()
        .filter_map(|a| a.strip_prefix("--only="))
        .flat_map(|o| o.split(','))
        .map(str::to_owned)
        .collect();
    let way = match args.iter().find_map(|a| a.strip_prefix("--way=")) {
        None | Some("pool") => Way::Pool,
        Some("install") => Way::Install,
        Some("main") => Way::Main,
        Some(w) => panic!("--way={w}: pool, install or main"),
    };
    // T - 1 = 1 thread for the main thread's copies on two threads (the other ways do not
    // use it).
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .unwrap();
    let pools = Pools {
        rayon: [
            ndarray_reshape_bench::pool(1),
            ndarray_reshape_bench::pool(2),
        ],
        way,
        team: Pool::builder().threads(2).build().unwrap(),
    };
    let mut rows = Vec::new();
    for &(name, shape, perm, flips, elem) in CASES {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let at = (shape, perm, flips);
        let opts = (test, rounds, &only[..]);
        let figures = match elem {
            1 => case::<u8>(at, &pools, opts),
            2 => case::<u16>(at, &pools, opts),
            4 => case::<f32>(at, &pools, opts),
            8 => case::<f64>(at, &pools, opts),
            _ => case::<[f64; 2]>(at, &pools, opts),
        };
        if test {
            println!("{name}: every contestant checked");
            continue;
        }
        for (w, gbs) in &figures {
            // One line per figure, for `scripts/bench_peers.py permutes-report`.
            println!("RESULT {name} {} {gbs:.2}", w.name());
        }
        rows.push((name, figures));
    }
    if !test {
        report(&rows);
    }
}

/// The figure of `w`'s contestant among `figures`.
fn gbs_of(figures: &[(Who, f64)], w: &str) -> Option<f64> {
    figures.iter().find(|(x, _)| x.name() == w).map(|f| f.1)
}

/// The GB/s table, then this crate against the faster peer at each thread count and the
/// geometric mean of those ratios.
fn report(rows: &[(&str, Vec<(Who, f64)>)]) {
    let cols = [
        "ours_1",
        "hptt_1",
        "strided_perm_1",
        "ours_2",
        "hptt_2",
        "strided_perm_2",
        "transpose_crate_1",
        "memcpy",
        "install_1",
        "install_2",
        "install_transpose_1",
    ];
    println!("\nGB/s (2 x output bytes / median of {ROUNDS} interleaved rounds):\n");
    println!("| case | {} |", cols.join(" | "));
    println!("|---{}|", "|---".repeat(cols.len()));
    for (name, figures) in rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| gbs_of(figures, c).map_or("-".to_owned(), |g| format!("{g:.1}")))
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!("\n| case | 1 thread / faster peer | 2 threads / faster peer |");
    println!("|---|---|---|");
    // The geometric means by group: the relayouts HPTT takes, the 2- and 1-byte elements with
    // the batched transposes, and the flips (against memcpy, which they should approach).
    let mut groups: [(&str, Vec<f64>); 3] = [
        ("relayouts (f32, f64, complex)", Vec::new()),
        ("2- and 1-byte elements, batched transposes", Vec::new()),
        ("flips, against memcpy", Vec::new()),
    ];
    for (name, figures) in rows {
        let g = if name.starts_with("flip") {
            2
        } else if name.starts_with("batched") || name.ends_with("_u8") || name.ends_with("_u16") {
            1
        } else {
            0
        };
        let mut cells = Vec::new();
        for t in [1, 2] {
            let mut peers = vec![("hptt", "HPTT"), ("strided_perm", "strided-perm")];
            if t == 1 {
                peers.push(("transpose_crate", "transpose"));
            }
            let best = if g == 2 {
                gbs_of(figures, "memcpy").map(|m| (m, "memcpy"))
            } else {
                peers
                    .into_iter()
                    .filter_map(|(p, label)| {
                        gbs_of(figures, &format!("{p}_{t}")).map(|g| (g, label))
                    })
                    .max_by(|a, b| a.0.total_cmp(&b.0))
            };
            let ours = gbs_of(figures, &format!("ours_{t}"));
            let Some(((best, label), ours)) = best.zip(ours) else {
                cells.push("-".to_owned());
                continue;
            };
            let r = ours / best;
            groups[g].1.push(r);
            let target = if g == 2 { 0.8 } else { 1.0 };
            cells.push(if r < target {
                format!("{r:.2}x ({label})")
            } else {
                format!("**{r:.2}x**")
            });
        }
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!();
    for (group, ratios) in &groups {
        if ratios.is_empty() {
            continue;
        }
        let geo = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let target = if group.starts_with("flips") { 0.8 } else { 1.0 };
        let won = ratios.iter().filter(|&&r| r >= target).count();
        println!(
            "{group}: {won} of {} at or above {target:.1}x; geometric mean {geo:.2}x",
            ratios.len()
        );
    }
}
