//! Backward inference ([`ShapeSpec::infer_input`]): one unknown input dim from the output
//! shape, exactly.

use super::{reject, ShapeSpec};
use crate::dims::checked_size;
use crate::error::{Fail, ReshapeError, Rule};

/// [`ShapeSpec::infer_input`].
pub(crate) fn infer_input<P: ShapeSpec + ?Sized>(
    spec: &P,
    input: &[Option<usize>],
    output: &[usize],
) -> Result<Vec<usize>, ReshapeError> {
    // The input as far as it is known; the errors show the unknown dims as `?`.
    let shown: Vec<usize> = input.iter().map(|d| d.unwrap_or(0)).collect();
    let fail = |rule: Rule, why: String| {
        let written: Vec<String> = input
            .iter()
            .map(|d| d.map_or_else(|| "?".to_owned(), |v| v.to_string()))
            .collect();
        let (dialect, spec) = spec.describe();
        Fail::whole(rule, why).attach_sym(dialect, &written, spec)
    };
    let mut unknown = input.iter().enumerate().filter(|(_, d)| d.is_none());
    let slot = unknown.next().map(|(i, _)| i);
    if let Some((second, _)) = unknown.next() {
        return Err(fail(
            Rule::MultipleInfer,
            format!(
                "input dims {} and {second} are both unknown; one can be inferred",
                slot.unwrap_or(0)
            ),
        ));
    }
    let mut filled = shown.clone();
    if let Some(slot) = slot {
        let overflow = || {
            fail(
                Rule::Overflow,
                format!("the dims multiply past {}", isize::MAX),
            )
        };
        let size = checked_size(output.iter().copied()).ok_or_else(overflow)?;
        let known = checked_size(
            shown
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != slot)
                .map(|(_, &d)| d),
        )
        .ok_or_else(overflow)?;
        if known == 0 {
            return Err(fail(
                Rule::InferAmbiguous,
                format!("a known input dim is 0, so input dim {slot} could be any size"),
            ));
        }
        if size % known != 0 {
            return Err(fail(
                Rule::InferNotDivisible,
                format!(
                    "the known input dims multiply to {known}, which does not divide the output's \
                     size {size}, so input dim {slot} cannot be inferred"
                ),
            ));
        }
        filled[slot] = size / known;
    }
    let got = spec.infer_shape(&filled)?;
    if got != output {
        return Err(reject(
            Rule::SizeMismatch,
            spec,
            &filled,
            &format!("the input {filled:?} gives {got:?}, not the output {output:?}"),
        ));
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use crate::dialect::mx::Mx;
    use crate::dialect::np::Np;
    use crate::dialect::paddle::Paddle;
    use crate::dialect::ShapeSpec;
    use crate::dims::Order;

    #[test]
    fn one_unknown_dim_exactly() {
        let mx = Mx::new([-3, 0]);
        assert_eq!(
            mx.infer_input(&[Some(4), None, Some(512)], &[28, 512])
                .unwrap(),
            [4, 7, 512]
        );
        assert_eq!(
            mx.infer_input(&[Some(4), Some(7), Some(512)], &[28, 512])
                .unwrap(),
            [4, 7, 512]
        );
        let err = mx
            .infer_input(&[None, None, Some(512)], &[28, 512])
            .unwrap_err();
        assert_eq!(err.category(), "multiple_infer");
        let err = mx
            .infer_input(&[Some(3), None, Some(512)], &[28, 512])
            .unwrap_err();
        assert_eq!(err.category(), "infer_not_divisible");
        let err = Np::new([0, 4], Order::C)
            .infer_input(&[Some(0), None], &[0, 4])
            .unwrap_err();
        assert_eq!(err.category(), "infer_ambiguous");
        // Divisible, but the spec gives another output: a mismatch, not a guess.
        let err = Paddle::new([0, -1])
            .infer_input(&[None, Some(6)], &[3, 4])
            .unwrap_err();
        assert_eq!(err.category(), "size_mismatch");
        assert_eq!(
            Paddle::new([0, -1])
                .infer_input(&[None, Some(6)], &[2, 6])
                .unwrap(),
            [2, 6]
        );
        // Zero-size outputs: the unknown dim is 0.
        assert_eq!(
            Np::new([0, 3], Order::C)
                .infer_input(&[None, Some(3)], &[0, 3])
                .unwrap(),
            [0, 3]
        );
        let err = Mx::new([-1])
            .infer_input(&[None, Some(1 << 40)], &[1 << 62, 8])
            .unwrap_err();
        assert_eq!(err.category(), "overflow");
    }
}
