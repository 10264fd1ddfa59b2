//! Renaming on the wire, for a table with other names ([`TableNames`]): every request the
//! SDK layer sends has its items, keys, start keys, expression names and index name put in
//! the table's names, and every answer's items and keys put back in faceteer's. Expressions
//! name attributes through placeholders only, so renaming their name maps is enough.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::search_vectors::builders::SearchVectorsInputBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::types::{
    KeysAndAttributes, TransactGetItem, TransactWriteItem, WriteRequest,
};
use faceteer_core::layout::TableNames;
use faceteer_core::Item;

/// A method renaming a single-item request (`$builder`): its item or key (read with
/// `$get`, written with `$set`) and its expression names.
macro_rules! single_item {
    ($(#[$doc:meta])* $name:ident, $builder:ty, $get:ident, $set:ident) => {
        $(#[$doc])*
        pub(crate) fn $name(&self, b: $builder) -> $builder {
            let (item, names) = (b.$get().clone(), b.get_expression_attribute_names().clone());
            b.$set(self.opt_out(item))
                .set_expression_attribute_names(self.names_out(names))
        }
    };
}

/// The renames of one table, both ways.
#[derive(Debug)]
pub(crate) struct Renamer {
    /// (faceteer's name, the table's).
    out: Vec<(&'static str, &'static str)>,
    names: TableNames,
}

impl Renamer {
    /// The renamer of `names`, or `None` when they are faceteer's own.
    pub(crate) fn of(names: TableNames) -> Option<Self> {
        (!names.is_default()).then(|| Renamer {
            out: names.renames(),
            names,
        })
    }

    /// `item` with faceteer's names put in the table's.
    pub(crate) fn item_out(&self, item: Item) -> Item {
        swap(item, self.out.iter().copied())
    }

    /// `item` with the table's names put back in faceteer's.
    pub(crate) fn item_in(&self, item: Item) -> Item {
        swap(item, self.out.iter().map(|&(from, to)| (to, from)))
    }

    fn items_in(&self, items: Vec<Item>) -> Vec<Item> {
        items.into_iter().map(|i| self.item_in(i)).collect()
    }

    fn opt_out(&self, item: Option<Item>) -> Option<Item> {
        item.map(|i| self.item_out(i))
    }

    /// An `ExpressionAttributeNames` map with each name the table's.
    fn names_out(&self, names: Option<HashMap<String, String>>) -> Option<HashMap<String, String>> {
        names.map(|m| {
            m.into_iter()
                .map(|(placeholder, name)| {
                    // A member inside an attribute keeps its name.
                    if faceteer_core::names::Placeholders::is_member(&placeholder) {
                        return (placeholder, name);
                    }
                    let renamed = self.names.attribute(&name).to_owned();
                    (placeholder, renamed)
                })
                .collect()
        })
    }

    fn index_out(&self, index: Option<String>) -> Option<String> {
        index.map(|i| self.names.index_name(&i).to_owned())
    }

    single_item!(
        /// A GetItem request, in the table's names.
        get, GetItemInputBuilder, get_key, set_key
    );
    single_item!(
        /// A PutItem request, in the table's names.
        put, PutItemInputBuilder, get_item, set_item
    );
    single_item!(
        /// A DeleteItem request, in the table's names.
        delete, DeleteItemInputBuilder, get_key, set_key
    );
    single_item!(
        /// An UpdateItem request, in the table's names.
        update, UpdateItemInputBuilder, get_key, set_key
    );

    pub(crate) fn query(&self, b: QueryInputBuilder) -> QueryInputBuilder {
        let start = b.get_exclusive_start_key().clone();
        let names = b.get_expression_attribute_names().clone();
        let index = b.get_index_name().clone();
        b.set_exclusive_start_key(self.opt_out(start))
            .set_expression_attribute_names(self.names_out(names))
            .set_index_name(self.index_out(index))
    }

    pub(crate) fn scan(&self, b: ScanInputBuilder) -> ScanInputBuilder {
        let start = b.get_exclusive_start_key().clone();
        let names = b.get_expression_attribute_names().clone();
        let index = b.get_index_name().clone();
        b.set_exclusive_start_key(self.opt_out(start))
            .set_expression_attribute_names(self.names_out(names))
            .set_index_name(self.index_out(index))
    }

    /// A SearchVectors request, in the table's names.
    pub(crate) fn search_vectors(&self, b: SearchVectorsInputBuilder) -> SearchVectorsInputBuilder {
        let names = b.get_expression_attribute_names().clone();
        b.set_expression_attribute_names(self.names_out(names))
    }

    /// Items of an answer (a page, found items), in faceteer's names.
    pub(crate) fn answer(&self, items: Vec<Item>) -> Vec<Item> {
        self.items_in(items)
    }

    /// One item or key of an answer, in faceteer's names.
    pub(crate) fn answer_one(&self, item: Option<Item>) -> Option<Item> {
        item.map(|i| self.item_in(i))
    }

    /// Batch write requests, in the table's names (`back`: faceteer's, for the unprocessed).
    pub(crate) fn writes(&self, mut requests: Vec<WriteRequest>, back: bool) -> Vec<WriteRequest> {
        let rename = |item: &mut Item| {
            let taken = std::mem::take(item);
            *item = if back {
                self.item_in(taken)
            } else {
                self.item_out(taken)
            };
        };
        for r in &mut requests {
            if let Some(p) = r.put_request.as_mut() {
                rename(&mut p.item);
            }
            if let Some(d) = r.delete_request.as_mut() {
                rename(&mut d.key);
            }
        }
        requests
    }

    /// A batch read's keys and projection, in the table's names.
    pub(crate) fn keys(&self, mut k: KeysAndAttributes) -> KeysAndAttributes {
        k.keys = std::mem::take(&mut k.keys)
            .into_iter()
            .map(|i| self.item_out(i))
            .collect();
        k.expression_attribute_names = self.names_out(k.expression_attribute_names.take());
        k
    }

    /// `item` and `names` of one transaction step, in the table's names.
    fn step(&self, item: &mut Item, names: &mut Option<HashMap<String, String>>) {
        *item = self.item_out(std::mem::take(item));
        *names = self.names_out(names.take());
    }

    /// A transaction step, in the table's names (each step of a transaction is renamed by
    /// its own table).
    pub(crate) fn transact_write(&self, mut t: TransactWriteItem) -> TransactWriteItem {
        if let Some(p) = t.put.as_mut() {
            self.step(&mut p.item, &mut p.expression_attribute_names);
        }
        if let Some(u) = t.update.as_mut() {
            self.step(&mut u.key, &mut u.expression_attribute_names);
        }
        if let Some(d) = t.delete.as_mut() {
            self.step(&mut d.key, &mut d.expression_attribute_names);
        }
        if let Some(c) = t.condition_check.as_mut() {
            self.step(&mut c.key, &mut c.expression_attribute_names);
        }
        t
    }

    /// Transactional reads, in the table's names.
    pub(crate) fn transact_gets(&self, mut items: Vec<TransactGetItem>) -> Vec<TransactGetItem> {
        for t in &mut items {
            if let Some(g) = t.get.as_mut() {
                self.step(&mut g.key, &mut g.expression_attribute_names);
            }
        }
        items
    }
}

/// `item` with each attribute `from` renamed `to`, all at once (so two names may trade
/// places).
fn swap(mut item: Item, renames: impl Iterator<Item = (&'static str, &'static str)>) -> Item {
    let moved: Vec<(&'static str, _)> = renames
        .filter_map(|(from, to)| item.remove(from).map(|v| (to, v)))
        .collect();
    for (to, v) in moved {
        item.insert(to.to_owned(), v);
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;
    use faceteer_core::layout::IndexNames;

    const ONETABLE: TableNames = TableNames {
        pk: "pk",
        sk: "sk",
        facet: "_type",
        ttl: "ttl",
        indexes: &[IndexNames {
            index: "GSI1",
            name: "gsi1",
            pk: "gsi1pk",
            sk: "gsi1sk",
        }],
    };

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.into())
    }

    #[test]
    fn items_go_out_in_the_tables_names_and_come_back_in_faceteers() {
        let r = Renamer::of(ONETABLE).unwrap();
        let item = Item::from([
            ("PK".to_owned(), s("USER#1")),
            ("SK".to_owned(), s("USER#")),
            ("facet".to_owned(), s("User")),
            ("GSI1PK".to_owned(), s("EMAIL#a")),
            ("name".to_owned(), s("Ann")),
        ]);
        let out = r.item_out(item.clone());
        let mut names: Vec<&str> = out.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["_type", "gsi1pk", "name", "pk", "sk"]);
        assert_eq!(r.item_in(out), item);
        assert!(Renamer::of(TableNames::DEFAULT).is_none());
    }

    #[test]
    fn names_may_trade_places() {
        let traded = TableNames {
            pk: "SK",
            sk: "PK",
            ..TableNames::DEFAULT
        };
        let r = Renamer::of(traded).unwrap();
        let item = Item::from([("PK".to_owned(), s("p")), ("SK".to_owned(), s("s"))]);
        let out = r.item_out(item.clone());
        assert_eq!(out["SK"], s("p"));
        assert_eq!(r.item_in(out), item);
    }

    #[test]
    fn requests_rename_keys_names_and_the_index() {
        let r = Renamer::of(ONETABLE).unwrap();
        let q = QueryInputBuilder::default()
            .index_name("GSI1")
            .expression_attribute_names("#n0", "GSI1PK")
            .expression_attribute_names("#n1", "title")
            .exclusive_start_key("PK", s("x"));
        let q = r.query(q);
        assert_eq!(q.get_index_name().as_deref(), Some("gsi1"));
        let names = q.get_expression_attribute_names().clone().unwrap();
        assert_eq!(
            (names["#n0"].as_str(), names["#n1"].as_str()),
            ("gsi1pk", "title")
        );
        assert!(q
            .get_exclusive_start_key()
            .as_ref()
            .unwrap()
            .contains_key("pk"));
    }

    #[test]
    fn members_inside_attributes_keep_their_names() {
        // `cache.GSI1PK`: a member named like a library attribute is not that attribute.
        let r = Renamer::of(ONETABLE).unwrap();
        let q = QueryInputBuilder::default()
            .expression_attribute_names("#n0", "cache")
            .expression_attribute_names("#m0", "GSI1PK")
            .expression_attribute_names("#n1", "GSI1PK");
        let names = r.query(q).get_expression_attribute_names().clone().unwrap();
        assert_eq!(
            (
                names["#n0"].as_str(),
                names["#m0"].as_str(),
                names["#n1"].as_str()
            ),
            ("cache", "GSI1PK", "gsi1pk")
        );
    }
}
