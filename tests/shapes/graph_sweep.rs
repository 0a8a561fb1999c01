//! Random small graphs through the whole-graph walk (`tests/common/graphs.rs`): no panic, and
//! every symbolic success agrees with the concrete walk at random bindings, conditions
//! included both ways.

use super::graphs::{check, graph, Found, Pick};
use super::rng::Rng;

impl Pick for Rng {
    fn below(&mut self, n: usize) -> usize {
        Rng::below(self, n)
    }
}

#[test]
fn random_graphs_agree_with_their_concrete_walks() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut walked, mut failed, mut found) = (0, Vec::new(), Found::default());
    let rounds = if cfg!(miri) {
        20
    } else {
        std::env::var("SWEEP_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3000)
    };
    for round in 0..rounds {
        let g = graph(&mut rng, 6);
        let bindings: Vec<[usize; 3]> = (0..4)
            .map(|_| [1 + rng.below(8), 1 + rng.below(8), 1 + rng.below(8)])
            .collect();
        walked += usize::from(g.infer(&Default::default()).is_ok());
        if let Err(e) = check(&g, &bindings, &mut found) {
            failed.push(format!("round {round}: {e}\n{:?}", g.nodes()));
        }
    }
    println!(
        "graph sweep: {rounds} graphs, {walked} walked symbolically, {} disagree, {} bindings where a condition is stricter than the concrete rules",
        failed.len(),
        found.stricter.len()
    );
    for s in found.stricter.iter().take(3) {
        println!("  stricter: {s}");
    }
    assert!(
        walked > rounds / 4,
        "only {walked} of {rounds} random graphs walked"
    );
    assert!(
        failed.is_empty(),
        "{}",
        failed[..failed.len().min(5)].join("\n\n")
    );
}
