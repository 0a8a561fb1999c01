//! What an einops pattern does to the axes of an input: [`PatternExplanation`].

use super::{explain, Explanation};
use crate::dims::Order;
use crate::layout::Arrangement;

/// What an einops pattern that moves axes does to an input of some shape: a reshape that
/// splits the input's dims into the pattern's elementary axes ([`split`](Self::split), in
/// input order), a permutation of them ([`permutation`](Self::permutation)), the axes
/// `repeat` adds, and a reshape that merges them into the output's groups
/// ([`merge`](Self::merge)). For a strided input, [`copy_group`](Self::copy_group) names the
/// output group that forces a copy. A pattern that is only a reshape explains as a reshape
/// ([`ShapeSpec::explain`](crate::ShapeSpec::explain)).
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::{GroupKind, Rearrange};
///
/// let r = Rearrange::new("b (h w) c -> b c (h w)")?.axis("h", 7);
/// let e = r.explain_pattern(&[2, 49, 96])?;
/// assert_eq!(e.axis_names(), ["b", "h", "w", "c"]);
/// assert_eq!(e.permutation(), [0, 3, 1, 2]);
/// assert_eq!(e.merge().groups()[2].kind, GroupKind::Merge); // (h w)
/// // On a C-contiguous input h and w stay adjacent: the output is a transposed view.
/// let x = Array::<f32, _>::zeros((2, 49, 96));
/// assert_eq!(e.copy_group(x.strides()), None);
/// let e = Rearrange::new("b n c -> b (c n)")?.explain_pattern(&[2, 49, 96])?;
/// assert_eq!(e.copy_group(x.strides()), Some(1)); // (c n): c's stride is not n's times 49
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternExplanation {
    split: Explanation,
    names: Vec<String>,
    permutation: Vec<usize>,
    new_axes: Vec<usize>,
    merge: Explanation,
    /// Where each arranged axis comes from (for strides).
    arrangement: Arrangement,
}

impl PatternExplanation {
    /// Built from the input shape, the elementary axes (lengths and names, input order), the
    /// arrangement (the axes on the right, each from its input dim or new) and the output.
    pub(crate) fn new(
        input: &[usize],
        names: Vec<String>,
        split: Vec<usize>,
        permutation: Vec<usize>,
        arrangement: Arrangement,
        output: &[usize],
    ) -> PatternExplanation {
        let new_axes = arrangement
            .from
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_none())
            .map(|(i, _)| i)
            .collect();
        PatternExplanation {
            split: explain(input, &split, Order::C),
            names,
            permutation,
            new_axes,
            merge: explain(&arrangement.shape, output, Order::C),
            arrangement,
        }
    }

    /// The reshape of the input into the pattern's elementary axes, in input order: each
    /// group of it is an input dim the pattern splits (or keeps).
    ///
    /// ```
    /// use ndarray_reshape::{GroupKind, Rearrange};
    /// let e = Rearrange::new("b (h w) c -> b h w c")?.axis("h", 7).explain_pattern(&[2, 49, 3]);
    /// // Only a reshape: no pattern explanation (ShapeSpec::explain gives it).
    /// assert!(e.is_err());
    /// let e = Rearrange::new("b (h w) c -> w h b c")?.axis("h", 7).explain_pattern(&[2, 49, 3])?;
    /// assert_eq!(e.split().output(), &[2, 7, 7, 3]);
    /// assert_eq!(e.split().groups()[1].kind, GroupKind::Split);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn split(&self) -> &Explanation {
        &self.split
    }

    /// The elementary axes as the pattern writes them (`...[0]` for the ellipsis's axes, the
    /// number for an anonymous axis), in input order.
    ///
    /// ```
    /// use ndarray_reshape::Rearrange;
    /// let e = Rearrange::new("b ... c -> c b ...")?.explain_pattern(&[2, 3, 4, 5])?;
    /// assert_eq!(e.axis_names(), ["b", "...[0]", "...[1]", "c"]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn axis_names(&self) -> &[String] {
        &self.names
    }

    /// The elementary axes in their order on the right: axis `i` there is the split's axis
    /// `permutation()[i]` (the axes `repeat` adds are left out: see
    /// [`new_axes`](Self::new_axes)).
    ///
    /// ```
    /// use ndarray_reshape::Rearrange;
    /// let e = Rearrange::new("a b c -> c a b")?.explain_pattern(&[2, 3, 4])?;
    /// assert_eq!(e.permutation(), [2, 0, 1]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn permutation(&self) -> &[usize] {
        &self.permutation
    }

    /// The positions, among the axes the merge reads, of the axes `repeat` adds (broadcasts).
    ///
    /// ```
    /// use ndarray_reshape::Rearrange;
    /// let e = Rearrange::repeat("h w -> h w c")?.axis("c", 3).explain_pattern(&[2, 5])?;
    /// assert_eq!(e.new_axes(), [2]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn new_axes(&self) -> &[usize] {
        &self.new_axes
    }

    /// The reshape of the permuted elementary axes (and the new ones) into the output: each
    /// group of it is an output dim the pattern merges (or keeps).
    ///
    /// ```
    /// use ndarray_reshape::{GroupKind, Rearrange};
    /// let e = Rearrange::new("b h n d -> b n (h d)")?.explain_pattern(&[2, 12, 49, 64])?;
    /// assert_eq!(e.merge().groups()[2].kind, GroupKind::Merge);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn merge(&self) -> &Explanation {
        &self.merge
    }

    /// For an input of these strides, the index in [`merge`](Self::merge)'s groups of the
    /// first group whose axes, once split and permuted, cannot be read as one strided axis
    /// group: the group that forces the copy. `None` when the pattern gives a view (or when
    /// `strides` is not as long as the input shape).
    ///
    /// # Examples
    ///
    /// ```
    /// use ndarray::Array;
    /// use ndarray_reshape::Rearrange;
    ///
    /// let x = Array::<f32, _>::zeros((8, 12, 196, 64));
    /// let e = Rearrange::new("b h n d -> b n (h d)")?.explain_pattern(x.shape())?;
    /// assert_eq!(e.copy_group(x.strides()), Some(2)); // (h d): h moved past n
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn copy_group(&self, strides: &[isize]) -> Option<usize> {
        if strides.len() != self.split.input().len() {
            return None;
        }
        let mut arranged = crate::small::Small::new();
        self.arrangement.strides(strides, &mut arranged);
        self.merge.copy_group(&arranged)
    }
}
