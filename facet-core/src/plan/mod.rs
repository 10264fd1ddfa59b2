//! Plans: plain data describing each DynamoDB request, renderable to SDK inputs.
//!
//! The runtime crate executes plans; tests can build and inspect them without a server.
//!
//! * [`query`]: queries; [`scan`]: scans; [`get`]: single reads;
//! * [`write`](mod@write): puts, updates and deletes; [`condition`]: the conditions and filters they
//!   carry; [`put`] and [`update`]: planning them from records and changes, with
//!   [`stamp`]'s write times (the time is the caller's: planning reads no clock).

pub mod condition;
pub mod get;
pub mod native;
pub mod put;
pub mod query;
pub mod save;
pub mod scan;
pub mod stamp;
pub mod update;
pub mod write;

pub use condition::{
    hide_expired, is_expired, split_condition, ttl_passed, ConditionParts, RenderedCondition,
};
pub use get::GetPlan;
pub use native::{NativeCondition, NativeRange};
pub use query::{render_projection, QueryPlan, SortCondition};
pub use write::{DeletePlan, PutPlan, Returning, UpdatePlan};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Item;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn plan(sort: SortCondition) -> QueryPlan {
        QueryPlan {
            index: Some("GSI1"),
            pk_attribute: "GSI1PK",
            sk_attribute: Some("GSI1SK"),
            partition: "#TEAM_a".into(),
            sort,
            sort_prefix: "#TASK_".into(),
            limit: Some(10),
            reverse: true,
            exclusive_start_key: None,
            consistent_read: false,
            filter: None,
            projection: None,
            native: None,
        }
    }

    /// An update names only what it changes and the key it checks: nothing of the
    /// library's own (strict readers refuse attributes they do not know).
    #[test]
    fn an_update_writes_only_its_own_attributes() {
        let key = Item::from([("PK".to_owned(), AttributeValue::S("k".into()))]);
        let set = crate::expr::Update::<()>::empty()
            .set_attribute("a", AttributeValue::S("x".into()))
            .remove_attribute("b");
        let add = crate::expr::Update::<()>::empty().increment_attribute("n");
        let plans = [
            UpdatePlan::new(key.clone(), &set, None, Returning::Nothing).unwrap(),
            UpdatePlan::for_missing(key, &add, Returning::Nothing).unwrap(),
        ];
        for (plan, named) in plans.into_iter().zip([["PK", "a", "b"], ["PK", "n", "n"]]) {
            let (names, _) = plan.placeholders.into_parts();
            let mut names: Vec<String> = names.unwrap().into_values().collect();
            names.sort();
            names.dedup();
            let mut expected: Vec<String> = named.iter().map(|n| n.to_string()).collect();
            expected.dedup();
            assert_eq!(names, expected);
        }
    }

    #[test]
    fn renders_with_placeholders_only() {
        let input = plan(SortCondition::Equals("#TASK_x".into()))
            .request("t")
            .build()
            .unwrap();
        assert_eq!(
            input.key_condition_expression(),
            Some("#n0 = :v0 AND #n1 = :v1")
        );
        let names = input.expression_attribute_names().unwrap();
        assert_eq!(names["#n0"], "GSI1PK");
        assert_eq!(names["#n1"], "GSI1SK");
        let values = input.expression_attribute_values().unwrap();
        assert_eq!(values[":v1"], AttributeValue::S("#TASK_x".into()));
        assert_eq!(input.index_name(), Some("GSI1"));
        assert_eq!(input.scan_index_forward(), Some(false));
        assert_eq!(input.limit(), Some(10));
    }

    #[test]
    fn ranges_stay_inside_the_facet_prefix() {
        let input = plan(SortCondition::GreaterThan("#TASK_b".into()))
            .request("t")
            .build()
            .unwrap();
        let values = input.expression_attribute_values().unwrap();
        assert_eq!(values[":v1"], AttributeValue::S("#TASK_b\u{0}".into()));
        assert_eq!(values[":v2"], AttributeValue::S("#TASK_\u{10FFFF}".into()));
        let lt = plan(SortCondition::LessThan("#TASK_b".into()));
        assert_eq!(lt.excluded_sort_key(), Some("#TASK_b"));
        assert!(plan(SortCondition::Between("b".into(), "a".into())).is_empty_range());
    }
}
