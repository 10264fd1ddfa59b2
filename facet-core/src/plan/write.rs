//! The plans of single writes: `PutItem`, `UpdateItem`, `DeleteItem`.

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::ReturnValue;

use super::condition::{condition_text, split_condition, RenderedCondition};
use crate::item::Item;
use crate::names::Placeholders;

/// What an update returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returning {
    /// Nothing.
    Nothing,
    /// The whole record as it was before.
    Old,
    /// The whole record as it is after.
    New,
}

/// A planned UpdateItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatePlan {
    /// The key (`PK`, `SK`).
    pub key: Item,
    /// The `UpdateExpression`.
    pub update: String,
    /// The `ConditionExpression`.
    pub condition: Option<String>,
    /// The names and values both expressions use.
    pub placeholders: Placeholders,
    /// What to return.
    pub returning: Returning,
}

impl UpdatePlan {
    /// Plan an update of the item under `key`: `update`, applied only when an item exists
    /// under the key (an update never creates a partial record) and `when` holds.
    pub fn new<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        when: Option<&crate::expr::Expr<F>>,
        returning: Returning,
    ) -> Result<Self, crate::expr::ExprError> {
        Self::conditioned(key, update, returning, |p| {
            condition_text(Some(true), when, None, p)
        })
    }

    /// Plan an update that creates the item under `key`: applied only when no item exists
    /// under the key.
    pub fn for_missing<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        returning: Returning,
    ) -> Result<Self, crate::expr::ExprError> {
        Self::conditioned(key, update, returning, |p| {
            condition_text::<F>(Some(false), None, None, p)
        })
    }

    /// Plan an update that may create the item under `key`: applied when no item exists
    /// under the key, or when `guard` holds for the stored one.
    pub fn creating<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        guard: Option<&crate::expr::Expr<F>>,
        returning: Returning,
    ) -> Result<Self, crate::expr::ExprError> {
        Self::conditioned(key, update, returning, |p| {
            let Some(guard) = guard else { return Ok(None) };
            let pk = p.name(crate::schema::PK);
            let guard = guard.render(p)?;
            Ok(Some(format!("attribute_not_exists({pk}) OR ({guard})")))
        })
    }

    /// `update` with the condition `condition` renders (after the update's placeholders).
    fn conditioned<F>(
        key: Item,
        update: &crate::expr::Update<F>,
        returning: Returning,
        condition: impl FnOnce(&mut Placeholders) -> Result<Option<String>, crate::expr::ExprError>,
    ) -> Result<Self, crate::expr::ExprError> {
        let mut placeholders = Placeholders::new();
        let update = update.render(&mut placeholders)?;
        let condition = condition(&mut placeholders)?;
        Ok(UpdatePlan {
            key,
            update,
            condition,
            placeholders,
            returning,
        })
    }

    /// Render as the SDK's `UpdateItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> UpdateItemInputBuilder {
        let (names, values) = self.placeholders.clone().into_parts();
        // Nothing returned is DynamoDB's default: not sent.
        let returning = match self.returning {
            Returning::Nothing => None,
            Returning::Old => Some(ReturnValue::AllOld),
            Returning::New => Some(ReturnValue::AllNew),
        };
        UpdateItemInput::builder()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .update_expression(self.update.clone())
            .set_condition_expression(self.condition.clone())
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .set_return_values(returning)
    }
}

/// A planned PutItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct PutPlan {
    /// The full item.
    pub item: Item,
    /// The condition the write depends on.
    pub condition: Option<RenderedCondition>,
}

impl PutPlan {
    /// Render as the SDK's `PutItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> PutItemInputBuilder {
        let (expr, names, values) = split_condition(self.condition.clone());
        PutItemInput::builder()
            .table_name(table)
            .set_item(Some(self.item.clone()))
            .set_condition_expression(expr)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
    }
}

/// A planned DeleteItem request.
#[derive(Debug, Clone, PartialEq)]
pub struct DeletePlan {
    /// The key (`PK`, `SK`).
    pub key: Item,
    /// The condition the delete depends on.
    pub condition: Option<RenderedCondition>,
}

impl DeletePlan {
    /// Render as the SDK's `DeleteItemInput` builder for `table`, ready for `send_with`.
    pub fn request(&self, table: &str) -> DeleteItemInputBuilder {
        let (expr, names, values) = split_condition(self.condition.clone());
        DeleteItemInput::builder()
            .table_name(table)
            .set_key(Some(self.key.clone()))
            .set_condition_expression(expr)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
    }
}
