//! The element-wise arithmetic of shape values, as the graph computes it on int64: ONNX `Add`,
//! `Sub`, `Mul`, `Div` (truncating), `Mod`, `Min`, `Max`, `Neg`, `Abs`, integer `Cast`s,
//! `ReduceProd`, and Paddle's `floor_divide`, `remainder` and `scale`. Numbers are computed exactly (an overflow is an
//! error); a symbolic result carries the conditions that keep it within `i64` where the known
//! sizes do not.

use super::ops::{List, Written};
use super::value::{broadcast, joined, joined_ty, sizes, within, Ty};
use super::ShapeValue;
use crate::error::{Fail, ReshapeError, Rule};
use crate::sym::bounds;
use crate::sym::never_zero;
use crate::sym::ConditionList;
use crate::sym::Rat;
use crate::sym::{Condition, SymDim};

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
            number(&a, &b, i64::checked_add, "+").unwrap_or_else(|| Ok(a + b))
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
            number(&a, &b, i64::checked_sub, "-").unwrap_or_else(|| Ok(a - b))
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
            number(&a, &b, i64::checked_mul, "*").unwrap_or_else(|| Ok(a * b))
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
    /// let n = ShapeValue::shape_of(&[SymDim::from(64) * SymDim::sym("B")]).squeeze(0)?;
    /// assert_eq!(n.div(&ShapeValue::scalar(64))?, ShapeValue::from(SymDim::sym("B")));
    /// assert_eq!(ShapeValue::scalar(-7).div(&ShapeValue::scalar(2))?, ShapeValue::scalar(-3));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn div(&self, other: &ShapeValue) -> Result<ShapeValue, ReshapeError> {
        self.arith(other, "div", |a, b| {
            if let Some(r) = number(&a, &b, i64::checked_div, "/") {
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
            Ok(a.clone() - b.clone() * truncated(a, b)?)
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
        let op = Written {
            name: "scale",
            operands: &[self, &scale, &bias],
        };
        let integer = |v: f64| (v.fract() == 0.0 && v.abs() < 9.2e18).then_some(v as i64);
        let (Some(s), Some(b)) = (integer(scale), integer(bias)) else {
            return Err(op.fail(
                Rule::UnknownOp,
                Some(1),
                format!("scale {scale} and bias {bias} are not both integers"),
            ));
        };
        // x * s + b is ring arithmetic: only the result is bounded (see `ring_fold`).
        let mut out = ShapeValue {
            entries: Vec::with_capacity(self.len()),
            ty: joined_ty(&[self]),
            ..self.clone()
        };
        let (s, b) = (SymDim::int(s), SymDim::int(b));
        for x in &self.entries {
            let e = match bias_after_scale {
                true => x.clone() * s.clone() + b.clone(),
                false => (x.clone() + b.clone()) * s.clone(),
            };
            out.push_checked(e, true, &op, || format!("scale({x}, {s}, {b})"))?;
        }
        Ok(out)
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
            number(&SymDim::from(0), &a, i64::checked_sub, "-").unwrap_or_else(|| Ok(-a))
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
            Ok(a.less(&SymDim::from(0)).select(&-a.clone(), &a))
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
    /// let hw = ShapeValue::shape_of(&[SymDim::sym("H") * SymDim::sym("W")]).cast("int32")?;
    /// assert_eq!(hw.conditions()[0].to_string(), "H*W <= 2147483647");
    /// assert_eq!(hw.dtype(), "int32");
    /// assert!(ShapeValue::scalar(2).cast("float32").is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn cast(&self, dtype: &str) -> Result<ShapeValue, ReshapeError> {
        let op = Written {
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
            "uint2" => ubits(2),
            n if n.starts_with("float") || n.starts_with("bfloat") || n == "double" || n == "half" => {
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
            ty: match width {
                0 => Ty::BOOL,
                w => Ty::int(w as u8, signed),
            },
            ..self.clone()
        };
        for e in &self.entries {
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
            within(
                e.clone(),
                lo,
                hi.min(i64::MAX.into()),
                &out.sizes,
                &mut out.conditions,
            );
            out.entries.push(e.clone());
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
        ShapeValue::ring_fold(std::slice::from_ref(self), false, Ring::Mul, "reduce_prod")
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
            None => (self.entries.first()?.clone(), &self.entries[1..]),
        };
        let mut acc = ShapeValue {
            scalar: true,
            entries: vec![first],
            ..self.clone()
        };
        for e in rest {
            let entry = ShapeValue {
                scalar: true,
                entries: vec![e.clone()],
                conditions: Vec::new(),
                sizes: Vec::new(),
                ty: self.ty,
            };
            acc = match f(&acc, &entry) {
                Ok(v) => v,
                e => return Some(e),
            };
        }
        Some(Ok(acc))
    }

    /// `f` entry by entry with broadcasting (0-D, or one entry, against any length), in the
    /// type the operands share; the result is 0-D when both are. The conditions are both
    /// operands', a non-zero divisor where a division's divisor may be 0, and the type's
    /// bounds on each symbolic result that the known sizes do not give. A number outside the
    /// type is an [`Overflow`](ReshapeError::Overflow): the graph would wrap it.
    pub(super) fn arith(
        &self,
        other: &ShapeValue,
        name: &'static str,
        f: impl Fn(SymDim, SymDim) -> Result<SymDim, Fail>,
    ) -> Result<ShapeValue, ReshapeError> {
        let divides = matches!(name, "div" | "floor_div" | "floor_mod" | "trunc_mod");
        // The operands are within the type (every value is, or says so). A sum, a product or a
        // magnitude can leave it, and a quotient by a divisor that may be -1 (`MIN / -1`);
        // a remainder, an extreme, a comparison or a selection stays within its operands.
        let grows = match name {
            "add" | "sub" | "mul" | "neg" | "abs" => true,
            "div" | "floor_div" => !other.entries.iter().all(|d| non_negative(d.clone())),
            _ => false,
        };
        let op = Written {
            name,
            operands: &[self, other],
        };
        let (m, n) = (self.entries.len(), other.entries.len());
        let len = broadcast(&[m, n]).map_err(|_| {
            op.fail(
                Rule::LengthMismatch,
                Some(1),
                format!("lengths {m} and {n} do not broadcast"),
            )
        })?;
        let both = [self, other];
        let mut out = ShapeValue {
            scalar: self.scalar && other.scalar,
            entries: Vec::with_capacity(len),
            conditions: joined(&both),
            sizes: sizes(&both),
            ty: joined_ty(&both),
        };
        for i in 0..len {
            let (a, b) = (self.at(i), other.at(i));
            let e = f(a.clone(), b.clone()).map_err(|f| op.fail(f.rule, Some(1), f.detail))?;
            if divides && b.is_symbolic() && !never_zero(b) {
                out.conditions.add(Condition::nonzero(b.clone()));
            }
            out.push_checked(e, grows, &op, || format!("{name}({a}, {b})"))?;
        }
        Ok(out)
    }

    /// Pushes the entry `e` (`what` computed it): an error past the symbolic range or, for a
    /// number, past the value's type (where the graph would wrap); for a symbolic entry that
    /// may leave the type (`grows`), the type's bounds as conditions where the known sizes do
    /// not give them.
    fn push_checked(
        &mut self,
        e: SymDim,
        grows: bool,
        op: &Written<'_>,
        what: impl Fn() -> String,
    ) -> Result<(), ReshapeError> {
        if !e.is_valid() {
            return Err(op.fail(
                Rule::SymbolLimit,
                Some(1),
                format!("{} passes the symbolic range", what()),
            ));
        }
        let (lo, hi) = self.ty.range();
        match e.wide_constant() {
            Some(x) if !(lo..=hi).contains(&x) => {
                return Err(op.fail(
                    Rule::Overflow,
                    Some(1),
                    format!("{} is {x}, past {}", what(), self.ty.name()),
                ))
            }
            Some(_) => {}
            None if grows => within(e.clone(), lo, hi, &self.sizes, &mut self.conditions),
            None => {}
        }
        self.entries.push(e);
        Ok(())
    }

    /// Sums or products (`ring`) of `values`: entry by entry across the values (broadcast)
    /// when `across`, else of all their entries into one 0-D value. Sums and products are the
    /// integers' ring operations, so the graph's wrapping steps reach the exact result
    /// whenever it is within the type: only the result is bounded, not the partial sums.
    pub(super) fn ring_fold(
        values: &[ShapeValue],
        across: bool,
        ring: Ring,
        name: &'static str,
    ) -> Result<ShapeValue, ReshapeError> {
        let list = List(values);
        let op = Written {
            name,
            operands: &[&list],
        };
        let lens: Vec<usize> = values.iter().map(ShapeValue::len).collect();
        let (len, scalar) = match across {
            false => (1, true),
            true => {
                let len = op.broadcast(&lens)?;
                (len, values.iter().all(|v| v.scalar))
            }
        };
        let all: Vec<&ShapeValue> = values.iter().collect();
        let mut out = ShapeValue {
            scalar,
            entries: Vec::with_capacity(len),
            conditions: joined(&all),
            sizes: sizes(&all),
            ty: joined_ty(&all),
        };
        for i in 0..len {
            let terms: Vec<SymDim> = match across {
                true => values.iter().map(|v| v.at(i).clone()).collect(),
                false => values
                    .iter()
                    .flat_map(|v| v.entries.iter().cloned())
                    .collect(),
            };
            let e = match ring {
                Ring::Add => terms.iter().fold(SymDim::from(0), |s, t| s + t.clone()),
                // A factor of 0 makes the product 0, however large the others.
                Ring::Mul if terms.contains(&SymDim::from(0)) => SymDim::from(0),
                Ring::Mul => terms.iter().fold(SymDim::from(1), |p, t| p * t.clone()),
            };
            let what = || {
                let t: Vec<String> = terms.iter().map(SymDim::to_string).collect();
                format!("the {name} of [{}]", t.join(", "))
            };
            if !e.is_valid() && terms.iter().all(|t| t.constant().is_some()) {
                // Past i128 on the way: a sum of i64 numbers never is, and a product of
                // non-zero integers only grows in magnitude.
                return Err(op.fail(
                    Rule::Overflow,
                    None,
                    format!("{} is past {}", what(), out.ty.name()),
                ));
            }
            out.push_checked(e, true, &op, what)?;
        }
        Ok(out)
    }
}

/// The ring operation of [`ShapeValue::ring_fold`].
#[derive(Clone, Copy)]
pub(super) enum Ring {
    Add,
    Mul,
}

/// Whether `d` is at least 0 for every value of the symbols.
fn non_negative(d: SymDim) -> bool {
    bounds(&d).lo.is_some_and(|l| l >= Rat::ZERO)
}

/// `f` on two numbers, or `None` when either is symbolic.
fn number(
    a: &SymDim,
    b: &SymDim,
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
        let b = bounds(&d);
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
    match sign(a.clone()) * sign(b.clone()) {
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
