//! serde's `rename_all` rules, in the manner of serde_derive's `internals::case`.

use std::str::FromStr;

use self::RenameRule::*;

/// One of serde's `rename_all` rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    /// `lowercase`.
    Lower,
    /// `UPPERCASE`.
    Upper,
    /// `PascalCase`.
    Pascal,
    /// `camelCase`.
    Camel,
    /// `snake_case`.
    Snake,
    /// `SCREAMING_SNAKE_CASE`.
    ScreamingSnake,
    /// `kebab-case`.
    Kebab,
    /// `SCREAMING-KEBAB-CASE`.
    ScreamingKebab,
}

/// Every rule with its name in `#[serde(rename_all = "..")]`, in serde's order.
const RULES: [(&str, RenameRule); 8] = [
    ("lowercase", Lower),
    ("UPPERCASE", Upper),
    ("PascalCase", Pascal),
    ("camelCase", Camel),
    ("snake_case", Snake),
    ("SCREAMING_SNAKE_CASE", ScreamingSnake),
    ("kebab-case", Kebab),
    ("SCREAMING-KEBAB-CASE", ScreamingKebab),
];

impl FromStr for RenameRule {
    type Err = ();

    /// The rule named `name`, as written in `rename_all = ".."`.
    fn from_str(name: &str) -> Result<Self, ()> {
        RULES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, rule)| *rule)
            .ok_or(())
    }
}

impl RenameRule {
    /// The names of every rule, comma-separated, for an error listing them.
    pub fn names() -> String {
        RULES.map(|(name, _)| name).join(", ")
    }

    /// The serialized name of a snake_case field under this rule.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Lower => field.to_ascii_lowercase(),
            Snake => field.to_owned(),
            Upper | ScreamingSnake => field.to_ascii_uppercase(),
            Pascal => pascal(field),
            Camel => {
                let p = pascal(field);
                let mut chars = p.chars();
                match chars.next() {
                    Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => p,
                }
            }
            Kebab => field.replace('_', "-"),
            ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// The serialized name of a PascalCase enum variant under this rule.
    pub fn apply_to_variant(self, variant: &str) -> String {
        let snake = || {
            let mut out = String::with_capacity(variant.len() + 4);
            for (i, c) in variant.char_indices() {
                if i > 0 && c.is_uppercase() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            }
            out
        };
        match self {
            Lower => variant.to_ascii_lowercase(),
            Upper => variant.to_ascii_uppercase(),
            Pascal => variant.to_owned(),
            Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            Snake => snake(),
            ScreamingSnake => snake().to_ascii_uppercase(),
            Kebab => snake().replace('_', "-"),
            ScreamingKebab => snake().to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// The serialized name of a field (a raw identifier loses its `r#`) under `rule`, if any.
pub fn rename_field(field: &str, rule: Option<RenameRule>) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    rule.map_or_else(|| field.to_owned(), |r| r.apply_to_field(field))
}

/// The serialized name of an enum variant (a raw identifier loses its `r#`) under `rule`.
pub fn rename_variant(variant: &str, rule: Option<RenameRule>) -> String {
    let variant = variant.strip_prefix("r#").unwrap_or(variant);
    rule.map_or_else(|| variant.to_owned(), |r| r.apply_to_variant(variant))
}

/// `team_id` → `TeamId`.
fn pascal(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut upper = true;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(name: &str) -> Option<RenameRule> {
        Some(name.parse().expect("a serde rule"))
    }

    #[test]
    fn serde_rules() {
        assert_eq!(rename_field("team_id", rule("camelCase")), "teamId");
        assert_eq!(rename_field("team_id", rule("PascalCase")), "TeamId");
        assert_eq!(
            rename_field("team_id", rule("SCREAMING_SNAKE_CASE")),
            "TEAM_ID"
        );
        assert_eq!(rename_field("team_id", rule("kebab-case")), "team-id");
        assert_eq!(rename_field("r#type", None), "type");
        assert_eq!(rename_field("pk", rule("UPPERCASE")), "PK");
    }

    #[test]
    fn serde_variant_rules() {
        assert_eq!(rename_variant("InReview", rule("lowercase")), "inreview");
        assert_eq!(rename_variant("InReview", rule("camelCase")), "inReview");
        assert_eq!(rename_variant("InReview", rule("snake_case")), "in_review");
        assert_eq!(
            rename_variant("InReview", rule("SCREAMING_SNAKE_CASE")),
            "IN_REVIEW"
        );
        assert_eq!(rename_variant("InReview", rule("kebab-case")), "in-review");
        assert_eq!(rename_variant("InReview", None), "InReview");
    }

    #[test]
    fn every_rule_parses_by_its_name() {
        for (name, rule) in RULES {
            assert_eq!(name.parse(), Ok(rule));
        }
        assert_eq!("Camel".parse::<RenameRule>(), Err(()));
    }
}
