//! The README's "In 30 seconds" snippet, verbatim between the markers: compiled and run here,
//! and linted by `.ci/run`'s clippy with warnings denied, as a user's crate would lint it.
//! `.ci/run` checks that the lines between the markers are the README's block.

// README snippet begins
use ndarray::Array;
use ndarray_reshape::{Mx, Order, ReshapeExt, ShapeSpec};

fn main() -> Result<(), ndarray_reshape::ReshapeError> {
    let x = Array::from_iter(0..24)
        .into_shape_with_order((2, 3, 4))
        .unwrap();

    let y = x.reshape_mx([-4, 1, 2, -2])?; // MXNet: split, then copy the rest
    assert_eq!(y.shape(), &[1, 2, 3, 4]);
    assert!(y.is_view()); // same data, no copy

    assert_eq!(x.reshape_paddle([0, -1])?.shape(), &[2, 12]); // Paddle

    // NumPy on a transpose: C order needs a copy, F order reads the original buffer.
    let t = x.t();
    assert!(!t.reshape_np([-1], Order::C)?.is_view());
    assert!(t.reshape_np([-1], Order::F)?.is_view());

    // Shapes only, no data (graph compilers):
    assert_eq!(
        Mx::new([-1, 0]).reverse(true).infer_shape(&[10, 5, 4])?,
        vec![50, 4]
    );
    Ok(())
}
// README snippet ends

#[test]
fn readme_snippet_runs() {
    main().unwrap();
}
