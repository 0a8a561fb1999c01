//! A deterministic no-panic sweep: a fixed seed, at least 100,000 generated cases across every
//! dialect, extremes included (`i64::MIN`, `i64::MAX`, dims near `usize::MAX` on empty
//! arrays, products that overflow). For each case: nothing panics, a success has exactly the
//! input's element count, the array methods agree with `infer_shape`, and on real arrays the
//! values equal a slow reference (reading the input in the order, writing the output in it).

#[path = "../common/oracle.rs"]
mod oracle;
#[path = "../common/programs.rs"]
mod programs;

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use ndarray_reshape::{
    Like, Mx, Np, Npx, Onnx, Order, Paddle, Rearrange, ReshapeError, ReshapeExt, ShapeSpec, SymDim,
};

/// SplitMix64: small, fast, and the same sequence on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A spec value: mostly small (all the special values), sometimes extreme.
fn value(r: &mut Rng) -> i64 {
    match r.below(20) {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => 1 << 32,
        3 => -(1 << 40),
        4 => r.next() as i64,
        _ => r.below(17) as i64 - 8,
    }
}

/// An input shape for shape-only inference: small dims, zeros, and huge dims.
fn shape(r: &mut Rng) -> Vec<usize> {
    let n = r.below(6) as usize;
    (0..n)
        .map(|_| match r.below(16) {
            0 => usize::MAX,
            1 => usize::MAX / 2,
            2 => 1 << 40,
            _ => r.below(6) as usize,
        })
        .collect()
}

fn bound(r: &mut Rng) -> Option<i64> {
    if r.chance(40) {
        None
    } else {
        Some(r.below(13) as i64 - 6)
    }
}

fn size(s: &[usize]) -> Option<usize> {
    s.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

/// A strided view of `base` (a small contiguous array): random steps of either sign, a random
/// permutation, sometimes an axis indexed away.
fn strided<'a>(r: &mut Rng, base: &'a ArrayD<i64>) -> ArrayViewD<'a, i64> {
    let mut v = base.view();
    for k in 0..v.ndim() {
        let len = v.len_of(Axis(k)) as isize;
        let step = [1, 1, 2, -1, -2, 3][r.below(6) as usize];
        let start = r.below(len as u64 + 1) as isize;
        let end = start + r.below((len - start) as u64 + 1) as isize;
        v.slice_axis_inplace(Axis(k), Slice::new(start, Some(end), step));
    }
    let mut perm: Vec<usize> = (0..v.ndim()).collect();
    for i in (1..perm.len()).rev() {
        perm.swap(i, r.below(i as u64 + 1) as usize);
    }
    let mut v = v.permuted_axes(IxDyn(&perm));
    if v.ndim() > 0 && r.chance(15) && v.len_of(Axis(0)) > 0 {
        v = v.index_axis_move(Axis(0), 0);
    }
    v
}

/// Every dialect's shape-only and symbolic inference on arbitrary (possibly impossible)
/// shapes and specs: never a panic, sizes kept, symbolic answers agreeing with the concrete.
#[test]
fn no_panic_sweep() {
    let mut r = Rng(0x5EED_2026_1121);
    let mut successes = 0usize;
    let mut symbolic_cases = 0usize;
    let check_shape_only =
        |res: Result<Vec<usize>, ReshapeError>, input: &[usize], ok: &mut usize| match res {
            Ok(s) => {
                assert_eq!(size(&s), size(input), "size changed: {input:?} -> {s:?}");
                *ok += 1;
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with(e.category()), "{msg}");
            }
        };
    // Shape-only inference on arbitrary (possibly impossible) shapes.
    for _ in 0..20_000 {
        let input = shape(&mut r);
        let n = r.below(7) as usize;
        let spec: Vec<i64> = (0..n).map(|_| value(&mut r)).collect();
        let flag = r.chance(50);
        check_shape_only(
            Mx::new(spec.as_slice()).reverse(flag).infer_shape(&input),
            &input,
            &mut successes,
        );
        check_shape_only(
            Mx::target_shape(spec.as_slice())
                .keep_highest(flag)
                .infer_shape(&input),
            &input,
            &mut successes,
        );
        check_shape_only(
            Paddle::new(spec.as_slice()).infer_shape(&input),
            &input,
            &mut successes,
        );
        check_shape_only(
            Np::new(spec.as_slice(), Order::A).infer_shape(&input),
            &input,
            &mut successes,
        );
        let rhs: Vec<usize> = shape(&mut r);
        let like = Like::new(rhs.as_slice())
            .lhs(bound(&mut r), bound(&mut r))
            .rhs(bound(&mut r), bound(&mut r));
        check_shape_only(like.infer_shape(&input), &input, &mut successes);
        check_shape_only(
            Npx::new(spec.as_slice()).reverse(flag).infer_shape(&input),
            &input,
            &mut successes,
        );
        check_shape_only(
            Onnx::new(spec.as_slice())
                .allowzero(flag)
                .infer_shape(&input),
            &input,
            &mut successes,
        );
        // The same specs on the input with random dims as symbols: symbolic inference agrees
        // with the concrete one (the shared oracle), and never panics.
        let (mask, shared) = (r.next(), r.chance(50));
        let specs: [&dyn ShapeSpec<Rank = ndarray::IxDyn>; 7] = [
            &Mx::new(spec.as_slice()).reverse(flag),
            &Mx::target_shape(spec.as_slice()).keep_highest(flag),
            &Paddle::new(spec.as_slice()),
            &Np::new(spec.as_slice(), Order::A),
            &like,
            &Npx::new(spec.as_slice()).reverse(flag),
            &Onnx::new(spec.as_slice()).allowzero(flag),
        ];
        for s in specs {
            if let Err(e) = oracle::check_symbolic(s, &input, mask, shared) {
                panic!("spec {spec:?} (flag {flag}) on {input:?}: {e}");
            }
            symbolic_cases += 1;
        }
    }
    assert_eq!(symbolic_cases, 140_000);
    // The sweep must reach successes too, or it tests nothing but the error paths.
    assert!(successes > 1_000, "only {successes} successes");
    eprintln!("sweep: 140000 specs, {successes} shape-only successes");
}

/// Real strided arrays reshaped by the dialects: values against the reference, view decisions
/// against the strict mode (a test of its own, so the two sweeps run side by side).
#[test]
fn strided_arrays_sweep() {
    let mut r = Rng(0x5EED_2026_1127);
    let mut cases = 0usize;
    let mut failures = Vec::new();
    let mut checked_values = 0usize;
    for _ in 0..16_000 {
        let nd = r.below(5) as usize;
        let parent: Vec<usize> = (0..nd).map(|_| 1 + r.below(5) as usize).collect();
        let n = size(&parent).unwrap();
        let base = ArrayD::from_shape_vec(IxDyn(&parent), (0..n as i64).collect()).unwrap();
        let x = strided(&mut r, &base);
        let len = x.len() as i64;
        // Specs that often fit: the size split in two, with -1s, zeros and noise mixed in.
        let mut spec: Vec<i64> = match r.below(4) {
            0 => vec![-1],
            1 if len > 0 => {
                let d = (1..=len).filter(|d| len % d == 0).collect::<Vec<_>>();
                let a = d[r.below(d.len() as u64) as usize];
                vec![a, len / a]
            }
            2 => vec![len, 1, -1],
            _ => (0..r.below(5)).map(|_| value(&mut r)).collect(),
        };
        // npx's -2 and -3 read input dims; mix them in too.
        if r.chance(15) {
            spec.insert(0, [-2, -3, -4, -5, -6][r.below(5) as usize]);
        }
        if r.chance(20) && !spec.is_empty() {
            let i = r.below(spec.len() as u64) as usize;
            spec[i] = value(&mut r);
        }
        let order = [Order::C, Order::F, Order::A][r.below(3) as usize];
        let flag = r.chance(30);
        let rhs: Vec<usize> = spec.iter().map(|&v| v.clamp(0, 64) as usize).collect();
        let results = [
            oracle::check(&x, Np::new(spec.as_slice(), order)),
            oracle::check(&x, Mx::new(spec.as_slice()).reverse(flag)),
            oracle::check(&x, Mx::target_shape(spec.as_slice()).keep_highest(flag)),
            oracle::check(&x, Paddle::new(spec.as_slice())),
            oracle::check(
                &x,
                Like::new(rhs.as_slice()).lhs(bound(&mut r), bound(&mut r)),
            ),
        ];
        for res in results {
            cases += 1;
            match res {
                Ok(true) => checked_values += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!(
                    "{:?} {:?} {spec:?} {order:?}: {e}",
                    x.shape(),
                    x.strides()
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    assert_eq!(cases, 80_000);
    assert!(
        checked_values > 10_000,
        "only {checked_values} value checks"
    );
    eprintln!(
        "sweep: {cases} reshapes of strided arrays, {checked_values} checked against the reference"
    );
}

/// A random einops pattern: mostly a well-formed one (names split into groups on the left,
/// shuffled and regrouped on the right, unit axes, an ellipsis, new axes for `repeat`), some
/// with a stray token, some random tokens.
fn pattern(r: &mut Rng) -> String {
    const TOKENS: &[&str] = &[
        "a", "b", "(", ")", "1", "()", "2", "0", "01", "...", "(...)", "_x", "ß", ",", "\t", ".",
        "->", "=>", "(a (b))", "a a",
    ];
    let token = |r: &mut Rng| TOKENS[r.below(TOKENS.len() as u64) as usize];
    if r.chance(20) {
        let mut p: Vec<&str> = (0..r.below(8)).map(|_| token(r)).collect();
        p.insert(r.below(p.len() as u64 + 1) as usize, "->");
        return p.join(" ");
    }
    let mut names: Vec<String> = ["a", "b", "c", "d", "e"][..r.below(5) as usize]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let ellipsis = r.chance(25);
    let group = |r: &mut Rng, names: &[String]| {
        let mut out = Vec::new();
        let mut at = 0;
        while at < names.len() {
            let g = 1 + r.below(2.min(names.len() - at) as u64) as usize;
            let part = names[at..at + g].join(" ");
            out.push(if g == 1 { part } else { format!("({part})") });
            at += g;
            if r.chance(10) {
                out.push(["1", "()"][r.below(2) as usize].to_owned());
            }
        }
        out
    };
    let mut left = group(r, &names);
    if ellipsis {
        left.insert(r.below(left.len() as u64 + 1) as usize, "...".to_owned());
    }
    for i in (1..names.len()).rev() {
        names.swap(i, r.below(i as u64 + 1) as usize);
    }
    if r.chance(30) {
        names.push(["f", "2", "3"][r.below(3) as usize].to_owned());
    }
    let mut right = group(r, &names);
    if ellipsis {
        let e = if r.chance(30) { "(...)" } else { "..." };
        right.insert(r.below(right.len() as u64 + 1) as usize, e.to_owned());
    }
    if r.chance(15) {
        let side = if r.chance(50) { &mut left } else { &mut right };
        side.insert(r.below(side.len() as u64 + 1) as usize, token(r).to_owned());
    }
    format!("{} -> {}", left.join(" "), right.join(" "))
}

/// Random patterns with random lengths on random shapes (huge dims included) and on small
/// arrays: nothing panics, an error names its rule, a success keeps the size (rearrange) or
/// agrees with the array method, and symbolic inference agrees with the numbers.
#[test]
fn pattern_sweep() {
    let mut r = Rng(0xE1_2026_0837);
    let (mut ok, mut arrays) = (0usize, 0usize);
    let names = ["a", "b", "c", "d", "e", "_x"];
    for _ in 0..100_000 {
        let text = pattern(&mut r);
        let repeat = r.chance(30);
        let spec = match repeat {
            true => Rearrange::repeat(&text),
            false => Rearrange::new(&text),
        };
        let mut spec = match spec {
            Ok(s) => s,
            Err(e) => {
                assert!(e.to_string().starts_with(e.category()), "{e}");
                continue;
            }
        };
        for _ in 0..r.below(3) {
            let len = match r.below(8) {
                0 => usize::MAX,
                1 => 0,
                _ => r.below(5) as usize,
            };
            spec = spec.axis(names[r.below(names.len() as u64) as usize], len);
        }
        let input = shape(&mut r);
        match spec.infer_shape(&input) {
            Ok(out) => {
                ok += 1;
                if !repeat {
                    assert_eq!(size(&out), size(&input), "{spec} on {input:?}");
                }
                let syms: Vec<SymDim> = input
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| match (1..=5).contains(&d) && i % 2 == 0 {
                        true => SymDim::sym(["S0", "S2", "S4"][i / 2 % 3]),
                        false => SymDim::from(d),
                    })
                    .collect();
                if let Ok(s) = spec.infer_symbolic(&syms) {
                    let binding: Vec<(&str, usize)> = input
                        .iter()
                        .enumerate()
                        .filter(|&(i, &d)| (1..=5).contains(&d) && i % 2 == 0)
                        .map(|(i, &d)| (["S0", "S2", "S4"][i / 2 % 3], d))
                        .collect();
                    // A symbol named twice binds to its first dim; compare where consistent.
                    let consistent = binding
                        .iter()
                        .all(|(n, d)| binding.iter().all(|(m, e)| n != m || d == e));
                    if consistent
                        && s.conditions()
                            .iter()
                            .all(|c| c.holds(&binding) == Some(true))
                    {
                        assert_eq!(s.eval(&binding), Some(out.clone()), "{spec} on {input:?}");
                    }
                }
                let _ = spec.to_onnx_nodes(&input);
            }
            Err(e) => assert!(e.to_string().starts_with(e.category()), "{e}"),
        }
        // On a small array, the array method agrees with the shape inference.
        if input.iter().all(|&d| d <= 64) && size(&input).is_some_and(|n| n <= 4096) {
            let base = ArrayD::from_shape_fn(IxDyn(&input), |_| 1i64);
            let x = strided(&mut r, &base);
            let inferred = spec.infer_shape(x.shape());
            match (x.reshape_with(&spec), inferred) {
                (Ok(y), Ok(s)) => {
                    assert_eq!(y.shape(), s.as_slice(), "{spec}");
                    arrays += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a.category(), b.category(), "{spec}"),
                (a, b) => panic!("{spec} on {:?}: array {a:?}, shape {b:?}", x.shape()),
            }
        }
    }
    assert!(
        ok > 2_000 && arrays > 2_000,
        "only {ok} successes, {arrays} arrays"
    );
    eprintln!("pattern sweep: 100000 patterns, {ok} shape successes, {arrays} arrays reshaped");
}

/// Random shape programs over random symbolic shapes (`tests/common/programs.rs`): no panic,
/// and every value that evaluates under a binding equals the program run on numbers.
#[test]
fn shape_program_sweep() {
    let mut r = Rng(0x5EED_5AA9_E001);
    let mut compared = 0usize;
    for i in 0..20_000 {
        let prog = programs::generate(&mut |n| r.below(n));
        match programs::check(&prog) {
            Ok(c) => compared += c,
            Err(e) => panic!("program {i} {prog:?}: {e}"),
        }
    }
    // Most steps of most programs evaluate, or the sweep tests only the error paths.
    assert!(compared > 100_000, "only {compared} values compared");
    eprintln!("shape programs: 20000 programs, {compared} values compared with the reference");
}
