//! einops' `parse_shape`: the lengths of a shape named by a pattern.

use super::pattern::{side, Axis, Item};
use crate::error::{Fail, Origin, ReshapeError, Rule};

/// einops' `parse_shape(x, pattern)`: the lengths of `shape` named by the pattern, in the
/// pattern's order. `_` skips an axis (and may stand more than once), `1`, `()` or `(1)` demand
/// a unit axis, a number demands that length, `(a)` is `a`, and an ellipsis stands for any
/// number of axes, which it skips.
///
/// # Errors
///
/// [`ReshapeError::BadPattern`] for a pattern that does not parse or has a group of two axes
/// or a parenthesized ellipsis, [`ReshapeError::PatternRank`] for another number of dims,
/// [`ReshapeError::DimMismatch`] for a unit or number against another length.
///
/// # Examples
///
/// ```
/// use ndarray_reshape::parse_shape;
///
/// let named = parse_shape(&[2, 3, 224, 224], "batch _ h w")?;
/// assert_eq!(named, vec![("batch".to_string(), 2), ("h".to_string(), 224), ("w".to_string(), 224)]);
/// assert_eq!(parse_shape(&[8, 1, 5], "b 1 ...")?, vec![("b".to_string(), 8)]);
/// assert!(parse_shape(&[8, 2], "b 1").is_err());
/// # Ok::<(), ndarray_reshape::ReshapeError>(())
/// ```
pub fn parse_shape(shape: &[usize], pattern: &str) -> Result<Vec<(String, usize)>, ReshapeError> {
    let fail = |f: Fail| f.attach(Origin::Rearrange, shape, format!("parse_shape {pattern:?}"));
    let s = side(pattern, 0, &mut 0, true).map_err(fail)?;
    if s.ellipsis == Some(true) {
        return Err(fail(Fail::whole(
            Rule::BadPattern,
            "parse_shape takes no ellipsis in parentheses",
        )));
    }
    if let Some(g) = s
        .items
        .iter()
        .find(|i| matches!(i, Item::Group(g) if g.len() > 1))
    {
        let names: Vec<String> = match g {
            Item::Group(g) => g.iter().map(super::pattern::shown).collect(),
            Item::Ellipsis => Vec::new(),
        };
        let why = format!("parse_shape takes no group of axes: ({})", names.join(" "));
        return Err(fail(Fail::whole(Rule::BadPattern, why)));
    }
    let fixed = s.items.len() - usize::from(s.ellipsis.is_some());
    let (ok, needs) = match s.ellipsis {
        Some(_) => (shape.len() >= fixed, format!("at least {fixed}")),
        None => (shape.len() == fixed, fixed.to_string()),
    };
    if !ok {
        let why = format!(
            "the pattern names {needs} dims, the shape has {}",
            shape.len()
        );
        return Err(fail(Fail::whole(Rule::PatternRank, why)));
    }
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut dim = 0;
    for item in &s.items {
        let group = match item {
            Item::Ellipsis => {
                dim += shape.len() - fixed;
                continue;
            }
            Item::Group(g) => g,
        };
        let len = shape[dim];
        match group.first() {
            None if len != 1 => {
                let why = format!("dim {dim} has length {len} where the pattern has a unit axis");
                return Err(fail(Fail::at(Rule::DimMismatch, dim, why)));
            }
            Some(Axis::Anon { len: want, .. }) if *want != len => {
                let why = format!("dim {dim} has length {len} where the pattern has {want}");
                return Err(fail(Fail::at(Rule::DimMismatch, dim, why)));
            }
            Some(Axis::Name(n)) if &**n != "_" => out.push((n.to_string(), len)),
            _ => {}
        }
        dim += 1;
    }
    Ok(out)
}
