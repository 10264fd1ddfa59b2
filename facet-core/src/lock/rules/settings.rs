//! Table settings: safe, unless a protection of the table's data is switched off.

use super::effects::{review, safe};
use crate::lock::report::Effect;

/// One setting as a change shows it.
pub(crate) fn setting_text(value: Option<&serde_json::Value>) -> Option<String> {
    value.map(|v| v.to_string())
}

/// Whether a setting named `name` (a path of keys: `protection.deletion`) protects the
/// table's data: deletion protection or point-in-time recovery.
fn is_protection(name: &str) -> bool {
    let plain: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    ["deletionprotection", "pointintimerecovery", "pitr"]
        .iter()
        .any(|p| plain.contains(p))
}

/// The effects of a change of setting `name`.
pub(crate) fn setting(
    name: &str,
    before: Option<&serde_json::Value>,
    after: Option<&serde_json::Value>,
) -> Vec<Effect> {
    let on = |v: Option<&serde_json::Value>| match v {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(serde_json::Value::Null) | None => false,
        Some(serde_json::Value::String(s)) => !matches!(
            s.to_ascii_lowercase().as_str(),
            "" | "false" | "off" | "disabled"
        ),
        Some(_) => true,
    };
    if is_protection(name) && on(before) && !on(after) {
        return vec![review(format!(
            "`{name}` is switched off: the table loses a protection of its data; make sure \
             that is meant"
        ))];
    }
    vec![safe(
        "applied to the table that exists by applying the settings (`UpdateTable`)",
    )]
}
