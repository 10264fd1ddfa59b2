//! JSON text of policies and templates in a fixed key order, whatever order
//! `serde_json::Value` keeps its keys in (sorted, or inserted with `preserve_order`).

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// The keys written first, in this order; the others follow, sorted.
const FIRST: &[&str] = &[
    "AWSTemplateFormatVersion",
    "Description",
    "Parameters",
    "Conditions",
    "Resources",
    "Outputs",
    "Version",
    "Statement",
    "Sid",
    "Effect",
    "Action",
    "Resource",
    "Type",
    "Condition",
    "Metadata",
    "Properties",
];

/// A value written with its objects' keys in [`FIRST`] order, then sorted.
struct Ordered<'a>(&'a Value);

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                let rank = |k: &str| FIRST.iter().position(|f| *f == k).unwrap_or(FIRST.len());
                keys.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
                let mut out = serializer.serialize_map(Some(keys.len()))?;
                for key in keys {
                    out.serialize_entry(key, &Ordered(&map[key]))?;
                }
                out.end()
            }
            Value::Array(items) => serializer.collect_seq(items.iter().map(Ordered)),
            other => other.serialize(serializer),
        }
    }
}

/// `value` as indented JSON text, its keys in a fixed order.
pub(crate) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(&Ordered(value)).expect("a JSON value serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_keys_come_first_then_the_rest_sorted() {
        let value = serde_json::json!({
            "Statement": [{"Resource": "r", "Sid": "A", "Effect": "Allow", "b": 1, "a": 2}],
            "Version": "2012-10-17"
        });
        let text = pretty(&value);
        let at = |k: &str| text.find(k).unwrap();
        assert!(at("Version") < at("Statement"), "{text}");
        assert!(
            at("Sid") < at("Effect") && at("Effect") < at("Resource"),
            "{text}"
        );
        assert!(
            at("Resource") < at("\"a\"") && at("\"a\"") < at("\"b\""),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
}
