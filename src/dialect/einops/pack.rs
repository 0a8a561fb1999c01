//! einops' `pack` and `unpack` patterns ([`Pack`]): shapes only, no data.

use std::fmt;

use super::pattern::check_name;
use crate::dialect::lower::OnnxNode;
use crate::dialect::onnx::Onnx;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::infer::Extent;
use crate::small::Small;
use crate::sym::ConditionList;
use crate::sym::{bounds, equals, past_limit, Condition, Exact, Rat, SymDim};

/// An einops `pack` / `unpack` pattern (`"b * c"`): axis names split on whitespace with exactly
/// one `*`, the axes the inputs pack into one. The names before and after the `*` are the
/// fixed axes every input shares; the `*` stands for any number of axes (none included),
/// flattened into one.
///
/// The shapes of [`pack`](crate::pack) and [`ReshapeExt::unpack`](crate::ReshapeExt::unpack),
/// without data, for graph compilers: [`pack_shapes`](Self::pack_shapes),
/// [`unpack_shapes`](Self::unpack_shapes), and [`pack_symbolic`](Self::pack_symbolic).
///
/// # Errors
///
/// [`BadPattern`](ReshapeError::BadPattern) from [`new`](Self::new), in einops' order: a name
/// twice (two `*` included), no `*`, a name that is no axis name (`...`, brackets, numbers,
/// a leading or trailing `_`).
///
/// # Examples
///
/// ```
/// use ndarray_reshape::Pack;
///
/// let p = Pack::new("b * c")?;
/// let (shape, packed) = p.pack_shapes(&[&[2, 3, 5], &[2, 5], &[2, 4, 2, 5]])?;
/// assert_eq!(shape, vec![2, 12, 5]);
/// assert_eq!(packed, vec![vec![3], vec![], vec![4, 2]]);
/// assert_eq!(p.unpack_shapes(&[2, 12, 5], &[vec![3], vec![], vec![4, -1]])?[2], vec![2, 4, 2, 5]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    text: Box<str>,
    /// `pack` or `unpack`, for messages.
    op: &'static str,
    /// The fixed axes before the `*`, and after it.
    before: usize,
    after: usize,
}

impl Pack {
    /// A pack pattern.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadPattern`], naming the pattern and the axis at fault.
    ///
    /// ```
    /// use ndarray_reshape::Pack;
    /// assert!(Pack::new("b * c").is_ok());
    /// assert!(Pack::new("b * * c").is_err()); // * twice
    /// assert!(Pack::new("b c").is_err()); // no *
    /// assert!(Pack::new("b ... *").is_err());
    /// ```
    pub fn new(pattern: &str) -> Result<Pack, ReshapeError> {
        let bad = |why: String| {
            Fail::whole(Rule::BadPattern, why)
                .attach_no_input(Origin::Rearrange, format!("pack {pattern:?}"))
        };
        let axes: Vec<&str> = pattern.split_whitespace().collect();
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].contains(a) {
                return Err(bad(format!("{a} stands twice in the pattern")));
            }
        }
        let Some(star) = axes.iter().position(|&a| a == "*") else {
            return Err(bad(
                "a pack pattern has one * for the packed axes; there is none".into(),
            ));
        };
        for a in axes.iter().filter(|&&a| a != "*") {
            if let Err(why) = check_name(a) {
                return Err(bad(format!("{a:?} is no axis name: {why}")));
            }
        }
        Ok(Pack {
            text: pattern.into(),
            op: "pack",
            before: star,
            after: axes.len() - star - 1,
        })
    }

    /// The pattern as written.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::Pack::new("b * c")?.pattern(), "b * c");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pattern(&self) -> &str {
        &self.text
    }

    /// The shape of the packed array and the packed shapes (the dims each input's `*` stands
    /// for) of inputs of the shapes `inputs`.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::PatternRank`] for an input with fewer dims than the pattern has names,
    /// [`ReshapeError::DimMismatch`] for fixed axes that differ from the first input's,
    /// [`ReshapeError::BadPattern`] for no input at all (einops reads the first),
    /// [`ReshapeError::Overflow`] for a packed axis past `isize::MAX`.
    ///
    /// ```
    /// use ndarray_reshape::Pack;
    /// let p = Pack::new("* d")?;
    /// assert_eq!(p.pack_shapes(&[&[197, 768], &[768]])?.0, vec![198, 768]);
    /// assert!(p.pack_shapes(&[&[197, 768], &[512]]).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pack_shapes(
        &self,
        inputs: &[&[usize]],
    ) -> Result<(Vec<usize>, Vec<Vec<usize>>), ReshapeError> {
        let (shape, packed, ()) = self.packed(inputs)?;
        Ok((shape, packed))
    }

    /// [`pack_shapes`](Self::pack_shapes) on symbolic dims: the packed axis is the sum of the
    /// products of each input's `*` dims. Fixed axes must be equal as expressions; where they
    /// are not, the result holds under conditions that they are equal.
    ///
    /// # Errors
    ///
    /// As [`pack_shapes`](Self::pack_shapes), for fixed axes that differ for every value.
    ///
    /// ```
    /// use ndarray_reshape::{Pack, SymDim};
    /// let (b, n) = (SymDim::sym("B"), SymDim::sym("N"));
    /// let d = SymDim::from(768);
    /// let (shape, conds) = Pack::new("b * d")?
    ///     .pack_symbolic(&[vec![b.clone(), d.clone()], vec![b.clone(), n.clone(), d.clone()]])?;
    /// assert_eq!(shape, vec![b, n + SymDim::from(1), d]);
    /// assert!(conds.is_empty());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pack_symbolic(
        &self,
        inputs: &[Vec<SymDim>],
    ) -> Result<(Vec<SymDim>, Vec<Condition>), ReshapeError> {
        let inputs: Vec<&[SymDim]> = inputs.iter().map(Vec::as_slice).collect();
        let (shape, _, conds) = self.packed(&inputs)?;
        let mut kept = Vec::new();
        kept.add_all(conds.iter().cloned());
        Ok((shape, kept))
    }

    /// The rule of [`pack_shapes`](Self::pack_shapes), for numbers and symbols alike: the
    /// packed shape, each input's packed dims, the conditions.
    #[allow(clippy::type_complexity)]
    fn packed<E: Packs>(
        &self,
        inputs: &[&[E]],
    ) -> Result<(Vec<E>, Vec<Vec<E>>, E::Conds), ReshapeError> {
        let Some(first) = inputs.first() else {
            let f = Fail::whole(Rule::BadPattern, "pack takes at least one array");
            return Err(E::attach(f, Origin::Rearrange, &[], self));
        };
        let mut conds = E::Conds::default();
        let mut packed = Vec::with_capacity(inputs.len());
        let mut total = E::lit(0);
        for (i, &shape) in inputs.iter().enumerate() {
            let fail = |f: Fail| E::attach(f, Origin::Rearrange, shape, self);
            let min = self.before + self.after;
            if shape.len() < min {
                let why = format!(
                    "input {i} has {} dims; the pattern names {min} fixed axes",
                    shape.len()
                );
                return Err(fail(Fail::at(Rule::PatternRank, i, why)));
            }
            let end = shape.len() - self.after;
            // Every shape here has at least `before + after` dims (the first was checked first).
            let fixed = |s: &[E]| -> Vec<E> {
                let e = s.len() - self.after;
                s[..self.before].iter().chain(&s[e..]).cloned().collect()
            };
            let (mine, theirs) = (fixed(shape), fixed(first));
            if !mine
                .iter()
                .zip(&theirs)
                .all(|(d, f)| E::same(d, f, &mut conds))
            {
                let why = format!(
                    "input {i}'s fixed axes {} differ from input 0's {}",
                    list(&mine),
                    list(&theirs)
                );
                return Err(fail(Fail::at(Rule::DimMismatch, i, why)));
            }
            let part = &shape[self.before..end];
            let Some(t) = E::grow(&total, part) else {
                let why = "the packed axis is longer than isize::MAX".to_owned();
                return Err(fail(Fail::at(Rule::Overflow, i, why)));
            };
            total = t;
            packed.push(part.to_vec());
        }
        let mut shape = first[..self.before].to_vec();
        shape.push(total);
        shape.extend_from_slice(&first[first.len() - self.after..]);
        Ok((shape, packed, conds))
    }

    /// The shapes [`unpack`](crate::ReshapeExt::unpack) gives for a packed array of shape
    /// `packed` and the packed shapes `shapes`, where one shape may hold one `-1` (inferred,
    /// as einops does, from the packed axis's length).
    ///
    /// # Errors
    ///
    /// [`ReshapeError::PatternRank`] when `packed` has another rank than the pattern's names
    /// and the `*`, [`ReshapeError::MultipleInfer`] for `-1` in more than one shape or twice
    /// in one, [`ReshapeError::BadValue`] for another negative length,
    /// [`ReshapeError::DimMismatch`] when the shapes do not fill the packed axis exactly,
    /// [`ReshapeError::InferNotDivisible`] when the `-1` has no whole length.
    ///
    /// ```
    /// use ndarray_reshape::Pack;
    /// let p = Pack::new("* d")?;
    /// assert_eq!(p.unpack_shapes(&[198, 768], &[vec![], vec![-1]])?, vec![vec![768], vec![197, 768]]);
    /// assert!(p.unpack_shapes(&[198, 768], &[vec![], vec![196]]).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unpack_shapes<T: PackedDim>(
        &self,
        packed: &[usize],
        shapes: &[Vec<T>],
    ) -> Result<Vec<Vec<usize>>, ReshapeError> {
        Ok(self
            .split(packed, shapes)?
            .into_iter()
            .map(|(_, s)| s)
            .collect())
    }

    /// Each part of an unpack: its range on the packed axis and its shape.
    pub(crate) fn split<T: PackedDim>(
        &self,
        packed: &[usize],
        shapes: &[Vec<T>],
    ) -> Result<Vec<Part>, ReshapeError> {
        let fail = |f: Fail| f.attach(Origin::Rearrange, packed, self);
        self.packed_rank(packed.len()).map_err(fail)?;
        // Each shape's entries, `None` for its -1.
        let mut entries: Vec<Vec<Option<usize>>> = Vec::with_capacity(shapes.len());
        for (i, s) in shapes.iter().enumerate() {
            let mut dims = Vec::with_capacity(s.len());
            for &d in s {
                dims.push(match d.value() {
                    Some(v) => Some(v),
                    None if d.is_minus_one() => None,
                    None => {
                        let why = format!("packed shape {i} holds {d:?}, neither a length nor -1");
                        return Err(fail(Fail::at(Rule::BadValue, i, why)));
                    }
                });
            }
            entries.push(dims);
        }
        let (parts, ()) = self.unpacked(packed, &entries)?;
        let mut at = 0;
        Ok(parts
            .into_iter()
            .map(|(len, shape)| {
                at += len;
                (at - len..at, shape)
            })
            .collect())
    }

    /// [`unpack_shapes`](Self::unpack_shapes) on symbolic dims: `None` is the one `-1`. The
    /// inferred dims are exact, or hold under conditions (the division by the shape's other
    /// dims is exact, the packed shapes fill the packed axis), never rounded.
    ///
    /// # Errors
    ///
    /// As [`unpack_shapes`](Self::unpack_shapes), for what fails for every value of the
    /// symbols.
    ///
    /// ```
    /// use ndarray_reshape::{Pack, SymDim};
    /// let (b, n) = (SymDim::sym("B"), SymDim::sym("N"));
    /// let d = SymDim::from(768);
    /// let packed = [b.clone(), n.clone() + SymDim::from(1), d.clone()];
    /// let (parts, conds) = Pack::new("b * d")?.unpack_symbolic(&packed, &[vec![], vec![None]])?;
    /// assert_eq!(parts[1], vec![b.clone(), n, d.clone()]);
    /// assert!(conds.is_empty());
    /// // Heads of 64: (N + 1) / 64 only where it divides.
    /// let (parts, conds) = Pack::new("b * d")?.unpack_symbolic(&packed, &[vec![None, Some(SymDim::from(64))]])?;
    /// assert_eq!(conds.len(), 1);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn unpack_symbolic(
        &self,
        packed: &[SymDim],
        shapes: &[Vec<Option<SymDim>>],
    ) -> Result<(Vec<Vec<SymDim>>, Vec<Condition>), ReshapeError> {
        let (parts, conds) = self.unpacked(packed, shapes)?;
        let mut kept = Vec::new();
        kept.add_all(conds.iter().cloned());
        Ok((parts.into_iter().map(|(_, shape)| shape).collect(), kept))
    }

    /// The rule of [`unpack_shapes`](Self::unpack_shapes), for numbers and symbols alike: each
    /// part's length on the packed axis and its shape, and the conditions. `None` in `shapes`
    /// is the one `-1`.
    #[allow(clippy::type_complexity)]
    fn unpacked<E: Packs>(
        &self,
        packed: &[E],
        shapes: &[Vec<Option<E>>],
    ) -> Result<(Vec<(E, Vec<E>)>, E::Conds), ReshapeError> {
        let fail = |f: Fail| E::attach(f, Origin::Rearrange, packed, self);
        self.packed_rank(packed.len()).map_err(fail)?;
        let mut conds = E::Conds::default();
        if shapes.is_empty() {
            // No parts asked for: einops gives none, whatever the axis holds.
            return Ok((Vec::new(), conds));
        }
        let axis = &packed[self.before];
        let mut unknown = None;
        for (i, s) in shapes.iter().enumerate() {
            let n = s.iter().filter(|d| d.is_none()).count();
            if n > 1 || (n == 1 && unknown.is_some()) {
                let why = "one -1 among the packed shapes, which einops infers".to_owned();
                return Err(fail(Fail::at(Rule::MultipleInfer, i, why)));
            }
            if n == 1 {
                unknown = Some(i);
            }
        }
        let mismatch = |why: String| fail(Fail::whole(Rule::DimMismatch, why));
        // Each part's length along the packed axis (the -1's part's found below) and the sum
        // of the known ones.
        let mut lengths = Vec::with_capacity(shapes.len());
        let mut known = E::lit(0);
        for (i, s) in shapes.iter().enumerate() {
            if Some(i) == unknown {
                lengths.push(E::lit(0));
                continue;
            }
            let dims: Vec<E> = s.iter().flatten().cloned().collect();
            let (Some(len), Some(sum)) = (E::grow(&E::lit(0), &dims), E::grow(&known, &dims))
            else {
                let why = format!(
                    "packed shape {i} takes the packed axis past isize::MAX, which has {axis}"
                );
                return Err(mismatch(why));
            };
            lengths.push(len);
            known = sum;
        }
        let mut parts = Vec::with_capacity(shapes.len());
        for (i, (s, mut len)) in shapes.iter().zip(lengths).enumerate() {
            let mut dims: Vec<E> = s.iter().map(|d| d.clone().unwrap_or(E::lit(1))).collect();
            if let Some(at) = s.iter().position(Option::is_none) {
                let Some(left) = E::rest(axis, &known, &mut conds) else {
                    return Err(mismatch(format!(
                        "the packed shapes hold {known} besides the -1, more than the packed \
                         axis's {axis}"
                    )));
                };
                E::infer(&mut dims, at, left.clone(), &mut conds).map_err(|f| {
                    fail(Fail {
                        position: Some(i),
                        detail: format!("packed shape {i}: {}", f.detail),
                        ..f
                    })
                })?;
                len = left;
            }
            let mut shape = packed[..self.before].to_vec();
            shape.extend(dims);
            shape.extend_from_slice(&packed[self.before + 1..]);
            parts.push((len, shape));
        }
        if unknown.is_none() && !E::same(&known, axis, &mut conds) {
            let why =
                format!("the packed shapes hold {known} along the packed axis, which has {axis}");
            return Err(mismatch(why));
        }
        Ok((parts, conds))
    }

    /// The ONNX nodes of a pack of inputs of the shapes `inputs`: for each input the
    /// `Reshape` that flattens its `*` dims (none where it changes nothing), then the
    /// `Concat` of them all along the packed axis.
    ///
    /// # Errors
    ///
    /// As [`pack_shapes`](Self::pack_shapes).
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, OnnxNode, Pack};
    /// let (each, concat) = Pack::new("b * c")?.to_onnx_nodes(&[&[2, 5], &[2, 4, 2, 5]])?;
    /// assert_eq!(each[0], [OnnxNode::Reshape(Onnx::new([2, 1, 5]))]);
    /// assert_eq!(each[1], [OnnxNode::Reshape(Onnx::new([2, 8, 5]))]);
    /// assert_eq!(concat, OnnxNode::Concat { axis: 1 });
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn to_onnx_nodes(
        &self,
        inputs: &[&[usize]],
    ) -> Result<(Vec<Vec<OnnxNode>>, OnnxNode), ReshapeError> {
        let (_, packed) = self.pack_shapes(inputs)?;
        let each = inputs
            .iter()
            .zip(&packed)
            .map(|(shape, part)| {
                let mut flat = shape[..self.before].to_vec();
                flat.push(part.iter().product());
                flat.extend_from_slice(&shape[shape.len() - self.after..]);
                reshape_unless(shape, flat)
            })
            .collect();
        Ok((each, OnnxNode::Concat { axis: self.before }))
    }

    /// The ONNX nodes of an unpack of a packed array of shape `packed` into the packed shapes
    /// `shapes`: the `Split` along the packed axis, then for each part the `Reshape` into its
    /// shape (none where it changes nothing).
    ///
    /// # Errors
    ///
    /// As [`unpack_shapes`](Self::unpack_shapes).
    ///
    /// ```
    /// use ndarray_reshape::{Onnx, OnnxNode, Pack};
    /// let (split, each) = Pack::new("b * c")?.unpack_onnx_nodes(&[2, 9, 5], &[vec![1i64], vec![4, -1]])?;
    /// assert_eq!(split, OnnxNode::Split { axis: 1, split: vec![1, 8] });
    /// assert_eq!(each[1], [OnnxNode::Reshape(Onnx::new([2, 4, 2, 5]))]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn unpack_onnx_nodes<T: PackedDim>(
        &self,
        packed: &[usize],
        shapes: &[Vec<T>],
    ) -> Result<(OnnxNode, Vec<Vec<OnnxNode>>), ReshapeError> {
        let parts = self.split(packed, shapes)?;
        let split = parts.iter().map(|(r, _)| r.len()).collect();
        let each = parts
            .into_iter()
            .map(|(r, shape)| {
                let mut from = packed.to_vec();
                from[self.before] = r.len();
                reshape_unless(&from, shape)
            })
            .collect();
        Ok((
            OnnxNode::Split {
                axis: self.before,
                split,
            },
            each,
        ))
    }

    /// The same pattern, named `unpack` in messages.
    pub(crate) fn for_unpack(self) -> Pack {
        Pack {
            op: "unpack",
            ..self
        }
    }

    /// A packed array of rank `ndim` has one dim per name and one for the `*`.
    fn packed_rank(&self, ndim: usize) -> Result<(), Fail> {
        if ndim == self.before + self.after + 1 {
            return Ok(());
        }
        let why = format!(
            "the packed array has {ndim} dims; the pattern names {} and the *",
            self.before + self.after
        );
        Err(Fail::whole(Rule::PatternRank, why))
    }

    /// The index of the packed axis.
    pub(crate) fn axis(&self) -> usize {
        self.before
    }
}

/// A `Reshape` of `from` to `to`, unless they are equal.
fn reshape_unless(from: &[usize], to: Vec<usize>) -> Vec<OnnxNode> {
    match from == to.as_slice() {
        true => Vec::new(),
        false => {
            let zero = to.contains(&0);
            vec![OnnxNode::Reshape(Onnx::new(to).allowzero(zero))]
        }
    }
}

impl fmt::Display for Pack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}", self.op, &*self.text)
    }
}

/// One part of an unpack: its range on the packed axis and its shape.
pub(crate) type Part = (std::ops::Range<usize>, Vec<usize>);

/// A length of a packed shape given to [`unpack`](crate::ReshapeExt::unpack): `usize` (as
/// [`pack`](crate::pack) gives them), or a signed integer where `-1` is the one length einops
/// infers. Sealed.
///
/// ```
/// use ndarray_reshape::{Pack, PackedDim};
/// assert_eq!(3usize.value(), Some(3));
/// assert_eq!((-1i64).value(), None);
/// assert!((-1i32).is_minus_one());
/// ```
pub trait PackedDim: Copy + fmt::Debug + sealed::Sealed {
    /// The length, when it is one.
    fn value(self) -> Option<usize>;

    /// Whether it is `-1`, the length to infer.
    fn is_minus_one(self) -> bool;
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! packed_dim {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl PackedDim for $t {
            fn value(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[allow(unused_comparisons)]
            fn is_minus_one(self) -> bool {
                i64::try_from(self).ok() == Some(-1)
            }
        }
    )*};
}

packed_dim!(usize, u64, u32, isize, i64, i32);

/// `[a, b, c]`, each dim as it prints.
fn list<E: fmt::Display>(dims: &[E]) -> String {
    let parts: Vec<String> = dims.iter().map(E::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// What `pack`'s rule needs of a dim besides [`Extent`]: whether two fixed axes are the same,
/// and the packed axis grown by an input's part.
trait Packs: Extent {
    /// Whether `d` and `f` are equal: `false` where they differ for every value; where it
    /// depends on the symbols, the condition added to `conds`.
    fn same(d: &Self, f: &Self, conds: &mut Self::Conds) -> bool;

    /// `total` plus the product of `part`, or `None` past `isize::MAX` (for every value of the
    /// symbols, or past their range).
    fn grow(total: &Self, part: &[Self]) -> Option<Self>;

    /// What the packed axis `axis` leaves besides the known parts' `known`, or `None` where
    /// they hold more (for every value; where it depends, the condition added to `conds`).
    fn rest(axis: &Self, known: &Self, conds: &mut Self::Conds) -> Option<Self>;

    /// Fills the `-1` at `at` of one packed shape's `dims` (a 1 there) from the `left` its part
    /// holds: the division exact, or under conditions that it is.
    fn infer(dims: &mut [Self], at: usize, left: Self, conds: &mut Self::Conds)
        -> Result<(), Fail>;
}

impl Packs for usize {
    fn same(d: &usize, f: &usize, _: &mut ()) -> bool {
        d == f
    }

    fn grow(total: &usize, part: &[usize]) -> Option<usize> {
        let n = part.iter().try_fold(1usize, |p, &d| p.checked_mul(d))?;
        total.checked_add(n).filter(|&t| t <= isize::MAX as usize)
    }

    fn rest(axis: &usize, known: &usize, _: &mut ()) -> Option<usize> {
        axis.checked_sub(*known)
    }

    fn infer(dims: &mut [usize], at: usize, left: usize, _: &mut ()) -> Result<(), Fail> {
        let of = dims.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
        match of {
            Some(of) if of != 0 && left % of == 0 => {
                dims[at] = left / of;
                Ok(())
            }
            _ => {
                let of = of.map_or_else(|| "past usize::MAX".to_owned(), |of| of.to_string());
                let why = format!(
                    "{left} left on the packed axis is no multiple of its other dims' {of}"
                );
                Err(Fail::at(Rule::InferNotDivisible, at, why))
            }
        }
    }
}

impl Packs for SymDim {
    fn same(d: &SymDim, f: &SymDim, conds: &mut Small<Condition>) -> bool {
        match equals(d, f) {
            Exact::Always => true,
            Exact::Sometimes(c) => {
                conds.add(c);
                true
            }
            Exact::Never => false,
        }
    }

    fn grow(total: &SymDim, part: &[SymDim]) -> Option<SymDim> {
        let n = part.iter().fold(SymDim::from(1), |p, d| &p * d);
        Some(total + &n).filter(|t| t.is_valid() && !past_limit(t))
    }

    fn rest(axis: &SymDim, known: &SymDim, conds: &mut Small<Condition>) -> Option<SymDim> {
        let left = axis - known;
        let b = bounds(&left);
        if b.hi.is_some_and(|h| h < Rat::ZERO) {
            return None;
        }
        if !b.lo.is_some_and(|l| l >= Rat::ZERO) {
            conds.add(Condition::at_most(known.clone(), axis.clone()));
        }
        Some(left)
    }

    fn infer(
        dims: &mut [SymDim],
        at: usize,
        left: SymDim,
        conds: &mut Small<Condition>,
    ) -> Result<(), Fail> {
        SymDim::finish(dims, Some(at), left, conds)
    }
}
