//! Channel-blocked layouts (`nChw8c`, `nChw16c`): the channel axis split into blocks of a
//! fixed size that move to the last axis, the last block padded; and back, cropped.

use super::Conversion;
use crate::dialect::lower::OnnxNode;
use crate::dialect::onnx::Onnx;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::small::Small;
use crate::sym::{Condition, SymDim, SymShape};

/// A channel-blocked layout: the channel axis (`axis`, 1 unless set) of `C` channels becomes
/// `ceil(C / block)` blocks there and the `block` channels of each block a new last axis,
/// padded past `C` (oneDNN's `nChw8c` and `nChw16c`, MLIR's `tensor.pack`; the einops pattern
/// `"n (C c) h w -> n C h w c"` with `c = block` when `block` divides `C`). `pack` and `unpack`
/// copy in one pass with a conversion (a [`Cast`](super::Cast) for none).
///
/// ```
/// use ndarray::Array;
/// use ndarray_reshape::convert::{Blocked, Cast};
///
/// # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
/// let x = Array::from_shape_fn((2, 3, 4, 5), |(n, c, h, w)| (n * 1000 + c * 100 + h * 10 + w) as f32);
/// let b16 = Blocked::new(16)?;
/// let packed = b16.pack(&x, &Cast, 0.0f32)?;
/// assert_eq!(packed.shape(), &[2, 1, 4, 5, 16]);
/// assert_eq!(packed[[1, 0, 2, 3, 2]], 1223.0);
/// assert_eq!(packed[[1, 0, 2, 3, 7]], 0.0); // padding
/// let back: ndarray::ArrayD<f32> = b16.unpack(&packed, 3, &Cast)?;
/// assert_eq!(back, x.into_dyn());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Blocked {
    pub(crate) block: usize,
    pub(crate) axis: usize,
}

impl Blocked {
    /// Blocks of `block` channels along axis 1.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BlockedLayout`] for a block of 0.
    pub fn new(block: usize) -> Result<Blocked, ReshapeError> {
        if block == 0 {
            let why = "a block of 0 channels";
            return Err(Fail::whole(Rule::BlockedLayout, why)
                .attach_no_input(Origin::Convert, "blocked(0)"));
        }
        Ok(Blocked { block, axis: 1 })
    }

    /// The same blocks along `axis` (of the unblocked layout).
    pub fn axis(self, axis: usize) -> Blocked {
        Blocked { axis, ..self }
    }

    /// The block size.
    pub fn block(&self) -> usize {
        self.block
    }

    pub(crate) fn fail(&self, input: &[usize], why: String) -> ReshapeError {
        Fail::at(Rule::BlockedLayout, self.axis, why).attach(Origin::Convert, input, self.name())
    }

    pub(crate) fn name(&self) -> String {
        format!("blocked({}, axis {})", self.block, self.axis)
    }

    /// The shape `pack` gives an input of `input`: the channel axis `C` as `ceil(C / block)`,
    /// then `block`.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BlockedLayout`] when the input has no such axis;
    /// [`ReshapeError::Overflow`] when the padded size passes `isize::MAX` bytes' worth.
    ///
    /// ```
    /// use ndarray_reshape::convert::Blocked;
    /// assert_eq!(Blocked::new(16)?.packed_shape(&[32, 3, 224, 224])?, [32, 1, 224, 224, 16]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn packed_shape(&self, input: &[usize]) -> Result<Vec<usize>, ReshapeError> {
        let Some(&c) = input.get(self.axis) else {
            let why = format!("no channel axis {} in {} axes", self.axis, input.len());
            return Err(self.fail(input, why));
        };
        let mut out = input.to_vec();
        out[self.axis] = c.div_ceil(self.block);
        out.push(self.block);
        let n = out.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if n.map_or(true, |n| n > isize::MAX as usize) {
            let why = format!("the packed shape {out:?} has more than isize::MAX elements");
            return Err(Fail::whole(Rule::Overflow, why).attach(
                Origin::Convert,
                input,
                self.name(),
            ));
        }
        Ok(out)
    }

    /// The shape `unpack` gives a packed array of `packed` with `channels` channels.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BlockedLayout`] when the packed array's last axis is not the block, it
    /// has no blocks axis, or `channels` does not need exactly its blocks.
    ///
    /// ```
    /// use ndarray_reshape::convert::Blocked;
    /// assert_eq!(Blocked::new(8)?.unpacked_shape(&[4, 3, 7, 7, 8], 20)?, [4, 20, 7, 7]);
    /// assert!(Blocked::new(8)?.unpacked_shape(&[4, 3, 7, 7, 8], 16).is_err());
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unpacked_shape(
        &self,
        packed: &[usize],
        channels: usize,
    ) -> Result<Vec<usize>, ReshapeError> {
        let r = packed.len();
        if r < 2 || self.axis >= r - 1 || packed[r - 1] != self.block {
            let why = format!(
                "a packed array has the blocks at axis {} and a last axis of {}",
                self.axis, self.block
            );
            return Err(self.fail(packed, why));
        }
        let blocks = packed[self.axis];
        if channels.div_ceil(self.block) != blocks {
            let why = format!(
                "{channels} channels fill {} blocks of {}, not {blocks}",
                channels.div_ceil(self.block),
                self.block
            );
            return Err(self.fail(packed, why));
        }
        let mut out = packed[..r - 1].to_vec();
        out[self.axis] = channels;
        Ok(out)
    }

    /// [`packed_shape`](Self::packed_shape) of symbolic dims: the blocks are
    /// `(C + block - 1) // block`, exact.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BlockedLayout`] when the input has no channel axis.
    ///
    /// ```
    /// use ndarray_reshape::convert::Blocked;
    /// use ndarray_reshape::SymDim;
    /// let shape = Blocked::new(16)?.packed_symbolic(&[SymDim::sym("N"), SymDim::sym("C"), 7.into(), 7.into()])?;
    /// assert_eq!(shape[1].to_string(), "(C + 15) // 16");
    /// assert_eq!(shape[1].eval(&[("C", 33)]), Some(3));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn packed_symbolic(&self, input: &[SymDim]) -> Result<Vec<SymDim>, ReshapeError> {
        let Some(c) = input.get(self.axis) else {
            let why = format!("no channel axis {} in {} axes", self.axis, input.len());
            return Err(self.fail(&[], why));
        };
        let b = SymDim::from(self.block);
        let blocks = (c + &SymDim::from(self.block - 1)).floor_div(&b)?;
        let mut out = input.to_vec();
        out[self.axis] = blocks;
        out.push(b);
        Ok(out)
    }

    /// [`unpacked_shape`](Self::unpacked_shape) of symbolic dims, with the conditions that
    /// `channels` needs exactly the packed blocks (`channels <= blocks * block` and
    /// `(blocks - 1) * block + 1 <= channels`) where they are not decided.
    ///
    /// # Errors
    ///
    /// [`ReshapeError::BlockedLayout`] as [`unpacked_shape`](Self::unpacked_shape), for what
    /// the dims decide.
    ///
    /// ```
    /// use ndarray_reshape::convert::Blocked;
    /// use ndarray_reshape::SymDim;
    /// let packed = [SymDim::sym("N"), SymDim::sym("K"), 7.into(), 7.into(), 16.into()];
    /// let shape = Blocked::new(16)?.unpacked_symbolic(&packed, &SymDim::sym("C"))?;
    /// assert_eq!(shape.dims()[1].to_string(), "C");
    /// assert_eq!(shape.conditions().len(), 2);
    /// assert_eq!(shape.eval(&[("N", 1), ("K", 3), ("C", 40)]), Some(vec![1, 40, 7, 7]));
    /// assert_eq!(shape.eval(&[("N", 1), ("K", 3), ("C", 20)]), None);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn unpacked_symbolic(
        &self,
        packed: &[SymDim],
        channels: &SymDim,
    ) -> Result<SymShape, ReshapeError> {
        let r = packed.len();
        let b = SymDim::from(self.block);
        if r < 2 || self.axis >= r - 1 || packed[r - 1].known() != Some(self.block) {
            let why = format!(
                "a packed array has the blocks at axis {} and a last axis of {}",
                self.axis, self.block
            );
            return Err(self.fail(&[], why));
        }
        let blocks = &packed[self.axis];
        let high = Condition::at_most(channels.clone(), blocks * &b);
        let low = Condition::at_most(
            (blocks - &SymDim::from(1)) * &b + SymDim::from(1),
            channels.clone(),
        );
        let mut conditions: Small<Condition> = Small::new();
        for c in [high, low] {
            match c.holds(&[]) {
                Some(true) => {}
                Some(false) => {
                    let why = format!("{channels} channels do not fill {blocks} blocks of {b}");
                    return Err(self.fail(&[], why));
                }
                None => conditions.push(c),
            }
        }
        let mut dims: Small<SymDim> = packed[..r - 1].iter().cloned().collect();
        dims[self.axis] = channels.clone();
        Ok(SymShape { dims, conditions })
    }

    /// `pack` of an input of `input` as ONNX nodes: `Pad` (when `block` does not divide the
    /// channels; opset 11 and later take `pads` as an input), `Reshape` to split the channels,
    /// `Transpose` to move the block last, then the conversion's nodes (`conversion` from
    /// [`onnx_nodes`](Self::onnx_nodes) of the conversion, or empty).
    ///
    /// # Errors
    ///
    /// As [`packed_shape`](Self::packed_shape).
    ///
    /// ```
    /// use ndarray_reshape::convert::Blocked;
    /// use ndarray_reshape::OnnxNode;
    /// let nodes = Blocked::new(16)?.pack_onnx_nodes(&[8, 3, 56, 56], 0.0, &[])?;
    /// let ops: Vec<_> = nodes.iter().map(|n| n.op()).collect();
    /// assert_eq!(ops, ["Pad", "Reshape", "Transpose"]);
    /// assert_eq!(nodes[0], OnnxNode::Pad { pads: vec![0, 0, 0, 0, 0, 13, 0, 0], value: 0.0 });
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn pack_onnx_nodes(
        &self,
        input: &[usize],
        fill: f64,
        conversion: &[OnnxNode],
    ) -> Result<Vec<OnnxNode>, ReshapeError> {
        let out = self.packed_shape(input)?;
        let (r, k) = (input.len(), self.axis);
        let padded = out[k] * self.block;
        let mut nodes = Vec::new();
        if padded != input[k] {
            let mut pads = vec![0; 2 * r];
            pads[r + k] = padded - input[k];
            nodes.push(OnnxNode::Pad { pads, value: fill });
        }
        let mut split: Vec<usize> = input.to_vec();
        split[k] = out[k];
        split.insert(k + 1, self.block);
        nodes.push(OnnxNode::Reshape(
            Onnx::new(split).allowzero(input.contains(&0)),
        ));
        let mut perm: Vec<usize> = (0..=r).filter(|&a| a != k + 1).collect();
        perm.push(k + 1);
        nodes.push(OnnxNode::Transpose { perm });
        nodes.extend_from_slice(conversion);
        Ok(nodes)
    }

    /// `unpack` of a packed array of `packed` into `channels` as ONNX nodes: `Transpose` to
    /// bring the block beside its blocks, `Reshape` to merge them, `Slice` to crop the padding
    /// (when there is one), then the conversion's nodes.
    ///
    /// # Errors
    ///
    /// As [`unpacked_shape`](Self::unpacked_shape).
    pub fn unpack_onnx_nodes(
        &self,
        packed: &[usize],
        channels: usize,
        conversion: &[OnnxNode],
    ) -> Result<Vec<OnnxNode>, ReshapeError> {
        let out = self.unpacked_shape(packed, channels)?;
        let (r, k) = (packed.len(), self.axis);
        let mut perm: Vec<usize> = (0..r - 1).collect();
        perm.insert(k + 1, r - 1);
        let mut merged = out.clone();
        merged[k] = packed[k] * self.block;
        let mut nodes = vec![
            OnnxNode::Transpose { perm },
            OnnxNode::Reshape(Onnx::new(merged.clone()).allowzero(merged.contains(&0))),
        ];
        if merged[k] != channels {
            nodes.push(OnnxNode::Slice {
                axis: k,
                end: channels,
            });
        }
        nodes.extend_from_slice(conversion);
        Ok(nodes)
    }

    /// The ONNX nodes of a conversion applied to an output of `rank` axes (for
    /// [`pack_onnx_nodes`](Self::pack_onnx_nodes) and
    /// [`unpack_onnx_nodes`](Self::unpack_onnx_nodes)).
    ///
    /// # Errors
    ///
    /// [`ReshapeError::OnnxInexpressible`] for a conversion ONNX has no node for (a closure,
    /// a saturating cast, a type without an ONNX name).
    ///
    /// ```
    /// use ndarray_reshape::convert::{Blocked, Cast};
    /// use ndarray_reshape::OnnxNode;
    /// let nodes = Blocked::onnx_nodes::<f32, u8, _>(&Cast, 5)?;
    /// assert_eq!(nodes, [OnnxNode::Cast { to: "UINT8" }]);
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn onnx_nodes<A, B, C: Conversion<A, B> + ?Sized>(
        conv: &C,
        rank: usize,
    ) -> Result<Vec<OnnxNode>, ReshapeError> {
        conv.onnx(rank).ok_or_else(|| {
            let why = "this conversion has no ONNX node";
            Fail::whole(Rule::OnnxInexpressible, why).attach_no_input(Origin::Convert, "convert")
        })
    }
}
