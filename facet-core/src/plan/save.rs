//! A save of what changed: the difference between a record as read and the same record
//! changed, as an update that sends only the attributes that differ (and the index keys and
//! TTL they move), with the conditions that keep concurrent writers' work.
//!
//! Both records are whole, so every derived attribute is computed by the put's own routine
//! ([`stamped_item`]): the keys, TTL and `#[updated]` time a save writes are byte for byte
//! what a put of the changed record writes.

use aws_sdk_dynamodb::types::AttributeValue;

use super::stamp::{stamped_item, Created, WriteClock};
use crate::expr::{same_value, Update};
use crate::schema::{FacetSchema, PK, SK};
use crate::{Facet, Item, ItemError};

/// Why two records cannot be saved as a change of one another.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// The changed record has another key: a save changes a stored record in place.
    #[error(
        "a save keeps the record's key (PK {before_pk:?}, SK {before_sk:?} became PK \
         {after_pk:?}, SK {after_sk:?}); move the record with `table.move_to`"
    )]
    KeyChanged {
        /// The key as read.
        before_pk: crate::redact::KeyText,
        /// The key as read.
        before_sk: crate::redact::KeyText,
        /// The key of the changed record.
        after_pk: crate::redact::KeyText,
        /// The key of the changed record.
        after_sk: crate::redact::KeyText,
    },
    /// The facet has encrypted or signed fields: its item is signed whole, so a change is
    /// written by putting the whole record again.
    #[error(
        "`{facet}` has encrypted or signed fields, whose item is signed whole: a save cannot \
         update some of its attributes; use `table.modify(..)` (it reads, changes and puts the \
         record re-encrypted, on condition that it is as read) or a put"
    )]
    Encrypted {
        /// The facet name.
        facet: &'static str,
    },
    /// The changed record's `#[version]` counter moved: the save moves it, checked against
    /// the one read.
    #[error("a save moves the `#[version]` counter `{field}` itself: leave it as read")]
    VersionChanged {
        /// The counter's attribute.
        field: &'static str,
    },
    /// The changed record's `#[created]` time moved: it is the time the record was created.
    #[error("a save keeps the `#[created]` time `{field}`: leave it as read")]
    CreatedChanged {
        /// The field's attribute.
        field: &'static str,
    },
    /// A record holds an attribute no field of the facet names (a flattened field's): a save
    /// cannot tell which of those to write or remove.
    #[error(
        "the record holds the attribute `{attribute}`, which no field of `{facet}` names (a \
         flattened field's, or serde's `tag`): save it with `put`"
    )]
    Unnamed {
        /// The facet.
        facet: &'static str,
        /// The attribute.
        attribute: String,
    },
    /// A record is not a valid item.
    #[error(transparent)]
    Item(#[from] ItemError),
}

/// Every attribute a facet's item can hold besides `PK` and `SK`.
fn item_attributes<F: Facet>() -> Vec<&'static str> {
    F::ATTRIBUTES
        .iter()
        .copied()
        .chain(F::SCHEMA.stored_only_attributes())
        .chain(F::SCHEMA_VERSION.map(|_| crate::schema::SCHEMA_VERSION_ATTRIBUTE))
        .filter(|a| *a != PK && *a != SK)
        .collect()
}

/// What a save sends: the change, and the stored values it is conditioned on.
#[derive(Clone)]
pub struct SaveDiff<F> {
    /// `SET` of each attribute whose value differs, `REMOVE` of each the changed record
    /// leaves out (index keys, the TTL and `#[updated]` among them).
    pub change: Update<F>,
    /// The attributes the change writes.
    pub changed: Vec<&'static str>,
    /// The item a put of the changed record would store (its `#[updated]` stamped), which
    /// the record holds after the save when no other writer changed it (the `#[version]`
    /// counter as read: the save moves it).
    pub written: Item,
    /// The stored values the save expects: the `#[version]` counter as read; for a facet
    /// validated on write, every field as read; otherwise the read value of each field it
    /// changes and of each field an index key it moves is built from (so a concurrent change
    /// of another field is kept, and one of the same field is refused).
    pub expected: Vec<(&'static str, Option<AttributeValue>)>,
}

/// The values of `#[sensitive]` fields print masked.
impl<F: crate::Facet> std::fmt::Debug for SaveDiff<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let masked = |name: &str, v: &Option<AttributeValue>| match v {
            Some(_) if F::SENSITIVE.contains(&name) => {
                Some(AttributeValue::S(crate::redact::REDACTED.to_owned()))
            }
            other => other.clone(),
        };
        let expected: Vec<_> = self
            .expected
            .iter()
            .map(|(n, v)| (*n, masked(n, v)))
            .collect();
        f.debug_struct("SaveDiff")
            .field("change", &self.change)
            .field("changed", &self.changed)
            .field("written", &crate::redact::ShownItem(&self.written))
            .field("expected", &expected)
            .finish()
    }
}

/// The fields `attribute` (an index key, or the TTL) is built from, when it is derived.
fn inputs_of(schema: &'static FacetSchema, attribute: &str) -> Vec<&'static str> {
    let keys = schema.indexes.iter().flat_map(|i| i.written_keys());
    let mut inputs: Vec<&'static str> = keys
        .filter(|k| k.attribute == attribute)
        .flat_map(|k| k.inputs())
        .collect();
    if attribute == crate::schema::TTL_ATTRIBUTE {
        inputs.extend(schema.ttl_field);
    }
    inputs
}

fn key_text(item: &Item, name: &str) -> String {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// The save of `after`, read as `before`, at `now`: `None` when nothing differs (nothing is
/// sent, and `#[updated]` does not move).
pub fn save_diff<F: Facet>(
    before: &F,
    after: &F,
    now: &WriteClock,
) -> Result<Option<SaveDiff<F>>, SaveError> {
    save_diff_from(crate::convert::to_item(before)?, after, now)
}

/// [`save_diff`] from `read`, the item a put of the record as read writes
/// (`to_item(before)`).
pub fn save_diff_from<F: Facet>(
    read: Item,
    after: &F,
    now: &WriteClock,
) -> Result<Option<SaveDiff<F>>, SaveError> {
    if F::CRYPTO.is_some() {
        return Err(SaveError::Encrypted {
            facet: F::SCHEMA.name,
        });
    }
    let plain = crate::convert::to_item(after)?;
    if read.get(PK) != plain.get(PK) || read.get(SK) != plain.get(SK) {
        return Err(SaveError::KeyChanged {
            before_pk: key_text(&read, PK).into(),
            before_sk: key_text(&read, SK).into(),
            after_pk: key_text(&plain, PK).into(),
            after_sk: key_text(&plain, SK).into(),
        });
    }
    if let Some(field) = F::VERSION {
        if !same_value(read.get(field), plain.get(field)) {
            return Err(SaveError::VersionChanged { field });
        }
    }
    if let Some(field) = F::CREATED {
        if !same_value(read.get(field), plain.get(field)) {
            return Err(SaveError::CreatedChanged { field });
        }
    }
    let differs = |a: &Item, b: &Item, skip: Option<&str>| {
        a.keys()
            .chain(b.keys())
            .filter(|n| Some(n.as_str()) != skip)
            .any(|n| !same_value(a.get(n), b.get(n)))
    };
    if !differs(&read, &plain, F::UPDATED) {
        return Ok(None);
    }
    let written = stamped_item(after, Created::AsIs, now)?;
    let names = item_attributes::<F>();
    if let Some(unnamed) = read
        .keys()
        .chain(written.keys())
        .find(|n| n.as_str() != PK && n.as_str() != SK && !names.contains(&n.as_str()))
    {
        return Err(SaveError::Unnamed {
            facet: F::SCHEMA.name,
            attribute: unnamed.clone(),
        });
    }
    let mut change = Update::empty();
    let mut changed = Vec::new();
    for name in names {
        if name == PK || name == SK || Some(name) == F::VERSION {
            continue;
        }
        if same_value(read.get(name), written.get(name)) {
            continue;
        }
        change = match written.get(name) {
            Some(v) => change.set_attribute(name, v.clone()),
            None => change.remove_attribute(name),
        };
        changed.push(name);
    }
    let mut expected: Vec<(&'static str, Option<AttributeValue>)> = Vec::new();
    let mut expect = |name: &'static str| {
        if !expected.iter().any(|(n, _)| *n == name) {
            expected.push((name, read.get(name).cloned()));
        }
    };
    match F::VERSION {
        Some(field) => expect(field),
        // A facet validated on write keeps its validator's rule after every write: a save
        // merged with another writer's change of other fields could break a rule across
        // fields. Every field is expected as read (and absent ones absent).
        None if F::VALIDATE_ON_WRITE => {
            for name in F::ATTRIBUTES {
                if Some(*name) != F::UPDATED {
                    expect(name);
                }
            }
        }
        None => {
            for name in &changed {
                if Some(*name) == F::UPDATED {
                    continue;
                }
                if F::ATTRIBUTES.contains(name) {
                    expect(name);
                }
                for input in inputs_of(F::SCHEMA, name) {
                    expect(input);
                }
            }
        }
    }
    Ok(Some(SaveDiff {
        change,
        changed,
        expected,
        written,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::stamp::write_clock_now;
    use crate::schema::{FacetSchema, IndexKind, IndexProjection, IndexSchema, KeySchema};

    /// A facet implemented by hand, as `#[derive(Facet)]` would: `GSI1PK` is built from
    /// `status`.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Ticket {
        id: String,
        status: String,
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    }

    /// A key of one required field (the design fixtures' key builder).
    const fn key(
        attribute: &'static str,
        prefix: &'static str,
        fields: &'static [&'static str],
    ) -> KeySchema {
        crate::design::fixtures::key(attribute, prefix, fields, &[false])
    }

    const INDEXES: &[IndexSchema] = &[IndexSchema {
        name: "GSI1",
        alias: None,
        kind: IndexKind::Global,
        number: 1,
        pk: key("GSI1PK", "#STATUS", &["status"]),
        sk: Some(key("GSI1SK", "#TICKET", &["id"])),
        projection: IndexProjection::All,
        sparse: false,
        native: None,
    }];

    const TICKET: FacetSchema = FacetSchema {
        name: "TICKET",
        delimiter: "_",
        pk: key("PK", "#TICKET", &["id"]),
        sk: key("SK", "#TICKET", &["id"]),
        indexes: INDEXES,
        ttl_field: None,
        unique: &[],
        vectors: &[],
    };

    impl Facet for Ticket {
        const SCHEMA: &'static FacetSchema = &TICKET;
        type Fields = ();
        fn fields() {}
        fn primary_key(&self) -> Result<crate::facet::Key<Self>, crate::key::KeyError> {
            let text = format!("#TICKET_{}", self.id);
            Ok(crate::facet::Key::from_parts(text.clone(), text))
        }
        fn write_index_keys(
            &self,
            item: &mut Item,
            _: &mut crate::limits::KeyLengths,
        ) -> Result<(), crate::key::KeyError> {
            item.insert(
                "GSI1PK".into(),
                AttributeValue::S(format!("#STATUS_{}", self.status)),
            );
            item.insert(
                "GSI1SK".into(),
                AttributeValue::S(format!("#TICKET_{}", self.id)),
            );
            Ok(())
        }
        fn ttl_seconds(&self) -> Option<i64> {
            None
        }
        const ATTRIBUTES: &'static [&'static str] = &["id", "status", "title", "note"];
    }

    fn ticket() -> Ticket {
        Ticket {
            id: "t1".into(),
            status: "open".into(),
            title: "Ship".into(),
            note: Some("soon".into()),
        }
    }

    #[test]
    fn a_save_writes_what_differs_and_expects_what_it_read() {
        let before = ticket();
        let mut after = before.clone();
        after.status = "done".into();
        after.note = None;
        let diff = save_diff(&before, &after, &write_clock_now())
            .unwrap()
            .unwrap();
        assert_eq!(diff.changed, ["status", "note", "GSI1PK"]);
        let expected: Vec<&str> = diff.expected.iter().map(|(n, _)| *n).collect();
        assert_eq!(expected, ["status", "note"]);
        assert_eq!(diff.expected[0].1, Some(AttributeValue::S("open".into())));
        assert!(save_diff(&before, &before.clone(), &write_clock_now())
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_save_keeps_the_key() {
        let before = ticket();
        let mut after = before.clone();
        after.id = "t2".into();
        match save_diff(&before, &after, &write_clock_now()) {
            Err(SaveError::KeyChanged { after_pk, .. }) => assert_eq!(after_pk, "#TICKET_t2"),
            other => panic!("{other:?}"),
        }
    }
}
