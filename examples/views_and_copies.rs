//! When a reshape is a view and when it is a copy: strided inputs (transposed, stepped,
//! reversed, broadcast), the strict mode refusing to copy, and a mutable view writing through.
//!
//! Run with `cargo run --example views_and_copies`.

use ndarray::{s, Array};
use ndarray_reshape::{layout, Mx, Np, Order, ReshapeError, ReshapeExt};

fn main() -> Result<(), ReshapeError> {
    let x = Array::from_iter(0..24)
        .into_shape_with_order((4, 6))
        .unwrap();
    println!("x: shape {:?}, strides {:?}", x.shape(), x.strides());

    let cases = [
        ("x", x.view()),
        ("x.t()", x.t()),
        ("x[.., ..;2]", x.slice(s![.., ..;2])),
        ("x[..;-1, ..]", x.slice(s![..;-1, ..])),
        ("x[.., ..;-1]", x.slice(s![.., ..;-1])),
    ];
    for (name, v) in &cases {
        for (spec, order) in [
            (vec![-1i64], Order::C),
            (vec![-1], Order::F),
            (vec![2, 2, -1], Order::C),
        ] {
            let y = v.reshape_np(spec.as_slice(), order)?;
            let solver = layout::view_strides(v.shape(), v.strides(), y.shape(), order);
            println!(
                "  {name:<13} strides {:<9} -> {spec:?} order {order:?}: {} {}",
                format!("{:?}", v.strides()),
                if y.is_view() { "view, strides" } else { "copy" },
                solver.map(|s| format!("{s:?}")).unwrap_or_default()
            );
        }
    }

    // A broadcast row (stride 0) is a view as long as the broadcast axis stays whole.
    let row = Array::from_iter(0..3);
    let b = row.broadcast((4, 3)).unwrap();
    println!(
        "broadcast (4, 3) strides {:?} -> (2, 2, 3): view {}; -> (12,): view {}",
        b.strides(),
        b.reshape_np([2, 2, 3], Order::C)?.is_view(),
        b.reshape_np([12], Order::C)?.is_view()
    );

    // The strict mode never copies.
    let t = x.t();
    match t.reshape_view(Np::new([-1], Order::C)) {
        Err(e @ ReshapeError::NeedsCopy(_)) => println!("expected error (strict): {e}"),
        other => println!("unexpected: {other:?}"),
    }

    // A mutable view writes through to the original, even through negative strides.
    let mut m = Array::from_iter(0..24)
        .into_shape_with_order((4, 6))
        .unwrap();
    {
        let mut rev = m.slice_mut(s![..;-1, ..]);
        // Merging the reversed rows with the columns would need a copy ...
        let refused = rev.reshape_view_mut(Mx::new([-1, 3])).is_err();
        println!("mutable view of reversed rows as (-1, 3): refused = {refused}");
        // ... splitting the columns does not.
        let mut v = rev.reshape_view_mut(Mx::new([0, -4, 2, 3]))?;
        println!(
            "as (0, -4, 2, 3): shape {:?}, strides {:?}",
            v.shape(),
            v.strides()
        );
        v[[0, 0, 0]] = -1; // the first element of the reversed view: m[3, 0]
    }
    println!(
        "after writing through the mutable view: m[3, 0] = {}",
        m[[3, 0]]
    );
    Ok(())
}
