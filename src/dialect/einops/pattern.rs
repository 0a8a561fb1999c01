//! einops' pattern grammar, read exactly as einops 0.8 reads it (`einops/parsing.py` and the
//! checks of `_prepare_transformation_recipe`): each side a list of axes and parenthesized
//! groups, names that are Python identifiers neither starting nor ending with `_`, `1` (any
//! decimal spelling of one) and `()` for a unit axis, other numbers as anonymous axes, and at
//! most one ellipsis a side. A failure names the rule (`bad_pattern`), the pattern, and the
//! character or axis at fault.

use crate::error::{Fail, Rule};

/// Which einops function a pattern is for: `rearrange` (the same axes on both sides),
/// `repeat` (new axes on the right, as broadcasts) or `reduce`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Function {
    Rearrange,
    Repeat,
    /// einops' `reduce`: axes only on the left are reduced.
    Reduce,
}

/// One axis of a side: a name, an anonymous axis (a number of at least 2, distinct from every
/// other, as einops' `AnonymousAxis`), or the ellipsis inside a group (`(...)`, `(a ...)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Axis {
    Name(Box<str>),
    Anon { len: usize, id: usize },
    Ellipsis,
}

/// One entry of a side: a group of axes (one axis is a group of one; `()` and `1` are the
/// empty group, a unit axis), or the ellipsis standing for any number of axes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    Group(Vec<Axis>),
    Ellipsis,
}

/// One side of a pattern, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Side {
    pub items: Vec<Item>,
    /// `Some(parenthesized)` when the side has the ellipsis.
    pub ellipsis: Option<bool>,
    /// `Some(parenthesized)` when the side has a typed `…` (U+2026).
    pub typed: Option<bool>,
    /// Whether `_` is a name that may stand more than once (`parse_shape`).
    pub underscore: bool,
    /// Every axis of the side (names, anonymous axes, the ellipsis), in the order written.
    pub axes: Vec<Axis>,
}

/// The dotted ellipsis (`...`) as one character while a side is read.
const DOTS: char = '\u{1}';

/// A typed ellipsis character (U+2026).
const TYPED: char = '\u{2026}';

impl Side {
    /// The typed `…` of this side read as the ellipsis.
    fn typed_is_ellipsis(&mut self) {
        let typed = Axis::Name(TYPED.to_string().into());
        for a in self.axes.iter_mut().filter(|a| **a == typed) {
            *a = Axis::Ellipsis;
        }
        for item in &mut self.items {
            match item {
                Item::Group(g) if g.len() == 1 && g[0] == typed && self.typed == Some(false) => {
                    *item = Item::Ellipsis;
                }
                Item::Group(g) => g
                    .iter_mut()
                    .filter(|a| **a == typed)
                    .for_each(|a| *a = Axis::Ellipsis),
                Item::Ellipsis => {}
            }
        }
        self.ellipsis = self.typed.take();
    }

    /// Whether the side has a number of at least 2 (einops: `has_non_unitary_anonymous_axes`).
    pub(crate) fn has_anonymous(&self) -> bool {
        self.axes.iter().any(|a| matches!(a, Axis::Anon { .. }))
    }

    pub(crate) fn has(&self, axis: &Axis) -> bool {
        self.axes.contains(axis)
    }
}

/// A whole pattern: the two sides, checked against each other for `op`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    pub left: Side,
    pub right: Side,
}

impl Pattern {
    /// Whether the right side moves an axis of the left or adds one: then the pattern is no
    /// reshape.
    pub(crate) fn permutes(&self) -> bool {
        let kept: Vec<&Axis> = self
            .right
            .axes
            .iter()
            .filter(|a| self.left.has(a))
            .collect();
        kept.len() != self.right.axes.len() || kept.iter().copied().ne(self.left.axes.iter())
    }
}

/// `pattern` read for `op`: each side parsed, then the rules between them, in einops' order
/// (the ellipsis rules, then the identifiers of `op`). Anonymous axes are numbered from 0 across
/// the pattern, so that no two are equal.
pub(crate) fn parse(pattern: &str, op: Function) -> Result<Pattern, Fail> {
    let mut arrows = pattern.match_indices("->");
    let (Some((at, _)), None) = (arrows.next(), arrows.next()) else {
        let n = pattern.matches("->").count();
        let why = match n {
            0 => "a pattern has one -> between its sides; there is none".to_owned(),
            _ => format!("a pattern has one -> between its sides; there are {n}"),
        };
        return Err(Fail::whole(Rule::BadPattern, why));
    };
    let mut anon = 0;
    let left = side(&pattern[..at], 0, &mut anon, false)?;
    let mut right = side(
        &pattern[at + 2..],
        pattern[..at].chars().count() + 2,
        &mut anon,
        false,
    )?;
    // einops reads a typed `…` as its ellipsis: on a side without `...` it has no ellipsis
    // (so `… -> ... 1` fails), yet a right side's `…` is the left side's `...`.
    if left.typed == Some(true) {
        return Err(bad_whole(
            "the left side may not put the ellipsis in parentheses",
        ));
    }
    if left.ellipsis.is_some() && right.typed.is_some() {
        right.typed_is_ellipsis();
    }
    if left.ellipsis.is_none() && right.ellipsis.is_some() {
        return Err(bad_whole("an ellipsis on the right needs one on the left"));
    }
    if left.ellipsis == Some(true) {
        return Err(bad_whole(
            "the left side may not put the ellipsis in parentheses",
        ));
    }
    let one_side = |from: &Side, to: &Side| from.axes.iter().find(|a| !to.has(a)).cloned();
    match op {
        Function::Rearrange => {
            if left.has_anonymous() || right.has_anonymous() {
                return Err(bad_whole(
                    "rearrange takes no numbers other than 1 (anonymous axes are for repeat)",
                ));
            }
            if let Some(a) = one_side(&left, &right).or_else(|| one_side(&right, &left)) {
                return Err(bad_whole(format!(
                    "{} stands on one side only; rearrange keeps every axis",
                    shown(&a)
                )));
            }
        }
        Function::Reduce => {
            if let Some(a) = one_side(&right, &left) {
                return Err(bad_whole(format!(
                    "{} stands on the right only; reduce adds no axis",
                    shown(&a)
                )));
            }
        }
        Function::Repeat => {
            if let Some(a) = one_side(&left, &right) {
                return Err(bad_whole(format!(
                    "{} stands on the left only; repeat keeps every input axis",
                    shown(&a)
                )));
            }
        }
    }
    Ok(Pattern { left, right })
}

/// An axis as the pattern writes it, for messages.
pub(crate) fn shown(a: &Axis) -> String {
    match a {
        Axis::Name(n) => n.to_string(),
        Axis::Anon { len, .. } => format!("the anonymous axis {len}"),
        Axis::Ellipsis => "...".to_owned(),
    }
}

#[cold]
fn bad_whole(why: impl Into<String>) -> Fail {
    Fail::whole(Rule::BadPattern, why)
}

#[cold]
fn bad_at(at: usize, why: impl Into<String>) -> Fail {
    Fail::at(Rule::BadPattern, at, why)
}

/// One side, starting at character `base` of the pattern (positions in failures count
/// characters of the whole pattern).
pub(crate) fn side(
    text: &str,
    base: usize,
    anon: &mut usize,
    underscore: bool,
) -> Result<Side, Fail> {
    if text.contains('.') {
        let dots = text.matches('.').count();
        if !text.contains("...") {
            return Err(bad_whole("dots may stand only in an ellipsis (...)"));
        }
        if text.matches("...").count() != 1 || dots != 3 {
            return Err(bad_whole("one ellipsis (...) a side, and no other dots"));
        }
    }
    let mut s = Side {
        items: Vec::new(),
        ellipsis: None,
        typed: None,
        underscore,
        axes: Vec::new(),
    };
    let mut group: Option<Vec<Axis>> = None;
    let mut word = String::new();
    let mut start = 0;
    // The one `...` (checked above) reads as a single character, `DOTS`. A typed `…` is
    // another character: einops reads it as an ellipsis only where the left side has one
    // written `...` (see `parse`).
    let mut dots = 0;
    for (i, c) in text.chars().enumerate() {
        let at = base + i;
        let c = match c {
            '.' if dots < 2 => {
                dots += 1;
                continue;
            }
            '.' => DOTS,
            DOTS => return Err(bad_at(at, format!("unknown character {c:?}"))),
            c => c,
        };
        if c == '(' || c == ')' || c == ' ' {
            if !word.is_empty() {
                add(&mut s, &mut group, std::mem::take(&mut word), start, anon)?;
            }
            match c {
                '(' if group.is_some() => {
                    return Err(bad_at(at, "groups do not nest (a bracket inside brackets)"))
                }
                '(' => group = Some(Vec::new()),
                ')' => match group.take() {
                    Some(g) => s.items.push(Item::Group(g)),
                    None => return Err(bad_at(at, "a ) without its (")),
                },
                _ => {}
            }
        } else if c.is_alphanumeric() || c == '_' || c == DOTS || c == TYPED {
            if word.is_empty() {
                start = if c == DOTS { at.saturating_sub(2) } else { at };
            }
            word.push(c);
        } else {
            return Err(bad_at(at, format!("unknown character {c:?}")));
        }
    }
    if group.is_some() {
        return Err(bad_whole("a ( without its )"));
    }
    if !word.is_empty() {
        add(&mut s, &mut group, word, start, anon)?;
    }
    Ok(s)
}

/// Add the axis written `word` at character `at` to the side (inside `group` when one is open).
fn add(
    s: &mut Side,
    group: &mut Option<Vec<Axis>>,
    word: String,
    at: usize,
    anon: &mut usize,
) -> Result<(), Fail> {
    let axis = if word.starts_with(DOTS) && word.len() == DOTS.len_utf8() {
        Axis::Ellipsis
    } else if word.starts_with(TYPED) && word.len() == TYPED.len_utf8() {
        // An axis named `…` (an ellipsis only if the left side has `...`: see `parse`).
        s.typed = Some(group.is_some());
        Axis::Name(word.into())
    } else if word == "_" && s.underscore {
        Axis::Name(word.into())
    } else if word.chars().all(|c| c.is_ascii_digit()) {
        match word.parse::<usize>() {
            Ok(1) => {
                // A unit axis; inside a group it changes nothing.
                if group.is_none() {
                    s.items.push(Item::Group(Vec::new()));
                }
                return Ok(());
            }
            Ok(0) => return Err(bad_at(at, format!("anonymous axis {word} is not positive"))),
            Ok(len) => {
                *anon += 1;
                Axis::Anon { len, id: *anon - 1 }
            }
            Err(_) => return Err(bad_at(at, format!("anonymous axis {word} is too long"))),
        }
    } else {
        check_name(&word).map_err(|why| {
            let word = word.replace(DOTS, "...");
            bad_at(at, format!("{word:?} is no axis name: {why}"))
        })?;
        Axis::Name(word.into())
    };
    let typed = Axis::Name(TYPED.to_string().into());
    let twice = match &axis {
        Axis::Ellipsis => s.axes.contains(&typed),
        a if *a == typed => s.ellipsis.is_some(),
        Axis::Name(n) if &**n == "_" => false,
        _ => false,
    };
    if twice || (s.axes.contains(&axis) && axis != Axis::Name("_".into())) {
        return Err(bad_at(
            at,
            format!("{} stands twice on one side", shown(&axis)),
        ));
    }
    s.axes.push(axis.clone());
    match (group, axis) {
        (None, Axis::Ellipsis) => {
            s.ellipsis = Some(false);
            s.items.push(Item::Ellipsis);
        }
        (Some(g), Axis::Ellipsis) => {
            s.ellipsis = Some(true);
            g.push(Axis::Ellipsis);
        }
        (None, a) => s.items.push(Item::Group(vec![a])),
        (Some(g), a) => g.push(a),
    }
    Ok(())
}

/// einops' axis names: Python identifiers that neither start nor end with `_`.
pub(crate) fn check_name(name: &str) -> Result<(), &'static str> {
    let mut chars = name.chars();
    let first = chars.next().ok_or("an empty name")?;
    if !(first.is_alphabetic() || first == '_') || !chars.all(|c| c.is_alphanumeric() || c == '_') {
        return Err("not a Python identifier");
    }
    if name.starts_with('_') || name.ends_with('_') {
        return Err("axis names neither start nor end with _");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(p: &str, op: Function) -> Result<Pattern, String> {
        parse(p, op).map_err(|f| f.detail)
    }

    fn name(n: &str) -> Axis {
        Axis::Name(n.into())
    }

    #[test]
    fn sides_read_as_einops_reads_them() {
        let p = kind("b (h w) c -> b h w c", Function::Rearrange).unwrap();
        assert_eq!(
            p.left.items,
            [
                Item::Group(vec![name("b")]),
                Item::Group(vec![name("h"), name("w")]),
                Item::Group(vec![name("c")]),
            ]
        );
        assert_eq!(p.right.items.len(), 4);
        // `1`, `01` and `()` are unit axes; `1` in a group changes nothing.
        let p = kind("a (b 1) -> a 1 () 01 b", Function::Rearrange).unwrap();
        assert_eq!(p.left.items[1], Item::Group(vec![name("b")]));
        assert_eq!(p.right.items[1], Item::Group(vec![]));
        assert_eq!(p.right.items[2], Item::Group(vec![]));
        assert_eq!(p.right.items[3], Item::Group(vec![]));
        let p = kind("b ... -> b (...)", Function::Rearrange).unwrap();
        assert_eq!(p.left.ellipsis, Some(false));
        assert_eq!(p.right.ellipsis, Some(true));
        assert_eq!(p.left.items[1], Item::Ellipsis);
        // Anonymous axes are all distinct.
        let p = kind("h w -> (h 2) (w 2)", Function::Repeat).unwrap();
        assert!(
            matches!(&p.right.items[0], Item::Group(g) if g[1] == Axis::Anon { len: 2, id: 0 })
        );
        assert!(
            matches!(&p.right.items[1], Item::Group(g) if g[1] == Axis::Anon { len: 2, id: 1 })
        );
        assert!(kind("ß -> ß", Function::Rearrange).is_ok());
    }

    #[test]
    fn every_rule_is_an_error() {
        let bad: &[(&str, Function, &str)] = &[
            ("a b", Function::Rearrange, "there is none"),
            ("a -> b -> c", Function::Rearrange, "there are 2"),
            ("a. -> a", Function::Rearrange, "dots may stand only"),
            ("a ... ... -> a", Function::Rearrange, "one ellipsis"),
            ("a a -> a", Function::Rearrange, "stands twice"),
            ("a 0 -> a", Function::Repeat, "not positive"),
            ("_a -> _a", Function::Rearrange, "neither start nor end"),
            ("a (b (c)) -> a b c", Function::Rearrange, "do not nest"),
            ("a b) -> a b", Function::Rearrange, "without its ("),
            ("(a b -> a b", Function::Rearrange, "without its )"),
            ("a,b -> a b", Function::Rearrange, "unknown character ','"),
            (
                "a -> a ...",
                Function::Rearrange,
                "an ellipsis on the right",
            ),
            ("(a ...) -> a ...", Function::Rearrange, "in parentheses"),
            ("a -> a 2", Function::Rearrange, "takes no numbers"),
            ("a b -> a", Function::Rearrange, "b stands on one side"),
            ("a b -> a", Function::Repeat, "b stands on the left only"),
            (
                "a 2 -> a 2",
                Function::Repeat,
                "anonymous axis 2 stands on the left",
            ),
            (
                "a\tb -> a b",
                Function::Rearrange,
                "unknown character '\\t'",
            ),
            (
                "\u{1}a -> a",
                Function::Rearrange,
                "unknown character '\\u{1}'",
            ),
        ];
        for (p, op, want) in bad {
            let e = kind(p, *op).unwrap_err();
            assert!(e.contains(want), "{p}: {e}");
        }
    }

    #[test]
    fn failures_point_at_the_character() {
        let at = |p: &str| parse(p, Function::Rearrange).unwrap_err().position;
        assert_eq!(at("ab -> ab,"), Some(8)); // on the right: counted from the pattern's start
        assert_eq!(at("...x -> a"), Some(0)); // a word that starts with the ellipsis
        assert_eq!(at("ß ) -> ß"), Some(2)); // characters, not bytes
        let e = parse("a.... -> a", Function::Rearrange).unwrap_err();
        assert!(e.detail.contains("one ellipsis"), "{}", e.detail);
    }
}
