//! Method names: an index alias → its query method.

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

/// The query method of an index alias: `by_` + snake_case(alias), unless the snake-case
/// alias already starts with `by_` (`ByCategory` → `by_category`, not `by_by_category`).
pub fn alias_method(alias: &str) -> String {
    let snake = snake_case(alias);
    if snake.starts_with("by_") {
        snake
    } else {
        format!("by_{snake}")
    }
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
    fn alias_methods_start_with_one_by() {
        assert_eq!(alias_method("TeamDueDate"), "by_team_due_date");
        assert_eq!(alias_method("ByCategory"), "by_category");
        assert_eq!(alias_method("byEmail"), "by_email");
        assert_eq!(alias_method("by_owner"), "by_owner");
        assert_eq!(alias_method("Category"), "by_category");
        // Only a whole `by` word counts.
        assert_eq!(alias_method("Bypass"), "by_bypass");
        assert_eq!(alias_method("By"), "by_by");
    }
}
