//! A process that infers shapes for one model after another holds the forms of the values it
//! keeps, not of every model it has seen: the recorded corpus run round after round, each
//! round's models with symbol names of their own, in a process of its own (so that no other
//! test's values are counted).

use std::process::Command;

use ndarray_reshape::SymDim;

use crate::shapegraphs::{check_named, records, Outcome};

const CHILD: &str = "NDARRAY_RESHAPE_MEMORY_CHILD";

#[test]
fn forms_come_back_after_each_model() {
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "memory::rounds", "--ignored", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("memory rounds:"),
        "the child ran no rounds: {text}"
    );
}

/// The workload, run by [`forms_come_back_after_each_model`] in a process of its own.
#[test]
#[ignore = "run in a process of its own by forms_come_back_after_each_model"]
fn rounds() {
    let recs: Vec<_> = records().into_iter().filter_map(|(_, r)| r.ok()).collect();
    SymDim::release_caches();
    let before = SymDim::live_forms();
    let (mut kept, mut left) = (Vec::new(), Vec::new());
    for round in 0..4 {
        let suffix = format!("_{round}");
        let resolved = recs
            .iter()
            .filter(|r| matches!(check_named(r, &suffix), Outcome::Resolved(_)))
            .count();
        assert_eq!(resolved, recs.len(), "round {round}");
        // What the caches keep (bounded), then nothing once they let go: every form of the
        // round's models went with their values.
        kept.push(SymDim::live_forms() - before);
        SymDim::release_caches();
        left.push(SymDim::live_forms() - before);
    }
    eprintln!("memory rounds: forms the caches kept after each round {kept:?}, left after releasing them {left:?}");
    assert!(
        kept.iter().all(|&k| k > 0),
        "the caches kept nothing: {kept:?}"
    );
    if std::env::var_os(CHILD).is_some() {
        assert!(
            left.iter().all(|&n| n == 0),
            "forms outlive their values: {left:?}"
        );
    }
}
