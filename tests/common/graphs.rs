//! Random small ONNX graphs for the whole-graph walk, and the check every one must pass: the
//! symbolic walk never panics, and where it succeeds, at every binding of its input symbols the
//! rules' own concrete walk (the inputs' dims fixed to the numbers) succeeds exactly when every
//! condition holds, and gives the shapes the symbolic dims evaluate to. Shared by the sweep in
//! `tests/shapes/graph_sweep.rs` and the `graph` fuzz target.

use ndarray_reshape::{Assumptions, ElemType, Graph, GraphNode, InputDim, OpAttr, TensorData};

/// A source of choices: the sweep's generator or the fuzzer's bytes.
pub trait Pick {
    /// A number in `0..n` (`n >= 1`).
    fn below(&mut self, n: usize) -> usize;

    fn one<'a, T>(&mut self, of: &'a [T]) -> &'a T {
        &of[self.below(of.len())]
    }

    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
}

const SYMBOLS: &[&str] = &["A", "B", "C"];

/// A graph of one or two float inputs (dims: symbols or small numbers) and up to `nodes`
/// nodes, each reading tensors made before it; the symbols it uses.
pub fn graph(p: &mut impl Pick, nodes: usize) -> Graph {
    let mut g = Graph::new(*p.one(&[13i64, 17, 18, 21]));
    let mut names: Vec<String> = Vec::new();
    for i in 0..1 + p.below(2) {
        let rank = 1 + p.below(4);
        let dims: Vec<InputDim> = (0..rank)
            .map(|_| match p.below(3) {
                0 => InputDim::Known(1 + p.below(4)),
                _ => InputDim::named(SYMBOLS[p.below(SYMBOLS.len())]),
            })
            .collect();
        let name = format!("x{i}");
        g.input(&name, ElemType::FLOAT, dims);
        names.push(name);
    }
    for k in 0..1 + p.below(nodes) {
        let out = format!("t{k}");
        let a = p.one(&names).clone();
        let b = p.one(&names).clone();
        let ints = |g: &mut Graph, name: &str, v: Vec<i64>| {
            let t = TensorData::new(ElemType::INT64, [v.len()]).with_ints(&v);
            g.initializer(name, t);
        };
        let node = match p.below(16) {
            0 => GraphNode::new("Relu", [a], [&out]),
            1 => GraphNode::new(["Add", "Mul"][p.below(2)], [a, b], [&out]),
            2 => GraphNode::new("MatMul", [a, b], [&out]),
            3 => {
                let perm: Vec<i64> = match p.below(3) {
                    0 => vec![1, 0],
                    1 => vec![0, 2, 1],
                    _ => vec![0, 2, 3, 1],
                };
                GraphNode::new("Transpose", [a], [&out]).attr("perm", OpAttr::from(perm))
            }
            4 => {
                let target = p
                    .one(&[
                        &[-1i64][..],
                        &[0, -1],
                        &[2, -1],
                        &[-1, 2],
                        &[0, 0, -1],
                        &[1, -1, 0],
                    ])
                    .to_vec();
                let t = format!("{out}.shape");
                ints(&mut g, &t, target);
                GraphNode::new("Reshape", [a, t], [&out])
            }
            5 => {
                // A target the graph computes: [x.shape[i], -1].
                let (s, i, u, t) = (
                    format!("{out}.s"),
                    format!("{out}.i"),
                    format!("{out}.u"),
                    format!("{out}.t"),
                );
                let at = TensorData::new(ElemType::INT64, []).with_ints([p.int(-1, 1)]);
                g.initializer(&i, at);
                ints(&mut g, &format!("{out}.axes"), vec![0]);
                ints(&mut g, &format!("{out}.rest"), vec![-1]);
                g.node(GraphNode::new("Shape", [&a], [&s]));
                g.node(
                    GraphNode::new("Gather", [&s, &i], [&format!("{out}.g")])
                        .attr("axis", OpAttr::from(0)),
                );
                g.node(GraphNode::new(
                    "Unsqueeze",
                    [format!("{out}.g"), format!("{out}.axes")],
                    [&u],
                ));
                g.node(
                    GraphNode::new("Concat", [&u, &format!("{out}.rest")], [&t])
                        .attr("axis", OpAttr::from(0)),
                );
                GraphNode::new("Reshape", [a, t], [&out])
            }
            6 => GraphNode::new("Concat", [a, b], [&out]).attr("axis", OpAttr::from(p.int(-2, 1))),
            7 => {
                let (st, en) = (format!("{out}.st"), format!("{out}.en"));
                ints(&mut g, &st, vec![p.int(-3, 2)]);
                ints(&mut g, &en, vec![*p.one(&[-1i64, 1, 2, 3, i64::MAX])]);
                let (ax, sp) = (format!("{out}.ax"), format!("{out}.sp"));
                ints(&mut g, &ax, vec![p.int(-1, 1)]);
                ints(&mut g, &sp, vec![*p.one(&[1i64, 2, -1])]);
                GraphNode::new("Slice", [a, st, en, ax, sp], [&out])
            }
            8 => {
                let axes = format!("{out}.axes");
                ints(&mut g, &axes, vec![p.int(0, 1)]);
                GraphNode::new("Unsqueeze", [a, axes], [&out])
            }
            9 => GraphNode::new("Flatten", [a], [&out]).attr("axis", OpAttr::from(p.int(0, 2))),
            10 => {
                let w = format!("{out}.w");
                let c = 1 + p.below(3);
                g.initializer(
                    &w,
                    TensorData::new(ElemType::FLOAT, [2, c, 1 + p.below(3), 1 + p.below(3)]),
                );
                let pad = p.int(0, 1);
                GraphNode::new("Conv", [a, w], [&out])
                    .attr("strides", OpAttr::from(vec![p.int(1, 2), p.int(1, 2)]))
                    .attr("pads", OpAttr::from(vec![pad; 4]))
            }
            11 => {
                let k = p.int(1, 3);
                GraphNode::new("MaxPool", [a], [&out])
                    .attr("kernel_shape", OpAttr::from(vec![k, k]))
                    .attr("strides", OpAttr::from(vec![p.int(1, 3), p.int(1, 3)]))
                    .attr(
                        "pads",
                        OpAttr::from(vec![p.int(0, k - 1), 0, p.int(0, k - 1), 0]),
                    )
                    .attr("ceil_mode", OpAttr::from(p.int(0, 1)))
            }
            12 => {
                let axes = format!("{out}.axes");
                ints(&mut g, &axes, vec![p.int(-1, 0)]);
                GraphNode::new("ReduceSum", [a, axes], [&out])
                    .attr("keepdims", OpAttr::from(p.int(0, 1)))
            }
            13 => {
                let shape = format!("{out}.shape");
                ints(
                    &mut g,
                    &shape,
                    (0..1 + p.below(3)).map(|_| p.int(1, 3)).collect(),
                );
                GraphNode::new("Expand", [a, shape], [&out])
            }
            14 => {
                let pads = format!("{out}.pads");
                ints(&mut g, &pads, vec![p.int(0, 2), p.int(-1, 1)]);
                GraphNode::new("Pad", [a, pads], [&out])
            }
            _ => {
                let scales = format!("{out}.scales");
                let s = *p.one(&[0.5, 1.0, 1.5, 2.0, 3.0]);
                g.initializer(
                    &scales,
                    TensorData::new(ElemType::FLOAT, [2]).with_floats([1.0, s]),
                );
                GraphNode::new("Resize", [a, String::new(), scales], [&out])
            }
        };
        g.node(node);
        names.push(out);
    }
    g
}

/// What a check found short of a disagreement.
#[derive(Default)]
pub struct Found {
    /// Bindings where a condition fails but the concrete walk succeeds: a condition stricter
    /// than the rules need (a symbolic reshape entry must be at least 1, since 0 and -1 are
    /// codes; a resize's f32 rounding bound).
    pub stricter: Vec<String>,
}

/// The check: `Err` with what disagrees (a condition that holds where the concrete walk
/// fails, or a dim that evaluates to another size).
pub fn check(g: &Graph, bindings: &[[usize; 3]], found: &mut Found) -> Result<(), String> {
    let Ok(sym) = g.infer(&Assumptions::new()) else {
        return Ok(());
    };
    for b in bindings {
        let pairs: Vec<(&str, usize)> = SYMBOLS.iter().copied().zip(b.iter().copied()).collect();
        let mut fixed = g.clone();
        for (s, v) in &pairs {
            fixed.fix(s, *v);
        }
        let conc = fixed.infer(&Assumptions::new());
        let failing = sym
            .conditions()
            .iter()
            .find(|c| c.condition().holds(&pairs) == Some(false));
        match (failing, conc) {
            (Some(c), Ok(_)) => found.stricter.push(format!(
                "{} (node {}) fails at {pairs:?}, yet the concrete walk succeeds",
                c.condition(),
                c.node()
            )),
            (Some(_), Err(_)) => {}
            (None, Err(e)) => return Err(format!("every condition holds at {pairs:?}, yet: {e}")),
            (None, Ok(conc)) => {
                for (name, fact) in sym.tensors() {
                    let (Some(dims), Some(want)) =
                        (fact.shape(), conc.fact(name).and_then(|f| f.shape()))
                    else {
                        continue;
                    };
                    let fresh = dims
                        .iter()
                        .any(|d| d.symbols().iter().any(|s| !SYMBOLS.contains(s)));
                    if fresh {
                        continue;
                    }
                    let got: Option<Vec<usize>> = dims.iter().map(|d| d.eval(&pairs)).collect();
                    let want: Option<Vec<usize>> = want.iter().map(|d| d.known()).collect();
                    if got != want || got.is_none() {
                        return Err(format!(
                            "{name}: {fact} at {pairs:?} is {got:?}, the concrete walk {want:?}"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
