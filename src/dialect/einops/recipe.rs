//! A pattern against an input rank and the given lengths, as einops'
//! `_prepare_transformation_recipe` and `_reconstruct_from_shape` compute it: the elementary
//! axes (each input dim split into its group's axes, then the axes `repeat` adds), and which of
//! them make each output dim.

use super::pattern::{check_name, shown, Axis, Function, Item, Pattern};
use crate::error::{Fail, Rule};
use crate::infer::Extent;
use crate::layout::Arrangement;
use crate::small::Small;

/// An elementary axis: a pattern axis, or the `i`-th axis the ellipsis stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Axis(Axis),
    Ellipsis(usize),
}

impl Key {
    fn shown(&self) -> String {
        match self {
            Key::Axis(a) => shown(a),
            Key::Ellipsis(i) => format!("...[{i}]"),
        }
    }
}

/// The recipe of one pattern for one input rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recipe {
    keys: Vec<Key>,
    /// The known length of each elementary axis (`None`: inferred from its input dim).
    lens: Vec<Option<usize>>,
    /// The elementary axes of each input dim, in order, and the group as written.
    left: Vec<(Vec<usize>, String)>,
    /// The elementary axes of each output dim, in order.
    right: Vec<Vec<usize>>,
    /// How many elementary axes come from the input (the rest are new, from `repeat`).
    from_input: usize,
    /// Each elementary axis of the input: its input dim and its index in that dim's group.
    at: Vec<Option<(usize, usize)>>,
}

impl Recipe {
    /// The recipe of `pattern` for `op` on an input of rank `ndim`, with the `given` lengths.
    pub(crate) fn new(
        pattern: &Pattern,
        op: Function,
        given: &[(Box<str>, usize)],
        ndim: usize,
    ) -> Result<Recipe, Fail> {
        let (left, right) = (&pattern.left, &pattern.right);
        if op == Function::Repeat {
            let missing = right.axes.iter().find(|a| match a {
                Axis::Name(n) => !left.has(a) && !given.iter().any(|(g, _)| g == n),
                _ => false,
            });
            if let Some(a) = missing {
                return Err(Fail::whole(
                    Rule::BadPattern,
                    format!("the new axis {} needs a length", shown(a)),
                ));
            }
        }
        let others = left.items.len() - usize::from(left.ellipsis.is_some());
        let ellipsis = match left.ellipsis {
            Some(_) if ndim < others => return Err(rank(format!("at least {others}"), ndim)),
            Some(_) => ndim - others,
            None if ndim != others => return Err(rank(others.to_string(), ndim)),
            None => 0,
        };
        let mut r = Recipe {
            keys: Vec::new(),
            lens: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            from_input: 0,
            at: Vec::new(),
        };
        for item in &left.items {
            match item {
                Item::Ellipsis => {
                    for i in 0..ellipsis {
                        let id = r.push(Key::Ellipsis(i), None);
                        r.left.push((vec![id], "...".to_owned()));
                    }
                }
                Item::Group(g) => {
                    let ids = g.iter().map(|a| r.push_axis(a)).collect();
                    r.left.push((ids, written(g)));
                }
            }
        }
        r.from_input = r.keys.len();
        r.at = vec![None; r.from_input];
        for (dim, (ids, _)) in r.left.iter().enumerate() {
            for (k, &id) in ids.iter().enumerate() {
                r.at[id] = Some((dim, k));
            }
        }
        for a in &right.axes {
            if *a != Axis::Ellipsis && r.find(&Key::Axis(a.clone())).is_none() {
                r.push_axis(a);
            }
        }
        for (name, len) in given {
            if let Err(why) = check_name(name) {
                let why = format!("a length is given to {name:?}, which is no axis name: {why}");
                return Err(Fail::whole(Rule::AxisLength, why));
            }
            match r.find(&Key::Axis(Axis::Name(name.clone()))) {
                Some(id) => r.lens[id] = Some(*len),
                None => {
                    let why =
                        format!("a length is given to {name}, which the pattern does not have");
                    return Err(Fail::whole(Rule::AxisLength, why));
                }
            }
        }
        for (i, (ids, text)) in r.left.iter().enumerate() {
            let unknown: Vec<String> = ids
                .iter()
                .filter(|&&id| r.lens[id].is_none())
                .map(|&id| r.keys[id].shown())
                .collect();
            if unknown.len() > 1 {
                let why = format!(
                    "the group {text} leaves {} unknown; give all lengths of a group but one",
                    unknown.join(" and ")
                );
                return Err(Fail::at(Rule::MultipleInfer, i, why));
            }
        }
        for item in &right.items {
            let group = match item {
                Item::Ellipsis => {
                    for i in 0..ellipsis {
                        let id = r.find(&Key::Ellipsis(i));
                        r.right.push(id.into_iter().collect());
                    }
                    continue;
                }
                Item::Group(g) => g,
            };
            let mut ids = Vec::with_capacity(group.len());
            for a in group {
                match a {
                    Axis::Ellipsis => {
                        ids.extend((0..ellipsis).filter_map(|i| r.find(&Key::Ellipsis(i))))
                    }
                    a => ids.extend(r.find(&Key::Axis(a.clone()))),
                }
            }
            r.right.push(ids);
        }
        Ok(r)
    }

    fn find(&self, key: &Key) -> Option<usize> {
        self.keys.iter().position(|k| k == key)
    }

    fn push(&mut self, key: Key, len: Option<usize>) -> usize {
        self.keys.push(key);
        self.lens.push(len);
        self.keys.len() - 1
    }

    fn push_axis(&mut self, a: &Axis) -> usize {
        let len = match a {
            Axis::Anon { len, .. } => Some(*len),
            _ => None,
        };
        self.push(Key::Axis(a.clone()), len)
    }

    /// The length of every elementary axis for `input`: each input dim's group lengths
    /// inferred as a reshape of that dim with at most one `-1` (so the failures and conditions
    /// are the dialects').
    fn lengths<E: Extent>(&self, input: &[E], conds: &mut E::Conds) -> Result<Small<E>, Fail> {
        let mut lens: Small<E> = Small::with_capacity(self.lens.len());
        for l in &self.lens {
            lens.push(E::lit(l.map_or(1, len_of)));
        }
        let mut group: Small<E> = Small::new();
        for (i, (ids, text)) in self.left.iter().enumerate() {
            group.clear();
            let mut infer = None;
            for (k, &id) in ids.iter().enumerate() {
                if self.lens[id].is_none() {
                    infer = Some(k);
                }
                group.push(lens[id].clone());
            }
            E::finish(&mut group, infer, input[i].clone(), conds).map_err(|f| Fail {
                position: Some(i),
                detail: format!("input dim {i} ({}) as {text}: {}", input[i], f.detail),
                ..f
            })?;
            for (k, &id) in ids.iter().enumerate() {
                lens[id] = group[k].clone();
            }
        }
        Ok(lens)
    }

    /// The output shape for `input` into `dims`: each output group's product. A rearrangement
    /// or repeat keeps the size (checked, with its conditions); a reduction (`reduced`) keeps
    /// only its kept axes.
    pub(crate) fn output<E: Extent>(
        &self,
        input: &[E],
        dims: &mut Small<E>,
        reduced: bool,
    ) -> Result<E::Conds, Fail> {
        let mut conds = E::Conds::default();
        let lens = self.lengths(input, &mut conds)?;
        match reduced {
            true => self.groups(&lens, dims),
            false => self.output_of(input, &lens, dims, &mut conds)?,
        }
        Ok(conds)
    }

    /// [`output`](Self::output) from the elementary lengths `lens` of `input`.
    fn output_of<E: Extent>(
        &self,
        input: &[E],
        lens: &[E],
        dims: &mut Small<E>,
        conds: &mut E::Conds,
    ) -> Result<(), Fail> {
        let mut size = E::size(input, conds)?;
        for len in &lens[self.from_input..] {
            size = size.merge(len.clone());
        }
        self.groups(lens, dims);
        E::finish(dims, None, size, conds)
    }

    /// Each output group's product of the elementary lengths `lens`, into `dims`.
    fn groups<E: Extent>(&self, lens: &[E], dims: &mut Small<E>) {
        dims.clear();
        for ids in &self.right {
            dims.push(
                ids.iter()
                    .fold(E::lit(1), |p, &id| p.merge(lens[id].clone())),
            );
        }
    }

    /// The output shape for `input` into `dims` and the arrangement that reads it, from one
    /// inference of the elementary lengths: the plan of a reshape by the pattern.
    pub(crate) fn plan(
        &self,
        input: &[usize],
        dims: &mut Small<usize>,
        arranged: &mut Option<Arrangement>,
    ) -> Result<(), Fail> {
        let lens = self.lengths(input, &mut ())?;
        self.output_of(input, &lens, dims, &mut ())?;
        let a = arranged.get_or_insert_with(Arrangement::default);
        self.arrange(&lens, a);
        Ok(())
    }

    /// The input's axes split into the elementary axes (of lengths `lens`) and put in their
    /// order on the right, with the axes `repeat` adds, into `a`: what the output merges,
    /// group by group, in C order.
    fn arrange(&self, lens: &[usize], a: &mut Arrangement) {
        a.shape.clear();
        a.from.clear();
        for &id in self.right.iter().flatten() {
            a.shape.push(lens[id]);
            a.from.push(self.source(lens, id));
        }
    }

    /// Where the elementary axis `id` comes from: its input dim and the product of the lengths
    /// after it in its group (its stride in units of the input dim's stride); `None` for an
    /// axis `repeat` adds.
    fn source(&self, lens: &[usize], id: usize) -> Option<(usize, usize)> {
        let (dim, k) = self.at.get(id).copied().flatten()?;
        let ids = &self.left[dim].0;
        let inner = ids[k + 1..]
            .iter()
            .fold(1usize, |p, &j| p.saturating_mul(lens[j]));
        Some((dim, inner))
    }

    /// What a pattern does to `input` (`PatternExplanation`): the elementary axes' names and
    /// lengths in input order, the permutation of those on the right, the arrangement, and
    /// the output shape.
    pub(crate) fn explanation(
        &self,
        input: &[usize],
    ) -> Result<crate::explain::PatternExplanation, Fail> {
        let lens = self.lengths(input, &mut ())?;
        let mut dims = Small::new();
        self.output_of(input, &lens, &mut dims, &mut ())?;
        let mut arrangement = Arrangement::default();
        self.arrange(&lens, &mut arrangement);
        let names = self.keys[..self.from_input]
            .iter()
            .map(Key::shown)
            .collect();
        let permutation = self
            .right
            .iter()
            .flatten()
            .copied()
            .filter(|&id| id < self.from_input)
            .collect();
        Ok(crate::explain::PatternExplanation::new(
            input,
            names,
            lens[..self.from_input].to_vec(),
            permutation,
            arrangement,
            &dims,
        ))
    }

    /// The plan of a reduction of `input`: its output shape into `dims`, the input's axes split
    /// into the elementary axes in input order into `split`, and the split axes kept, in their
    /// order on the right, into `kept` (the others are reduced).
    pub(crate) fn reduction(
        &self,
        input: &[usize],
        dims: &mut Small<usize>,
        split: &mut Arrangement,
        kept: &mut Small<usize>,
    ) -> Result<(), Fail> {
        self.output(input, dims, true)?;
        let lens = self.lengths(input, &mut ())?;
        split.shape.clear();
        split.from.clear();
        for id in 0..self.from_input {
            split.shape.push(lens[id]);
            split.from.push(self.source(&lens, id));
        }
        kept.clear();
        for &id in self.right.iter().flatten() {
            kept.push(id);
        }
        Ok(())
    }
}

/// A given length as a spec value (lengths past `i64` saturate, then overflow).
fn len_of(l: usize) -> i64 {
    i64::try_from(l).unwrap_or(i64::MAX)
}

/// A group as the pattern writes it: `b`, `(h w)`, `(c 2)`, `()`.
fn written(g: &[Axis]) -> String {
    let raw = |a: &Axis| match a {
        Axis::Name(n) => n.to_string(),
        Axis::Anon { len, .. } => len.to_string(),
        Axis::Ellipsis => "...".to_owned(),
    };
    let names: Vec<String> = g.iter().map(raw).collect();
    match g.len() {
        1 => names[0].clone(),
        _ => format!("({})", names.join(" ")),
    }
}

#[cold]
fn rank(expected: String, ndim: usize) -> Fail {
    Fail::whole(
        Rule::PatternRank,
        format!("the left side names {expected} dims, the input has {ndim}"),
    )
}
