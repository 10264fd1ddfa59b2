//! Placeholder allocation for DynamoDB expressions.
//!
//! Every attribute name and value in an expression is passed through
//! `ExpressionAttributeNames` / `ExpressionAttributeValues`, so no field name or value is
//! ever spliced into expression text.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

/// Names and values referenced by one request's expressions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placeholders {
    /// Attribute name → its `#nN` placeholder.
    names: HashMap<String, String>,
    /// Member name (a step inside an attribute) → its `#mN` placeholder: kept apart from
    /// attribute names, which a table with names of its own renames, and members it does
    /// not.
    members: HashMap<String, String>,
    /// `:vN` placeholder → value.
    values: HashMap<String, AttributeValue>,
}

impl Placeholders {
    /// No placeholders yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `#nN` placeholder for attribute `name` (one per distinct name).
    pub fn name(&mut self, name: &str) -> String {
        if let Some(p) = self.names.get(name) {
            return p.clone();
        }
        let p = format!("#n{}", self.names.len());
        self.names.insert(name.to_owned(), p.clone());
        p
    }

    /// The `#mN` placeholder for member `name`, a step inside an attribute (one per distinct
    /// name).
    pub fn member(&mut self, name: &str) -> String {
        if let Some(p) = self.members.get(name) {
            return p.clone();
        }
        let p = format!("#m{}", self.members.len());
        self.members.insert(name.to_owned(), p.clone());
        p
    }

    /// Whether `placeholder` names a member inside an attribute (`#mN`), not an attribute.
    pub fn is_member(placeholder: &str) -> bool {
        placeholder.starts_with("#m")
    }

    /// A fresh `:vN` placeholder holding `value`.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let p = format!(":v{}", self.values.len());
        self.values.insert(p.clone(), value);
        p
    }

    /// The attribute names registered, in no particular order.
    pub fn attribute_names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// Split into (`ExpressionAttributeNames`, `ExpressionAttributeValues`), each `None` when
    /// empty, as DynamoDB requires.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        Option<HashMap<String, String>>,
        Option<HashMap<String, AttributeValue>>,
    ) {
        // ExpressionAttributeNames maps placeholder → attribute name.
        let names = (!self.names.is_empty() || !self.members.is_empty()).then(|| {
            self.names
                .into_iter()
                .chain(self.members)
                .map(|(name, p)| (p, name))
                .collect()
        });
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_shared_values_are_not() {
        let mut p = Placeholders::new();
        assert_eq!(p.name("PK"), "#n0");
        assert_eq!(p.name("SK"), "#n1");
        assert_eq!(p.name("PK"), "#n0");
        assert_eq!(p.value(AttributeValue::S("a".into())), ":v0");
        assert_eq!(p.value(AttributeValue::S("a".into())), ":v1");
        let (names, values) = p.into_parts();
        assert_eq!(names.unwrap().len(), 2);
        assert_eq!(values.unwrap().len(), 2);
    }
}
