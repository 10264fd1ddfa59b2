//! Request JSON written straight from attribute values, as DynamoDB's JSON protocol
//! (`application/x-amz-json-1.0`) spells them: `{"S":"…"}`, `{"N":"…"}`, `{"B":"<base64>"}`,
//! `{"M":{…}}`, …

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;

/// A JSON object under construction: members are written in turn, separated by commas.
pub(crate) struct Object<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Object<'a> {
    /// Open an object at the end of `out`.
    pub(crate) fn open(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Object { out, first: true }
    }

    /// Write the name of the next member; its value follows.
    pub(crate) fn key(&mut self, name: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        string(self.out, name);
        self.out.push(b':');
        self.out
    }

    /// A string member, when set.
    pub(crate) fn text(&mut self, name: &str, value: Option<&str>) {
        if let Some(value) = value {
            string(self.key(name), value);
        }
    }

    /// A boolean member, when set.
    pub(crate) fn boolean(&mut self, name: &str, value: Option<bool>) {
        if let Some(value) = value {
            self.key(name)
                .extend_from_slice(if value { b"true" } else { b"false" });
        }
    }

    /// An integer member, when set.
    pub(crate) fn integer(&mut self, name: &str, value: Option<i32>) {
        if let Some(value) = value {
            let out = self.key(name);
            out.extend_from_slice(value.to_string().as_bytes());
        }
    }

    /// A member holding a map of strings, when set.
    pub(crate) fn names(&mut self, name: &str, value: Option<&HashMap<String, String>>) {
        if let Some(value) = value {
            let mut names = Object::open(self.key(name));
            for (k, v) in value {
                string(names.key(k), v);
            }
            names.close();
        }
    }

    /// A member holding an item (or key, or expression values), when set. `None` when one of
    /// its values is of a kind this SDK does not know.
    pub(crate) fn item(
        &mut self,
        name: &str,
        value: Option<&HashMap<String, AttributeValue>>,
    ) -> Option<()> {
        match value {
            Some(value) => item(self.key(name), value),
            None => Some(()),
        }
    }

    /// Close the object.
    pub(crate) fn close(self) {
        self.out.push(b'}');
    }
}

/// A JSON string.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(out, s).expect("writing to a vector cannot fail");
}

/// An item: a map of attribute values.
pub(crate) fn item(out: &mut Vec<u8>, item: &HashMap<String, AttributeValue>) -> Option<()> {
    let mut object = Object::open(out);
    for (name, value) in item {
        self::value(object.key(name), value)?;
    }
    object.close();
    Some(())
}

/// A list of strings.
fn strings<'s>(out: &mut Vec<u8>, values: impl IntoIterator<Item = &'s str>) {
    out.push(b'[');
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, v);
    }
    out.push(b']');
}

/// One attribute value. `None` for a kind this SDK does not know (`Unknown`).
pub(crate) fn value(out: &mut Vec<u8>, value: &AttributeValue) -> Option<()> {
    let b64 = |b: &aws_sdk_dynamodb::primitives::Blob| {
        base64::engine::general_purpose::STANDARD.encode(b.as_ref())
    };
    let mut object = Object::open(out);
    match value {
        AttributeValue::S(s) => string(object.key("S"), s),
        AttributeValue::N(n) => string(object.key("N"), n),
        AttributeValue::B(b) => string(object.key("B"), &b64(b)),
        AttributeValue::Bool(b) => object.boolean("BOOL", Some(*b)),
        AttributeValue::Null(b) => object.boolean("NULL", Some(*b)),
        AttributeValue::Ss(v) => strings(object.key("SS"), v.iter().map(String::as_str)),
        AttributeValue::Ns(v) => strings(object.key("NS"), v.iter().map(String::as_str)),
        AttributeValue::Bs(v) => {
            let texts: Vec<String> = v.iter().map(b64).collect();
            strings(object.key("BS"), texts.iter().map(String::as_str))
        }
        AttributeValue::M(m) => item(object.key("M"), m)?,
        AttributeValue::L(l) => {
            let out = object.key("L");
            out.push(b'[');
            for (i, v) in l.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                self::value(out, v)?;
            }
            out.push(b']');
        }
        _ => return None,
    }
    object.close();
    Some(())
}
