//! [`PartitionQuery`]: one partition of the base table or of an index, and its sort-key
//! operators, each giving a [`Query`].

use std::marker::PhantomData;

use faceteer_core::partition::PartitionKey;
use faceteer_core::pick::{BaseTable, KeyFields};
use faceteer_core::plan::SortCondition;
use faceteer_core::schema::{IndexSchema, KeySchema};
use faceteer_core::sort_key::{SortKeyArg, SortKeyPrefix};
use faceteer_core::{Facet, KeyError, KeyPart, KeyWriter};

use super::builder::Query;

/// The phantom types of a [`PartitionQuery`]: facet, sort-key shape, index key fields.
type QueryTypes<F, S, I> = fn() -> (F, S, I);

/// One partition of the base table or of an index, ready for a sort-key operator.
///
/// Made by the generated `Facet::query(..)`, `Facet::gsiN(..)` and `Facet::by_<alias>(..)`.
/// `S` is the sort-key shape; it types the operators' arguments.
#[must_use = "a partition is queried only after a sort-key operator (`list()`, `equals(..)`, …) and `table.query(..)`"]
pub struct PartitionQuery<F, S, I = BaseTable> {
    index: Option<&'static IndexSchema>,
    /// `None` for an index without a sort key (shape [`NoSortKey`](faceteer_core::sort_key::NoSortKey)).
    sort_key: Option<&'static KeySchema>,
    partition: PartitionKey,
    _types: PhantomData<QueryTypes<F, S, I>>,
}

impl<F: Facet, S, I: KeyFields> PartitionQuery<F, S, I> {
    /// Used by generated code.
    #[doc(hidden)]
    pub fn new(
        index: Option<&'static IndexSchema>,
        sort_key: Option<&'static KeySchema>,
        partition: PartitionKey,
    ) -> Self {
        PartitionQuery {
            index,
            sort_key,
            partition,
            _types: PhantomData,
        }
    }

    /// A query of index `index` of the facet's schema (`None`: the table), in `partition`:
    /// used by generated code, with [`faceteer_core::key_writer::partition_of`].
    #[doc(hidden)]
    pub fn at(index: Option<usize>, partition: PartitionKey) -> Self {
        let index = index.and_then(|at| F::SCHEMA.indexes.get(at));
        let sort_key = match index {
            None => Some(&F::SCHEMA.sk),
            Some(i) => i.sk.as_ref(),
        };
        Self::new(index, sort_key, partition)
    }

    /// A query of index `index` of the facet's schema (`None`: the table), in the partition
    /// the key writer names from `args`: used by generated code.
    #[doc(hidden)]
    pub fn of(index: Option<usize>, args: &[&dyn KeyPart]) -> Self {
        Self::at(
            index,
            faceteer_core::key_writer::partition_of::<F>(index, args),
        )
    }

    /// The index and the partition key (collections read the whole partition).
    pub(crate) fn into_parts(self) -> (Option<&'static IndexSchema>, PartitionKey) {
        (self.index, self.partition)
    }

    /// The sort key's fields (none without a sort key: no operator takes values then).
    fn sort_fields(&self) -> &'static [&'static str] {
        self.sort_key.map_or(&[], |k| k.fields)
    }

    fn sort_key_text(&self, write: impl FnOnce(&mut KeyWriter)) -> Result<String, KeyError> {
        let mut w = match self.sort_key {
            Some(k) if k.no_prefix => KeyWriter::bare(F::SCHEMA.delimiter),
            Some(k) => KeyWriter::new(k.prefix, F::SCHEMA.delimiter),
            None => KeyWriter::new("", F::SCHEMA.delimiter),
        };
        write(&mut w);
        w.finish()
    }

    fn with(self, sort: Result<SortCondition, KeyError>) -> Query<F, I> {
        let mut sort_prefix = String::new();
        // A sort key without a prefix has none: its range is every sort key, and the
        // records of other facets read are skipped.
        if let Some(key) = self.sort_key.filter(|k| !k.no_prefix) {
            sort_prefix.push_str(key.prefix);
            if key.first_field_required() {
                sort_prefix.push_str(F::SCHEMA.delimiter);
            }
        }
        Query::new(self.index, self.partition, sort, sort_prefix)
    }

    fn compare(self, sk: &impl SortKeyArg<S>, op: fn(String) -> SortCondition) -> Query<F, I> {
        let text = self.sort_key_text(|w| sk.write(self.sort_fields(), w));
        self.with(text.map(op))
    }

    /// Records whose sort key equals `sk`.
    pub fn equals(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::Equals)
    }

    /// Records whose sort key is greater than `sk`.
    pub fn greater_than(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::GreaterThan)
    }

    /// Records whose sort key is greater than or equal to `sk`.
    pub fn greater_than_or_equal(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::GreaterThanOrEqual)
    }

    /// Records whose sort key is less than `sk`.
    pub fn less_than(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::LessThan)
    }

    /// Records whose sort key is less than or equal to `sk`.
    pub fn less_than_or_equal(self, sk: impl SortKeyArg<S>) -> Query<F, I> {
        self.compare(&sk, SortCondition::LessThanOrEqual)
    }

    /// Records whose sort key begins with the key built from `prefix` (the value of the
    /// first sort-key field(s); the string-prefix match continues into the last value given).
    pub fn begins_with(self, prefix: impl SortKeyPrefix<S>) -> Query<F, I> {
        let text = self.sort_key_text(|w| prefix.write(self.sort_fields(), w));
        self.with(text.map(SortCondition::BeginsWith))
    }

    /// Records whose sort key is between `start` and `end`, both included.
    pub fn between(self, start: impl SortKeyArg<S>, end: impl SortKeyArg<S>) -> Query<F, I> {
        let a = self.sort_key_text(|w| start.write(self.sort_fields(), w));
        let b = self.sort_key_text(|w| end.write(self.sort_fields(), w));
        let sort = a.and_then(|a| b.map(|b| SortCondition::Between(a, b)));
        self.with(sort)
    }

    /// Every record of the facet in the partition, in sort-key order.
    pub fn list(self) -> Query<F, I> {
        self.with(Ok(SortCondition::List))
    }
}
