//! DynamoDB's limits on items, keys and numbers, checked before anything is sent, so that one
//! bad record fails alone with an error naming the field instead of failing the request that
//! carries it (and, in a batch, its neighbours).
//!
//! The rules are DynamoDB's documented ones
//! (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html>,
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html>):
//!
//! * an item is at most 400 KB (409,600 bytes): attribute names and values in UTF-8; a number
//!   takes 1 byte per two significant digits plus 1; a boolean or null 1; a list or map 3
//!   bytes plus its elements (1 byte each plus their size; map member names count);
//! * a partition key value is 1 to 2,048 bytes, a sort key value 1 to 1,024 bytes, for the
//!   table's keys and for every index key attribute present;
//! * a number has at most 38 significant digits, and its magnitude is 0 or between 1E-130
//!   and 9.99…E+125.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;
use crate::schema::{FacetSchema, PK, SK};

/// Most bytes in one item.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;
/// Most bytes in a partition key value.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Most bytes in a sort key value.
pub const MAX_SORT_KEY_BYTES: usize = 1024;
/// Most significant digits in a number.
pub const MAX_NUMBER_DIGITS: usize = 38;
/// Most keys one `BatchGetItem` request reads (so the most items its answer holds).
pub const MAX_BATCH_GET_KEYS: usize = 100;

/// A DynamoDB limit an item or key breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// The item is larger than 400 KB.
    #[error(
        "the item is {size} bytes, over DynamoDB's {MAX_ITEM_BYTES} (400 KB, attribute names \
         included); its largest attribute is `{largest}` ({largest_size} bytes)"
    )]
    ItemTooLarge {
        /// The item's size.
        size: usize,
        /// Its largest attribute.
        largest: String,
        /// That attribute's size, name included.
        largest_size: usize,
    },
    /// A key attribute value is too long.
    #[error("key attribute `{attribute}` is {len} bytes, over DynamoDB's {max} for a {role} key")]
    KeyTooLong {
        /// The attribute.
        attribute: String,
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
        /// `partition` or `sort`.
        role: &'static str,
    },
    /// A record attribute that is part of a native index's key holds another type than the
    /// index's key schema declares: DynamoDB would refuse the write.
    #[error(
        "attribute `{attribute}` is a key of native index {index}, declared `{expected}`, but \
         holds `{found}`; store a `{expected}` value, or leave the attribute out to leave the \
         record out of the index"
    )]
    KeyType {
        /// The attribute.
        attribute: String,
        /// The index.
        index: &'static str,
        /// The type its key schema declares.
        expected: crate::schema::ScalarType,
        /// The type stored (`S`, `N`, `B`, `BOOL`, `NULL`, `L`, `M`, `SS`, …).
        found: &'static str,
    },
    /// A value a vector index would refuse: a vector of another dimension count or with a
    /// value that is not a finite 32-bit float, or a search attribute of another type or
    /// empty.
    #[error("attribute `{attribute}` of vector index {index}: {reason}")]
    Vector {
        /// The attribute.
        attribute: String,
        /// The index.
        index: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A key attribute value is empty.
    #[error("key attribute `{attribute}` is empty; DynamoDB refuses empty key values")]
    EmptyKey {
        /// The attribute.
        attribute: String,
    },
    /// A number DynamoDB cannot store.
    #[error("`{path}` is {value}, which DynamoDB cannot store: {reason}")]
    Number {
        /// Where in the item: `field`, `field.member`, `field[2]`.
        path: String,
        /// The number as text.
        value: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
}

/// The size DynamoDB counts for `item` (attribute names included), checking its numbers.
pub fn item_size(item: &Item) -> Result<usize, LimitError> {
    Ok(sizes(item, |_, _| {})?.0)
}

/// The item's size, its largest attribute and that attribute's size; `each` sees every
/// attribute on the way.
fn sizes(
    item: &Item,
    mut each: impl FnMut(&str, &AttributeValue),
) -> Result<(usize, &str, usize), LimitError> {
    let mut size = 0;
    let mut largest = ("", 0);
    for (name, value) in item {
        each(name, value);
        let value_bytes = match value {
            // The common kinds inline; numbers and nested values in full.
            AttributeValue::S(s) => s.len(),
            AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
            _ => value_size(value, At::Attribute(name))?,
        };
        let here = name.len() + value_bytes;
        size += here;
        if here > largest.1 {
            largest = (name, here);
        }
    }
    Ok((size, largest.0, largest.1))
}

/// Check a whole item of `schema`: numbers, size and key lengths, in one pass over its
/// attributes.
pub fn check_item(item: &Item, schema: &FacetSchema) -> Result<(), LimitError> {
    let mut bad_key = false;
    check_size_with(item, |name, value| {
        if let Some(max) = key_limit(schema, name) {
            bad_key |= check_key_value(name, value, max).is_err();
        }
    })?;
    if bad_key {
        // Report the first bad key in a fixed order (PK, SK, then each index's).
        check_key_attributes(item, schema)?;
    }
    Ok(())
}

/// The stored size of attribute `name` holding `value`, as an item's size check
/// ([`check_item`]) counts it (its numbers checked on the way).
#[inline]
pub fn attribute_size(name: &str, value: &AttributeValue) -> Result<usize, LimitError> {
    Ok(name.len()
        + match value {
            AttributeValue::S(s) => s.len(),
            AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
            _ => value_size(value, At::Attribute(name))?,
        })
}

/// Check the size of `item` (and its numbers), when its key attributes were checked as they
/// were added ([`KeyLengths`]).
pub(crate) fn check_size(item: &Item) -> Result<(), LimitError> {
    check_size_with(item, |_, _| {})
}

/// Check the size of `item` (and its numbers); `each` sees every attribute on the way.
fn check_size_with(item: &Item, each: impl FnMut(&str, &AttributeValue)) -> Result<(), LimitError> {
    let (size, largest, largest_size) = sizes(item, each)?;
    if size > MAX_ITEM_BYTES {
        return Err(LimitError::ItemTooLarge {
            size,
            largest: largest.to_owned(),
            largest_size,
        });
    }
    Ok(())
}

/// The length limit of key attribute `name` of `schema`, if it is one (key attributes are
/// `PK`, `SK`, `GSInPK`, `GSInSK` and `LSInSK`: other first bytes are not looked at
/// further).
fn key_limit(schema: &FacetSchema, name: &str) -> Option<usize> {
    if !matches!(name.as_bytes().first(), Some(b'P' | b'S' | b'G' | b'L')) {
        return None;
    }
    let partition = name == schema.pk.attribute
        || schema
            .indexes
            .iter()
            .any(|i| i.native.is_none() && i.pk.attribute == name);
    let sort = name == schema.sk.attribute
        || schema
            .indexes
            .iter()
            .any(|i| i.sk_attribute() == Some(name));
    match (partition, sort) {
        (true, _) => Some(MAX_PARTITION_KEY_BYTES),
        (_, true) => Some(MAX_SORT_KEY_BYTES),
        _ => None,
    }
}

/// Check a key's `PK` and `SK` strings against DynamoDB's key lengths: what
/// [`check_key_attributes`] checks of the key's item, without building it.
pub fn check_key_texts(pk: &str, sk: &str) -> Result<(), LimitError> {
    check_key_len(PK, pk.len(), MAX_PARTITION_KEY_BYTES)?;
    check_key_len(SK, sk.len(), MAX_SORT_KEY_BYTES)
}

/// Check the key values of `item`: the table's `PK` and `SK`, and each index key attribute of
/// `schema` that is present.
pub fn check_key_attributes(item: &Item, schema: &FacetSchema) -> Result<(), LimitError> {
    check_key(item, PK, MAX_PARTITION_KEY_BYTES)?;
    check_key(item, SK, MAX_SORT_KEY_BYTES)?;
    for index in schema.indexes.iter().filter(|i| i.native.is_none()) {
        check_key(item, index.pk.attribute, MAX_PARTITION_KEY_BYTES)?;
        if let Some(sk) = index.sk_attribute() {
            check_key(item, sk, MAX_SORT_KEY_BYTES)?;
        }
    }
    check_native_keys(item, schema)
}

/// Check the attributes of `item` that are keys of a native (multi-attribute) index of
/// `schema`: each present one holds its declared type, and a string or binary value is not
/// empty and within DynamoDB's key lengths. An absent one leaves the record out of the index.
pub fn check_native_keys(item: &Item, schema: &FacetSchema) -> Result<(), LimitError> {
    check_native_values(schema, |name| item.get(name))
}

/// Check the values `value_of` gives the attributes that are keys of a native index of
/// `schema` (`None`: the attribute is not written): each of its declared type, and a string
/// or binary value not empty and within DynamoDB's key lengths. A put checks its item, an
/// update the values it sets.
pub fn check_native_values<'a>(
    schema: &FacetSchema,
    value_of: impl Fn(&str) -> Option<&'a AttributeValue>,
) -> Result<(), LimitError> {
    for index in schema.indexes {
        let Some(native) = index.native else { continue };
        let roles = [
            (native.pk, MAX_PARTITION_KEY_BYTES),
            (native.sk, MAX_SORT_KEY_BYTES),
        ];
        for (attributes, max) in roles {
            for key in attributes {
                let Some(value) = value_of(key.name) else {
                    continue;
                };
                if crate::schema::ScalarType::of(value) != Some(key.ty) {
                    return Err(LimitError::KeyType {
                        attribute: key.name.to_owned(),
                        index: index.name,
                        expected: key.ty,
                        found: type_name(value),
                    });
                }
                check_key_value(key.name, value, max)?;
            }
        }
    }
    Ok(())
}

/// Check the values `value_of` gives the attributes of the vector indexes of `schema`
/// (`None`: not written): a vector is a list of `dimensions` numbers, each a finite 32-bit
/// float; a search attribute holds its declared type, not empty. DynamoDB refuses a write
/// breaking either.
pub fn check_vector_values<'a>(
    schema: &FacetSchema,
    value_of: impl Fn(&str) -> Option<&'a AttributeValue>,
) -> Result<(), LimitError> {
    for v in schema.vectors {
        let refuse = |attribute: &str, reason: String| LimitError::Vector {
            attribute: attribute.to_owned(),
            index: v.index,
            reason,
        };
        if let Some(value) = value_of(v.attribute) {
            let AttributeValue::L(list) = value else {
                return Err(refuse(
                    v.attribute,
                    format!("a vector is a list of numbers, not `{}`", type_name(value)),
                ));
            };
            if list.len() != v.dimensions as usize {
                return Err(refuse(
                    v.attribute,
                    format!("{} dimensions, not {}", v.dimensions, list.len()),
                ));
            }
            let finite_f32 = |n: &AttributeValue| match n {
                AttributeValue::N(n) => n
                    .parse::<f64>()
                    .is_ok_and(|x| x.is_finite() && x.abs() <= f64::from(f32::MAX)),
                _ => false,
            };
            if let Some(at) = list.iter().position(|n| !finite_f32(n)) {
                return Err(refuse(
                    v.attribute,
                    format!("value {at} is not a finite 32-bit float"),
                ));
            }
        }
        for key in v.search_attributes() {
            let Some(value) = value_of(key.name) else {
                continue;
            };
            if crate::schema::ScalarType::of(value) != Some(key.ty) {
                return Err(refuse(
                    key.name,
                    format!(
                        "a search attribute declared `{}` holds `{}`",
                        key.ty,
                        type_name(value)
                    ),
                ));
            }
            let empty = match value {
                AttributeValue::S(s) => s.is_empty(),
                AttributeValue::B(b) => b.as_ref().is_empty(),
                _ => false,
            };
            if empty {
                return Err(refuse(
                    key.name,
                    "a search attribute cannot be empty".into(),
                ));
            }
        }
    }
    Ok(())
}

/// DynamoDB's name of the type of `value`.
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "an unknown type",
    }
}

fn check_key(item: &Item, attribute: &str, max: usize) -> Result<(), LimitError> {
    match item.get(attribute) {
        Some(value) => check_key_value(attribute, value, max),
        None => Ok(()),
    }
}

fn check_key_value(attribute: &str, value: &AttributeValue, max: usize) -> Result<(), LimitError> {
    match value {
        AttributeValue::S(s) => check_key_len(attribute, s.len(), max),
        AttributeValue::B(b) => check_key_len(attribute, b.as_ref().len(), max),
        _ => Ok(()),
    }
}

fn check_key_len(attribute: &str, len: usize, max: usize) -> Result<(), LimitError> {
    if len == 0 {
        return Err(LimitError::EmptyKey {
            attribute: attribute.to_owned(),
        });
    }
    if len > max {
        return Err(LimitError::KeyTooLong {
            attribute: attribute.to_owned(),
            len,
            max,
            role: if max == MAX_PARTITION_KEY_BYTES {
                "partition"
            } else {
                "sort"
            },
        });
    }
    Ok(())
}

/// The key attributes of an item being built, checked as each is added: the first that
/// breaks a limit (empty, or longer than DynamoDB allows) is kept and reported by
/// [`KeyLengths::finish`]. `to_item` checks `PK` and `SK` with it, and the derived
/// `write_index_keys` each index key, so the checks cost no lookups in the finished item.
#[derive(Debug, Default)]
pub struct KeyLengths {
    first_error: Option<LimitError>,
    /// The stored bytes of the key attributes put (names and values).
    bytes: usize,
}

impl KeyLengths {
    /// Check the key `value` of `attribute` (a partition key when `partition`, else a sort
    /// key) and put it into `item`.
    #[doc(hidden)]
    pub fn insert(&mut self, item: &mut Item, attribute: &str, partition: bool, value: String) {
        if partition {
            self.partition(attribute, &value);
        } else {
            self.sort(attribute, &value);
        }
        self.bytes += attribute.len() + value.len();
        item.insert(attribute.to_owned(), AttributeValue::S(value));
    }

    /// The stored bytes of the key attributes put so far.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Check the value of partition key attribute `attribute`.
    #[inline]
    pub fn partition(&mut self, attribute: &str, value: &str) {
        self.check(attribute, value.len(), MAX_PARTITION_KEY_BYTES);
    }

    /// Check the value of sort key attribute `attribute`.
    #[inline]
    pub fn sort(&mut self, attribute: &str, value: &str) {
        self.check(attribute, value.len(), MAX_SORT_KEY_BYTES);
    }

    #[inline]
    fn check(&mut self, attribute: &str, len: usize, max: usize) {
        if (len == 0 || len > max) && self.first_error.is_none() {
            self.first_error = check_key_len(attribute, len, max).err();
        }
    }

    /// The first key attribute that broke a limit, in the order they were checked.
    pub fn finish(self) -> Result<(), LimitError> {
        match self.first_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Where a value sits in an item. Rendered (`field.member[2]`) only for an error, so that
/// checking an item allocates nothing.
#[derive(Clone, Copy)]
enum At<'a> {
    Attribute(&'a str),
    Member(&'a At<'a>, &'a str),
    Element(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Attribute(name) => f.write_str(name),
            At::Member(parent, name) => write!(f, "{parent}.{name}"),
            At::Element(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// The stored size of a value (its name not included), checking its numbers.
fn value_size(value: &AttributeValue, path: At<'_>) -> Result<usize, LimitError> {
    Ok(match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n, path)?,
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => {
            let mut total = 0;
            for n in v {
                total += number_size(n, path)?;
            }
            total
        }
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(list) => {
            let mut total = 3;
            for (i, v) in list.iter().enumerate() {
                total += 1 + value_size(v, At::Element(&path, i))?;
            }
            total
        }
        AttributeValue::M(map) => {
            let mut total = 3;
            for (k, v) in map {
                total += 1 + k.len() + value_size(v, At::Member(&path, k))?;
            }
            total
        }
        // A type this version of the SDK does not know: count nothing rather than guess.
        _ => 0,
    })
}

/// The stored size of number `text`, after checking it.
fn number_size(text: &str, path: At<'_>) -> Result<usize, LimitError> {
    let digits = significant_digits(text).map_err(|reason| LimitError::Number {
        path: path.to_string(),
        value: shortened(text),
        reason,
    })?;
    Ok(digits.div_ceil(2) + 1)
}

/// `text`, cut to 48 characters for an error message.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(48) {
        Some((at, _)) => format!("{}… ({} characters)", &text[..at], text.chars().count()),
        None => text.to_owned(),
    }
}

/// The number of significant digits of a DynamoDB number, or the rule it breaks.
pub fn significant_digits(text: &str) -> Result<usize, &'static str> {
    const NOT_A_NUMBER: &str = "it is not a decimal number";
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    // The common case, an integer of at most 38 digits (what every Rust integer up to 64
    // bits writes): no exponent, no fraction, nothing to allocate.
    let bytes = unsigned.as_bytes();
    if !bytes.is_empty() && bytes.len() <= MAX_NUMBER_DIGITS && bytes.iter().all(u8::is_ascii_digit)
    {
        return Ok(match bytes.iter().position(|&b| b != b'0') {
            None => 0,
            Some(first) => {
                let last = bytes.iter().rposition(|&b| b != b'0').unwrap_or(first);
                last - first + 1
            }
        });
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => {
            let exp: i64 = unsigned[at + 1..]
                .strip_prefix('+')
                .unwrap_or(&unsigned[at + 1..])
                .parse()
                .map_err(|_| NOT_A_NUMBER)?;
            (&unsigned[..at], exp)
        }
        None => (unsigned, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return Err(NOT_A_NUMBER);
    }
    let all: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let Some(first) = all.iter().position(|&b| b != b'0') else {
        return Ok(0); // zero
    };
    let last = all.iter().rposition(|&b| b != b'0').unwrap_or(first);
    let digits = last - first + 1;
    if digits > MAX_NUMBER_DIGITS {
        return Err("DynamoDB numbers have at most 38 significant digits");
    }
    // The power of ten of the first significant digit.
    let magnitude = int.len() as i64 - 1 - first as i64 + exponent;
    if magnitude > 125 {
        return Err("DynamoDB numbers are at most 9.9999999999999999999999999999999999999E+125");
    }
    if magnitude < -130 {
        return Err("DynamoDB numbers other than 0 are at least 1E-130 in magnitude");
    }
    Ok(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits_follow_dynamodb() {
        assert_eq!(significant_digits("0"), Ok(0));
        assert_eq!(significant_digits("-0.000"), Ok(0));
        assert_eq!(significant_digits("120"), Ok(2));
        assert_eq!(significant_digits("0.00120"), Ok(2));
        assert_eq!(significant_digits("1.5e3"), Ok(2));
        assert_eq!(significant_digits(&"9".repeat(38)), Ok(38));
        assert!(significant_digits(&"9".repeat(39)).is_err());
        assert_eq!(significant_digits(&format!("1{}", "0".repeat(125))), Ok(1));
        assert!(significant_digits(&format!("1{}", "0".repeat(126))).is_err());
        assert_eq!(significant_digits("1e-130"), Ok(1));
        assert!(significant_digits("1e-131").is_err());
        assert!(significant_digits("NaN").is_err());
        assert!(significant_digits("").is_err());
        assert!(significant_digits("1e").is_err());
        // u128::MAX has 39 digits.
        assert!(significant_digits(&u128::MAX.to_string()).is_err());
    }

    #[test]
    fn number_errors_name_their_nested_path() {
        let mut item = Item::new();
        item.insert(
            "m".into(),
            AttributeValue::M(std::collections::HashMap::from([(
                "a".into(),
                AttributeValue::L(vec![
                    AttributeValue::N("1".into()),
                    AttributeValue::N("1e999".into()),
                ]),
            )])),
        );
        match item_size(&item) {
            Err(LimitError::Number { path, .. }) => assert_eq!(path, "m.a[1]"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sizes_follow_the_documented_rules() {
        let mut item = Item::new();
        item.insert("ab".into(), AttributeValue::S("xyz".into()));
        item.insert("n".into(), AttributeValue::N("12345".into()));
        item.insert(
            "l".into(),
            AttributeValue::L(vec![AttributeValue::Bool(true), AttributeValue::Null(true)]),
        );
        let size: usize = item
            .iter()
            .map(|(k, v)| k.len() + value_size(v, At::Attribute(k)).unwrap())
            .sum();
        // 2+3, 1+(3+1), 1+3+(1+1)+(1+1)
        assert_eq!(size, 5 + 5 + 8);
    }
}
