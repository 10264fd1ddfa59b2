//! [`NativeQuery`]: one partition of a native (multi-attribute) index, and its sort
//! conditions, typed per field in the order DynamoDB accepts them.
//!
//! ```no_run
//! # use faceteer::{Facet, Table};
//! # use serde::{Deserialize, Serialize};
//! #[derive(Facet, Serialize, Deserialize)]
//! #[facet(gsi(n = 1, native, alias = "ByQueue", pk(fields(team, status)), sk(fields(priority, due))))]
//! struct Ticket {
//!     #[pk(prefix = "#TEAM")] team: String,
//!     #[sk(prefix = "#TICKET")] id: String,
//!     status: String,
//!     priority: u8,
//!     due: String,
//! }
//! # async fn demo(table: &Table) -> faceteer::Result<()> {
//! // Every open ticket of team "a": the whole partition, by priority then due date.
//! let all = table.query(Ticket::by_queue("a", "open").list()).await?;
//! // Priority 1, due before 2027: equalities first, then one range.
//! let urgent = table
//!     .query(Ticket::by_queue("a", "open").eq(1).lt("2027"))
//!     .await?;
//! // Priority 2 or more.
//! let rest = table.query(Ticket::by_queue("a", "open").ge(2).reverse()).await?;
//! # Ok(()) }
//! ```

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::expr::{ExprError, Field, FieldValue};
use faceteer_core::partition::{PartitionKey, ShardChoice};
use faceteer_core::pick::{BaseTable, KeyFields};
use faceteer_core::plan::{NativeCondition, NativeRange, SortCondition};
use faceteer_core::schema::IndexSchema;
use faceteer_core::{Facet, KeyError};

use super::builder::Query;

/// The phantom types of a [`NativeQuery`].
type NativeTypes<F, I> = fn() -> (F, I);

/// One partition of a native index, made by the generated `Facet::gsiN(..)` (and its alias)
/// from a value for every partition field.
///
/// `R` lists the sort fields not yet given a condition. DynamoDB takes a multi-attribute
/// sort key's conditions left to right: [`eq`](Self::eq) on its first fields, each in turn,
/// then at most one range ([`gt`](Self::gt), [`ge`](Self::ge), [`lt`](Self::lt),
/// [`le`](Self::le), [`between`](Self::between), [`begins_with`](Self::begins_with)) on
/// the next, which ends the condition. [`list`](Self::list) reads what the equalities
/// given so far select. Anything else does not compile.
#[must_use = "a partition is queried only after `list()` or a range, and `table.query(..)`"]
pub struct NativeQuery<F, R, I = BaseTable> {
    index: &'static IndexSchema,
    condition: Result<NativeCondition, KeyError>,
    rest: R,
    _types: PhantomData<NativeTypes<F, I>>,
}

/// The sort fields of a native index left for conditions: `(field, rest)`, ending in `()`.
#[diagnostic::on_unimplemented(
    message = "no sort field of this native index is left for another condition",
    label = "every sort field already has a condition",
    note = "DynamoDB takes a multi-attribute sort key's conditions left to right: `eq` on its first \
            fields, then at most one range (`gt`, `ge`, `lt`, `le`, `between`, `begins_with`) on the \
            next; end with `.list()` after equalities alone"
)]
pub trait SortFieldsLeft {
    /// The next field's value type.
    type Value;
    /// The fields after it.
    type Rest;
    /// The next field's attribute name.
    fn name(&self) -> &'static str;
    /// `value` as the next field stores it.
    fn encode(&self, value: Self::Value) -> Result<AttributeValue, ExprError>;
    /// The fields after the next.
    fn rest(self) -> Self::Rest;
}

impl<F, T, S, K, R> SortFieldsLeft for (Field<F, T, S, K>, R) {
    type Value = T;
    type Rest = R;

    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn encode(&self, value: T) -> Result<AttributeValue, ExprError> {
        self.0.key_operand(value)
    }

    fn rest(self) -> R {
        self.1
    }
}

/// A key value the field's encoder refused, as a key error.
fn key_error(field: &'static str, e: ExprError) -> KeyError {
    KeyError::Unrepresentable {
        field,
        reason: e.to_string(),
    }
}

impl<F: Facet, R, I: KeyFields> NativeQuery<F, R, I> {
    /// Used by generated code: partition `values` of native index `index` (each encoded by
    /// its field), and the sort fields `rest`.
    #[doc(hidden)]
    pub fn new(
        index: &'static IndexSchema,
        values: Vec<(&'static str, Result<AttributeValue, ExprError>)>,
        rest: R,
    ) -> Self {
        let condition = match index.native {
            Some(keys) => values
                .into_iter()
                .map(|(field, v)| v.map_err(|e| key_error(field, e)))
                .collect::<Result<Vec<_>, _>>()
                .map(|partition| NativeCondition::new(keys, partition)),
            None => Err(KeyError::Unrepresentable {
                field: index.name,
                reason: "the index is not native".into(),
            }),
        };
        NativeQuery {
            index,
            condition,
            rest,
            _types: PhantomData,
        }
    }

    /// Every record of the facet in the partition (with the equalities given so far), in
    /// sort-key order.
    pub fn list(self) -> Query<F, I> {
        Query::native(self.index, self.condition)
    }
}

// The operators' bound is on each method, not on the impl: with no sort field left, the
// method is still found and the bound's message says the rule (an impl bound would let
// rustc suggest `Iterator::eq` instead).
impl<F: Facet, R, I: KeyFields> NativeQuery<F, R, I> {
    /// The next sort field equals `value`; conditions may follow on the fields after it.
    pub fn eq(self, value: impl FieldValue<R::Value>) -> NativeQuery<F, R::Rest, I>
    where
        R: SortFieldsLeft,
    {
        let v = self.rest.encode(value.into_field_value());
        let name = self.rest.name();
        let condition = self.condition.and_then(|mut c| {
            c.equal.push(v.map_err(|e| key_error(name, e))?);
            Ok(c)
        });
        NativeQuery {
            index: self.index,
            condition,
            rest: self.rest.rest(),
            _types: PhantomData,
        }
    }

    fn one(self, value: R::Value, make: fn(AttributeValue) -> NativeRange) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        let name = self.rest.name();
        let v = self.rest.encode(value).map_err(|e| key_error(name, e));
        let condition = self.condition.and_then(|mut c| {
            c.range = Some(make(v?));
            Ok(c)
        });
        Query::native(self.index, condition)
    }

    /// The next sort field is greater than `value`.
    pub fn gt(self, value: impl FieldValue<R::Value>) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        self.one(value.into_field_value(), NativeRange::GreaterThan)
    }

    /// The next sort field is greater than or equal to `value`.
    pub fn ge(self, value: impl FieldValue<R::Value>) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        self.one(value.into_field_value(), NativeRange::GreaterThanOrEqual)
    }

    /// The next sort field is less than `value`.
    pub fn lt(self, value: impl FieldValue<R::Value>) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        self.one(value.into_field_value(), NativeRange::LessThan)
    }

    /// The next sort field is less than or equal to `value`.
    pub fn le(self, value: impl FieldValue<R::Value>) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        self.one(value.into_field_value(), NativeRange::LessThanOrEqual)
    }

    /// The next sort field is between `low` and `high`, both included. A `low` above `high`
    /// matches nothing (answered without a request).
    pub fn between(
        self,
        low: impl FieldValue<R::Value>,
        high: impl FieldValue<R::Value>,
    ) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        let name = self.rest.name();
        let low = self.rest.encode(low.into_field_value());
        let high = self.rest.encode(high.into_field_value());
        let condition = self.condition.and_then(|mut c| {
            let low = low.map_err(|e| key_error(name, e))?;
            let high = high.map_err(|e| key_error(name, e))?;
            c.range = Some(NativeRange::Between(low, high));
            Ok(c)
        });
        Query::native(self.index, condition)
    }

    /// The next sort field (a string or binary attribute) begins with `prefix`; an empty
    /// prefix is every value ([`list`](Self::list)). On a number field it is an error
    /// (DynamoDB has no `begins_with` on numbers): compare with `ge` and `lt`.
    pub fn begins_with(self, prefix: impl FieldValue<R::Value>) -> Query<F, I>
    where
        R: SortFieldsLeft,
    {
        let name = self.rest.name();
        let v = self.rest.encode(prefix.into_field_value());
        let condition = self.condition.and_then(|mut c| {
            match v.map_err(|e| key_error(name, e))? {
                AttributeValue::S(s) if s.is_empty() => {}
                AttributeValue::B(b) if b.as_ref().is_empty() => {}
                v @ (AttributeValue::S(_) | AttributeValue::B(_)) => {
                    c.range = Some(NativeRange::BeginsWith(v))
                }
                _ => {
                    return Err(KeyError::Unrepresentable {
                        field: name,
                        reason: "`begins_with` compares strings and binary values; this \
                                 field is a number: compare it with `ge` and `lt`"
                            .into(),
                    })
                }
            }
            Ok(c)
        });
        Query::native(self.index, condition)
    }
}

impl<F, I> Query<F, I> {
    /// A query of native index `index` under `condition`.
    pub(crate) fn native(
        index: &'static IndexSchema,
        condition: Result<NativeCondition, KeyError>,
    ) -> Self {
        let text = condition.as_ref().map(|c| c.partition_text());
        let partition = PartitionKey::new(
            index.name,
            "",
            "",
            ShardChoice::Unsharded,
            text.map_err(Clone::clone),
        );
        let sort = match &condition {
            Ok(_) => Ok(SortCondition::Any),
            Err(e) => Err(e.clone()),
        };
        let mut query = Query::new(Some(index), partition, sort, String::new());
        query.native = condition.ok();
        query
    }
}

/// What a query whose key condition is complete is: no other key condition follows a range.
#[diagnostic::on_unimplemented(
    message = "a range condition ends the key condition of a native index",
    label = "no key condition can follow the range",
    note = "DynamoDB takes a multi-attribute sort key's conditions left to right: `eq` on its first \
            fields, then at most one range (`gt`, `ge`, `lt`, `le`, `between`, `begins_with`) on the \
            next, and nothing after it; filter other fields with `.filter(..)`"
)]
pub trait KeyConditionOpen {}

/// A sort condition after a range: refused at compile time with the rule (these exist
/// only so that the mistake gets that message rather than "not an iterator").
macro_rules! no_condition_after_a_range {
    ($($op:ident),*) => {
        #[doc(hidden)]
        impl<F, I, R, M> Query<F, I, R, M> {
            $(
                #[doc(hidden)]
                pub fn $op<V>(self, _value: V) -> Self
                where
                    Self: KeyConditionOpen,
                {
                    self
                }
            )*
        }
    };
}

no_condition_after_a_range!(eq, gt, ge, lt, le, begins_with);
