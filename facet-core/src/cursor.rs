//! Opaque pagination cursors: base64url (no padding) of a CBOR document.
//!
//! A cursor records which facet, index and partition it belongs to, so that a cursor from
//! another query is refused with a typed error instead of silently returning the wrong page.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::item::Item;

/// Cursor format version of a single-partition query.
const VERSION: u8 = 1;
/// Cursor format version of an all-shard query (one position per shard).
const SHARDS_VERSION: u8 = 2;
/// Cursor format version of a multi-source search (one position per source and shard, and
/// the boundary).
const SEARCH_VERSION: u8 = 3;

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// The text is not a cursor this library wrote (bad base64, bad CBOR, unknown version).
    #[error("malformed cursor: {0}")]
    Malformed(String),
    /// The cursor was written by a different query (another facet, index or partition).
    #[error(
        "the cursor belongs to another query (it was made for {found}, this query is {expected})"
    )]
    Foreign {
        /// What this query is.
        expected: String,
        /// What the cursor was made for.
        found: String,
    },
    /// A key attribute in the page's last key has a type a cursor cannot hold.
    #[error("key attribute `{0}` has a type that cannot be stored in a cursor")]
    UnsupportedKey(String),
    /// The cursor is longer than any cursor of this query can be; it was not decoded.
    #[error("the cursor is {len} characters, more than the {max} a cursor of this query can have")]
    TooLong {
        /// Its length.
        len: usize,
        /// The most a cursor of this query can have.
        max: usize,
    },
    /// The key inside the cursor is not a key this query can return (another partition, a
    /// sort key outside the condition, missing or extra attributes): it was forged or altered.
    #[error("the cursor's key is not one this query can return: {0}")]
    ForeignKey(String),
    /// The table signs its cursors ([`Table::with_cursor_key`]) and this one is unsigned or
    /// its signature does not match: it was not made by this table, or was altered.
    ///
    /// [`Table::with_cursor_key`]: https://docs.rs/faceteer/latest/faceteer/struct.Table.html#method.with_cursor_key
    #[error("the cursor's signature does not match this table's cursor key")]
    BadSignature,
}

/// Raw bytes a cursor needs beyond its positions: the scope (facet, index, partition).
const SCOPE_BUDGET: usize = 2_400;
/// Raw bytes one position can need: up to four key attributes (table and index keys) of
/// DynamoDB's longest key values, their names and the encoding.
const POSITION_BUDGET: usize = 2 * (2048 + 1024) + 200;

/// The longest text a cursor over `positions` positions (1, or one per shard) can be.
pub fn max_cursor_len(positions: usize) -> usize {
    (SCOPE_BUDGET + positions.max(1) * POSITION_BUDGET).div_ceil(3) * 4
}

/// A key attribute value inside a cursor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum CursorValue {
    #[serde(rename = "s")]
    S(String),
    #[serde(rename = "n")]
    N(String),
    #[serde(rename = "b")]
    B(#[serde(with = "serde_bytes_vec")] Vec<u8>),
}

mod serde_bytes_vec {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let bytes: ciborium::value::Value = Deserialize::deserialize(d)?;
        match bytes {
            ciborium::value::Value::Bytes(b) => Ok(b),
            _ => Err(serde::de::Error::custom("expected a byte string")),
        }
    }
}

/// Which query a cursor belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorScope {
    /// The facet name.
    #[serde(rename = "f")]
    pub facet: String,
    /// The index name (`None` for the base table).
    #[serde(rename = "i")]
    pub index: Option<String>,
    /// The partition key value queried.
    #[serde(rename = "p")]
    pub partition: String,
    /// A fingerprint of the sort-key condition ([`condition_fingerprint`]).
    #[serde(rename = "c")]
    pub condition: u32,
    /// Whether the query walks the sort key in descending order.
    #[serde(rename = "r")]
    pub reverse: bool,
}

/// The fingerprint of a sort-key condition, as a cursor records it: CRC-32 of its text.
pub fn condition_fingerprint(condition: &impl std::fmt::Debug, sort_prefix: &str) -> u32 {
    crc32fast::hash(format!("{condition:?}\u{0}{sort_prefix}").as_bytes())
}

impl std::fmt::Display for CursorScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "facet `{}`, {}, partition {:?}, sort condition {:08x}, {}",
            self.facet,
            self.index.as_deref().unwrap_or("base table"),
            crate::redact::key(&self.partition),
            self.condition,
            if self.reverse {
                "descending"
            } else {
                "ascending"
            }
        )
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct CursorDoc {
    #[serde(rename = "v")]
    version: u8,
    #[serde(flatten)]
    scope: CursorScope,
    #[serde(rename = "k")]
    key: BTreeMap<String, CursorValue>,
}

/// Where one shard of an all-shard query stands.
#[derive(Debug, Clone, PartialEq)]
pub enum ShardPosition {
    /// Nothing read yet.
    Start,
    /// Continue after this key.
    After(Item),
    /// Every record of the shard has been returned.
    Done,
}

#[derive(Debug, Serialize, Deserialize)]
struct ShardsDoc {
    #[serde(rename = "v")]
    version: u8,
    #[serde(flatten)]
    scope: CursorScope,
    #[serde(rename = "s")]
    shards: Vec<PositionDoc>,
}

#[derive(Debug, Serialize, Deserialize)]
enum PositionDoc {
    #[serde(rename = "s")]
    Start,
    #[serde(rename = "a")]
    After(BTreeMap<String, CursorValue>),
    #[serde(rename = "d")]
    Done,
}

#[derive(Debug, Serialize, Deserialize)]
struct SearchDoc {
    #[serde(rename = "v")]
    version: u8,
    /// The scope of each source.
    #[serde(rename = "q")]
    scopes: Vec<CursorScope>,
    #[serde(rename = "s")]
    positions: Vec<PositionDoc>,
    /// The order text of the last record returned.
    #[serde(rename = "o")]
    order: String,
    /// The keys returned with it.
    #[serde(rename = "b")]
    boundary: Vec<(String, String)>,
}

/// Where a multi-source search stands: each source's (and shard's) position and the
/// boundary of the last page ([`crate::merge::search::Boundary`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPosition {
    /// One position per source and shard, in source order.
    pub positions: Vec<ShardPosition>,
    /// The records returned at the last order text.
    pub boundary: crate::merge::search::Boundary,
}

/// The longest text a search cursor over `positions` positions from `sources` sources, with
/// a boundary of at most `boundary` keys, can be.
pub fn max_search_cursor_len(sources: usize, positions: usize, boundary: usize) -> usize {
    let raw =
        sources * SCOPE_BUDGET + positions * POSITION_BUDGET + (boundary + 1) * (2048 + 1024 + 16);
    raw.div_ceil(3) * 4
}

/// Encode the position of a multi-source search.
pub fn encode_search_cursor(
    scopes: &[CursorScope],
    position: &SearchPosition,
) -> Result<String, CursorError> {
    let positions = to_position_docs(&position.positions)?;
    write_doc(&SearchDoc {
        version: SEARCH_VERSION,
        scopes: scopes.to_vec(),
        positions,
        order: position.boundary.order.clone(),
        boundary: position.boundary.keys.clone(),
    })
}

/// Decode a search cursor made for `scopes` over `positions` positions, with a boundary of
/// at most `max_boundary` keys.
pub fn decode_search_cursor(
    scopes: &[CursorScope],
    positions: usize,
    max_boundary: usize,
    cursor: &str,
) -> Result<SearchPosition, CursorError> {
    let max = max_search_cursor_len(scopes.len(), positions, max_boundary);
    if cursor.len() > max {
        return Err(CursorError::TooLong {
            len: cursor.len(),
            max,
        });
    }
    // The precise bound was checked above; this one only has to be looser.
    let doc: SearchDoc = read_doc(
        cursor,
        SEARCH_VERSION,
        scopes.len() + positions + max_boundary + 1,
    )?;
    if doc.scopes != scopes {
        let show = |s: &[CursorScope]| {
            s.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        return Err(CursorError::Foreign {
            expected: format!("a search of [{}]", show(scopes)),
            found: format!("a search of [{}]", show(&doc.scopes)),
        });
    }
    if doc.positions.len() != positions {
        return Err(CursorError::Foreign {
            expected: format!("{positions} source positions"),
            found: format!("{} source positions", doc.positions.len()),
        });
    }
    if doc.boundary.len() > max_boundary {
        return Err(CursorError::ForeignKey(format!(
            "the cursor's boundary holds {} keys, more than a page of {max_boundary}",
            doc.boundary.len()
        )));
    }
    let positions = from_position_docs(doc.positions)?;
    Ok(SearchPosition {
        positions,
        boundary: crate::merge::search::Boundary {
            order: doc.order,
            keys: doc.boundary,
        },
    })
}

#[derive(Deserialize)]
struct VersionOnly {
    #[serde(rename = "v")]
    version: u8,
}

fn to_doc_key(key: &Item) -> Result<BTreeMap<String, CursorValue>, CursorError> {
    let mut out = BTreeMap::new();
    for (name, value) in key {
        let v = match value {
            AttributeValue::S(s) => CursorValue::S(s.clone()),
            AttributeValue::N(n) => CursorValue::N(n.clone()),
            AttributeValue::B(b) => CursorValue::B(b.as_ref().to_vec()),
            _ => return Err(CursorError::UnsupportedKey(name.clone())),
        };
        out.insert(name.clone(), v);
    }
    Ok(out)
}

fn from_doc_key(key: BTreeMap<String, CursorValue>) -> Result<Item, CursorError> {
    if key.is_empty() {
        return Err(CursorError::Malformed(
            "the cursor holds an empty key".into(),
        ));
    }
    Ok(key
        .into_iter()
        .map(|(name, value)| {
            let v = match value {
                CursorValue::S(s) => AttributeValue::S(s),
                CursorValue::N(n) => AttributeValue::N(n),
                CursorValue::B(b) => AttributeValue::B(Blob::new(b)),
            };
            (name, v)
        })
        .collect::<HashMap<_, _>>())
}

fn to_position_docs(positions: &[ShardPosition]) -> Result<Vec<PositionDoc>, CursorError> {
    positions
        .iter()
        .map(|p| {
            Ok(match p {
                ShardPosition::Start => PositionDoc::Start,
                ShardPosition::After(key) => PositionDoc::After(to_doc_key(key)?),
                ShardPosition::Done => PositionDoc::Done,
            })
        })
        .collect()
}

fn from_position_docs(docs: Vec<PositionDoc>) -> Result<Vec<ShardPosition>, CursorError> {
    docs.into_iter()
        .map(|p| {
            Ok(match p {
                PositionDoc::Start => ShardPosition::Start,
                PositionDoc::After(key) => ShardPosition::After(from_doc_key(key)?),
                PositionDoc::Done => ShardPosition::Done,
            })
        })
        .collect()
}

fn write_doc(doc: &impl Serialize) -> Result<String, CursorError> {
    let mut bytes = Vec::with_capacity(128);
    ciborium::into_writer(doc, &mut bytes)
        .map_err(|e| CursorError::Malformed(format!("cannot encode: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Decode base64url + CBOR, checking the version, then the document.
fn read_doc<D: serde::de::DeserializeOwned>(
    cursor: &str,
    version: u8,
    positions: usize,
) -> Result<D, CursorError> {
    let max = max_cursor_len(positions);
    if cursor.len() > max {
        return Err(CursorError::TooLong {
            len: cursor.len(),
            max,
        });
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor.trim())
        .map_err(|e| CursorError::Malformed(format!("not base64url: {e}")))?;
    let found: VersionOnly = ciborium::from_reader(bytes.as_slice())
        .map_err(|e| CursorError::Malformed(format!("not a cursor document: {e}")))?;
    if found.version != version {
        return Err(match (found.version, version) {
            (VERSION, SHARDS_VERSION) => CursorError::Foreign {
                expected: "a query over all shards".into(),
                found: "a single-partition query".into(),
            },
            (SHARDS_VERSION, VERSION) => CursorError::Foreign {
                expected: "a single-partition query".into(),
                found: "a query over all shards".into(),
            },
            (v, _) => CursorError::Malformed(format!("unsupported cursor version {v}")),
        });
    }
    ciborium::from_reader(bytes.as_slice())
        .map_err(|e| CursorError::Malformed(format!("not a cursor document: {e}")))
}

fn check_scope(expected: &CursorScope, found: &CursorScope) -> Result<(), CursorError> {
    if expected != found {
        return Err(CursorError::Foreign {
            expected: expected.to_string(),
            found: found.to_string(),
        });
    }
    Ok(())
}

/// Encode the last key of a page as a cursor for `scope`.
pub fn encode_cursor(scope: &CursorScope, last_key: &Item) -> Result<String, CursorError> {
    write_doc(&CursorDoc {
        version: VERSION,
        scope: scope.clone(),
        key: to_doc_key(last_key)?,
    })
}

/// Decode a cursor made for `scope` back to the exclusive start key of the next page.
pub fn decode_cursor(scope: &CursorScope, cursor: &str) -> Result<Item, CursorError> {
    let doc: CursorDoc = read_doc(cursor, VERSION, 1)?;
    check_scope(scope, &doc.scope)?;
    from_doc_key(doc.key)
}

/// Encode the positions of every shard of an all-shard query.
pub fn encode_shards_cursor(
    scope: &CursorScope,
    positions: &[ShardPosition],
) -> Result<String, CursorError> {
    let shards = to_position_docs(positions)?;
    write_doc(&ShardsDoc {
        version: SHARDS_VERSION,
        scope: scope.clone(),
        shards,
    })
}

/// Decode an all-shard cursor made for `scope` over `count` shards.
pub fn decode_shards_cursor(
    scope: &CursorScope,
    count: u32,
    cursor: &str,
) -> Result<Vec<ShardPosition>, CursorError> {
    let doc: ShardsDoc = read_doc(cursor, SHARDS_VERSION, count as usize)?;
    check_scope(scope, &doc.scope)?;
    if doc.shards.len() != count as usize {
        return Err(CursorError::Foreign {
            expected: format!("{count} shards"),
            found: format!("{} shards", doc.shards.len()),
        });
    }
    from_position_docs(doc.shards)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> CursorScope {
        CursorScope {
            facet: "TASK".into(),
            index: Some("GSI1".into()),
            partition: "#TEAM_a".into(),
            condition: 7,
            reverse: false,
        }
    }

    #[test]
    fn long_cursors_are_refused_before_decoding() {
        let long = "A".repeat(max_cursor_len(1) + 1);
        assert!(matches!(
            decode_cursor(&scope(), &long),
            Err(CursorError::TooLong { .. })
        ));
        // The longest real key fits.
        let mut key = Item::new();
        for (name, len) in [
            ("PK", 2048),
            ("SK", 1024),
            ("GSI1PK", 2048),
            ("GSI1SK", 1024),
        ] {
            key.insert(name.into(), AttributeValue::S("\u{10FFFF}".repeat(len / 4)));
        }
        let big = CursorScope {
            partition: "p".repeat(2048),
            ..scope()
        };
        let c = encode_cursor(&big, &key).unwrap();
        assert!(
            c.len() <= max_cursor_len(1),
            "{} > {}",
            c.len(),
            max_cursor_len(1)
        );
        assert_eq!(decode_cursor(&big, &c).unwrap(), key);
    }

    #[test]
    fn direction_and_condition_are_part_of_the_scope() {
        let mut key = Item::new();
        key.insert("PK".into(), AttributeValue::S("x".into()));
        let c = encode_cursor(&scope(), &key).unwrap();
        for other in [
            CursorScope {
                reverse: true,
                ..scope()
            },
            CursorScope {
                condition: 8,
                ..scope()
            },
        ] {
            assert!(matches!(
                decode_cursor(&other, &c),
                Err(CursorError::Foreign { .. })
            ));
        }
    }

    #[test]
    fn round_trip() {
        let mut key = Item::new();
        key.insert("PK".into(), AttributeValue::S("#TEAM_a".into()));
        key.insert("SK".into(), AttributeValue::S("#TASK_1".into()));
        key.insert("N".into(), AttributeValue::N("12".into()));
        key.insert("B".into(), AttributeValue::B(Blob::new(vec![0, 1, 2])));
        let c = encode_cursor(&scope(), &key).unwrap();
        assert!(c
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_'));
        assert_eq!(decode_cursor(&scope(), &c).unwrap(), key);
    }

    #[test]
    fn shard_cursors_round_trip_and_are_not_single_cursors() {
        let mut key = Item::new();
        key.insert("PK".into(), AttributeValue::S("#P_1_a".into()));
        let positions = vec![
            ShardPosition::Done,
            ShardPosition::After(key.clone()),
            ShardPosition::Start,
        ];
        let c = encode_shards_cursor(&scope(), &positions).unwrap();
        assert_eq!(decode_shards_cursor(&scope(), 3, &c).unwrap(), positions);
        assert!(matches!(
            decode_shards_cursor(&scope(), 4, &c),
            Err(CursorError::Foreign { .. })
        ));
        assert!(matches!(
            decode_cursor(&scope(), &c),
            Err(CursorError::Foreign { .. })
        ));
        let single = encode_cursor(&scope(), &key).unwrap();
        assert!(matches!(
            decode_shards_cursor(&scope(), 3, &single),
            Err(CursorError::Foreign { .. })
        ));
    }

    #[test]
    fn malformed_and_foreign_are_typed_errors() {
        assert!(matches!(
            decode_cursor(&scope(), "not a cursor!"),
            Err(CursorError::Malformed(_))
        ));
        assert!(matches!(
            decode_cursor(&scope(), "AAAA"),
            Err(CursorError::Malformed(_))
        ));
        let mut key = Item::new();
        key.insert("PK".into(), AttributeValue::S("x".into()));
        let c = encode_cursor(&scope(), &key).unwrap();
        let other = CursorScope {
            partition: "#TEAM_b".into(),
            ..scope()
        };
        assert!(matches!(
            decode_cursor(&other, &c),
            Err(CursorError::Foreign { .. })
        ));
    }
}
