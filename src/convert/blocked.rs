//! Channel-blocked layouts (`nChw8c`, `nChw16c`): the channel axis split into blocks of a
//! fixed size that move to the last axis, the last block padded; and back, cropped.

use super::Conversion;
use crate::dialect::lower::OnnxNode;
use crate::dialect::onnx::Onnx;
use crate::error::{Fail, Origin, ReshapeError, Rule};
use crate::infer::Extent;
use crate::small::Small;
use crate::sym::{Condition, ConditionList, SymDim, SymShape};

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
        self.packed(input).map(|(dims, ())| dims.to_vec())
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
        self.unpacked(packed, channels)
            .map(|(dims, ())| dims.to_vec())
    }

    /// [`packed_shape`](Self::packed_shape) of symbolic dims: the blocks are
    /// `(C + block - 1) // block`, exact, under the conditions the size needs.
    ///
    /// # Errors
    ///
    /// As [`packed_shape`](Self::packed_shape), for what the dims decide.
    ///
    /// ```
    /// use ndarray_reshape::convert::Blocked;
    /// use ndarray_reshape::SymDim;
    /// let shape = Blocked::new(16)?.packed_symbolic(&[SymDim::sym("N"), SymDim::sym("C"), 7.into(), 7.into()])?;
    /// assert_eq!(shape.dims()[1].to_string(), "(C + 15) // 16");
    /// assert_eq!(shape.eval(&[("N", 1), ("C", 33)]), Some(vec![1, 3, 7, 7, 16]));
    /// # Ok::<(), ndarray_reshape::ReshapeError>(())
    /// ```
    pub fn packed_symbolic(&self, input: &[SymDim]) -> Result<SymShape, ReshapeError> {
        self.packed(input)
            .map(|(dims, conds)| SymShape::new(dims, conds.iter().cloned()))
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
        self.unpacked(packed, channels.clone())
            .map(|(dims, conds)| SymShape::new(dims, conds.iter().cloned()))
    }

    /// The rule of [`packed_shape`](Self::packed_shape), for numbers and symbols alike.
    fn packed<E: Channels>(&self, input: &[E]) -> Result<(Small<E>, E::Conds), ReshapeError> {
        let fail = |f: Fail| E::attach(f, Origin::Convert, input, self.name());
        let Some(c) = input.get(self.axis) else {
            let why = format!("no channel axis {} in {} axes", self.axis, input.len());
            return Err(fail(Fail::at(Rule::BlockedLayout, self.axis, why)));
        };
        let mut out: Small<E> = input.iter().cloned().collect();
        out[self.axis] = c.blocks(self.block).map_err(fail)?;
        out.push(E::lit(self.block as i64));
        let mut conds = E::Conds::default();
        E::size(&out, &mut conds).map_err(|f| {
            let why = format!("the packed shape has more than {} elements", isize::MAX);
            fail(Fail::whole(f.rule, why))
        })?;
        Ok((out, conds))
    }

    /// The rule of [`unpacked_shape`](Self::unpacked_shape), for numbers and symbols alike.
    fn unpacked<E: Channels>(
        &self,
        packed: &[E],
        channels: E,
    ) -> Result<(Small<E>, E::Conds), ReshapeError> {
        let fail = |why: String| {
            E::attach(
                Fail::at(Rule::BlockedLayout, self.axis, why),
                Origin::Convert,
                packed,
                self.name(),
            )
        };
        let r = packed.len();
        if r < 2 || self.axis >= r - 1 || !packed[r - 1].is(self.block) {
            return Err(fail(format!(
                "a packed array has the blocks at axis {} and a last axis of {}",
                self.axis, self.block
            )));
        }
        let blocks = &packed[self.axis];
        let mut conds = E::Conds::default();
        E::fills(&channels, blocks, self.block, &mut conds).map_err(fail)?;
        let mut dims: Small<E> = packed[..r - 1].iter().cloned().collect();
        dims[self.axis] = channels;
        Ok((dims, conds))
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

/// What the blocked layouts' rules need of a dim besides [`Extent`]: the blocks a channel count
/// fills, and whether it fills a number of blocks exactly.
trait Channels: Extent {
    /// `ceil(self / block)` (`block >= 1`).
    fn blocks(&self, block: usize) -> Result<Self, Fail>;

    /// Whether `channels` needs exactly `blocks` blocks of `block`:
    /// `(blocks - 1) * block < channels <= blocks * block`, what the dims do not decide added
    /// to `conds`; the reason where they decide it does not.
    fn fills(
        channels: &Self,
        blocks: &Self,
        block: usize,
        conds: &mut Self::Conds,
    ) -> Result<(), String>;
}

impl Channels for usize {
    fn blocks(&self, block: usize) -> Result<usize, Fail> {
        Ok(self.div_ceil(block))
    }

    fn fills(channels: &usize, blocks: &usize, block: usize, _: &mut ()) -> Result<(), String> {
        match channels.div_ceil(block) == *blocks {
            true => Ok(()),
            false => Err(format!(
                "{channels} channels fill {} blocks of {block}, not {blocks}",
                channels.div_ceil(block)
            )),
        }
    }
}

impl Channels for SymDim {
    fn blocks(&self, block: usize) -> Result<SymDim, Fail> {
        (self + &SymDim::from(block - 1))
            .floor_div(&SymDim::from(block))
            .map_err(|e| Fail::whole(Rule::SymbolLimit, e.to_string()))
    }

    fn fills(
        channels: &SymDim,
        blocks: &SymDim,
        block: usize,
        conds: &mut Small<Condition>,
    ) -> Result<(), String> {
        let b = SymDim::from(block);
        let high = Condition::at_most(channels.clone(), blocks * &b);
        let low = Condition::at_most(
            (blocks - &SymDim::from(1)) * &b + SymDim::from(1),
            channels.clone(),
        );
        for c in [high, low] {
            match c.holds(&[]) {
                Some(true) => {}
                Some(false) => {
                    return Err(format!(
                        "{channels} channels do not fill {blocks} blocks of {b}"
                    ));
                }
                None => conds.add(c),
            }
        }
        Ok(())
    }
}
