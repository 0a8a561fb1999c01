//! [`Reduction`]: how a reduction folds the elements it removes, the word the einops spec
//! ([`Reduce`](crate::Reduce)), the copy engine's folds and the ONNX lowering share.
#![forbid(unsafe_code)]

use std::fmt;
use std::str::FromStr;

use crate::error::{Fail, Origin, ReshapeError, Rule};

/// einops' reductions: how `reduce` folds the axes it removes.
///
/// Parsed from einops' names (`"sum"`, `"mean"`, `"max"`, `"min"`, `"prod"`, `"any"`,
/// `"all"`) with [`str::parse`]; another name is an `unknown_reduction` error.
///
/// ```
/// use ndarray_reshape::Reduction;
///
/// assert_eq!("max".parse::<Reduction>()?, Reduction::Max);
/// assert_eq!(Reduction::Mean.to_string(), "mean");
/// assert!("avg".parse::<Reduction>().is_err());
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// The sum (64-bit integers wrap, as NumPy's; narrower ones are refused with the widening
    /// to make, since NumPy sums them in 64 bits; floats are summed pairwise).
    Sum,
    /// The mean, of floating-point elements only (as in einops).
    Mean,
    /// The largest element (NaN if there is one, as NumPy's `max`; `any` for `bool`).
    Max,
    /// The smallest element (NaN if there is one; `all` for `bool`).
    Min,
    /// The product (64-bit integers wrap; narrower ones are refused, as for `Sum`).
    Prod,
    /// Whether any element is `true` (`bool` elements).
    Any,
    /// Whether every element is `true` (`bool` elements).
    All,
}

impl Reduction {
    /// Every reduction, in einops' order.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::Reduction::ALL.len(), 7);
    /// ```
    pub const ALL: [Reduction; 7] = [
        Reduction::Min,
        Reduction::Max,
        Reduction::Sum,
        Reduction::Mean,
        Reduction::Prod,
        Reduction::Any,
        Reduction::All,
    ];

    /// einops' name of the reduction.
    ///
    /// ```
    /// assert_eq!(ndarray_reshape::Reduction::Prod.name(), "prod");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Mean => "mean",
            Reduction::Max => "max",
            Reduction::Min => "min",
            Reduction::Prod => "prod",
            Reduction::Any => "any",
            Reduction::All => "all",
        }
    }

    /// Whether an empty set of elements has no value under it (`max` and `min`).
    pub(crate) fn needs_elements(self) -> bool {
        matches!(self, Reduction::Max | Reduction::Min)
    }
}

impl fmt::Display for Reduction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Reduction {
    type Err = ReshapeError;

    fn from_str(s: &str) -> Result<Reduction, ReshapeError> {
        Reduction::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                let why = format!(
                    "unknown reduction {s:?}; einops has min, max, sum, mean, prod, any, all"
                );
                Fail::whole(Rule::UnknownReduction, why)
                    .attach_no_input(Origin::Rearrange, format!("reduce {s:?}"))
            })
    }
}
