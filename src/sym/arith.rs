//! The element-wise arithmetic of shape values, as the graph computes it on int64: ONNX `Add`,
//! `Sub`, `Mul`, `Div` (truncating), `Mod`, `Min`, `Max`, `Neg`, `Abs`, integer `Cast`s,
//! `ReduceProd`, and Paddle's `floor_divide`, `remainder` and `scale`. Numbers are computed exactly (an overflow is an
//! error); a symbolic result carries the conditions that keep it within `i64` where the known
//! sizes do not.

use super::eval::{bounds, lower, upper};
use super::expr::Rat;
use super::ops::Op;
use super::value::{add, joined, sizes};
use super::{Condition, ShapeValue, SymDim};
use crate::error::{Fail, ReshapeError, Rule};

impl ShapeValue {
    /// ONNX `Add` (Paddle `add`): entry by entry, with broadcasting (a 0-D value or a single
    /// entry against any length).
    ///
    /// # Errors
    ///
    /// [`LengthMismatch`](ReshapeError::LengthMismatch) for lengths that do not broadcast,
    /// [`Overflow`](ReshapeError::Overflow) for numbers past `i64`,
    /// [`SymbolLimit`](ReshapeError::SymbolLimit) past the symbolic range.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let s = ShapeValue::from(SymDim::sym("S")).div(&ShapeValue::scalar(20))?;
    /// assert_eq!(s.add(&ShapeValue::scalar(-1))?.to_string(), "S // 20 - 1");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn add(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "add", |a, b| {
            number(a, b, i64::checked_add, "+").unwrap_or(Ok(a + b))
        })
    }

    /// ONNX `Sub` (Paddle `subtract`), as [`add`](Self::add).
    ///
    /// # Errors
    ///
    /// As for [`add`](Self::add).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let h = ShapeValue::from(SymDim::sym("H"));
    /// assert_eq!(h.sub(&h)?, ShapeValue::scalar(0));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn sub(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "sub", |a, b| {
            number(a, b, i64::checked_sub, "-").unwrap_or(Ok(a - b))
        })
    }

    /// ONNX `Mul` (Paddle `multiply`), as [`add`](Self::add).
    ///
    /// # Errors
    ///
    /// As for [`add`](Self::add).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(12)]);
    /// let w = v.mul(&ShapeValue::scalar(64))?;
    /// assert_eq!(w.entries(), &[SymDim::from(64) * SymDim::sym("B"), SymDim::from(768)]);
    /// // 12*B is a tensor's size, so 64*B is at most 64/12 of isize::MAX: bounded, not known.
    /// assert_eq!(w.conditions()[0].to_string(), "64*B <= 9223372036854775807");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn mul(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "mul", |a, b| {
            number(a, b, i64::checked_mul, "*").unwrap_or(Ok(a * b))
        })
    }

    /// ONNX `Div` on integers: entry by entry with broadcasting, truncating toward zero. On
    /// sizes this is the floor (`S // 20`), exact for every value of the symbols; where a sign
    /// is unknown the truncation is written out.
    ///
    /// # Errors
    ///
    /// [`DivisionByZero`](ReshapeError::DivisionByZero), [`Overflow`](ReshapeError::Overflow)
    /// (`i64::MIN / -1`), and as for [`add`](Self::add).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let n = ShapeValue::from(SymDim::from(64) * SymDim::sym("B"));
    /// assert_eq!(n.div(&ShapeValue::scalar(64))?, ShapeValue::from(SymDim::sym("B")));
    /// assert_eq!(ShapeValue::scalar(-7).div(&ShapeValue::scalar(2))?, ShapeValue::scalar(-3));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn div(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "div", |a, b| {
            if let Some(r) = number(a, b, i64::checked_div, "/") {
                return match b.is_zero() {
                    true => Err(zero(a)),
                    false => r,
                };
            }
            truncated(a, b)
        })
    }

    /// Paddle `floor_divide` (NumPy `//`): the quotient rounded toward negative infinity,
    /// exact on symbols (`T // 2`, no divisibility assumed).
    ///
    /// # Errors
    ///
    /// As for [`div`](Self::div).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// assert_eq!(ShapeValue::scalar(-7).floor_div(&ShapeValue::scalar(2))?, ShapeValue::scalar(-4));
    /// let t = ShapeValue::from(SymDim::sym("T")).floor_div(&ShapeValue::scalar(2))?;
    /// assert_eq!(t.eval(&[("T", 7)]), Some(vec![3]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn floor_div(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "floor_div", |a, b| a.floor_div(&b).map_err(lift))
    }

    /// ONNX `Mod` with `fmod = 0` (Paddle `remainder`, Python's `%`): the remainder with the
    /// divisor's sign.
    ///
    /// # Errors
    ///
    /// As for [`div`](Self::div).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// assert_eq!(ShapeValue::scalar(-3).floor_mod(&ShapeValue::scalar(7))?, ShapeValue::scalar(4));
    /// let h = ShapeValue::from(SymDim::sym("H")).floor_mod(&ShapeValue::scalar(7))?;
    /// assert_eq!(h.to_string(), "H % 7");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn floor_mod(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "floor_mod", |a, b| a.floor_mod(&b).map_err(lift))
    }

    /// ONNX `Mod` with `fmod = 1` (C's `%`): the remainder with the dividend's sign.
    ///
    /// # Errors
    ///
    /// As for [`div`](Self::div).
    ///
    /// ```
    /// use ndarray_reshape::ShapeValue;
    /// assert_eq!(ShapeValue::scalar(-3).trunc_mod(&ShapeValue::scalar(7))?, ShapeValue::scalar(-3));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn trunc_mod(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "trunc_mod", |a, b| {
            if b.is_zero() {
                return Err(zero(a));
            }
            if let (Some(x), Some(y)) = (a.constant(), b.constant()) {
                return Ok(SymDim::int(x.wrapping_rem(y)));
            }
            Ok(a - b * truncated(a, b)?)
        })
    }

    /// ONNX `Min` (Paddle `minimum`), decided where the symbols' bounds decide it.
    ///
    /// # Errors
    ///
    /// [`LengthMismatch`](ReshapeError::LengthMismatch) for lengths that do not broadcast.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let m = ShapeValue::from(SymDim::sym("P")).min(&ShapeValue::from(SymDim::sym("Q")))?;
    /// assert_eq!(m.eval(&[("P", 3), ("Q", 5)]), Some(vec![3]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn min(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "min", |a, b| Ok(a.min(&b)))
    }

    /// ONNX `Max` (Paddle `maximum`), decided where the symbols' bounds decide it
    /// (`max(B, 1) == B`).
    ///
    /// # Errors
    ///
    /// As for [`min`](Self::min).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(b.max(&ShapeValue::scalar(1))?, b);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn max(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "max", |a, b| Ok(a.max(&b)))
    }

    /// Paddle `scale` on an integer tensor: `x * scale + bias` (`bias_after_scale`) or
    /// `(x + bias) * scale`, exact when the scale and the bias are integers, as the float
    /// attributes of a shape computation are (`scale(B, 64.0)` is `64*B`).
    ///
    /// # Errors
    ///
    /// [`UnknownOp`](ReshapeError::UnknownOp) for a scale or a bias that is not an
    /// integer (the kernel would truncate it), and as for [`add`](Self::add).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// let n = b.scale(64.0, 0.0, true)?.scale(16.0, 0.0, true)?;
    /// assert_eq!(n.entries(), &[SymDim::from(1024) * SymDim::sym("B")]);
    /// assert!(b.scale(0.5, 0.0, true).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn scale(
        &self,
        scale: f64,
        bias: f64,
        bias_after_scale: bool,
    ) -> Result<ShapeValue, ReshapeError> {
        let integer = |v: f64| (v.fract() == 0.0 && v.abs() < 9.2e18).then_some(v as i64);
        let (Some(s), Some(b)) = (integer(scale), integer(bias)) else {
            let op = Op {
                name: "scale",
                operands: &[self, &scale, &bias],
            };
            return Err(op.fail(
                Rule::UnknownOp,
                Some(1),
                format!("scale {scale} and bias {bias} are not both integers"),
            ));
        };
        let (s, b) = (ShapeValue::scalar(s), ShapeValue::scalar(b));
        match bias_after_scale {
            true => self.mul(&s)?.add(&b),
            false => self.add(&b)?.mul(&s),
        }
    }

    /// ONNX `Neg` (Paddle `scale` by -1): the entries negated.
    ///
    /// # Errors
    ///
    /// [`Overflow`](ReshapeError::Overflow) for `-i64::MIN`.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::from(3)]).neg()?;
    /// assert_eq!(v.entries(), &[-SymDim::sym("B"), SymDim::int(-3)]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn neg(&self) -> Result<ShapeValue, ReshapeError> {
        self.arith(&ShapeValue::scalar(0), "neg", |a, _| {
            number(SymDim::from(0), a, i64::checked_sub, "-").unwrap_or(Ok(-a))
        })
    }

    /// ONNX `Abs` (Paddle `abs`): the entries' magnitudes; a size is its own.
    ///
    /// # Errors
    ///
    /// [`Overflow`](ReshapeError::Overflow) for `|i64::MIN|`.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::from(vec![-3, 4]).abs()?;
    /// assert_eq!(v, ShapeValue::from(vec![3, 4]));
    /// let b = ShapeValue::from(SymDim::sym("B"));
    /// assert_eq!(b.abs()?, b);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn abs(&self) -> Result<ShapeValue, ReshapeError> {
        self.arith(&ShapeValue::scalar(0), "abs", |a, _| {
            if let Some(x) = a.constant() {
                return x
                    .checked_abs()
                    .map(SymDim::int)
                    .ok_or_else(|| Fail::whole(Rule::Overflow, format!("|{x}| overflows i64")));
            }
            Ok(a.less(&SymDim::from(0)).select(&-a, &a))
        })
    }

    /// ONNX `Cast` and Paddle `cast` to an integer type, named as NumPy, ONNX or Paddle name it
    /// (`"int64"`, `"int32"`, `"uint8"`, `"bool"`, ...), as the runtimes compute it: a number
    /// outside the type wraps (two's complement, as a C++ `static_cast`), `bool` is 1 for any
    /// non-zero entry. A symbolic entry the symbols' bounds do not keep inside the type carries
    /// the bound as a condition (`H*W <= 2147483647` for `int32`).
    ///
    /// # Errors
    ///
    /// [`UnknownOp`](ReshapeError::UnknownOp) for a floating-point type: shape values are
    /// integers, so a subtree computed in floats is folded to its integers before (see
    /// [`onnx_op`](Self::onnx_op)); [`BadAttribute`](ReshapeError::BadAttribute) for a name
    /// that is no type; [`Overflow`](ReshapeError::Overflow) for a `uint64` past `i64::MAX`.
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// assert_eq!(ShapeValue::scalar(3_000_000_000).cast("int32")?, ShapeValue::scalar(-1_294_967_296));
    /// assert_eq!(ShapeValue::from(vec![0, 7]).cast("bool")?, ShapeValue::from(vec![0, 1]));
    /// let hw = ShapeValue::from(SymDim::sym("H") * SymDim::sym("W")).cast("int32")?;
    /// assert_eq!(hw.conditions()[0].to_string(), "H*W <= 2147483647");
    /// assert!(ShapeValue::scalar(2).cast("float32").is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn cast(&self, dtype: &str) -> Result<ShapeValue, ReshapeError> {
        let op = Op {
            name: "cast",
            operands: &[self, &dtype],
        };
        let bits = |b: u32| Some((b, true));
        let ubits = |b: u32| Some((b, false));
        let name = dtype.trim().to_ascii_lowercase();
        let name = name.strip_prefix("paddle.").unwrap_or(&name);
        let (width, signed) = match name {
            "int64" | "long" => bits(64),
            "int32" | "int" => bits(32),
            "int16" | "short" => bits(16),
            "int8" => bits(8),
            "int4" => bits(4),
            "uint64" => ubits(64),
            "uint32" => ubits(32),
            "uint16" => ubits(16),
            "uint8" => ubits(8),
            "uint4" => ubits(4),
            "bool" => None,
            "float16" | "float32" | "float64" | "bfloat16" | "float8" | "float" | "double"
            | "half" => {
                return Err(op.fail(
                    Rule::UnknownOp,
                    Some(1),
                    format!("a cast to {dtype}: shape values are integers; fold a subtree computed in floats to its integers first"),
                ))
            }
            _ => {
                return Err(op.fail(
                    Rule::BadAttribute,
                    Some(1),
                    format!("{dtype:?} is not an integer type"),
                ))
            }
        }
        .map_or((0, false), |t| t);
        let mut out = ShapeValue {
            entries: Vec::with_capacity(self.entries.len()),
            ..self.clone()
        };
        for &e in &self.entries {
            if width == 0 {
                out.entries
                    .push(SymDim::from(1) - e.equal(&SymDim::from(0)));
                continue;
            }
            let (lo, hi): (i128, i128) = match signed {
                true => (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1),
                false => (0, (1i128 << width) - 1),
            };
            if let Some(x) = e.constant() {
                // Two's complement: keep the low `width` bits, read them in the type.
                let m = (x as i128).rem_euclid(1i128 << width);
                let v = if signed && m > hi {
                    m - (1i128 << width)
                } else {
                    m
                };
                let v = i64::try_from(v).map_err(|_| {
                    op.fail(
                        Rule::Overflow,
                        Some(0),
                        format!("{x} as {dtype} is {v}, past i64"),
                    )
                })?;
                out.entries.push(SymDim::int(v));
                continue;
            }
            within(e, lo, hi.min(i64::MAX.into()), &mut out);
            out.entries.push(e);
        }
        Ok(out)
    }

    /// ONNX `ReduceProd` over the one axis of a 1-D value (Paddle `prod`): the 0-D product of
    /// the entries (1 for none), with the `i64` bound its partial products need.
    ///
    /// # Errors
    ///
    /// As for [`mul`](Self::mul).
    ///
    /// ```
    /// use ndarray_reshape::{ShapeValue, SymDim};
    /// let v = ShapeValue::shape_of(&[SymDim::sym("B"), SymDim::sym("T"), SymDim::from(768)]);
    /// let n = v.slice(0, 2, 1)?.reduce_prod()?;
    /// assert_eq!(n.entries(), &[SymDim::sym("B") * SymDim::sym("T")]);
    /// assert!(n.conditions().is_empty()); // B*T*768 is a tensor's size: within i64
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn reduce_prod(&self) -> Result<ShapeValue, ReshapeError> {
        self.fold(Some(1), ShapeValue::mul)
            .unwrap_or(Ok(ShapeValue::scalar(1)))
    }

    /// The 0-D fold of the entries by `f`, from `start` (from the first entry for `None`,
    /// then `None` without entries), with the value's conditions and known sizes.
    pub(super) fn fold(
        &self,
        start: Option<i64>,
        f: impl Fn(&ShapeValue, &ShapeValue) -> Result<ShapeValue, ReshapeError>,
    ) -> Option<Result<ShapeValue, ReshapeError>> {
        let (first, rest) = match start {
            Some(s) => (SymDim::int(s), &self.entries[..]),
            None => (*self.entries.first()?, &self.entries[1..]),
        };
        let mut acc = ShapeValue {
            scalar: true,
            entries: vec![first],
            ..self.clone()
        };
        for &e in rest {
            acc = match f(&acc, &ShapeValue::from(e)) {
                Ok(v) => v,
                e => return Some(e),
            };
        }
        Some(Ok(acc))
    }

    /// `f` entry by entry with broadcasting (0-D, or one entry, against any length); the
    /// result is 0-D when both are. The conditions are both operands' and, for sums, products
    /// and negations, the `i64` bounds of the symbolic results that the known sizes do not
    /// give.
    pub(super) fn arith(
        &self,
        other: &ShapeValue,
        name: &'static str,
        f: impl Fn(SymDim, SymDim) -> Result<SymDim, Fail>,
    ) -> Result<ShapeValue, ReshapeError> {
        // Sums and products can leave i64; a quotient, a remainder, an extreme, a comparison or
        // a selection stays within its operands, which are i64 values already.
        let grows = matches!(name, "add" | "sub" | "mul" | "neg" | "abs");
        let op = Op {
            name,
            operands: &[self, other],
        };
        let (m, n) = (self.entries.len(), other.entries.len());
        let len = match (m, n) {
            _ if m == n => m,
            (1, _) => n,
            (_, 1) => m,
            _ => {
                return Err(op.fail(
                    Rule::LengthMismatch,
                    Some(1),
                    format!("lengths {m} and {n} do not broadcast"),
                ))
            }
        };
        let both = [self, other];
        let mut out = ShapeValue {
            scalar: self.scalar && other.scalar,
            entries: Vec::with_capacity(len),
            conditions: joined(&both),
            sizes: sizes(&both),
        };
        for i in 0..len {
            let a = self.entries[if m == 1 { 0 } else { i }];
            let b = other.entries[if n == 1 { 0 } else { i }];
            let e = f(a, b).map_err(|f| op.fail(f.rule, Some(1), f.detail))?;
            if !e.is_valid() {
                return Err(op.fail(
                    Rule::SymbolLimit,
                    Some(1),
                    format!("{name}({a}, {b}) passes the symbolic range"),
                ));
            }
            if grows && e.constant().is_none() {
                within(e, i64::MIN.into(), i64::MAX.into(), &mut out);
            }
            out.entries.push(e);
        }
        Ok(out)
    }
}

/// Adds to `out` the conditions `lo <= e` and `e <= hi` that the known sizes do not give.
fn within(e: SymDim, lo: i128, hi: i128, out: &mut ShapeValue) {
    if !upper(e, &out.sizes).is_some_and(|u| u <= Rat::int(hi)) {
        add(
            &mut out.conditions,
            Condition::at_most(e, SymDim::int(hi as i64)),
        );
    }
    if !lower(e, &out.sizes).is_some_and(|l| l >= Rat::int(lo)) {
        add(
            &mut out.conditions,
            Condition::at_most(SymDim::int(lo as i64), e),
        );
    }
}

/// `f` on two numbers, or `None` when either is symbolic.
fn number(
    a: SymDim,
    b: SymDim,
    f: fn(i64, i64) -> Option<i64>,
    sign: &str,
) -> Option<Result<SymDim, Fail>> {
    let (x, y) = (a.constant()?, b.constant()?);
    Some(
        f(x, y)
            .map(SymDim::int)
            .ok_or_else(|| Fail::whole(Rule::Overflow, format!("{x} {sign} {y} overflows i64"))),
    )
}

#[cold]
fn zero(a: SymDim) -> Fail {
    Fail::whole(Rule::DivisionByZero, format!("{a} / 0"))
}

/// A [`SymDim`] operation's error as an entry's failure.
fn lift(e: ReshapeError) -> Fail {
    Fail::whole(e.rule(), e.context().detail())
}

/// `a / b` truncated toward zero: the floor where the signs are known alike, its negation's
/// floor where they are known to differ, else written out with a selection.
fn truncated(a: SymDim, b: SymDim) -> Result<SymDim, Fail> {
    let sign = |d: SymDim| {
        let b = bounds(d);
        match (
            b.lo.is_some_and(|l| l >= Rat::ZERO),
            b.hi.is_some_and(|h| h <= Rat::ZERO),
        ) {
            (true, _) => 1,
            (_, true) => -1,
            _ => 0,
        }
    };
    let q = a.floor_div(&b).map_err(lift)?;
    match sign(a) * sign(b) {
        1 => Ok(q),
        -1 => Ok(-((-a).floor_div(&b).map_err(lift)?)),
        _ => {
            // floor, plus 1 where the division is inexact and the signs differ.
            let r = a.floor_mod(&b).map_err(lift)?;
            let differ = (a * b).less(&SymDim::from(0));
            let inexact = SymDim::from(1) - r.equal(&SymDim::from(0));
            Ok(q + differ * inexact)
        }
    }
}
