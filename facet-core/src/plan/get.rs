//! The plan of a `GetItem`.

use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;

use super::query::render_projection;
use crate::item::Item;
use crate::names::Placeholders;

/// A planned GetItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct GetPlan {
    /// The key (`PK`, `SK`).
    pub key: Item,
    /// Strongly consistent read.
    pub consistent_read: bool,
    /// The attributes to read (`None`: the whole item).
    pub projection: Option<Vec<&'static str>>,
}

impl GetPlan {
    /// Render as the SDK's `GetItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> GetItemInputBuilder {
        let mut p = Placeholders::new();
        let projection = render_projection(self.projection.as_deref(), &mut p);
        let (names, _) = p.into_parts();
        GetItemInput::builder()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .set_consistent_read(self.consistent_read.then_some(true))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
    }
}
