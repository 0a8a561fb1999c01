//! What a reshape does to the axes ([`ShapeSpec::explain`](crate::ShapeSpec::explain)): the
//! smallest consecutive groups of input and output axes with equal products, and the questions a
//! layout pass asks of them, with the stride side beside them ([`Explanation::copy_group`]:
//! which group forces a copy). `layout`'s stride solver answers the same question for the
//! views: two algorithms for one question, checked against each other in the tests.
#![forbid(unsafe_code)]

use std::ops::{Mul, Range};

mod pattern;

pub use pattern::PatternExplanation;

use crate::dims::Order;
use crate::layout::{resolve_order, view_strides};
use crate::sym::SymDim;

/// What one group of a reshape does with its axes.
///
/// ```
/// use ndarray_reshape::{GroupKind, Np, Order, ShapeSpec};
///
/// let e = Np::new([6, 4, 1], Order::C).explain(&[2, 3, 4])?;
/// let kinds: Vec<GroupKind> = e.groups().iter().map(|g| g.kind).collect();
/// assert_eq!(kinds, [GroupKind::Merge, GroupKind::Keep, GroupKind::Insert]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GroupKind {
    /// One input axis becomes one output axis of the same size.
    Keep,
    /// Several input axes become one output axis.
    Merge,
    /// One input axis becomes several output axes.
    Split,
    /// Several input axes become several output axes, with no boundary in between.
    Regroup,
    /// A size-1 output axis with no input axis.
    Insert,
    /// A size-1 input axis with no output axis.
    Remove,
}

/// One group of a reshape: input axes `input` become output axes `output` (ranges of axis
/// indices; one of them is empty for [`GroupKind::Insert`] and [`GroupKind::Remove`]).
///
/// ```
/// use ndarray_reshape::{GroupKind, Mx, ShapeSpec};
///
/// let e = Mx::new([-3, -2]).explain(&[2, 3, 4])?;
/// let g = &e.groups()[0];
/// assert_eq!((g.input.clone(), g.output.clone(), g.kind), (0..2, 0..1, GroupKind::Merge));
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Group {
    /// The input axes of the group.
    pub input: Range<usize>,
    /// The output axes of the group.
    pub output: Range<usize>,
    /// What the group does.
    pub kind: GroupKind,
}

/// A reshape explained: its input and output shapes, its reading order and its [`Group`]s, in
/// order, covering both shapes. Dims are `usize` ([`ShapeSpec::explain`]) or [`SymDim`]
/// ([`ShapeSpec::explain_symbolic`]).
///
/// The groups are the smallest consecutive runs of input and output axes whose sizes multiply to
/// the same product (XLA's `CommonFactors`, MLIR's reassociation maps). A size-1 axis between
/// groups is a group of its own: a size-1 input axis opposite a size-1 output axis is a
/// [`Keep`](GroupKind::Keep), any other an [`Insert`](GroupKind::Insert) or a
/// [`Remove`](GroupKind::Remove); a size-1 axis inside a merge, split or regroup belongs to it. A
/// reshape of zero elements is one group. Symbolic dims group where their products are equal as
/// products of symbols (for the values that meet the inference's conditions).
///
/// [`ShapeSpec::explain`]: crate::ShapeSpec::explain
/// [`ShapeSpec::explain_symbolic`]: crate::ShapeSpec::explain_symbolic
///
/// ```
/// use ndarray_reshape::{GroupKind, Np, Order, ShapeSpec};
///
/// // XLA's example: [a, b, x, y, cd] -> [ab, x, 1, y, c, d].
/// let e = Np::new([6, 4, 1, 5, 6, 7], Order::C).explain(&[2, 3, 4, 5, 42])?;
/// assert_eq!(e.groups().len(), 5);
/// assert_eq!(e.groups()[4].kind, GroupKind::Split);
/// assert_eq!(e.unmodified_dims(), vec![(2, 1), (3, 3)]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation<D = usize> {
    input: Vec<D>,
    output: Vec<D>,
    order: Order,
    groups: Vec<Group>,
}

/// How a reshape that only moves size-1 axes moves them
/// ([`Explanation::unit_moves`]).
///
/// ```
/// use ndarray_reshape::{Paddle, ShapeSpec};
///
/// let e = Paddle::new([3, 1, 4]).explain(&[1, 3, 4])?;
/// let m = e.unit_moves().expect("only unit axes move");
/// assert_eq!((m.squeeze.as_slice(), m.unsqueeze.as_slice()), (&[0][..], &[1][..]));
/// assert_eq!(m.permutation, Some(vec![1, 0, 2])); // a transpose of the input
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnitMoves {
    /// The size-1 input axes that are dropped (a squeeze of these axes, in increasing order).
    pub squeeze: Vec<usize>,
    /// The size-1 output axes that are added (an unsqueeze at these output positions).
    pub unsqueeze: Vec<usize>,
    /// When input and output have the same rank: the permutation `p` with output axis `k` the
    /// input axis `p[k]` (the reshape is `permuted_axes(p)`); the dropped and added size-1 axes
    /// are paired in order.
    pub permutation: Option<Vec<usize>>,
}

/// The dims grouping works on: sizes, or products of symbols.
pub(crate) trait GroupDim: Clone + PartialEq + Mul<Output = Self> {
    fn one() -> Self;
    fn is_unit(&self) -> bool;
    fn is_zero(&self) -> bool;
}

impl GroupDim for usize {
    fn one() -> Self {
        1
    }
    fn is_unit(&self) -> bool {
        *self == 1
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
}

impl GroupDim for SymDim {
    fn one() -> Self {
        SymDim::from(1)
    }
    fn is_unit(&self) -> bool {
        self.known() == Some(1)
    }
    fn is_zero(&self) -> bool {
        SymDim::is_zero(self)
    }
}

/// The explanation of a reshape of `input` into `output` (of equal sizes, as the spec inferred)
/// read in `order`.
pub(crate) fn explain<D: GroupDim>(input: &[D], output: &[D], order: Order) -> Explanation<D> {
    Explanation {
        groups: groups(input, output),
        input: input.to_vec(),
        output: output.to_vec(),
        order,
    }
}

/// The groups of a reshape of `input` into `output` (see [`Explanation`]).
fn groups<D: GroupDim>(input: &[D], output: &[D]) -> Vec<Group> {
    let (n, m) = (input.len(), output.len());
    if input.iter().chain(output).any(|d| d.is_zero()) {
        return vec![group(0..n, 0..m, n.min(2), m.min(2))];
    }
    let big_in: Vec<usize> = (0..n).filter(|&a| !input[a].is_unit()).collect();
    let big_out: Vec<usize> = (0..m).filter(|&a| !output[a].is_unit()).collect();
    let prefix = |dims: &[D], axes: &[usize]| {
        let mut p = vec![D::one()];
        for &a in axes {
            let last = p[p.len() - 1].clone();
            p.push(last * dims[a].clone());
        }
        p
    };
    let (pin, pout) = (prefix(input, &big_in), prefix(output, &big_out));
    // Boundaries: counts of leading non-unit axes with equal products, in increasing order on
    // both sides (the whole shapes always end the last group).
    let mut bounds = vec![(0, 0)];
    for (a, p) in pin.iter().enumerate().take(big_in.len()).skip(1) {
        let last = bounds[bounds.len() - 1].1;
        if let Some(b) = (last + 1..big_out.len()).find(|&b| pout[b] == *p) {
            bounds.push((a, b));
        }
    }
    bounds.push((big_in.len(), big_out.len()));
    let mut out = Vec::new();
    let (mut i, mut o) = (0, 0);
    for w in bounds.windows(2) {
        let ((a0, b0), (a1, b1)) = (w[0], w[1]);
        if (a0, b0) == (a1, b1) {
            continue;
        }
        let start_in = big_in.get(a0).copied().unwrap_or(n);
        let start_out = big_out.get(b0).copied().unwrap_or(m);
        units_between(&mut out, i..start_in, o..start_out);
        let end_in = if a1 > a0 {
            big_in[a1 - 1] + 1
        } else {
            start_in
        };
        let end_out = if b1 > b0 {
            big_out[b1 - 1] + 1
        } else {
            start_out
        };
        out.push(group(
            start_in..end_in,
            start_out..end_out,
            a1 - a0,
            b1 - b0,
        ));
        (i, o) = (end_in, end_out);
    }
    units_between(&mut out, i..n, o..m);
    out
}

/// The groups of the size-1 axes `input` and `output` between two groups: pairs of a size-1
/// input and output axis kept, then the input's extra ones removed or the output's inserted.
fn units_between(out: &mut Vec<Group>, input: Range<usize>, output: Range<usize>) {
    let kept = input.len().min(output.len());
    for k in 0..kept {
        let (a, b) = (input.start + k, output.start + k);
        out.push(group(a..a + 1, b..b + 1, 1, 1));
    }
    for a in input.start + kept..input.end {
        out.push(group(a..a + 1, output.end..output.end, 0, 0));
    }
    for b in output.start + kept..output.end {
        out.push(group(input.end..input.end, b..b + 1, 0, 0));
    }
}

/// A group with `big_in` and `big_out` axes of size above 1 (counts of 2 and more are alike).
fn group(input: Range<usize>, output: Range<usize>, big_in: usize, big_out: usize) -> Group {
    let kind = match (input.is_empty(), output.is_empty()) {
        (true, _) => GroupKind::Insert,
        (_, true) => GroupKind::Remove,
        _ => match (big_in.max(1), big_out.max(1)) {
            (1, 1) => GroupKind::Keep,
            (_, 1) => GroupKind::Merge,
            (1, _) => GroupKind::Split,
            _ => GroupKind::Regroup,
        },
    };
    Group {
        input,
        output,
        kind,
    }
}

impl<D: Clone> Explanation<D> {
    /// The input shape.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// assert_eq!(Mx::new([-1]).explain(&[2, 3])?.input(), &[2, 3]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn input(&self) -> &[D] {
        &self.input
    }

    /// The output shape, as the spec inferred it.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// assert_eq!(Mx::new([-1]).explain(&[2, 3])?.output(), &[6]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn output(&self) -> &[D] {
        &self.output
    }

    /// The spec's reading order ([`Order::A`] stays unresolved: it depends on the strides).
    ///
    /// ```
    /// use ndarray_reshape::{Np, Order, ShapeSpec};
    /// assert_eq!(Np::new([-1], Order::F).explain(&[2, 3])?.order(), Order::F);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn order(&self) -> Order {
        self.order
    }

    /// The groups, in order: their input ranges tile the input axes and their output ranges
    /// the output axes.
    ///
    /// ```
    /// use ndarray_reshape::{GroupKind, Onnx, ShapeSpec};
    /// let e = Onnx::new([2, 6, 1, 5, 1, 42]).explain(&[4, 1, 3, 5, 6, 7])?;
    /// assert_eq!(e.groups()[0].input, 0..3); // 4x1x3 -> 2x6: the inner 1 belongs to it
    /// assert_eq!(e.groups()[0].kind, GroupKind::Regroup);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The axes that pass through unchanged, as `(input axis, output axis)`: the
    /// [`Keep`](GroupKind::Keep) groups (XLA's `DimensionsUnmodifiedByReshape`). A layout pass
    /// carries a channel, a sharded or a tiled axis through the reshape on these.
    ///
    /// ```
    /// use ndarray_reshape::{Paddle, ShapeSpec};
    /// // [N, C, H, W] -> [N, C, H*W]: N and C pass through.
    /// assert_eq!(Paddle::new([0, 0, -1]).explain(&[8, 3, 4, 4])?.unmodified_dims(), [(0, 0), (1, 1)]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unmodified_dims(&self) -> Vec<(usize, usize)> {
        self.groups
            .iter()
            .filter(|g| g.kind == GroupKind::Keep)
            .map(|g| (g.input.start, g.output.start))
            .collect()
    }

    /// `Some` when the reshape only drops and adds size-1 axes (every group is a
    /// [`Keep`](GroupKind::Keep), [`Insert`](GroupKind::Insert) or
    /// [`Remove`](GroupKind::Remove)): which axes it squeezes and unsqueezes and, at equal
    /// ranks, the axis permutation it amounts to; `None` when it merges or splits.
    ///
    /// ```
    /// use ndarray_reshape::{Mx, ShapeSpec};
    /// let m = Mx::new([0, 0, 1]).explain(&[2, 3])?.unit_moves().unwrap();
    /// assert_eq!((m.squeeze, m.unsqueeze, m.permutation), (vec![], vec![2], None));
    /// assert!(Mx::new([-1]).explain(&[2, 3])?.unit_moves().is_none());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unit_moves(&self) -> Option<UnitMoves> {
        let (mut squeeze, mut unsqueeze) = (Vec::new(), Vec::new());
        let mut permutation = vec![usize::MAX; self.output.len()];
        for g in &self.groups {
            match g.kind {
                GroupKind::Keep => permutation[g.output.start] = g.input.start,
                GroupKind::Remove => squeeze.push(g.input.start),
                GroupKind::Insert => unsqueeze.push(g.output.start),
                _ => return None,
            }
        }
        let same_rank = self.input.len() == self.output.len();
        let permutation = same_rank.then(|| {
            for (&a, &b) in squeeze.iter().zip(&unsqueeze) {
                permutation[b] = a;
            }
            permutation
        });
        Some(UnitMoves {
            squeeze,
            unsqueeze,
            permutation,
        })
    }

    /// Moving a transpose through the reshape. This explanation is of the reshape of
    /// `x.permuted_axes(perm)` (its input shape is the permuted one); when `perm` moves whole
    /// groups, the same array is `x` reshaped to `target` (in the same reading order) and then
    /// permuted by `after`: `Some((target, after))`. `None` when `perm` cuts a group (or is not a
    /// permutation of the input's axes), so the transpose cannot pass the reshape.
    ///
    /// A graph compiler uses it to move a transpose past a reshape towards another transpose it
    /// cancels or fuses with, so that two copies become one or none. An F-order reshape is
    /// answered for F order; one in [`Order::A`] needs its order resolved first.
    ///
    /// ```
    /// use ndarray_reshape::{Np, Order, ShapeSpec};
    ///
    /// // x: [2, 3, 4]; x.permuted_axes([2, 0, 1]) is [4, 2, 3], reshaped to [4, 6].
    /// let e = Np::new([4, 6], Order::C).explain(&[4, 2, 3])?;
    /// // The same as x reshaped to [6, 4], then transposed.
    /// assert_eq!(e.transpose_through(&[2, 0, 1]), Some((vec![6, 4], vec![1, 0])));
    /// // [1, 0, 2] would interleave the axes that [24] merges.
    /// assert!(Np::new([24], Order::C).explain(&[3, 2, 4])?.transpose_through(&[1, 0, 2]).is_none());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn transpose_through(&self, perm: &[usize]) -> Option<(Vec<D>, Vec<usize>)> {
        let n = self.input.len();
        let mut seen = vec![false; n];
        if perm.len() != n
            || perm
                .iter()
                .any(|&p| p >= n || std::mem::replace(&mut seen[p], true))
        {
            return None;
        }
        // Each group with input axes takes a run of the original axes, in the same order; the
        // inserted size-1 axes travel with the group before them (or lead).
        let mut blocks: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut lead: Vec<usize> = Vec::new();
        for g in &self.groups {
            if g.input.is_empty() {
                match blocks.last_mut() {
                    Some((_, outs)) => outs.extend(g.output.clone()),
                    None => lead.extend(g.output.clone()),
                }
                continue;
            }
            let first = perm[g.input.start];
            if (0..g.input.len()).any(|t| perm[g.input.start + t] != first + t) {
                return None;
            }
            blocks.push((first, g.output.clone().collect()));
        }
        blocks.sort_by_key(|&(first, _)| first);
        let order = lead
            .into_iter()
            .chain(blocks.into_iter().flat_map(|(_, outs)| outs));
        let mut target = Vec::with_capacity(self.output.len());
        let mut after = vec![0; self.output.len()];
        for (at, axis) in order.enumerate() {
            target.push(self.output[axis].clone());
            after[axis] = at;
        }
        Some((target, after))
    }
}

impl Explanation {
    /// For an input laid out with `strides` (one per input axis, in elements, as ndarray's
    /// `strides()`): the index of the first group whose input axes cannot be read as one
    /// run in the reading order, which is why the reshape copies; `None` when every group can,
    /// which is exactly when the reshape is a view. Each group is put to the stride solver
    /// itself ([`view_strides`]) on its own axes. [`Order::A`] is
    /// resolved from the whole input's layout, as the reshape resolves it. `None` too when
    /// `strides` is not as long as the input shape (there is no such input to explain).
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::{Paddle, ShapeSpec};
    ///
    /// // [N, C, H, W] -> [N, C, H*W] of a tensor whose H and W were swapped in place.
    /// let x = Array::<f32, _>::zeros((2, 3, 4, 5));
    /// let t = x.view().permuted_axes([0, 1, 3, 2]);
    /// let e = Paddle::new([0, 0, -1]).explain(t.shape())?;
    /// assert_eq!(e.copy_group(t.strides()), Some(2)); // H and W: the group that copies
    /// // With N and C swapped instead, every group reads as one: a view.
    /// let u = x.view().permuted_axes([1, 0, 2, 3]);
    /// assert_eq!(Paddle::new([0, 0, -1]).explain(u.shape())?.copy_group(u.strides()), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn copy_group(&self, strides: &[isize]) -> Option<usize> {
        let shape = &self.input;
        if strides.len() != shape.len() || shape.contains(&0) {
            return None;
        }
        let order = resolve_order(shape, strides, self.order);
        self.groups.iter().position(|g| {
            let (input, output) = (g.input.clone(), g.output.clone());
            !input.is_empty()
                && view_strides(
                    &shape[input.clone()],
                    &strides[input],
                    &self.output[output],
                    order,
                )
                .is_none()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(input: &[usize], output: &[usize]) -> Vec<(Range<usize>, Range<usize>, GroupKind)> {
        groups(input, output)
            .into_iter()
            .map(|g| (g.input, g.output, g.kind))
            .collect()
    }

    use GroupKind::{Insert, Keep, Merge, Regroup, Remove, Split};

    #[test]
    fn common_factors_with_unit_axes() {
        // XLA's CommonFactors cases (shape_util_test.cc), with this crate's unit-axis groups.
        assert_eq!(kinds(&[], &[]), vec![]);
        assert_eq!(kinds(&[1], &[]), vec![(0..1, 0..0, Remove)]);
        assert_eq!(
            kinds(&[], &[1, 1]),
            vec![(0..0, 0..1, Insert), (0..0, 1..2, Insert)]
        );
        assert_eq!(
            kinds(&[2, 5, 1, 3], &[1, 10, 3, 1]),
            vec![
                (0..0, 0..1, Insert),
                (0..2, 1..2, Merge),
                (2..3, 2..2, Remove),
                (3..4, 2..3, Keep),
                (4..4, 3..4, Insert),
            ]
        );
        assert_eq!(kinds(&[15], &[3, 5]), vec![(0..1, 0..2, Split)]);
        assert_eq!(kinds(&[2, 3, 4], &[4, 6]), vec![(0..3, 0..2, Regroup)]);
        // A size-1 axis opposite a size-1 axis is kept; extras are removed or inserted.
        assert_eq!(
            kinds(&[3, 1, 1, 4], &[3, 1, 4]),
            vec![
                (0..1, 0..1, Keep),
                (1..2, 1..2, Keep),
                (2..3, 2..2, Remove),
                (3..4, 2..3, Keep)
            ]
        );
        // Inside a merge or split, a size-1 axis belongs to it.
        assert_eq!(kinds(&[2, 1, 3], &[6]), vec![(0..3, 0..1, Merge)]);
        assert_eq!(kinds(&[6], &[2, 1, 3]), vec![(0..1, 0..3, Split)]);
        // Zero elements: one group.
        assert_eq!(kinds(&[2, 0, 3], &[0, 5]), vec![(0..3, 0..2, Regroup)]);
        assert_eq!(kinds(&[0], &[0]), vec![(0..1, 0..1, Keep)]);
        assert_eq!(kinds(&[0, 4], &[0]), vec![(0..2, 0..1, Merge)]);
    }

    #[test]
    fn mlir_reassociations() {
        // MLIR's collapse and expand reassociations ([[0, 1], [2]] and their inverse) are the
        // groups of a pure collapse or expand.
        let merge = kinds(&[2, 3, 4], &[6, 4]);
        assert_eq!(merge, vec![(0..2, 0..1, Merge), (2..3, 1..2, Keep)]);
        let split = kinds(&[6, 4], &[2, 3, 4]);
        assert_eq!(split, vec![(0..1, 0..2, Split), (1..2, 2..3, Keep)]);
        // tensor<3x4x?> -> tensor<12x?> with a symbolic dim: [[0, 1], [2]].
        let (k, n) = (SymDim::from, SymDim::sym("N"));
        let g: Vec<_> = groups(&[k(3), k(4), n.clone()], &[k(12), n.clone()])
            .into_iter()
            .map(|g| g.kind)
            .collect();
        assert_eq!(g, vec![Merge, Keep]);
        // Products equal only as numbers, not as products of symbols, do not split a group.
        let g = groups(&[n.clone(), k(2)], &[k(2), n]);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].kind, Regroup);
    }

    #[test]
    fn symbolic_unit_and_zero_dims_group_as_numbers_do() {
        let (b, k) = (SymDim::sym("B"), SymDim::from);
        let e = explain(&[b.clone(), k(1), k(8)], &[b.clone(), k(8)], Order::C);
        let got: Vec<GroupKind> = e.groups().iter().map(|g| g.kind).collect();
        assert_eq!(got, [Keep, Remove, Keep]);
        // A zero dim makes one group of everything.
        assert_eq!(
            explain(&[b.clone(), k(0)], &[k(0), b], Order::C)
                .groups()
                .len(),
            1
        );
        assert_eq!(
            explain(&[k(0), k(3)], &[k(0), k(3)], Order::C)
                .groups()
                .len(),
            1
        );
    }

    #[test]
    fn order_and_unit_moves() {
        assert_eq!(explain(&[2, 3], &[6], Order::F).order(), Order::F);
        let m = explain(&[2, 3], &[2, 3, 1], Order::C).unit_moves().unwrap();
        assert_eq!(
            (m.squeeze, m.unsqueeze, m.permutation),
            (vec![], vec![2], None)
        );
        let m = explain(&[2, 1, 3], &[2, 3], Order::C).unit_moves().unwrap();
        assert_eq!(
            (m.squeeze, m.unsqueeze, m.permutation),
            (vec![1], vec![], None)
        );
        // At equal ranks: the permutation, the dropped and added unit axes paired.
        let m = explain(&[1, 5], &[5, 1], Order::C).unit_moves().unwrap();
        assert_eq!((m.squeeze, m.unsqueeze), (vec![0], vec![1]));
        assert_eq!(m.permutation, Some(vec![1, 0]));
        assert_eq!(
            explain(&[4, 5], &[4, 5], Order::C)
                .unit_moves()
                .unwrap()
                .permutation,
            Some(vec![0, 1])
        );
        assert!(explain(&[2, 3], &[6], Order::C).unit_moves().is_none());
    }

    #[test]
    fn transpose_through_refuses_what_is_no_permutation() {
        let e = explain(&[4, 2, 3], &[4, 6], Order::C);
        assert_eq!(
            e.transpose_through(&[2, 0, 1]),
            Some((vec![6, 4], vec![1, 0]))
        );
        assert_eq!(e.transpose_through(&[0, 1]), None); // too short
        assert_eq!(e.transpose_through(&[0, 1, 2, 3]), None); // too long
        assert_eq!(e.transpose_through(&[0, 5, 1]), None); // no such axis
        assert_eq!(e.transpose_through(&[0, 0, 1]), None); // an axis twice
        assert_eq!(e.transpose_through(&[1, 0, 2]), None); // cuts the merge of 2 and 3
    }

    #[test]
    fn copy_group_needs_one_stride_per_axis() {
        let e = explain(&[2, 3, 4], &[2, 12], Order::C);
        assert_eq!(e.copy_group(&[12, 4, 1]), None);
        assert_eq!(e.copy_group(&[12, 1, 3]), Some(1));
        assert_eq!(e.copy_group(&[12, 4]), None); // not this input's strides
        let empty = explain(&[2, 0, 4], &[0, 8], Order::C);
        assert_eq!(empty.copy_group(&[1, 2, 3]), None);
    }
}
