//! Unit tests of `eval`: bounds and evaluation.

use super::{bounds, lower, upper, Bounds, Rat};
use crate::dims::LIMIT;
use crate::sym::SymDim;

fn s(n: &str) -> SymDim {
    SymDim::sym(n)
}

fn k(v: i64) -> SymDim {
    SymDim::int(v)
}

fn r(n: i128, d: i128) -> Rat {
    Rat::int(n).div(Rat::int(d)).unwrap()
}

const MAX: i128 = LIMIT as i128;

#[test]
fn bounds_of_sizes_products_and_quotients() {
    let b = |d: SymDim| {
        let Bounds { lo, hi } = bounds(&d);
        (lo, hi)
    };
    assert_eq!(b(s("B")), (Some(Rat::ONE), Some(Rat::int(MAX))));
    assert_eq!(b(-s("B")), (Some(Rat::int(-MAX)), Some(Rat::int(-1))));
    assert_eq!(
        b(s("B") - k(5)),
        (Some(Rat::int(-4)), Some(Rat::int(MAX - 5)))
    );
    // A reciprocal of a positive or a negative range, and of one holding 0.
    assert_eq!(b(k(6) / s("N")), (Some(r(6, MAX)), Some(Rat::int(6))));
    assert_eq!(b(k(-6) / s("N")), (Some(Rat::int(-6)), Some(r(-6, MAX))));
    assert_eq!(b(k(6) / (s("N") - k(5))), (None, None));
    // Past 128 bits an end is unbounded, on the side of the product's sign.
    let big = s("A") * s("B") * s("C");
    assert_eq!(b(big.clone()), (Some(Rat::ONE), None));
    assert_eq!(b(-big.clone()), (None, Some(Rat::int(-1))));
    // 0 times an unbounded end is 0.
    let m = s("H").floor_mod(&k(7)).unwrap();
    assert_eq!(b(m.clone()), (Some(Rat::ZERO), Some(Rat::int(6))));
    assert_eq!(b(m.clone() * big.clone()), (Some(Rat::ZERO), None));
    assert_eq!(b(-(m.clone() * big)), (None, Some(Rat::ZERO)));
    assert!(bounds(&s("B")).excludes_zero() && !bounds(&m).excludes_zero());
    assert!(bounds(&-s("B")).excludes_zero());
}

#[test]
fn bounds_of_floors_remainders_extremes_and_selections() {
    let b = |d: SymDim| {
        let Bounds { lo, hi } = bounds(&d);
        (lo, hi)
    };
    let (one, max) = (Some(Rat::ONE), Some(Rat::int(MAX)));
    let big = s("A") * s("B") * s("C");
    // An unbounded end wins a minimum's low end and a maximum's high end, and loses the
    // other.
    assert_eq!(b(s("B").min(&s("C"))), (one, max));
    assert_eq!(b(s("B").min(&-big.clone())), (None, Some(Rat::int(-1))));
    assert_eq!(b(s("B").min(&big)), (one, max));
    assert_eq!(b(s("B").max(&big)), (one, None));
    assert_eq!(b(s("B").max(&-big.clone())), (one, max));
    let c = s("T").less(&k(3));
    assert_eq!(b(c.clone()), (Some(Rat::ZERO), Some(Rat::ONE)));
    assert_eq!(b(c.select(&s("B"), &-big.clone())), (None, max));
    assert_eq!(b(c.select(&s("B"), &big)), (one, None));
    // Floors and remainders.
    let fd = |x: SymDim, y: SymDim| x.floor_div(&y).unwrap();
    let fm = |x: SymDim, y: SymDim| x.floor_mod(&y).unwrap();
    assert_eq!(
        b(fd(s("B"), k(2))),
        (Some(Rat::ZERO), Some(Rat::int(MAX / 2)))
    );
    assert_eq!(b(fd(s("B"), s("T"))), (Some(Rat::ZERO), max));
    assert_eq!(b(fd(s("B") - k(5), s("T"))), (None, None));
    assert_eq!(
        b(fm(s("H"), s("T"))),
        (Some(Rat::ZERO), Some(Rat::int(MAX - 1)))
    );
    assert_eq!(
        b(fm(s("B") - k(5), k(7))),
        (Some(Rat::ZERO), Some(Rat::int(6)))
    );
    assert_eq!(b(fm(s("H"), k(-7))), (Some(Rat::int(-6)), Some(Rat::ZERO)));
    assert_eq!(
        b(fm(s("H"), -s("T"))),
        (Some(Rat::int(1 - MAX)), Some(Rat::ZERO))
    );
    assert_eq!(b(fm(s("H"), s("T") - k(3))), (None, None));
    // A power below zero: the reciprocal's range, multiplied.
    let inv2 = k(1) / (s("B") * s("B"));
    assert_eq!(b(inv2), (Some(r(1, MAX * MAX)), Some(Rat::ONE)));
}

#[test]
fn known_sizes_bound_their_factors() {
    // 12*B*T is a tensor's size: B*T is at most isize::MAX / 12.
    let size = k(12) * s("B") * s("T");
    let bt = s("B") * s("T");
    assert_eq!(upper(&bt, std::slice::from_ref(&size)), Some(r(MAX, 12)));
    assert_eq!(upper(&bt, &[]), Some(Rat::int(MAX * MAX)));
    assert_eq!(lower(&-bt, std::slice::from_ref(&size)), Some(r(-MAX, 12)));
    assert_eq!(upper(&k(3), &[size]), Some(Rat::int(3)));
}

#[test]
fn evaluation_is_undefined_where_the_graph_fails() {
    let n = s("N");
    assert_eq!(n.eval(&[("N", 0)]), None); // a size is at least 1
    assert_eq!((k(6) / n.clone()).eval_int(&[("N", 3)]), Some(2));
    assert_eq!((k(6) / n.clone()).eval_int(&[("N", 4)]), None); // 3/2 is no integer
    let q = (n.clone() - k(1)).floor_div(&(n.clone() - k(1))).unwrap();
    assert_eq!(q.eval_int(&[("N", 1)]), None); // 0 // 0
    assert_eq!(q.eval_int(&[("N", 2)]), Some(1));
    let m = k(5).floor_mod(&(n - k(3))).unwrap();
    assert_eq!(m.eval_int(&[("N", 1)]), Some(-1)); // 5 % -2, Python's sign
    assert_eq!(m.eval_int(&[("N", 3)]), None);
}

/// An expanded power whose terms pass `i128` on the way still evaluates where its value fits
/// (the terms summed wrapping, the `f64` estimate bounding the value); a value past `i128`
/// does not.
#[test]
fn expanded_powers_evaluate_past_i128_terms() {
    let (t, b) = (s("T"), s("B"));
    let one = k(1);
    let base = one.clone() - one.floor_div(&t).unwrap() * t.clone();
    let mut p = k(1);
    for _ in 0..8 {
        p = p * base.clone();
    }
    // (1 - (1 // T)*T)^8 = 1 for T >= 2; its expansion holds T^8 * (1 // T)^8 terms.
    assert_eq!(p.eval_int(&[("T", 32767)]), Some(1));
    assert_eq!(p.eval_int(&[("T", 1)]), Some(0));
    let bt = b.clone() * t.clone();
    let base = one.clone() - one.floor_div(&bt).unwrap() * bt.clone();
    let mut q = k(1);
    for _ in 0..8 {
        q = q * base.clone();
    }
    assert_eq!(q.eval_int(&[("B", 32767), ("T", 7)]), Some(1));
    // A value itself past i128 stays unevaluated.
    let mut big = k(1);
    for _ in 0..9 {
        big = big * t.clone();
    }
    assert_eq!(big.eval_int(&[("T", 1 << 20)]), None);
    assert_eq!(
        super::value(&big, &[("T", 1 << 20)]),
        Err(super::NoValue::Past(true))
    );
}

/// An overflow inside a bounded subterm decides nothing: `1 <= (P*P*Q + P*Q*Q < 5)` at
/// `P = 3, Q = 8654043903590042478` is false (the sum, about 2.2e38, is past `i128` and not
/// below 5), never true.
#[test]
fn an_overflow_inside_a_comparison_is_no_decision() {
    use crate::sym::Condition;
    let (p, q) = (s("P"), s("Q"));
    let sum = p.clone() * p.clone() * q.clone() + p.clone() * q.clone() * q.clone();
    let c = Condition::at_most(k(1), sum.less(&k(5)));
    let at = [("P", 3), ("Q", 8654043903590042478)];
    assert_eq!(c.holds(&at), Some(false));
    // Inside a minimum, a floor and a remainder: no decision, or the right one.
    for d in [
        sum.min(&k(7)),
        sum.floor_div(&k(3)).unwrap(),
        sum.floor_mod(&k(3)).unwrap(),
        sum.max(&k(7)) - sum.clone(),
    ] {
        let c = Condition::at_most(k(1), d.clone());
        let (l, r) = (super::value(&k(1), &at), super::value(&d, &at));
        assert!(c.holds(&at) != Some(true) || r.is_ok(), "{c}: {l:?} {r:?}");
    }
}

/// Conditions of random expressions at huge bindings against their exact value in big
/// integers: `holds` and `value` decide only what is true.
#[test]
fn conditions_at_huge_bindings_against_big_integers() {
    use crate::sym::Condition;
    use num_bigint::BigInt;

    #[derive(Clone)]
    enum E {
        Sym(usize),
        Int(i64),
        Add(Box<E>, Box<E>),
        Mul(Box<E>, Box<E>),
        Min(Box<E>, Box<E>),
        Lt(Box<E>, Box<E>),
        Floor(Box<E>, i64),
        Mod(Box<E>, i64),
    }
    fn big(e: &E, at: &[i64]) -> BigInt {
        let div = |x: BigInt, c: i64| {
            let c = BigInt::from(c);
            let (q, r) = (&x / &c, &x % &c);
            match r != BigInt::from(0) && (r < BigInt::from(0)) != (c < BigInt::from(0)) {
                true => q - 1,
                false => q,
            }
        };
        match e {
            E::Sym(i) => BigInt::from(at[*i]),
            E::Int(v) => BigInt::from(*v),
            E::Add(a, b) => big(a, at) + big(b, at),
            E::Mul(a, b) => big(a, at) * big(b, at),
            E::Min(a, b) => big(a, at).min(big(b, at)),
            E::Lt(a, b) => BigInt::from(u8::from(big(a, at) < big(b, at))),
            E::Floor(a, c) => div(big(a, at), *c),
            E::Mod(a, c) => {
                let x = big(a, at);
                let q = div(x.clone(), *c);
                x - q * BigInt::from(*c)
            }
        }
    }
    fn dim(e: &E) -> SymDim {
        match e {
            E::Sym(i) => s(["P", "Q"][*i]),
            E::Int(v) => k(*v),
            E::Add(a, b) => dim(a) + dim(b),
            E::Mul(a, b) => dim(a) * dim(b),
            E::Min(a, b) => dim(a).min(&dim(b)),
            E::Lt(a, b) => dim(a).less(&dim(b)),
            E::Floor(a, c) => dim(a).floor_div(&k(*c)).unwrap(),
            E::Mod(a, c) => dim(a).floor_mod(&k(*c)).unwrap(),
        }
    }
    use crate::test_rng::Rng;
    fn gen(r: &mut Rng, depth: u32) -> E {
        let pick = r.next() % if depth == 0 { 2 } else { 8 };
        let sub = |r: &mut Rng| Box::new(gen(r, depth.saturating_sub(1)));
        match pick {
            0 => E::Sym((r.next() % 2) as usize),
            1 => E::Int((r.next() % 11) as i64 - 5),
            2 => E::Add(sub(r), sub(r)),
            3 => E::Mul(sub(r), sub(r)),
            4 => E::Min(sub(r), sub(r)),
            5 => E::Lt(sub(r), sub(r)),
            6 => E::Floor(sub(r), [2i64, 3, -4][(r.next() % 3) as usize]),
            _ => E::Mod(sub(r), [2i64, 3, -4][(r.next() % 3) as usize]),
        }
    }
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let next = &mut rng;
    let huge = [
        1i64,
        2,
        3,
        1 << 31,
        (1 << 62) + 7,
        i64::MAX,
        8654043903590042478,
    ];
    let (mut decided, mut total) = (0, 0);
    for _ in 0..if cfg!(miri) { 50 } else { 20_000 } {
        let (a, b) = (gen(next, 3), gen(next, 3));
        let at = [
            huge[(next.next() % 7) as usize],
            huge[(next.next() % 7) as usize],
        ];
        let binding = [("P", at[0] as usize), ("Q", at[1] as usize)];
        let (da, db) = (dim(&a), dim(&b));
        if !(da.is_valid() && db.is_valid()) {
            continue;
        }
        let truth = big(&a, &at) <= big(&b, &at);
        total += 1;
        if let Some(h) = Condition::at_most(da.clone(), db.clone()).holds(&binding) {
            decided += 1;
            assert_eq!(h, truth, "{da} <= {db} at {binding:?}");
        }
        if let Ok(v) = super::value(&da, &binding) {
            assert!(
                v.is_int() && BigInt::from(v.num) == big(&a, &at),
                "{da} at {binding:?}: {v:?}"
            );
        }
    }
    assert!(decided > total / 2, "{decided} of {total} decided");
}
