//! Sampling, cropping and folding images: `GridSample`, `AffineGrid`, `RoiAlign`, `Col2Im`,
//! `CenterCropPad`, `MaxUnpool`.

use super::{dim, Node, Out, S};
use crate::error::Rule;
use crate::sym::SymDim;

/// `GridSample(X, grid)`: `[N, C]` then the grid's dims between its batch and its last.
pub(crate) fn grid_sample(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, g) = (n.shape(0)?, n.shape(1)?);
    if x.len() < 3 || g.len() != x.len() {
        let why = format!("X of rank {} with a grid of rank {}", x.len(), g.len());
        return Err(n.fail(Rule::RankMismatch, Some(1), why));
    }
    let mut out = vec![
        n.same(&x[0], &g[0], "the batch of X and of the grid")?,
        x[1].clone(),
    ];
    out.extend(g[1..g.len() - 1].iter().cloned());
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `AffineGrid(theta, size)`: `[N, H, W, 2]` for a size `[N, C, H, W]`, `[N, D, H, W, 3]` for
/// `[N, C, D, H, W]`.
pub(crate) fn affine_grid(n: &Node<'_>) -> S<Vec<Out>> {
    let size = n.sizes(1, "the size is computed from data")?;
    if size.len() < 4 {
        return Err(n.fail(
            Rule::BadValue,
            Some(1),
            "size is not [N, C, spatial...]".into(),
        ));
    }
    let mut out = vec![size[0].clone()];
    out.extend(size[2..].iter().cloned());
    out.push(SymDim::from(size.len() - 2));
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `RoiAlign(X, rois, batch_indices)`: `[rois, C, output_height, output_width]`.
pub(crate) fn roi_align(n: &Node<'_>) -> S<Vec<Out>> {
    let (x, rois) = (n.shape(0)?, n.shape(1)?);
    let (Some(c), Some(r)) = (x.get(1), rois.first()) else {
        return Err(n.fail(Rule::ValueRank, None, "X or rois of too low a rank".into()));
    };
    let h = dim(n, n.int_or("output_height", 1)?, "output_height")?;
    let w = dim(n, n.int_or("output_width", 1)?, "output_width")?;
    Ok(vec![Out::new(n.elem(0), vec![r.clone(), c.clone(), h, w])])
}

/// `Col2Im(input, image_shape, block_shape)`: `[N, C, image...]`, `C` the input's second dim
/// over the block's size.
pub(crate) fn col2im(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape_of_rank(0, 3, "[N, C*block, L]")?;
    let (image, block) = (
        n.sizes(1, "the image shape is computed from data")?,
        n.value(2)?,
    );
    let per = block
        .entries()
        .iter()
        .fold(SymDim::from(1), |a, d| a * d.clone());
    let mut out = vec![
        x[0].clone(),
        n.exact_div(&x[1], &per, "channels over the block's size")?,
    ];
    out.extend(image);
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `CenterCropPad(input, shape, axes)`: the axes cropped or padded to the shape.
pub(crate) fn center_crop_pad(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    let shape = n.sizes(1, "the shape is computed from data")?;
    let axes = match n.ints("axes")? {
        Some(a) => n.axes(&a, x.len())?,
        None => (0..x.len()).collect(),
    };
    if shape.len() != axes.len() {
        let why = format!("{} sizes for {} axes", shape.len(), axes.len());
        return Err(n.fail(Rule::LengthMismatch, Some(1), why));
    }
    let mut out = x.to_vec();
    for (j, &a) in axes.iter().enumerate() {
        out[a] = shape[j].clone();
    }
    Ok(vec![Out::new(n.elem(0), out)])
}

/// `MaxUnpool(X, I, output_shape)`: the output shape where given, else each spatial dim
/// `(x - 1)*s + k - pads`.
pub(crate) fn max_unpool(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape(0)?;
    if n.opt(2).is_some() {
        return Ok(vec![Out::new(
            n.elem(0),
            n.sizes(2, "the output shape is computed from data")?,
        )]);
    }
    let spatial = x.len().saturating_sub(2);
    let kernel = n
        .ints("kernel_shape")?
        .ok_or_else(|| n.c.missing("kernel_shape"))?;
    let strides = n.ints("strides")?.unwrap_or_else(|| vec![1; spatial]);
    let pads = n.ints("pads")?.unwrap_or_else(|| vec![0; 2 * spatial]);
    if kernel.len() != spatial || strides.len() != spatial || pads.len() != 2 * spatial {
        let why = format!("kernel_shape, strides and pads for {spatial} spatial dims");
        return Err(n.fail(Rule::LengthMismatch, None, why));
    }
    let mut out = x[..2.min(x.len())].to_vec();
    for i in 0..spatial {
        let k = |v: i64| SymDim::int(v);
        let extra = kernel[i] - strides[i] - pads[i] - pads[i + spatial];
        out.push(x[i + 2].clone() * k(strides[i]) + k(extra));
    }
    Ok(vec![Out::new(n.elem(0), out)])
}
