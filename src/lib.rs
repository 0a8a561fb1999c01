//! MXNet (1.x `Reshape` and 2.x `npx.reshape`), Paddle, NumPy and ONNX reshape semantics, and
//! einops (`rearrange`, `repeat`, `reduce`, `pack`, `unpack`, `parse_shape`), for [`ndarray`]
//! arrays, with zero-copy views whenever the strides permit (exactly when NumPy would give one)
//! and parallel copies otherwise, which can convert the element type as they write
//! ([`convert`]).
//!
//! # Quick start
//!
//! ```
//! use ndarray::Array;
//! use ndarray_reshape::{Like, Mx, Np, Order, Paddle, ReshapeExt, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
//!
//! // MXNet Reshape: -4 splits a dim, -2 copies the rest.
//! let y = x.reshape_mx([-4, 1, 2, -2])?;
//! assert_eq!(y.shape(), &[1, 2, 3, 4]);
//! assert!(y.is_view());
//!
//! // Paddle: 0 copies the dim at the same index, -1 is inferred.
//! assert_eq!(x.reshape_paddle([0, -1])?.shape(), &[2, 12]);
//!
//! // NumPy with an order: a transposed input read in C order is copied.
//! let t = x.t();
//! let c = t.reshape_np([-1], Order::C)?;
//! assert!(!c.is_view());
//! assert!(t.reshape_np([-1], Order::F)?.is_view());
//!
//! // reshape_like, and shape inference without data.
//! assert_eq!(Like::new([6, 4]).infer_shape(&[2, 3, 4])?, vec![6, 4]);
//! assert_eq!(Mx::new([-1, 0]).reverse(true).infer_shape(&[10, 5, 4])?, vec![50, 4]);
//! # Ok(())
//! # }
//! ```
//!
//! # Which call is which
//!
//! | you know | here |
//! |---|---|
//! | `mx.nd.reshape(x, shape=s, reverse=r)` | `x.reshape_mx(Mx::new(s).reverse(r))` |
//! | `mx.nd.reshape(x, target_shape=t, keep_highest=k)` | `x.reshape_with(Mx::target_shape(t).keep_highest(k))` |
//! | `mx.nd.reshape_like(x, y, lhs_begin=.., ...)` | `x.reshape_like(&y)`, `x.reshape_with(Like::new(y.shape()).lhs(b, e).rhs(b, e))` |
//! | `paddle.reshape(x, shape)` (list or tensor) | `x.reshape_paddle(shape)` |
//! | `fluid.layers.reshape(x, shape, actual_shape, act, inplace)` | [`fluid::Reshape`] |
//! | `np.reshape(a, s, order=o)`, `a.reshape(s, order=o)` | `a.reshape_np(s, o)` |
//! | `mx.npx.reshape(a, newshape, reverse=r)`, `mx.np.reshape(a, s)` (MXNet 2.x) | `a.reshape_npx(Npx::new(s).reverse(r))` |
//! | ONNX `Reshape(data, shape)` with `allowzero` | `x.reshape_onnx(Onnx::new(shape).allowzero(a))` |
//! | exporting any of the above to ONNX | [`ShapeSpec::to_onnx`] |
//! | NumPy `a.shape = s` (never copies) | `a.reshape_view(Np::new(s, Order::C))` |
//! | ndarray `to_shape` | `reshape_with(Np::new(s, Order::C))` |
//! | `einops.rearrange(x, p, **l)`, `einops.repeat(x, p, **l)` | `x.rearrange(p, &l)`, `x.repeat(p, &l)` ([`Rearrange`]) |
//! | `einops.reduce(x, p, "max", **l)` | `x.reduce(p, Reduction::Max, &l)` ([`Reduce`]) |
//! | `einops.pack(xs, p)`, `einops.unpack(x, ps, p)` | [`pack`]`(&xs, p)`, `x.unpack(p, &ps)` ([`Pack`]) |
//! | `einops.parse_shape(x, p)` | [`parse_shape`]`(x.shape(), p)` |
//! | `a.transpose(..).astype(t)`, `x.permute(..).contiguous().to(dtype)` | `x.convert_with(spec, &`[`convert::Cast`]`)` |
//! | torchvision `normalize(to_tensor(img), mean, std)`, OpenCV `blobFromImages` | `x.convert_with(Rearrange::new("n h w c -> n c h w")?, &`[`convert::Affine::normalize`]`(..)?)` |
//! | ONNX `QuantizeLinear` / `DequantizeLinear` after a `Transpose` | [`convert::Quantize`], [`convert::Dequantize`] |
//! | oneDNN's reorder to `nChw16c` and back | [`convert::Blocked`] |
//!
//! # Special values
//!
//! | value | MXNet [`Mx`] | Paddle [`Paddle`] | NumPy [`Np`] |
//! |---|---|---|---|
//! | `d > 0` | `d` | `d` | `d` |
//! | `0` | the input dim at the read position | the input dim at the same index (a literal 0 on a zero-size input) | a literal 0 |
//! | `-1` | inferred | inferred | inferred |
//! | `-2` | all remaining input dims | error | error |
//! | `-3` | the product of the next two input dims | error | error |
//! | `-4 a b` | splits the next input dim into `a`, `b` (one may be `-1`) | error | error |
//!
//! Worked examples, each on an input of shape `(2, 3, 4)`:
//!
//! ```
//! use ndarray_reshape::{Mx, Np, Order, Paddle, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = [2, 3, 4];
//! // MXNet: 0 copies the dim at the read position (which every value but -2 advances).
//! assert_eq!(Mx::new([4, 0, 2]).infer_shape(&x)?, [4, 3, 2]);
//! // MXNet: -1 is inferred from the size.
//! assert_eq!(Mx::new([6, 1, -1]).infer_shape(&x)?, [6, 1, 4]);
//! // MXNet: -2 copies all the remaining dims.
//! assert_eq!(Mx::new([2, -2]).infer_shape(&x)?, [2, 3, 4]);
//! // MXNet: -3 merges the next two dims.
//! assert_eq!(Mx::new([-3, 4]).infer_shape(&x)?, [6, 4]);
//! // MXNet: -4 splits the next dim; here 2 into (1, 2), and -2 copies the rest.
//! assert_eq!(Mx::new([-4, 1, 2, -2]).infer_shape(&x)?, [1, 2, 3, 4]);
//! // MXNet reverse: the special values are read from the right.
//! assert_eq!(Mx::new([-1, 0]).reverse(true).infer_shape(&x)?, [6, 4]);
//! // MXNet legacy: target_shape with one 0 inferred, keep_highest keeps the first dim.
//! assert_eq!(Mx::target_shape([0, 0]).keep_highest(true).infer_shape(&x)?, [2, 12]);
//!
//! // Paddle: 0 copies the dim at the same index, -1 is inferred.
//! assert_eq!(Paddle::new([0, -1]).infer_shape(&x)?, [2, 12]);
//! assert_eq!(Paddle::new([-1, 0, 2]).infer_shape(&x)?, [4, 3, 2]);
//! // Paddle on a zero-size input: 0 is a literal zero.
//! assert_eq!(Paddle::new([0, -1]).infer_shape(&[2, 0, 3])?, [0, 6]);
//!
//! // NumPy: only -1 is special; 0 is a real zero-length dim.
//! assert_eq!(Np::new([-1, 6], Order::C).infer_shape(&x)?, [4, 6]);
//! assert_eq!(Np::new([0, 5], Order::C).infer_shape(&[0, 3])?, [0, 5]);
//! # Ok(())
//! # }
//! ```
//!
//! MXNet 2.x `npx.reshape` ([`Npx`]) renumbers MXNet's values, and ONNX ([`Onnx`]) has two:
//!
//! | value | MXNet 2.x [`Npx`] | ONNX [`Onnx`] |
//! |---|---|---|
//! | `d > 0` | `d` | `d` |
//! | `0` | a literal 0 | the input dim at the same index; with `allowzero`, a literal 0 |
//! | `-1` | inferred | inferred (never together with a `0` under `allowzero`) |
//! | `-2` | the input dim at the read position | error |
//! | `-3` | drops an input dim of length 1 | error |
//! | `-4` | all remaining input dims | error |
//! | `-5` | the product of the next two input dims | error |
//! | `-6 a b` | splits the input dim into `a`, `b` (one may be `-1`) | error |
//!
//! ```
//! use ndarray_reshape::{Mx, Npx, Onnx, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = [1, 2, 3, 8];
//! assert_eq!(Npx::new([-3, -2, -1, 8]).infer_shape(&x)?, [2, 3, 8]); // drop the 1, copy, infer
//! assert_eq!(Npx::new([-5, -4]).infer_shape(&x)?, [2, 3, 8]); // merge 1 x 2, copy the rest
//! assert_eq!(Npx::new([-2, -2, -2, -6, 2, -1]).infer_shape(&x)?, [1, 2, 3, 2, 4]); // split 8
//! assert_eq!(Npx::new([0, 7]).infer_shape(&[0, 5])?, [0, 7]); // 0 is a literal zero
//! assert!(Npx::new([0, -1]).infer_shape(&[0, 5]).is_err()); // so -1 beside it is unknown
//! assert_eq!(Onnx::new([0, 0, -1]).infer_shape(&x)?, [1, 2, 24]); // 0 copies by index
//! assert_eq!(Onnx::new([0, 48]).allowzero(true).infer_shape(&[0, 3])?, [0, 48]);
//! // Lowering any spec to ONNX for a known input shape:
//! assert_eq!(Mx::new([-3, -2]).to_onnx(&x)?, Onnx::new([2, 3, 8]));
//! # Ok(())
//! # }
//! ```
//!
//! # Views and copies
//!
//! Every method that may return a view (the view-or-copy, strict, mutable and consuming modes)
//! first computes the target shape, then asks [`layout::view_strides`] whether the input's
//! strides can express it; that is exactly NumPy's rule. The copying and converting methods
//! and `reduce` plan a copy without asking. The input's length-1 axes are
//! dropped, both shapes are cut into the smallest groups of axes with equal products, and each
//! group of input axes must be evenly spaced in the reading order:
//!
//! ```text
//! input (4, 3), strides (6, 2)          target (2, 2, 3), order C
//!   group 1: input [4]    stride 6   ->  target [2, 2]  strides (12, 6)
//!   group 2: input [3]    stride 2   ->  target [3]     stride  2
//!   => a view with strides (12, 6, 2)
//!
//! input (4, 3), strides (1, 4)          target (12,), order C   (a transposed array)
//!   group 1: input [4, 3] strides (1, 4): 1 != 3 * 4, not evenly spaced in C order
//!   => a copy (contiguous in C order); in F order it would be a view
//! ```
//!
//! Zero strides (broadcast axes) and negative strides (reversed axes) can form views; an empty
//! array always gives a view. A view keeps the input's data pointer and allocates no element
//! data. A copy is contiguous in the reading order (C, or F for [`Order::F`]) and runs on
//! rayon for outputs of 128 KiB and more: the calling thread copies too, with the other threads
//! of its rayon pool (outside one, the global pool's threads, as many as leave the calling
//! thread a core: T threads in all for a global pool of T - 1), which then stay ready for the same thread's
//! next copy for 200 µs ([`set_helper_standby`]), giving way to any other work of the pool or
//! of the system meanwhile. Elements of the primitive number types, `bool`, `char`, `half`'s
//! `f16` and `bf16`, `num_complex::Complex` of a number, arrays of these, and the types a user
//! declares with [`PlainData`] move as bytes (vector registers, `memcpy`, streaming stores past
//! the caches); any other `Clone` type is cloned element by element, in cache-blocked tiles
//! where a transpose needs them: a generic copy cannot tell on stable Rust that a type is
//! `Copy` and has no padding bytes, which the vector kernels would read.
//!
//! ```
//! use ndarray::{s, Array};
//! use ndarray_reshape::{layout, Order, ReshapeExt};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = Array::from_iter(0..24).into_shape_with_order((4, 6)).unwrap();
//! let stepped = x.slice(s![.., ..;2]); // strides (6, 2)
//! let y = stepped.reshape_np([2, 2, 3], Order::C)?;
//! assert!(y.is_view() && y.strides() == [12, 6, 2] && y.as_ptr() == stepped.as_ptr());
//! assert_eq!(layout::view_strides(&[4, 3], &[6, 2], &[2, 2, 3], Order::C), Some(vec![12, 6, 2]));
//! assert!(!x.t().reshape_np([-1], Order::C)?.is_view());
//! # Ok(())
//! # }
//! ```
//!
//! # Strict, mutable and consuming modes
//!
//! The modes of [`ReshapeExt`] (the same table is in the README and on the trait):
//!
#![doc = include_str!("../docs/modes.md")]
//!
//! Results have a dynamic rank (`IxDyn`). When the target rank is known, give it to the spec:
//! [`spec.dim::<E>()`](ShapeSpec::dim) makes every mode return dims of type `E` (`Ix1`,
//! `Ix2`, ...), which skips building an `IxDyn` (most of the fixed cost of a small reshape); a
//! spec of another rank is [`ReshapeError::RankMismatch`].
//!
//! ```
//! use ndarray::{Array, Array2, ArrayView2, Ix2};
//! use ndarray_reshape::{Mx, Order, Paddle, ReshapeExt, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
//! let v: ArrayView2<'_, i32> = x.reshape_view(Mx::new([-3, 0]).dim::<Ix2>())?;
//! let o: Array2<i32> = x.reshape_owned(Paddle::new([4, -1]).dim::<Ix2>())?;
//! assert_eq!((v.dim(), o.dim()), ((6, 4), (4, 6)));
//! // The fast `as_standard_layout`: a transposed array made C-contiguous in one copy.
//! let c: Array2<i32> = o.t().to_layout(Order::C)?;
//! assert!(c.is_standard_layout() && c == o.t());
//! # Ok(())
//! # }
//! ```
//!
//! The methods work on every storage and on ndarray 0.17's [`ArrayRef`](ndarray::ArrayRef),
//! the type functions written for any storage take (all but the three that need the array
//! itself: `into_reshape` and `into_reshape_clone`, which take it by value, and
//! `reshape_in_place`, which changes its shape):
//!
//! ```
//! use ndarray::{array, ArrayRef2};
//! use ndarray_reshape::{Mx, ReshapeError, ReshapeExt};
//!
//! fn zero_tail(x: &mut ArrayRef2<i32>) -> Result<(), ReshapeError> {
//!     let mut flat = x.reshape_view_mut(Mx::new([-1]))?;
//!     flat.slice_mut(ndarray::s![3..]).fill(0);
//!     Ok(())
//! }
//! let mut a = array![[1, 2], [3, 4]];
//! zero_tail(&mut a)?;
//! assert_eq!(a, array![[1, 2], [3, 0]]);
//! # Ok::<(), ReshapeError>(())
//! ```
//!
//! ```
//! use ndarray::{Array, ArrayView, Ix3, IxDyn};
//! use ndarray_reshape::{Mx, Np, Order, ReshapeError, ReshapeExt};
//!
//! # fn main() -> Result<(), ReshapeError> {
//! let mut x = Array::from_iter(0..24).into_shape_with_order((2, 3, 4)).unwrap();
//! // Strict: a view or an error, never a copy.
//! assert!(matches!(x.t().reshape_view(Np::new([-1], Order::C)), Err(ReshapeError::NeedsCopy(_))));
//! // Mutable: writes go to the original.
//! x.reshape_view_mut(Mx::new([-1]))?[5] = 100;
//! assert_eq!(x[[0, 1, 1]], 100);
//! // Consuming a view keeps the lifetime of its data.
//! fn flat<'a>(v: ArrayView<'a, i32, Ix3>) -> Result<ArrayView<'a, i32, IxDyn>, ReshapeError> {
//!     v.into_reshape(Mx::new([-1]))
//! }
//! assert_eq!(flat(x.view())?.len(), 24);
//! # Ok(())
//! # }
//! ```
//!
//! # Shape inference without data
//!
//! Every spec type implements [`ShapeSpec::infer_shape`], which graph compilers and model
//! converters can call on shapes alone. It returns exactly what the array methods would, errors
//! included.
//!
//! ```
//! use ndarray_reshape::{Like, Mx, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let s = Mx::new([0, -1]).infer_shape(&[32, 19, 19, 16])?; // (N, H, W, anchors * 4)
//! let s = Like::new([1, 1444, 4]).lhs(Some(1), None).rhs(Some(1), None).infer_shape(&s)?;
//! assert_eq!(s, [32, 1444, 4]); // 19 * 19 locations * 4 anchors, 4 box coordinates
//! let err = Mx::new([-1, -1]).infer_shape(&[6]).unwrap_err();
//! assert_eq!(err.to_string(), "multiple_infer: a second -1; input shape [6], mxnet spec [-1, -1], position 1");
//! # Ok(())
//! # }
//! ```
//!
//! # Symbolic shapes
//!
//! Graphs rarely have a fixed batch: ONNX inputs carry `N` or `batch_size`, MXNet and Paddle
//! graphs `-1`. [`ShapeSpec::infer_symbolic`] runs each dialect's own algorithm on [`SymDim`]s,
//! integer expressions over named symbols (`8*N`, `B*T`, `3*N/2`, `S // 20 - 1`, `min(P, Q)`),
//! and returns a [`SymShape`]: exact where the division is exact, with [`Condition`]s where it
//! holds only for some values, an error where it holds for none. It never rounds a division
//! down, and MXNet's `0` copies the dim at the read position, as MXNet does.
//!
//! A converter's workflow: read the graph input's shape with its named dims, infer every
//! reshape, lower each to one ONNX `Reshape` that keeps the dims dynamic
//! ([`ShapeSpec::to_onnx_symbolic`]: `0` for a dim copied at the same index, `-1` for one other
//! symbolic dim), and print the conditions as runtime asserts.
//!
//! ```
//! use ndarray_reshape::{SymDim, Mx, Onnx, Paddle, ShapeSpec};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let (b, t, k) = (SymDim::sym("B"), SymDim::sym("T"), SymDim::from);
//! let x = [b.clone(), t.clone(), k(512)];
//! // Split the hidden dim into 8 heads, then flatten the tokens.
//! let heads = Paddle::new([0, 0, 8, -1]).infer_symbolic(&x)?;
//! assert_eq!(heads.dims(), &[b, t, k(8), k(64)]);
//! assert_eq!(Paddle::new([0, 0, 8, -1]).to_onnx_symbolic(&x)?, Onnx::new([0, 0, 8, 64]));
//! let tokens = Mx::new([-3, 0]).infer_symbolic(&x)?;
//! assert_eq!(tokens.to_string(), "[B*T, 512]");
//! assert_eq!(Mx::new([-3, 0]).to_onnx_symbolic(&x)?, Onnx::new([-1, 512]));
//! // Pairs of tokens: valid only when B*T is even, which the converter asserts at run time.
//! let pairs = Paddle::new([2, -1, 512]).infer_symbolic(&x)?;
//! assert_eq!(pairs.conditions()[0].to_string(), "B*T % 2 == 0");
//! assert_eq!(pairs.eval(&[("B", 2), ("T", 5)]), Some(vec![2, 5, 512]));
//! // Three heads of 512 never divide: an error naming both products.
//! assert!(Paddle::new([0, 0, 3, -1]).infer_symbolic(&x).is_err());
//! # Ok(())
//! # }
//! ```
//!
//! `examples/symbolic_graph.rs` walks a transformer-style graph through Paddle, MXNet and
//! ONNX specs this way. An F-order NumPy reshape has no single ONNX `Reshape` (ONNX reads in C
//! order): [`ShapeSpec::to_onnx`] refuses it, and [`ShapeSpec::to_onnx_nodes`] gives the
//! `Transpose`, `Reshape`, `Transpose` sequence.
//!
//! # Shapes computed in the graph
//!
//! Exported models mostly compute a reshape's shape (`Shape -> Gather -> Unsqueeze -> Concat`
//! from PyTorch, `shape64 -> slice -> stack` from Paddle). A [`ShapeValue`] is that computed
//! value, its entries numbers or [`SymDim`]s, and its operations follow the frameworks:
//! structural ones (`shape_of`, `gather`, `slice`, `concat`, `stack`, `unsqueeze`, `squeeze`),
//! arithmetic in the graph's integer type (`add`, `sub`, `mul`, `div`, `floor_div`,
//! `floor_mod`, `trunc_mod`, `abs`, `neg`, `min`, `max`, `scale`, `reduce_prod`, `cast`),
//! comparisons and logic (`equal`, `less`, ..., `logical_and`, ..., `select`), and the ONNX and
//! Paddle operators by name ([`ShapeValue::onnx_op`], [`ShapeValue::paddle_op`]). [`Onnx`], [`Paddle`], [`Np`] and
//! [`Like`] take it as their spec:
//!
//! ```
//! use ndarray_reshape::{Onnx, ShapeSpec, ShapeValue, SymDim};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! // x.view(x.size(0), -1, 64) on x: [B, T, 8, 64]
//! let x = [SymDim::sym("B"), SymDim::sym("T"), SymDim::from(8), SymDim::from(64)];
//! let b = ShapeValue::shape_of(&x).gather(&ShapeValue::scalar(0))?;
//! let shape = ShapeValue::concat(&[b.unsqueeze(0)?, ShapeValue::from(vec![-1, 64])])?;
//! assert_eq!(Onnx::new(&shape).infer_symbolic(&x)?.to_string(), "[B, 8*T, 64]");
//! assert_eq!(Onnx::new(&shape).to_onnx_symbolic(&x)?, Onnx::new([0, -1, 64]));
//! # Ok(())
//! # }
//! ```
//!
//! `examples/shape_subgraph.rs` evaluates an attention block's computed shapes this way.
//!
//! # Conditions, assumptions and binding
//!
//! A [`Condition`] is what a symbolic answer needs to be the runtime's: a `-1` that divides
//! (`3*N % 2 == 0`), sizes that agree (`N == 3`), a graph's integer arithmetic that stays in its
//! type (`1024*B <= 9223372036854775807`, or `2147483647` after a cast to `int32`), a divisor
//! that is not 0 (`T // 2 != 0`). A value keeps the conditions of everything it was computed
//! from, an entry sliced away included; `eval` answers `None` wherever one fails. The
//! [`Assumptions`] a caller knows (`T <= 4096`, `C % 8 == 0`) drop the conditions they imply
//! and decide comparisons; [`SymShape::bind`] solves the symbols from the concrete shape met at
//! run time, or names the dim that disagrees:
//!
//! ```
//! use ndarray_reshape::{Assumptions, Onnx, ShapeSpec, SymDim};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let x = [SymDim::sym("B"), SymDim::sym("T"), SymDim::from(6)];
//! let out = Onnx::new([0, -1, 4]).infer_symbolic(&x)?;
//! assert_eq!(out.to_string(), "[B, 3*T/2, 4] if 3*T % 2 == 0");
//! let known = Assumptions::new().multiple_of("T", 8);
//! assert_eq!(known.apply(&out)?.to_string(), "[B, 3*T/2, 4]");
//! let found = out.bind(&[2, 12, 4])?;
//! assert_eq!(found.to_string(), "B = 2, T = 8");
//! # Ok(())
//! # }
//! ```
//!
//! A symbolic form lives while a value uses it: a `SymDim` is a counted handle, and a process
//! that infers one model after another holds the forms of the values it keeps, plus a bounded
//! memo of recent results ([`SymDim::live_forms`], [`SymDim::release_caches`]).
//!
//! # Every tensor's shape of a graph
//!
//! [`Graph::infer`] walks a whole ONNX graph (described with [`Graph`], [`GraphNode`] and
//! [`TensorData`], no protobuf type; or read from a `.onnx` file with `Graph::from_onnx`,
//! feature `onnx`) from its inputs' declared dims alone, and gives every tensor's
//! [`TensorFact`]: element type, shape in [`SymDim`]s, and the [`ShapeValue`] of a small integer
//! tensor, so that shape values and data shapes flow through one table. Each operator family
//! has one shape rule (broadcasting, `MatMul`/`Gemm`/`Einsum`, the window of `Conv` and the
//! pools, `Reshape` through the ONNX dialect, `Slice`, `Split`, `Resize`, the reductions,
//! `LSTM`/`GRU`, attention, onnxruntime's contributed operators, `If`/`Loop`/`Scan` bodies...),
//! on the signature rows of the shape-value table. The result, [`GraphShapes`], holds the
//! conditions the graph needs, each with its node (`a == b || a == 1 || b == 1` for two dims
//! that broadcast), what the data decides (a fresh symbol per dim, named after its tensor), and
//! meets concrete input shapes with [`GraphShapes::bind`]:
//!
//! ```
//! use ndarray_reshape::{Assumptions, ElemType, Graph, GraphNode, InputDim, OpAttr, TensorData};
//!
//! # fn main() -> Result<(), ndarray_reshape::ReshapeError> {
//! let mut g = Graph::new(17);
//! g.input("x", ElemType::FLOAT, [InputDim::named("N"), 3.into(), InputDim::named("H"), InputDim::named("W")]);
//! g.initializer("w", TensorData::new(ElemType::FLOAT, [32, 3, 3, 3]));
//! g.node(GraphNode::new("Conv", ["x", "w"], ["y"])
//!     .attr("kernel_shape", OpAttr::from([3i64, 3]))
//!     .attr("strides", OpAttr::from([2i64, 2]))
//!     .attr("pads", OpAttr::from([1i64, 1, 1, 1])));
//! g.node(GraphNode::new("Flatten", ["y"], ["f"]).attr("axis", OpAttr::from(2)));
//! let shapes = g.infer(&Assumptions::new().multiple_of("H", 2).multiple_of("W", 2))?;
//! assert_eq!(shapes.fact("f").unwrap().to_string(), "float32[32*N, H*W/4]");
//! assert_eq!(shapes.bind(&[("x", &[1, 3, 64, 48])])?.shape("f"), Some(&[32, 768][..]));
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
#![doc = document_features::document_features!()]
//!
//! # Minimum Rust version
//!
//! 1.80.
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// Table-driven unit tests use tuple-typed tables.
#![cfg_attr(test, allow(clippy::type_complexity))]

// Modules in alphabetical order; the imports run one way, from the leaves (`error`, `small`,
// `dims`) through `sym` and `graph`, the inference engine (`infer`), the spec entries
// (`entries`), `layout` and `explain`, the dialects (`dialect`), the conversions (`convert`),
// `view` and the copy engine (`copy`), to the doors (`strided`, `ext`) and `fluid`
// (`python3 ../shared/tools/modcycles.py .` prints the graph).
pub mod convert;
mod copy;
mod dialect;
mod dims;
mod entries;
mod error;
mod explain;
mod ext;
pub mod fluid;
mod graph;
mod infer;
pub mod layout;
mod model;
mod reduction;
mod small;
mod strided;
mod sym;
#[cfg(test)]
mod test_rng;
mod view;

pub use copy::fold::Reducible;
pub use copy::{set_helper_standby, PlainData};
pub use dialect::einops::Rearrange;
pub use dialect::like::Like;
pub use dialect::lower::OnnxNode;
pub use dialect::mx::{Mx, MxTarget};
pub use dialect::np::Np;
pub use dialect::npx::Npx;
pub use dialect::onnx::Onnx;
pub use dialect::paddle::Paddle;
pub use dialect::{parse_shape, Pack, PackedDim, Ranked, Reduce, ShapeSpec};
pub use dims::Order;
#[doc(inline)]
pub use error::{ErrorContext, Origin, ReshapeError};
pub use explain::{Explanation, Group, GroupKind, PatternExplanation, UnitMoves};
pub use ext::pack;
pub use ext::{IntoDim, ReshapeExt};
pub use graph::{ElemType, OpAttr, ShapeValue};
pub use model::{
    BoundShapes, Graph, GraphCondition, GraphNode, GraphShapes, Inexact, InputDim, NodeAttr,
    TensorData, TensorFact, UnknownOps,
};
pub use reduction::Reduction;
pub use strided::StridedSlice;
pub use sym::{Assumptions, Binding, Condition, SymDim, SymShape, Unify};

/// The traits and types behind the methods' generic parameters: what a spec list, a shape
/// tensor entry, a `reshape_like` right-hand side or an array's storage may be. Code calling
/// the crate rarely names them; they are here for generic code and for reading signatures.
///
/// ```
/// use ndarray_reshape::args::IntoSpecList;
/// use ndarray_reshape::Mx;
///
/// // A converter's helper, generic over every list type the crate accepts.
/// fn mx_node(shape: impl IntoSpecList, reverse: bool) -> Mx {
///     Mx::new(shape).reverse(reverse)
/// }
/// assert_eq!(mx_node([0, -1], false), Mx::new([0, -1]));
/// assert_eq!(mx_node(vec![2i32, -1], true), Mx::new([2, -1]).reverse(true));
/// ```
pub mod args {
    pub use crate::dialect::attrs::{AttrPair, AttrValue};
    pub use crate::dialect::like::IntoLike;
    pub use crate::dialect::IntoSpec;
    pub use crate::entries::{IntoSpecList, ShapeItem, SpecInt, SpecList};
    pub use crate::view::{Borrowed, IntoReshapeClone, IntoReshapeData};
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
