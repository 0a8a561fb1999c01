//! What a caller knows of its symbols (`Assumptions`) decides conditions and comparisons, and a
//! symbolic shape meets a concrete one (`bind`): the symbols solved, or the dim that disagrees.

use std::cmp::Ordering;

use ndarray_reshape::{
    Assumptions, Like, Np, Onnx, Order, Paddle, ShapeSpec, ShapeValue, SymDim, Unify,
};

use crate::{k, s, R};
use ndarray_reshape::ReshapeError;

#[test]
fn facts_decide_conditions() -> R {
    // A -1 that is exact only for some T; the caller knows T % 8 == 0.
    let out = Onnx::new([-1, 4]).infer_symbolic(&[s("T"), k(6)])?;
    assert_eq!(out.conditions()[0].to_string(), "3*T % 2 == 0");
    let eights = Assumptions::new().multiple_of("T", 8);
    assert!(eights.apply(&out)?.conditions().is_empty());
    assert_eq!(eights.apply(&out)?.dims(), out.dims());
    // Multiples combine: 6 and 4 make 12.
    let twelve = Assumptions::new().multiple_of("T", 6).multiple_of("T", 4);
    assert_eq!(twelve.to_string(), "T % 12 == 0");
    // Bounds: T <= 4096 keeps a product inside int64.
    let v = ShapeValue::from(k(1 << 40) * s("T"));
    assert_eq!(v.conditions().len(), 1);
    let bounded = Assumptions::new().at_most("T", 4096).apply_value(&v)?;
    assert!(bounded.conditions().is_empty());
    assert_eq!(bounded.entries(), v.entries());
    // A condition that no allowed value meets is an error naming it.
    let e = Assumptions::new()
        .at_least("T", 1 << 24)
        .apply_value(&v)
        .unwrap_err();
    assert_eq!(e.category(), "unsatisfiable");
    assert_eq!(e.context().position(), Some(0));
    assert!(e.to_string().contains("T >= 16777216"), "{e}");
    // Conditions the facts do not decide stay.
    let some = Assumptions::new().at_most("T", 100).apply(&out)?;
    assert_eq!(some.conditions(), out.conditions());
    Ok(())
}

#[test]
fn facts_decide_comparisons_in_dims() -> R {
    let (b, t) = (s("B"), s("T"));
    // TorchScript's min(T, 512) with T <= 512 is T; Where(T < 16, 16, T) with T >= 16 is T.
    let clipped = t.min(&k(512));
    let facts = Assumptions::new().at_most("T", 512).at_least("T", 16);
    let out = Paddle::new(ShapeValue::shape_of(&[b.clone(), clipped]))
        .infer_symbolic(&[b.clone(), t.clone()])?;
    assert_eq!(out.to_string(), "[B, min(512, T)] if T == min(512, T)");
    let decided = facts.apply(&out)?;
    assert_eq!(decided.to_string(), "[B, T]");
    let guarded = t.less(&k(16)).select(&k(16), &t);
    assert_eq!(
        facts.compare(&guarded, &t),
        Some(Ordering::Equal),
        "{guarded}"
    );
    assert_eq!(facts.compare(&b, &t), None);
    assert_eq!(facts.compare(&t, &k(600)), Some(Ordering::Less));
    assert_eq!(
        Assumptions::new().compare(&(k(2) * t.clone()), &t),
        Some(Ordering::Greater)
    );
    Ok(())
}

#[test]
fn dims_unify() {
    let (batch, t) = (s("batch"), s("T"));
    // tract's question: is Sym(batch) Val(1)?
    let u = batch.unify(&k(1));
    assert_eq!(u.conditions()[0].to_string(), "batch == 1");
    assert_eq!(
        Assumptions::new().at_least("batch", 2).unify(&batch, &k(1)),
        Unify::Never
    );
    assert_eq!(
        Assumptions::new().at_most("batch", 1).unify(&batch, &k(1)),
        Unify::Equal
    );
    assert_eq!(t.unify(&(k(2) * t.clone())), Unify::Never); // T == 2*T needs T = 0
    assert_eq!(
        (k(4) * t.clone()).floor_div(&k(4)).map(|q| q.unify(&t)),
        Ok(Unify::Equal)
    );
    let shapes = Assumptions::new().unify_shapes(&[batch.clone(), k(3)], &[k(2), k(3)]);
    assert_eq!(shapes.conditions().len(), 1);
    assert_eq!(
        Assumptions::new().unify_shapes(std::slice::from_ref(&batch), &[batch.clone(), k(1)]),
        Unify::Never
    );
}

#[test]
fn shapes_bind_to_concrete_ones() -> R {
    let (b, t) = (s("B"), s("T"));
    // [B, 3*T] against [2, 12]: B = 2, T = 4.
    let found = SymDim::bind(&[b.clone(), k(3) * t.clone()], &[2, 12])?;
    assert_eq!(found.pairs(), vec![("B", 2), ("T", 4)]);
    // Symbols solved from later dims check the earlier ones: B*T first, then T, then B.
    let found = SymDim::bind(
        &[b.clone() * t.clone(), t.clone() + k(1), b.clone()],
        &[12, 5, 3],
    )?;
    assert_eq!(found.to_string(), "T = 4, B = 3");
    // Each failure names its dim.
    let cases: [(&[SymDim], &[usize], usize); 4] = [
        (&[b.clone(), k(3) * t.clone()], &[2, 10], 1), // 3*T is never 10
        (&[b.clone(), b.clone()], &[2, 3], 1),         // B is 2, not 3
        (&[k(7), b.clone()], &[6, 1], 0),              // 7, not 6
        (&[b.clone() * t.clone()], &[6], 0),           // B*T: no dim fixes either
    ];
    for (dims, shape, at) in cases {
        let e = SymDim::bind(dims, shape).unwrap_err();
        assert_eq!(e.category(), "bind_mismatch", "{e}");
        assert_eq!(e.context().position(), Some(at), "{e}");
        assert_eq!(e.context().input(), shape);
    }
    assert_eq!(
        SymDim::bind(std::slice::from_ref(&b), &[1, 2])
            .unwrap_err()
            .category(),
        "bind_mismatch"
    );
    assert_eq!(
        SymDim::bind(std::slice::from_ref(&b), &[0])
            .unwrap_err()
            .category(),
        "bind_mismatch"
    );
    // A symbolic shape binds and then checks its conditions.
    let out = Onnx::new([0, -1, 2]).infer_symbolic(&[b.clone(), t.clone(), k(3)])?;
    assert_eq!(out.to_string(), "[B, 3*T/2, 2] if 3*T % 2 == 0");
    let found = out.bind(&[5, 6, 2])?;
    assert_eq!(found.pairs(), vec![("B", 5), ("T", 4)]);
    assert_eq!(out.eval(&found.pairs()), Some(vec![5, 6, 2]));
    Ok(())
}

/// Facts on `B` and `T` drawn from `r`, and every value they allow when there are few.
fn facts(r: &mut impl FnMut(u64) -> u64) -> (Assumptions, Vec<[usize; 2]>) {
    let mut a = Assumptions::new();
    let mut ranges = Vec::new();
    for name in ["B", "T"] {
        let lo = 1 + r(6) as usize;
        let hi = lo + r(40) as usize;
        let m = [1, 1, 2, 3, 4, 8][r(6) as usize];
        a = a.at_least(name, lo).at_most(name, hi).multiple_of(name, m);
        ranges.push((lo..=hi).filter(|v| v % m == 0).collect::<Vec<usize>>());
    }
    let all = ranges[0]
        .iter()
        .flat_map(|&x| ranges[1].iter().map(move |&y| [x, y]))
        .collect();
    (a, all)
}

/// Random conditions of inferred shapes and shape values, decided under random facts: a
/// condition said to hold holds for every allowed value, one said to fail fails for every one.
#[test]
fn decisions_are_sound() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut r = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n.max(1)
    };
    let (mut decided, mut refuted, mut total) = (0, 0, 0);
    for _ in 0..600 {
        let (b, t) = (s("B"), s("T"));
        let dims = [b.clone(), t.clone(), k(1 + r(12) as usize)];
        let spec = [
            -1,
            [1, 2, 3, 4, 6, 8][r(6) as usize],
            [1, 2, 5][r(3) as usize],
        ];
        let mut conditions = Vec::new();
        if let Ok(out) = Onnx::new(spec).infer_symbolic(&dims) {
            conditions.extend(out.conditions().iter().cloned());
        }
        let d = [
            b.clone() * t.clone(),
            b.min(&(k(3) * t.clone())),
            t.floor_div(&k(3)).unwrap(),
        ][r(3) as usize]
            .clone();
        let c = k(r(30) as usize);
        // Bounds of int64 that small sizes decide either way: big*d <= i64::MAX.
        let big = k(i64::MAX as usize / (1 + r(60) as usize));
        for v in [
            Ok(ShapeValue::from(big * d.clone())),
            ShapeValue::from(d.clone()).sub(&ShapeValue::from(c.clone())),
            ShapeValue::from(d.clone()).equal(&ShapeValue::scalar(r(20) as i64)),
            ShapeValue::from(d.clone()).floor_mod(&ShapeValue::from(t.clone() - k(3))),
        ]
        .into_iter()
        .flatten()
        {
            conditions.extend(v.conditions().iter().cloned());
        }
        conditions.push(
            ndarray_reshape::Assumptions::new()
                .unify(&d, &c)
                .conditions()
                .first()
                .cloned()
                .unwrap_or_else(|| {
                    Onnx::new([2, -1])
                        .infer_symbolic(&[b.clone(), k(3)])
                        .unwrap()
                        .conditions()[0]
                        .clone()
                }),
        );
        let (facts, allowed) = facts(&mut r);
        for cond in &conditions {
            total += 1;
            let Some(verdict) = facts.holds(cond) else {
                continue;
            };
            decided += 1;
            refuted += usize::from(!verdict);
            for v in &allowed {
                let bind = [("B", v[0]), ("T", v[1])];
                if let Some(h) = cond.holds(&bind) {
                    assert_eq!(h, verdict, "{cond} under {facts} at {bind:?}");
                }
            }
        }
    }
    assert!(decided * 4 > total, "only {decided} of {total} decided");
    assert!(
        refuted * 20 > decided,
        "only {refuted} of {decided} decided false"
    );
}

/// Where the algebra cannot decide a condition and the facts allow few values (at most 4,096
/// assignments), every one of them is tried; past that, the answer is "depends".
#[test]
fn few_allowed_values_are_tried_one_by_one() -> R {
    let t = s("T");
    // T*(T + 1) is always even, which no bound or multiple shows.
    let even = Onnx::new([-1, 2]).infer_symbolic(&[t.clone() * (t.clone() + k(1)), k(1)])?;
    let c = &even.conditions()[0];
    assert_eq!(c.to_string(), "(T + T*T) % 2 == 0");
    assert_eq!(Assumptions::new().holds(c), None);
    assert_eq!(Assumptions::new().at_most("T", 4096).holds(c), Some(true)); // 4,096 values
    assert_eq!(Assumptions::new().at_most("T", 4097).holds(c), None); // one too many
                                                                      // Over two symbols: B*T*(T + 1) % 2 == 0 for every B and T tried.
    let bt = s("B") * t.clone() * (t.clone() + k(1));
    let both = Onnx::new([-1, 2]).infer_symbolic(&[bt, k(1)])?;
    let facts = Assumptions::new().at_most("B", 8).at_most("T", 16);
    assert_eq!(facts.holds(&both.conditions()[0]), Some(true));
    // 3*T % 16 == 0 for no T up to 15: refuted value by value.
    let odd = Onnx::new([-1, 16]).infer_symbolic(&[t.clone(), k(3)])?;
    assert_eq!(
        Assumptions::new()
            .at_most("T", 15)
            .holds(&odd.conditions()[0]),
        Some(false)
    );
    assert_eq!(
        Assumptions::new()
            .at_most("T", 16)
            .holds(&odd.conditions()[0]),
        None
    );
    // A bound that holds for the first 4,096 values but not for all allowed is not decided.
    let big = (i64::MAX / 4100) as usize;
    let v = ShapeValue::from(k(big) * t.clone());
    let bound = &v.conditions()[0]; // big*T <= i64::MAX: T <= 4100
    assert_eq!(Assumptions::new().at_most("T", 10_000).holds(bound), None);
    assert_eq!(
        Assumptions::new().at_most("T", 4100).holds(bound),
        Some(true)
    );
    Ok(())
}

/// The comparisons, extremes and selections in a dim, decided where the facts' ranges decide
/// them and left as they are where not; a dim's quotient stays one; facts print as written.
#[test]
fn facts_decide_each_kind_of_comparison() -> R {
    let t = s("T");
    let at = |lo: usize, hi: usize| Assumptions::new().at_least("T", lo).at_most("T", hi);
    let one = |facts: &Assumptions, d: SymDim| -> Result<String, ReshapeError> {
        Ok(facts.apply_value(&ShapeValue::from(d))?.entries()[0].to_string())
    };
    let cases: Vec<(Assumptions, SymDim, &str)> = vec![
        (at(16, 99), t.max(&k(16)), "T"),
        (at(1, 16), t.max(&k(16)), "16"),
        (at(16, 99), t.min(&k(16)), "16"),
        (at(1, 16), t.min(&k(16)), "T"),
        (at(1, 40), t.min(&k(16)), "min(16, T)"),
        (at(5, 9), t.equal(&k(4)), "0"),
        (at(1, 9), t.floor_div(&k(10))?.equal(&k(0)), "1"),
        (at(1, 9), t.equal(&k(4)), "(4 == T)"),
        (at(16, 99), t.less(&k(16)), "0"),
        (at(1, 15), t.less(&k(16)), "1"),
        (at(1, 16), t.less(&k(16)), "(T < 16)"),
        (at(1, 16), t.less_equal(&k(16)), "1"),
        (at(17, 99), t.less_equal(&k(16)), "0"),
        (at(16, 17), t.less_equal(&k(16)), "(T <= 16)"),
        (at(16, 99), t.less(&k(16)).select(&k(16), &t), "T"),
        (at(1, 40), t.max(&k(16)), "max(16, T)"),
        (at(6, 9), (t.clone() - k(5)).select(&k(3), &k(5)), "3"),
        (at(1, 9), t.floor_div(&k(10))?.select(&k(3), &k(5)), "5"),
        (
            at(1, 9),
            (t.clone() - k(5)).select(&k(3), &k(5)),
            "where(T - 5, 3, 5)",
        ),
        (at(1, 99), k(64) / t.clone(), "64/T"),
    ];
    for (facts, d, want) in cases {
        assert_eq!(one(&facts, d.clone())?, want, "{d} under {facts}");
    }
    // compare: strict only where the facts exclude equality; equal where they pin a floor.
    assert_eq!(at(5, 9).compare(&t, &k(5)), None);
    assert_eq!(at(1, 5).compare(&t, &k(5)), None);
    assert_eq!(at(6, 9).compare(&t, &k(5)), Some(Ordering::Greater));
    assert_eq!(
        at(1, 9).compare(&t.floor_div(&k(10))?, &k(0)),
        Some(Ordering::Equal)
    );
    // A multiple is written back in the caller's symbols; a pinned symbol becomes its value.
    let out = Onnx::new([-1, 8]).infer_symbolic(&[s("C"), k(3)])?;
    assert_eq!(out.to_string(), "[3*C/8, 8] if 3*C % 8 == 0");
    let eights = Assumptions::new().multiple_of("C", 8).at_most("C", 64);
    assert_eq!(eights.apply(&out)?.to_string(), "[3*C/8, 8]");
    let pinned = Assumptions::new().at_least("C", 16).at_most("C", 16);
    assert_eq!(pinned.apply(&out)?.to_string(), "[6, 8]");
    // Facts print as given; a bound a size has anyway is none.
    assert_eq!(
        Assumptions::new().at_least("N", 1).to_string(),
        "no assumptions"
    );
    assert_eq!(
        Assumptions::new()
            .at_most("N", isize::MAX as usize)
            .to_string(),
        "no assumptions"
    );
    assert_eq!(
        Assumptions::new()
            .at_least("N", 2)
            .at_most("T", 9)
            .to_string(),
        "N >= 2 and T <= 9"
    );
    assert_eq!(pinned.to_string(), "C == 16");
    Ok(())
}

/// Facts no size satisfies are refused by the first call that can say so, naming them: the
/// reported `at_least(B, 5)` with `at_most(B, 2)` that gave `[B, 6]`, and a multiple of 0.
#[test]
fn contradictory_facts_are_refused() -> R {
    let out = Onnx::new([0, -1]).infer_symbolic(&[s("B"), k(6)])?;
    let both = Assumptions::new().at_least("B", 5).at_most("B", 2);
    let e = both.apply(&out).unwrap_err();
    assert_eq!(e.category(), "unsatisfiable");
    assert_eq!(
        e.context().detail(),
        "the assumptions contradict each other: no size satisfies B >= 5 and B <= 2"
    );
    let zero = Assumptions::new().multiple_of("T", 0);
    assert!(zero
        .apply(&out)
        .unwrap_err()
        .to_string()
        .contains("T % 0 == 0"));
    // Nothing is decided under them: no vacuous truths.
    let c = &Onnx::new([2, -1])
        .infer_symbolic(&[s("B"), k(3)])?
        .conditions()[0]
        .clone();
    assert_eq!(both.holds(c), None);
    assert_eq!(both.compare(&s("B"), &k(3)), None);
    assert_ne!(both.unify(&s("B"), &k(6)), Unify::Equal);
    // The whole-graph walk refuses them before its first node.
    let mut g = ndarray_reshape::Graph::new(17);
    g.input(
        "x",
        ndarray_reshape::ElemType::FLOAT,
        [ndarray_reshape::InputDim::named("B")],
    );
    assert_eq!(g.infer(&both).unwrap_err().category(), "unsatisfiable");
    assert!(g.infer(&Assumptions::new().at_least("B", 5)).is_ok());
    Ok(())
}

/// Every dialect that reads a shape value keeps its conditions: they are added in one place,
/// after the dialect's rules, whatever the dialect.
#[test]
fn every_dialect_keeps_a_values_conditions() -> R {
    let (b, t) = (s("B"), s("T"));
    // [B, T // (T - 1)], which holds only if T - 1 != 0.
    let less = t.clone() - k(1);
    let q = ShapeValue::shape_of(std::slice::from_ref(&t))
        .floor_div(&ShapeValue::shape_of(std::slice::from_ref(&less)))?;
    let value = ShapeValue::concat(&[ShapeValue::shape_of(std::slice::from_ref(&b)), q])?;
    let needs = value.conditions().to_vec();
    assert_eq!(needs.len(), 1, "{value}");
    let input = value.entries().to_vec();
    let shapes = [
        Onnx::new(value.clone()).infer_symbolic(&input)?,
        Np::new(value.clone(), Order::C).infer_symbolic(&input)?,
        Paddle::new(value.clone()).infer_symbolic(&input)?,
        Like::new(value.clone()).infer_symbolic(&input)?,
    ];
    for shape in shapes {
        assert!(
            needs.iter().all(|c| shape.conditions().contains(c)),
            "{shape}"
        );
    }
    // Concrete inference refuses the value: its condition needs the symbols.
    assert!(Onnx::new(value).infer_shape(&[2, 3]).is_err());
    Ok(())
}
