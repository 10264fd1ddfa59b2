//! Document paths: an attribute and the steps into it (map members, list elements), and the
//! constant path tail a nested field handle carries ([`Nest`]).

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::names::Placeholders;

/// The deepest nesting of `#[derive(Nested)]` members a field handle reaches (deeper
/// members are reached with `member::<U>(name)`).
pub const NEST_DEPTH: usize = 6;

/// One step below an attribute: a map member or a list element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    Member(Cow<'static, str>),
    Index(usize),
}

/// A document path: an attribute and the steps into it (`address.city`, `tags[0]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    root: &'static str,
    steps: Vec<Segment>,
}

impl Path {
    /// The path of a whole attribute.
    pub(crate) fn new(root: &'static str) -> Self {
        Path {
            root,
            steps: Vec::new(),
        }
    }

    /// This path, one step further.
    pub(crate) fn child(&self, step: Segment) -> Path {
        let mut steps = Vec::with_capacity(self.steps.len() + 1);
        steps.extend(self.steps.iter().cloned());
        steps.push(step);
        Path {
            root: self.root,
            steps,
        }
    }

    /// The top-level attribute the path starts at.
    pub fn root(&self) -> &'static str {
        self.root
    }

    /// The steps into the attribute.
    pub(crate) fn steps(&self) -> &[Segment] {
        &self.steps
    }

    /// Whether the path is a whole attribute (no step into it).
    pub fn is_top_level(&self) -> bool {
        self.steps.is_empty()
    }

    /// `#n0.#n1[2]`.
    pub(crate) fn render(&self, p: &mut Placeholders) -> String {
        let mut out = p.name(self.root);
        for step in &self.steps {
            match step {
                Segment::Member(name) => {
                    out.push('.');
                    out.push_str(&p.member(name));
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }

    /// Whether one path is the other or lies inside it (DynamoDB refuses two actions on
    /// overlapping paths).
    pub(crate) fn overlaps(&self, other: &Path) -> bool {
        self.root == other.root && self.steps.iter().zip(&other.steps).all(|(a, b)| a == b)
    }

    /// The value at this path in `item` (a stored item, or the record an update creates):
    /// `None` when an attribute, member or element on the way is missing.
    #[doc(hidden)]
    pub fn find<'i>(&self, item: &'i crate::item::Item) -> Option<&'i AttributeValue> {
        let mut at = item.get(self.root)?;
        for step in &self.steps {
            at = match (step, at) {
                (Segment::Member(name), AttributeValue::M(m)) => m.get(name.as_ref())?,
                (Segment::Index(i), AttributeValue::L(l)) => l.get(*i)?,
                _ => return None,
            };
        }
        Some(at)
    }
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.root)?;
        for step in &self.steps {
            match step {
                Segment::Member(name) => write!(f, ".{name}")?,
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// The member names from a field's attribute down to a nested member, kept in a fixed array
/// so that field handles stay `Copy` and build in `const` code (`Facet::fields()`).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nest {
    names: [&'static str; NEST_DEPTH],
    len: u8,
}

impl Nest {
    /// No step: a whole attribute.
    pub(crate) const TOP: Nest = Nest {
        names: [""; NEST_DEPTH],
        len: 0,
    };

    /// One member further down. Past [`NEST_DEPTH`] members this fails when the handles are
    /// built, which the derive makes happen at compile time.
    pub(crate) const fn child(self, name: &'static str) -> Nest {
        let mut names = self.names;
        let len = self.len as usize;
        assert!(
            len < NEST_DEPTH,
            "a #[nested] member lies more than 6 maps deep; reach deeper members with \
             `.member::<T>(\"name\")`"
        );
        names[len] = name;
        Nest {
            names,
            len: self.len + 1,
        }
    }

    /// Whether there is no step.
    pub(crate) const fn is_top(&self) -> bool {
        self.len == 0
    }

    /// The path from `root` through these members.
    pub(crate) fn path(&self, root: &'static str) -> Path {
        Path {
            root,
            steps: self.names[..self.len as usize]
                .iter()
                .map(|n| Segment::Member(Cow::Borrowed(*n)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_display_and_find() {
        let p = Nest::TOP.child("address").child("city").path("profile");
        assert_eq!(p.to_string(), "profile.address.city");
        let mut names = Placeholders::new();
        assert_eq!(p.render(&mut names), "#n0.#m0.#m1");
        let tags = Path::new("tags").child(Segment::Index(1));
        assert_eq!(tags.to_string(), "tags[1]");
        let item: crate::item::Item = [
            (
                "profile".to_owned(),
                AttributeValue::M(
                    [(
                        "address".to_owned(),
                        AttributeValue::M(
                            [("city".to_owned(), AttributeValue::S("Oslo".into()))].into(),
                        ),
                    )]
                    .into(),
                ),
            ),
            (
                "tags".to_owned(),
                AttributeValue::L(vec![
                    AttributeValue::S("a".into()),
                    AttributeValue::S("b".into()),
                ]),
            ),
        ]
        .into();
        assert_eq!(p.find(&item), Some(&AttributeValue::S("Oslo".into())));
        assert_eq!(tags.find(&item), Some(&AttributeValue::S("b".into())));
        assert_eq!(Path::new("tags").child(Segment::Index(2)).find(&item), None);
        assert!(p.overlaps(&Path::new("profile")));
        assert!(!p.overlaps(&Path::new("tags")));
    }

    #[test]
    #[should_panic(expected = "more than 6 maps deep")]
    fn nests_stop_at_their_depth() {
        let mut n = Nest::TOP;
        for _ in 0..=NEST_DEPTH {
            n = n.child("x");
        }
    }
}
