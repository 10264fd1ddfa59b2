//! `StringLike` patterns of partition keys: literal text, `*`, and principal-tag variables;
//! written as IAM reads them, and tested for whether two can match one key.

/// One piece of a [`Glob`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// Text matched as it is (`*`, `?` and `$` are escaped when written).
    Lit(String),
    /// Any text (`*`).
    Star,
    /// The value of a principal tag (`${aws:PrincipalTag/<tag>}`).
    Tag(String),
}

/// A `StringLike` pattern of a key, kept in parts so that it can be written and compared.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Glob(pub(crate) Vec<Part>);

impl Glob {
    /// A pattern of literal text alone.
    pub(crate) fn lit(text: &str) -> Self {
        let mut glob = Glob::default();
        glob.push_lit(text);
        glob
    }

    /// Append literal text.
    pub(crate) fn push_lit(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Part::Lit(last)) => last.push_str(text),
            _ => self.0.push(Part::Lit(text.to_owned())),
        }
    }

    /// The same pattern followed by `part`.
    pub(crate) fn with(mut self, part: Part) -> Self {
        match part {
            Part::Lit(text) => self.push_lit(&text),
            other => self.0.push(other),
        }
        self
    }

    /// The pattern as a `StringLike` value: literal `*`, `?` and `$` written as IAM's
    /// `${*}`, `${?}` and `${$}`, tags as `${aws:PrincipalTag/<tag>}`.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Lit(text) => out.push_str(&escape(text)),
                Part::Star => out.push('*'),
                Part::Tag(tag) => {
                    out.push_str("${aws:PrincipalTag/");
                    out.push_str(tag);
                    out.push('}');
                }
            }
        }
        out
    }

    /// The tags the pattern names, in order, each once.
    pub(crate) fn tags(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for part in &self.0 {
            if let Part::Tag(tag) = part {
                if !out.contains(&tag.as_str()) {
                    out.push(tag);
                }
            }
        }
        out
    }

    /// Whether some key matches both patterns, whatever the tags hold (a tag matches any
    /// text, as `*` does).
    pub(crate) fn overlaps(&self, other: &Glob) -> bool {
        let (a, b) = (self.pieces(), other.pieces());
        match (a.len(), b.len()) {
            // Both literal: the same text.
            (1, 1) => a == b,
            (1, _) => matches(&a[0], &b),
            (_, 1) => matches(&b[0], &a),
            // With a `*` each: some text starts with both heads and ends with both tails
            // (the longer head, every middle piece of both, the longer tail).
            _ => {
                let (ha, hb) = (&a[0], &b[0]);
                let (ta, tb) = (&a[a.len() - 1], &b[b.len() - 1]);
                (ha.starts_with(hb.as_str()) || hb.starts_with(ha.as_str()))
                    && (ta.ends_with(tb.as_str()) || tb.ends_with(ta.as_str()))
            }
        }
    }

    /// The literal pieces between wildcards (a tag is one): `n + 1` pieces for `n`
    /// wildcards, empty where two wildcards meet or at an end.
    fn pieces(&self) -> Vec<String> {
        let mut out = vec![String::new()];
        for part in &self.0 {
            match part {
                Part::Lit(text) => out.last_mut().expect("one piece").push_str(text),
                Part::Star | Part::Tag(_) => out.push(String::new()),
            }
        }
        out
    }
}

/// Whether literal `text` matches the pattern of `pieces` (two or more: a wildcard between
/// each two).
fn matches(text: &str, pieces: &[String]) -> bool {
    let (head, tail) = (&pieces[0], &pieces[pieces.len() - 1]);
    if text.len() < head.len() + tail.len() || !text.starts_with(head.as_str()) {
        return false;
    }
    if !text.ends_with(tail.as_str()) {
        return false;
    }
    // Each middle piece, leftmost first, in what lies between the head and the tail.
    let mut rest = &text[head.len()..text.len() - tail.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece.as_str()) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// `text` for a `StringLike` value, matched as it is: `*`, `?` and `$` written as IAM's
/// special variables `${*}`, `${?}` and `${$}`.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' => out.push_str("${*}"),
            '?' => out.push_str("${?}"),
            '$' => out.push_str("${$}"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(text: &str) -> Glob {
        // `*` a wildcard, `%` a tag, the rest literal.
        let mut g = Glob::default();
        for c in text.chars() {
            g = match c {
                '*' => g.with(Part::Star),
                '%' => g.with(Part::Tag("team".to_owned())),
                c => g.with(Part::Lit(c.to_string())),
            };
        }
        g
    }

    #[test]
    fn literals_are_escaped_and_tags_are_variables() {
        let g = Glob::lit("$unique#A*?")
            .with(Part::Tag("team".into()))
            .with(Part::Lit("_".into()))
            .with(Part::Star);
        assert_eq!(g.render(), "${$}unique#A${*}${?}${aws:PrincipalTag/team}_*");
        assert_eq!(g.tags(), ["team"]);
        assert_eq!(Glob::lit("a").with(Part::Lit("b".into())).0.len(), 1);
    }

    #[test]
    fn overlaps_are_found() {
        let yes = [
            ("#T_*", "#T_%"),
            ("#T_*", "#T_a_*"),
            ("#T_%_*", "#T_*"),
            ("*", "#USER_%"),
            ("#T", "#T"),
            ("#T_a", "#T_*"),
            ("#T_a_b", "*_*_*"),
            ("ab*ba", "a*a"),
            ("#A_*_x", "#A_%"),
        ];
        for (a, b) in yes {
            assert!(glob(a).overlaps(&glob(b)), "{a} {b}");
            assert!(glob(b).overlaps(&glob(a)), "{b} {a}");
        }
        let no = [
            ("#USER_*", "#TEAM_%"),
            ("#T", "#T_%"),
            ("#T", "#U"),
            ("#T_*_x", "#T_%_y"),
            ("#T_a", "#T_*_*"),
            ("#T_ab", "#T_*b*c"),
            ("#T_x", "#T_*y*"),
        ];
        for (a, b) in no {
            assert!(!glob(a).overlaps(&glob(b)), "{a} {b}");
            assert!(!glob(b).overlaps(&glob(a)), "{b} {a}");
        }
    }
}
