//! Key text for types that implement `Serialize` (used by `#[derive(KeyPart)]`).

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

/// Append the key text of a value that serializes to a string, a number or a boolean
/// (a unit enum variant serializes to its serde name).
pub fn write_serde_key<T: Serialize + ?Sized>(value: &T, out: &mut String) -> Result<(), String> {
    match serde_dynamo::to_attribute_value::<_, AttributeValue>(value) {
        Ok(AttributeValue::S(s)) => out.push_str(&s),
        Ok(AttributeValue::N(n)) => out.push_str(&n),
        Ok(AttributeValue::Bool(b)) => out.push_str(if b { "true" } else { "false" }),
        Ok(other) => {
            return Err(format!(
                "it serializes to {other:?}; only strings, numbers, booleans and unit enum \
                 variants can stand in a key"
            ))
        }
        Err(e) => return Err(e.to_string()),
    }
    Ok(())
}
