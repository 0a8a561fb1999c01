//! Recurrent layers: `LSTM`, `GRU`, `RNN` (every output, `layout`, directions) and
//! onnxruntime's `DynamicQuantizeLSTM`.

use super::{dim, Node, Out, S};
use crate::error::Rule;
use crate::sym::SymDim;

/// `Y`, `Y_h` (and `LSTM`'s `Y_c`): `[seq, dirs, batch, H]` and `[dirs, batch, H]` with
/// `layout` 0, `[batch, seq, dirs, H]` and `[batch, dirs, H]` with `layout` 1. `H` is
/// `hidden_size`, or `R`'s last dim.
pub(crate) fn recurrent(n: &Node<'_>) -> S<Vec<Out>> {
    let x = n.shape_of_rank(0, 3, "[seq, batch, input]")?;
    let dirs = match n.string("direction")?.unwrap_or("forward") {
        "forward" | "reverse" => SymDim::from(1),
        "bidirectional" => SymDim::from(2),
        other => {
            let why = format!("direction {other} is not forward, reverse or bidirectional");
            return Err(n.fail(Rule::BadAttribute, None, why));
        }
    };
    let hidden = match n.int("hidden_size")? {
        Some(h) => dim(n, h, "hidden_size")?,
        None if n.c.op == "DynamicQuantizeLSTM" => return Err(n.c.missing("hidden_size").into()),
        None => n
            .shape(2)?
            .last()
            .cloned()
            .ok_or_else(|| n.c.missing("hidden_size"))?,
    };
    let layout = n.int_or("layout", 0)?;
    let (seq, batch) = match layout {
        0 => (&x[0], &x[1]),
        _ => (&x[1], &x[0]),
    };
    let (y, state) = match layout {
        0 => (
            vec![seq.clone(), dirs.clone(), batch.clone(), hidden.clone()],
            vec![dirs, batch.clone(), hidden],
        ),
        _ => (
            vec![batch.clone(), seq.clone(), dirs.clone(), hidden.clone()],
            vec![batch.clone(), dirs, hidden],
        ),
    };
    let e = n.elem(0);
    Ok(vec![
        Out::new(e, y),
        Out::new(e, state.clone()),
        Out::new(e, state),
    ])
}
