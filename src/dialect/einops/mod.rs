//! einops as specs: [`Rearrange`] (`rearrange` and `repeat`), [`Reduce`] (`reduce`, in
//! `reduce`), [`Pack`] and `parse_shape` (in `pack`); the pattern grammar (`pattern`) and the
//! recipe an input rank turns a pattern into (`recipe`): the elementary axes the input splits
//! into, their order on the right, the axes `repeat` adds or `reduce` folds, and the output
//! groups. A pattern's recipes are kept per input rank, and this thread's recent patterns per
//! text, so that a call reads its pattern and plans once.

use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, OnceLock};

use super::Rules;
use crate::error::{Fail, Origin, ReshapeError};
use crate::infer::Extent;
use crate::layout::Arrangement;
use crate::small::{Small, INLINE};

mod pack;
mod parse_shape;
mod pattern;
mod recipe;
mod reduce;

pub use pack::{Pack, PackedDim};
pub use parse_shape::parse_shape;
pub(crate) use pattern::Function;
use pattern::Pattern;
use recipe::Recipe;
pub use reduce::Reduce;

/// An einops pattern (`"b (h w) c -> b h w c"`) with the lengths given for its axes (`h=7`): a
/// spec for `rearrange` or, made with [`Rearrange::repeat`], for `repeat`.
///
/// The pattern is read as einops 0.8 reads it: axis names (Python identifiers neither starting
/// nor ending with `_`), parenthesized groups (one level), `1` or `()` for a unit axis, one
/// ellipsis a side (`...` on the left, `...` or `(...)` on the right), and for `repeat` numbers
/// of at least 2 for new or repeated axes. A group on the left splits an input dim (at most one
/// length of a group is inferred); a group on the right merges axes into an output dim.
///
/// # Errors
///
/// [`BadPattern`](crate::ReshapeError::BadPattern) from [`new`](Self::new) and
/// [`repeat`](Self::repeat) for a pattern that does not parse or breaks einops' rules; at
/// inference, in einops' order: [`BadPattern`](crate::ReshapeError::BadPattern) for a new
/// `repeat` axis without a length, [`PatternRank`](crate::ReshapeError::PatternRank),
/// [`AxisLength`](crate::ReshapeError::AxisLength) for a length given to no axis of the
/// pattern, [`MultipleInfer`](crate::ReshapeError::MultipleInfer) for a group with two
/// unknown lengths, then per input dim [`Overflow`](crate::ReshapeError::Overflow),
/// [`InferZeroProduct`](crate::ReshapeError::InferZeroProduct),
/// [`InferNotDivisible`](crate::ReshapeError::InferNotDivisible),
/// [`SizeMismatch`](crate::ReshapeError::SizeMismatch).
///
/// # Examples
///
/// ```
/// use ndarray_reshape::{Rearrange, ShapeSpec};
///
/// let r = Rearrange::new("b (h w) c -> b h w c")?.axis("h", 7);
/// assert_eq!(r.infer_shape(&[2, 49, 96])?, vec![2, 7, 7, 96]);
/// let up = Rearrange::repeat("h w -> (h 2) (w 2)")?;
/// assert_eq!(up.infer_shape(&[3, 4])?, vec![6, 8]);
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
///
/// Framework operators are patterns (the README's table lists more). ONNX `DepthToSpace` in
/// DCR mode is `n (b1 b2 c) h w -> n c (h b1) (w b2)`, the same as its definition (reshape,
/// transpose, reshape), in one copy:
///
/// ```
/// use ndarray::{Array, IxDyn};
/// use ndarray_reshape::ReshapeExt;
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let (n, c, h, w, b) = (1, 3, 2, 4, 2);
/// let x = Array::from_iter(0..(n * b * b * c * h * w) as i64)
///     .into_shape_with_order(IxDyn(&[n, b * b * c, h, w]))
///     .unwrap();
/// let y = x.rearrange("n (b1 b2 c) h w -> n c (h b1) (w b2)", &[("b1", b), ("b2", b)])?;
/// // ONNX: reshape to (N, b, b, C, H, W), transpose (0, 3, 4, 1, 5, 2), reshape.
/// let onnx = x
///     .clone()
///     .into_shape_with_order(IxDyn(&[n, b, b, c, h, w]))
///     .unwrap()
///     .permuted_axes(IxDyn(&[0, 3, 4, 1, 5, 2]))
///     .as_standard_layout()
///     .into_owned()
///     .into_shape_with_order(IxDyn(&[n, c, h * b, w * b]))
///     .unwrap();
/// assert_eq!(y, onnx);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rearrange {
    text: Box<str>,
    op: Function,
    pattern: Pattern,
    lengths: Vec<(Box<str>, usize)>,
    /// The recipes of this pattern and these lengths, by input rank, computed on first use.
    recipes: Recipes,
}

impl Rearrange {
    /// A `rearrange` pattern.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadPattern`], naming the pattern and the part at fault.
    ///
    /// ```
    /// use ndarray_reshape::Rearrange;
    /// assert!(Rearrange::new("b n c -> c b n").is_ok());
    /// assert!(Rearrange::new("b (h w c -> b h w c").is_err());
    /// ```
    pub fn new(pattern: &str) -> Result<Rearrange, ReshapeError> {
        Rearrange::parse(pattern, Function::Rearrange)
    }

    /// A `repeat` pattern: axes only on the right are new (a length given with
    /// [`axis`](Self::axis), or a number), repeated in the output.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BadPattern`], naming the pattern and the part at fault.
    ///
    /// ```
    /// use ndarray_reshape::{Rearrange, ShapeSpec};
    /// let r = Rearrange::repeat("h w -> h w c")?.axis("c", 3);
    /// assert_eq!(r.infer_shape(&[2, 5])?, vec![2, 5, 3]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn repeat(pattern: &str) -> Result<Rearrange, ReshapeError> {
        Rearrange::parse(pattern, Function::Repeat)
    }

    fn parse(text: &str, op: Function) -> Result<Rearrange, ReshapeError> {
        Rearrange::parsed(text, op).map_err(|f| {
            let shown = match op {
                Function::Repeat => format!("repeat {text:?}"),
                Function::Reduce => format!("reduce {text:?}"),
                Function::Rearrange => format!("{text:?}"),
            };
            f.attach_no_input(Origin::Rearrange, shown)
        })
    }

    /// `text` read as a pattern for `op`.
    pub(crate) fn parsed(text: &str, op: Function) -> Result<Rearrange, Fail> {
        Ok(Rearrange {
            text: text.into(),
            op,
            pattern: pattern::parse(text, op)?,
            lengths: Vec::new(),
            recipes: Recipes::default(),
        })
    }

    /// The lengths given, in the order given.
    pub(crate) fn lengths(&self) -> &[(Box<str>, usize)] {
        &self.lengths
    }

    /// The same pattern with the length of the axis `name` given (einops' keyword arguments,
    /// `h=7`); a later length of the same name replaces an earlier one.
    ///
    /// ```
    /// use ndarray_reshape::{Rearrange, ShapeSpec};
    /// let r = Rearrange::new("(h w) -> h w")?.axis("h", 2).axis("h", 3);
    /// assert_eq!(r.infer_shape(&[12])?, vec![3, 4]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn axis(mut self, name: &str, length: usize) -> Rearrange {
        match self.lengths.iter_mut().find(|(n, _)| &**n == name) {
            Some(l) => l.1 = length,
            None => self.lengths.push((name.into(), length)),
        }
        self.recipes = Recipes::default();
        self
    }

    /// What the pattern does to the axes of an input of shape `input`: the dims it splits,
    /// the permutation of the elementary axes, the axes `repeat` adds, the groups it merges,
    /// and for a strided input which group forces a copy ([`PatternExplanation`](crate::PatternExplanation)).
    ///
    /// # Errors
    ///
    /// The pattern's errors for this input, and [`BadPattern`](ReshapeError::BadPattern) for
    /// a pattern that moves no axis: a reshape, which
    /// [`ShapeSpec::explain`](crate::ShapeSpec::explain) explains.
    ///
    /// ```
    /// use ndarray_reshape::Rearrange;
    /// let e = Rearrange::new("n (b1 b2 c) h w -> n c (h b1) (w b2)")?
    ///     .axis("b1", 2)
    ///     .axis("b2", 2)
    ///     .explain_pattern(&[1, 12, 4, 4])?;
    /// assert_eq!(e.axis_names(), ["n", "b1", "b2", "c", "h", "w"]);
    /// assert_eq!(e.permutation(), [0, 3, 4, 1, 5, 2]); // DepthToSpace's transpose
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn explain_pattern(
        &self,
        input: &[usize],
    ) -> Result<crate::explain::PatternExplanation, ReshapeError> {
        if !self.permutes() {
            let why =
                "the pattern moves no axis: it is a reshape, which ShapeSpec::explain explains";
            return Err(Fail::whole(crate::error::Rule::BadPattern, why).attach(
                Origin::Rearrange,
                input,
                self,
            ));
        }
        self.with_recipe(input.len(), |r| r.explanation(input))
            .map_err(|f| f.attach(Origin::Rearrange, input, self))
    }

    /// The pattern as written.
    ///
    /// ```
    /// use ndarray_reshape::Rearrange;
    /// assert_eq!(Rearrange::new("a b -> b a")?.pattern(), "a b -> b a");
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pattern(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Rearrange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Function::Repeat => f.write_str("repeat ")?,
            Function::Reduce => f.write_str("reduce ")?,
            Function::Rearrange => {}
        }
        write!(f, "{:?}", &*self.text)?;
        for (name, len) in &self.lengths {
            write!(f, " {name}={len}")?;
        }
        Ok(())
    }
}

super::dialect!(Rearrange as Origin::Rearrange, arranged by plan, permutes);

impl Rules for Rearrange {
    fn rules<E: Extent>(&self, input: &[E], dims: &mut Small<E>) -> Result<E::Conds, Fail> {
        self.with_recipe(input.len(), |r| r.output(input, dims, false))
    }
}

impl Rearrange {
    /// Whether the pattern moves or repeats axes: then it is no reshape.
    fn permutes(&self) -> bool {
        self.pattern.permutes()
    }

    /// The target shape into `dims` and the arrangement of the input's axes (split, put in
    /// their order on the right, the new axes added) into `arranged`, from one recipe.
    fn plan(
        &self,
        input: &[usize],
        dims: &mut Small<usize>,
        arranged: &mut Option<Arrangement>,
    ) -> Result<(), Fail> {
        self.with_recipe(input.len(), |r| r.plan(input, dims, arranged))
    }

    /// `f` of the recipe for inputs of rank `ndim`: the cached one, computed on first use.
    #[inline]
    pub(crate) fn with_recipe<T>(
        &self,
        ndim: usize,
        f: impl FnOnce(&Recipe) -> Result<T, Fail>,
    ) -> Result<T, Fail> {
        let new = || Recipe::new(&self.pattern, self.op, &self.lengths, ndim);
        match self.recipes.0.get(ndim) {
            Some(cell) => f(cell.get_or_init(new).as_ref().map_err(Fail::clone)?),
            None => f(&new()?),
        }
    }
}

/// How many patterns a thread keeps parsed for the pattern methods
/// ([`ReshapeExt::rearrange`](crate::ReshapeExt::rearrange) and the others), as einops keeps
/// its recipes.
const RECENT: usize = 32;

/// The lengths given with a pattern, as given.
type Given = Vec<(Box<str>, usize)>;

thread_local! {
    /// This thread's recently used patterns with the lengths as given, most recent first.
    static RECENT_SPECS: RefCell<Vec<(Arc<Rearrange>, Given)>> =
        const { RefCell::new(Vec::new()) };
}

impl Rearrange {
    /// The spec of `pattern` for `op` with the `lengths` given, from this thread's
    /// [`RECENT`] patterns (parsed once, their recipes kept), so that a pattern method called
    /// in a loop reads its pattern once.
    pub(crate) fn recent(
        op: Function,
        pattern: &str,
        lengths: &[(&str, usize)],
    ) -> Result<Arc<Rearrange>, ReshapeError> {
        let same = |(r, given): &(Arc<Rearrange>, Given)| {
            r.op == op
                && *r.text == *pattern
                && given.len() == lengths.len()
                && given
                    .iter()
                    .zip(lengths)
                    .all(|((n, l), (m, k))| **n == **m && l == k)
        };
        let hit = RECENT_SPECS.with(|recent| {
            let mut recent = recent.borrow_mut();
            let i = recent.iter().position(same)?;
            // Move it one place up: often used patterns gather at the front.
            recent.swap(i, i.saturating_sub(1));
            Some(Arc::clone(&recent[i.saturating_sub(1)].0))
        });
        if let Some(r) = hit {
            return Ok(r);
        }
        let spec = lengths
            .iter()
            .fold(Rearrange::parse(pattern, op)?, |r, &(name, len)| {
                r.axis(name, len)
            });
        let spec = Arc::new(spec);
        let given = lengths.iter().map(|&(n, l)| (n.into(), l)).collect();
        RECENT_SPECS.with(|recent| {
            let mut recent = recent.borrow_mut();
            recent.truncate(RECENT - 1);
            recent.insert(0, (Arc::clone(&spec), given));
        });
        Ok(spec)
    }
}

/// A pattern's recipes for the input ranks 0 to 8, each computed on first use (einops caches
/// its recipes the same way): a kept [`Rearrange`] plans a call from its recipe without
/// reading the pattern again (BENCHMARKS.md, "Patterns"). Not part of the spec's value: clones
/// start empty, and two specs are equal whatever their caches hold.
#[derive(Default)]
struct Recipes([OnceLock<Result<Recipe, Fail>>; INLINE + 1]);

impl Clone for Recipes {
    fn clone(&self) -> Self {
        Recipes::default()
    }
}

impl PartialEq for Recipes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Recipes {}

impl fmt::Debug for Recipes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Recipes")
    }
}

#[cfg(test)]
mod tests;
