//! Name conversions: serde's `rename_all` rules and alias → method names.

/// The serialized name of a field under serde's `rename_all` rule (as serde applies it to
/// snake_case field names).
pub fn rename_field(field: &str, rule: Option<&str>) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    match rule {
        Some("lowercase") => field.to_ascii_lowercase(),
        Some("UPPERCASE") => field.to_ascii_uppercase(),
        Some("PascalCase") => pascal(field),
        Some("camelCase") => {
            let p = pascal(field);
            let mut chars = p.chars();
            match chars.next() {
                Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                None => p,
            }
        }
        Some("SCREAMING_SNAKE_CASE") => field.to_ascii_uppercase(),
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.to_ascii_uppercase().replace('_', "-"),
        _ => field.to_owned(),
    }
}

/// The serialized name of an enum variant (PascalCase in Rust) under serde's `rename_all`
/// rule, as serde applies it to variants.
pub fn rename_variant(variant: &str, rule: Option<&str>) -> String {
    let variant = variant.strip_prefix("r#").unwrap_or(variant);
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
    match rule {
        Some("lowercase") => variant.to_ascii_lowercase(),
        Some("UPPERCASE") => variant.to_ascii_uppercase(),
        Some("camelCase") => {
            let mut chars = variant.chars();
            match chars.next() {
                Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        }
        Some("snake_case") => snake(),
        Some("SCREAMING_SNAKE_CASE") => snake().to_ascii_uppercase(),
        Some("kebab-case") => snake().replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => snake().to_ascii_uppercase().replace('_', "-"),
        _ => variant.to_owned(),
    }
}

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

/// `GSITeamDueDate` → `gsi_team_due_date`; other characters become `_`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake() {
        assert_eq!(snake_case("GSITeamDueDate"), "gsi_team_due_date");
        assert_eq!(
            snake_case("GSIUserStatusCreated"),
            "gsi_user_status_created"
        );
        assert_eq!(snake_case("byEmail"), "by_email");
        assert_eq!(snake_case("team-members"), "team_members");
        assert_eq!(snake_case("Status2Date"), "status2_date");
    }

    #[test]
    fn serde_rules() {
        assert_eq!(rename_field("team_id", Some("camelCase")), "teamId");
        assert_eq!(rename_field("team_id", Some("PascalCase")), "TeamId");
        assert_eq!(
            rename_field("team_id", Some("SCREAMING_SNAKE_CASE")),
            "TEAM_ID"
        );
        assert_eq!(rename_field("team_id", Some("kebab-case")), "team-id");
        assert_eq!(rename_field("r#type", None), "type");
        assert_eq!(rename_field("pk", Some("UPPERCASE")), "PK");
    }

    #[test]
    fn serde_variant_rules() {
        assert_eq!(rename_variant("InReview", Some("lowercase")), "inreview");
        assert_eq!(rename_variant("InReview", Some("camelCase")), "inReview");
        assert_eq!(rename_variant("InReview", Some("snake_case")), "in_review");
        assert_eq!(
            rename_variant("InReview", Some("SCREAMING_SNAKE_CASE")),
            "IN_REVIEW"
        );
        assert_eq!(rename_variant("InReview", Some("kebab-case")), "in-review");
        assert_eq!(rename_variant("InReview", None), "InReview");
    }
}
