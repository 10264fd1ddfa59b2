//! Keys are injective: two different tuples of key values never encode to the same key
//! string; a tuple whose key would be ambiguous is refused with a typed error instead.
//!
//! The tests compare [`KeyWriter`] with two references written here independently:
//! Faceteer 6.0.0's `buildKey` (prefix, shard, present values joined by the delimiter) and the
//! decoder the module documentation describes. Every accepted tuple must be encoded exactly as
//! Faceteer encodes it and decoded back to itself; that makes the encoding injective.

use faceteer_core::key::{write_key, KeyError, KeyPart, KeyWriter};
use proptest::prelude::*;

/// One key field: optional or required.
#[derive(Debug, Clone, Copy)]
struct FieldSpec {
    optional: bool,
}

const NAMES: [&str; 4] = ["f0", "f1", "f2", "f3"];
const DELIMITERS: [&str; 7] = ["_", "#", "::", "ab", "__", "é", "aba"];

fn encode(
    prefix: &str,
    delimiter: &'static str,
    shard: Option<&str>,
    fields: &[FieldSpec],
    values: &[Option<String>],
) -> Result<String, KeyError> {
    let mut w = KeyWriter::new(prefix, delimiter);
    if let Some(shard) = shard {
        w.shard(shard);
    }
    write_values(w, fields, values)
}

/// `values` (of `fields`) written by `w`, and the key.
fn write_values(
    mut w: KeyWriter,
    fields: &[FieldSpec],
    values: &[Option<String>],
) -> Result<String, KeyError> {
    for (i, (spec, value)) in fields.iter().zip(values).enumerate() {
        if spec.optional {
            w.part(NAMES[i], &value.as_deref());
        } else {
            w.part(
                NAMES[i],
                value.as_deref().expect("required fields have values"),
            );
        }
    }
    w.finish()
}

/// [`encode`] of a key without a prefix (`no_prefix`): the values alone.
fn encode_bare(
    delimiter: &'static str,
    fields: &[FieldSpec],
    values: &[Option<String>],
) -> Result<String, KeyError> {
    write_values(KeyWriter::bare(delimiter), fields, values)
}

/// Faceteer's `buildKey`: prefix, shard, then every present value, joined by the delimiter.
fn faceteer_build_key(
    prefix: &str,
    delimiter: &str,
    shard: Option<&str>,
    values: &[Option<String>],
) -> String {
    let mut parts = vec![prefix.to_owned()];
    parts.extend(shard.map(str::to_owned));
    parts.extend(values.iter().flatten().cloned());
    parts.join(delimiter)
}

/// The decoder of the module documentation.
fn decode(
    key: &str,
    prefix: &str,
    delimiter: &str,
    shard: Option<&str>,
    fields: &[FieldSpec],
) -> Option<Vec<Option<String>>> {
    let mut rest = key.strip_prefix(prefix)?;
    if let Some(shard) = shard {
        rest = rest.strip_prefix(delimiter)?.strip_prefix(shard)?;
    }
    let n = fields.len();
    let required = fields.iter().filter(|f| !f.optional).count();
    if rest.is_empty() {
        return (required == 0).then(|| vec![None; n]);
    }
    let rest = rest.strip_prefix(delimiter)?;
    let pieces: Vec<&str> = rest.split(delimiter).collect();
    let present = pieces.len().min(n);
    if present < required {
        return None;
    }
    let mut optional_left = present - required;
    let mut values = Vec::with_capacity(n);
    let mut next = 0;
    for f in fields {
        let has_value = !f.optional || {
            let take = optional_left > 0;
            optional_left -= take as usize;
            take
        };
        if !has_value {
            values.push(None);
            continue;
        }
        next += 1;
        values.push(Some(if next == present {
            pieces[present - 1..].join(delimiter)
        } else {
            pieces[next - 1].to_owned()
        }));
    }
    Some(values)
}

/// Values built from characters that collide with the delimiters: short, often empty.
fn value() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('b'),
            Just(':'),
            Just('_'),
            Just('#'),
            Just('é'),
            Just('日')
        ],
        0..4,
    )
    .prop_map(|c| c.into_iter().collect())
}

fn schema() -> impl Strategy<Value = (Vec<FieldSpec>, &'static str, Option<&'static str>)> {
    (
        proptest::collection::vec(
            any::<bool>().prop_map(|optional| FieldSpec { optional }),
            1..=4,
        ),
        proptest::sample::select(&DELIMITERS[..]),
        proptest::option::of(proptest::sample::select(&["0", "a3", "ff"][..])),
    )
}

fn tuple(fields: &[FieldSpec]) -> impl Strategy<Value = Vec<Option<String>>> {
    tuple_of(fields, value)
}

/// A value for each of `fields` (from `value`), absent or not where the field is optional.
fn tuple_of<S: Strategy<Value = String> + 'static>(
    fields: &[FieldSpec],
    value: impl Fn() -> S,
) -> Vec<BoxedStrategy<Option<String>>> {
    fields
        .iter()
        .map(|f| {
            if f.optional {
                proptest::option::of(value()).boxed()
            } else {
                value().prop_map(Some).boxed()
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// An accepted tuple is written exactly as Faceteer writes it and reads back as itself.
    #[test]
    fn accepted_keys_are_faceteer_keys_and_decode_to_their_tuple(
        (fields, delimiter, shard, values) in schema().prop_flat_map(|(f, d, s)| {
            let t = tuple(&f);
            (Just(f), Just(d), Just(s), t)
        })
    ) {
        if let Ok(key) = encode("#P", delimiter, shard, &fields, &values) {
            prop_assert_eq!(&key, &faceteer_build_key("#P", delimiter, shard, &values));
            prop_assert_eq!(decode(&key, "#P", delimiter, shard, &fields), Some(values));
        }
    }

    /// Two different tuples of one schema never share a key (checked directly, over an
    /// alphabet small enough that Faceteer's own encoding collides often).
    #[test]
    fn different_tuples_never_share_a_key(
        (fields, delimiter, a, b) in schema().prop_flat_map(|(f, d, _)| {
            let (ta, tb) = (tuple(&f), tuple(&f));
            (Just(f), Just(d), ta, tb)
        })
    ) {
        let ka = encode("#P", delimiter, None, &fields, &a);
        let kb = encode("#P", delimiter, None, &fields, &b);
        if let (Ok(ka), Ok(kb)) = (ka, kb) {
            if ka == kb {
                prop_assert_eq!(a, b);
            }
        }
    }

    /// A key without a prefix is the present values joined by the delimiter (OneTable's
    /// `${a}#${b}`), never empty, and two different tuples never share one.
    #[test]
    fn keys_without_a_prefix_never_collide(
        (fields, delimiter, a, b) in schema().prop_flat_map(|(f, d, _)| {
            let (ta, tb) = (tuple(&f), tuple(&f));
            (Just(f), Just(d), ta, tb)
        })
    ) {
        let ka = encode_bare(delimiter, &fields, &a);
        let kb = encode_bare(delimiter, &fields, &b);
        if let Ok(k) = &ka {
            prop_assert!(!k.is_empty());
            let joined: Vec<String> = a.iter().flatten().cloned().collect();
            prop_assert_eq!(k, &joined.join(delimiter));
        }
        if let (Ok(ka), Ok(kb)) = (ka, kb) {
            if ka == kb {
                prop_assert_eq!(a, b);
            }
        }
    }

    /// Shard ids of different widths (a shard-count schedule: 4 shards, then 32, then 4096)
    /// never let two records share a key, unless the delimiter starts with a hex digit —
    /// the one combination `#[derive(Facet)]` refuses (`check::shard_ids_decode`).
    #[test]
    fn shard_ids_of_any_width_never_share_a_key(
        (fields, delimiter, sa, a, sb, b) in (
            schema(),
            proptest::sample::select(&["_", "#", "::", "a", "0", "f_", "é", "ab"][..]),
        )
            .prop_flat_map(|((f, _, _), d)| {
                let id = || proptest::sample::select(&["0", "3", "0a", "1f", "00a", "fff"][..]);
                (Just(f.clone()), Just(d), id(), tuple(&f), id(), tuple(&f))
            })
    ) {
        let hex_start = delimiter
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
        // The refused combination is shown apart (`a_hex_delimiter_makes_shard_widths_ambiguous`):
        // here, one width under a hex delimiter.
        let sb = if hex_start && sa.len() != sb.len() { sa } else { sb };
        let ka = encode("#P", delimiter, Some(sa), &fields, &a);
        let kb = encode("#P", delimiter, Some(sb), &fields, &b);
        if let (Ok(ka), Ok(kb)) = (ka, kb) {
            if ka == kb {
                prop_assert_eq!((sa, a), (sb, b));
            }
        }
    }

    /// The rules refuse only what is ambiguous: with every field present and no delimiter in
    /// a value that another value follows, every tuple is accepted.
    #[test]
    fn unambiguous_tuples_are_accepted(
        (fields, delimiter, values) in schema().prop_flat_map(|(f, d, _)| {
            let all_present: Vec<BoxedStrategy<Option<String>>> =
                f.iter().map(|_| value().prop_map(Some).boxed()).collect();
            (Just(f), Just(d), all_present)
        })
    ) {
        let last = values.len() - 1;
        let clean = values[..last].iter().flatten().all(|v| {
            let s = format!("{v}{delimiter}");
            s.find(delimiter) == Some(v.len())
        });
        prop_assume!(clean);
        prop_assert!(encode("#P", delimiter, None, &fields, &values).is_ok());
    }
}

/// Values of any length up to 20 characters: a delimiter in every word of eight bytes.
fn long_value() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            6 => proptest::char::range('a', 'f'),
            1 => Just('_'),
            1 => Just('#'),
            1 => Just(':'),
            1 => Just('é'),
        ],
        0..20,
    )
    .prop_map(|c| c.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The one routine every key is written by (`write_key`: the common key written
    /// straight, any other by the full rules) gives exactly what [`KeyWriter`] gives: the
    /// same text, or the same error, with a prefix or without, sharded or not.
    #[test]
    fn the_straight_path_writes_what_the_full_rules_write(
        (fields, delimiter, shard, bare, values) in schema().prop_flat_map(|(f, d, s)| {
            let t = tuple_of(&f, long_value);
            (Just(f), Just(d), Just(s), any::<bool>(), t)
        })
    ) {
        let shard = if bare { None } else { shard };
        let full = if bare {
            encode_bare(delimiter, &fields, &values)
        } else {
            encode("#P", delimiter, shard, &fields, &values)
        };
        let optional: Vec<Option<&str>> = values.iter().map(Option::as_deref).collect();
        let parts: Vec<&dyn KeyPart> = fields
            .iter()
            .zip(&values)
            .zip(&optional)
            .map(|((spec, value), optional)| -> &dyn KeyPart {
                match (spec.optional, value) {
                    (true, _) => optional,
                    (false, value) => value.as_ref().expect("required fields have values"),
                }
            })
            .collect();
        let straight = write_key("#P", delimiter, bare, shard, &NAMES[..fields.len()], &parts);
        prop_assert_eq!(&straight, &full);
        // Long values reach the word-at-a-time delimiter search both paths share: what
        // either accepts reads back as its tuple.
        if let (Ok(key), false) = (&full, bare) {
            prop_assert_eq!(decode(key, "#P", delimiter, shard, &fields), Some(values));
        }
    }
}

fn fields(optional: &[bool]) -> Vec<FieldSpec> {
    optional
        .iter()
        .map(|&optional| FieldSpec { optional })
        .collect()
}

fn some(v: &str) -> Option<String> {
    Some(v.to_owned())
}

#[test]
fn absent_optional_then_delimiter_is_refused() {
    // (None, "y_x") and (Some("y"), "x") both give "#O_y_x" in Faceteer's format.
    let f = fields(&[true, false]);
    assert_eq!(
        encode("#O", "_", None, &f, &[some("y"), some("x")]).unwrap(),
        "#O_y_x"
    );
    assert!(matches!(
        encode("#O", "_", None, &f, &[None, some("y_x")]),
        Err(KeyError::DelimiterAfterAbsent {
            absent: "f0",
            field: "f1",
            ..
        })
    ));
}

#[test]
fn multi_character_delimiter_overlap_is_refused() {
    // With "::", ("x:", "y") and ("x", ":y") both give "x:::y".
    let f = fields(&[false, false]);
    assert_eq!(
        encode("#P", "::", None, &f, &[some("x"), some(":y")]).unwrap(),
        "#P::x:::y"
    );
    assert!(matches!(
        encode("#P", "::", None, &f, &[some("x:"), some("y")]),
        Err(KeyError::DelimiterInValue { field: "f0", .. })
    ));
}

#[test]
fn present_optional_after_absent_optional_is_refused() {
    let f = fields(&[true, true]);
    assert_eq!(
        encode("#P", "_", None, &f, &[some("a"), None]).unwrap(),
        "#P_a"
    );
    assert!(matches!(
        encode("#P", "_", None, &f, &[None, some("a")]),
        Err(KeyError::OptionalAfterAbsent {
            absent: "f0",
            present: "f1"
        })
    ));
}

/// Why the derive refuses a delimiter starting with a hex digit under a schedule that
/// changes the shard ids' width: one key for two records.
#[test]
fn a_hex_delimiter_makes_shard_widths_ambiguous() {
    let f = fields(&[false]);
    let old = encode("#G", "a", Some("0"), &f, &[some("a_x")]).unwrap();
    let new = encode("#G", "a", Some("0a"), &f, &[some("_x")]).unwrap();
    assert_eq!(old, "#Ga0aa_x");
    assert_eq!(old, new);
}

#[test]
fn faceteer_readme_unassigned_partition_is_accepted() {
    // GSI2PK of the README's Task: assignedUserId (optional), then status.
    let f = fields(&[true, false]);
    assert_eq!(
        encode("#USER_STATUS", "_", None, &f, &[None, some("open")]).unwrap(),
        "#USER_STATUS_open"
    );
    assert_eq!(
        encode("#USER_STATUS", "_", None, &f, &[some("u1"), some("open")]).unwrap(),
        "#USER_STATUS_u1_open"
    );
}

#[test]
fn absent_fields_give_the_prefix_alone() {
    let f = fields(&[true]);
    assert_eq!(encode("SERIAL", "#", None, &f, &[None]).unwrap(), "SERIAL");
    assert_eq!(
        encode("SERIAL", "#", None, &f, &[some("")]).unwrap(),
        "SERIAL#"
    );
}

// ---------------------------------------------------------------------------------------
// No key a facet builds is a guard's key.
//
// Guard items of unique values live under `PK = $unique#<facet>#<field>#…`, `SK = $unique`
// (`faceteer_core::unique`). The derive refuses a key prefix starting with `$unique`; a
// facet can still spell one with an empty prefix, the delimiter `$` and a value
// `unique#…`. Every base-table key goes through `Key::try_from_parts` (records, key
// builders) or `PartitionKey::render` (queries), which refuse such a partition with
// `KeyError::ReservedPartition`.

use aws_sdk_dynamodb::types::AttributeValue;
use faceteer_core::facet::Key;
use faceteer_core::partition::{PartitionKey, ShardChoice};
use faceteer_core::schema::{FacetSchema, KeySchema, UniqueSchema, PK, SK};
use faceteer_core::unique::{check_table_partition, guards, Guard, GUARD_PREFIX, GUARD_SK};

/// A facet with a unique field scoped by another: the guards the properties aim at.
static GUARDED: FacetSchema = FacetSchema {
    name: "User",
    delimiter: "#",
    pk: KeySchema {
        attribute: PK,
        prefix: "#U",
        no_prefix: false,
        fields: &[],
        optional: &[],
        shard: None,
    },
    sk: KeySchema {
        attribute: SK,
        prefix: "#U",
        no_prefix: false,
        fields: &[],
        optional: &[],
        shard: None,
    },
    indexes: &[],
    ttl_field: None,
    unique: &[UniqueSchema {
        attribute: "email",
        scope: &["team"],
    }],
    vectors: &[],
};

/// The guard of `email` in `team`.
fn guard(email: &str, team: &str) -> Guard {
    let item = [("email", email), ("team", team)]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.to_owned())))
        .collect();
    guards(&GUARDED, &item).unwrap().remove(0)
}

/// Delimiters and prefixes a facet may declare (the derive refuses only prefixes starting
/// with `$unique`; those are here too, refused at run time all the same).
const GUARD_DELIMITERS: [&str; 6] = ["$", "#", "_", "$u", "::", "$unique"];
const PREFIXES: [&str; 7] = ["", "", "$", "#P", "$uniq", "u", "$unique"];

/// A base-table key as a facet's generated code builds it: `PK` from the prefix, an
/// optional shard id and the values, `SK` likewise, then `Key::try_from_parts`.
fn table_key(
    (pk_prefix, sk_prefix): (&str, &str),
    delimiter: &'static str,
    shard: Option<&str>,
    fields: &[FieldSpec],
    values: &[Option<String>],
    sk_value: &str,
) -> Result<Key<()>, KeyError> {
    let pk = encode(pk_prefix, delimiter, shard, fields, values)?;
    let mut sk = KeyWriter::new(sk_prefix, delimiter);
    sk.part("sk", sk_value);
    Key::try_from_parts(pk, sk.finish()?)
}

/// Values aimed at the guards: `guard`'s partition with and without its `$`, the guard
/// sort key with and without it, `$unique…` texts, and small values of colliding characters.
fn guard_values(guard: &Guard) -> BoxedStrategy<String> {
    let tail = guard.pk.strip_prefix('$').unwrap().to_owned();
    prop_oneof![
        3 => value(),
        2 => Just(tail.clone()),
        1 => Just(guard.pk.clone()),
        1 => Just("unique".to_owned()),
        1 => Just(GUARD_SK.to_owned()),
        1 => "\\$?unique[#$_a]{0,3}",
        1 => Just(tail.split('#').next().unwrap().to_owned()),
    ]
    .boxed()
}

fn guard_tuple(fields: &[FieldSpec], guard: &Guard) -> BoxedStrategy<Vec<Option<String>>> {
    let per_field: Vec<BoxedStrategy<Option<String>>> = fields
        .iter()
        .map(|f| {
            if f.optional {
                proptest::option::of(guard_values(guard)).boxed()
            } else {
                guard_values(guard).prop_map(Some).boxed()
            }
        })
        .collect();
    per_field.boxed()
}

/// A random facet, guard and key values.
#[allow(clippy::type_complexity)]
fn guard_case() -> impl Strategy<
    Value = (
        Vec<FieldSpec>,
        &'static str,
        (&'static str, &'static str),
        Option<&'static str>,
        Guard,
        Vec<Option<String>>,
        String,
    ),
> {
    (
        proptest::collection::vec(
            any::<bool>().prop_map(|optional| FieldSpec { optional }),
            1..=3,
        ),
        proptest::sample::select(&GUARD_DELIMITERS[..]),
        (
            proptest::sample::select(&PREFIXES[..]),
            proptest::sample::select(&PREFIXES[..]),
        ),
        proptest::option::of(proptest::sample::select(&["0", "a3"][..])),
        ("[a-z#:$]{0,4}", "[a-z#:$]{0,3}"),
    )
        .prop_flat_map(|(fields, delimiter, prefixes, shard, (email, team))| {
            let guard = guard(&email, &team);
            let values = guard_tuple(&fields, &guard);
            let sk = guard_values(&guard);
            (
                Just(fields),
                Just(delimiter),
                Just(prefixes),
                Just(shard),
                Just(guard),
                values,
                sk,
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Every key a facet builds is refused with `ReservedPartition`, or is outside the
    /// guards' partition and so differs from every guard's key; and only keys in that
    /// partition are refused so.
    #[test]
    fn no_built_key_is_a_guard_key(
        (fields, delimiter, prefixes, shard, guard, values, sk) in guard_case()
    ) {
        let pk_text = encode(prefixes.0, delimiter, shard, &fields, &values);
        match table_key(prefixes, delimiter, shard, &fields, &values, &sk) {
            Ok(key) => {
                prop_assert!(!key.pk().starts_with(GUARD_PREFIX), "{:?}", key);
                prop_assert!(key.pk() != guard.pk || key.sk() != GUARD_SK, "{:?}", key);
                prop_assert_ne!(key.to_item(), guard.key());
            }
            Err(KeyError::ReservedPartition { key }) => {
                prop_assert!(key.starts_with(GUARD_PREFIX));
                prop_assert_eq!(Ok(&key), pk_text.as_ref());
            }
            // Ambiguous keys, refused as ever (never in the guards' partition's place).
            Err(_) => {}
        }
    }

    /// A query's partition of the table (built from a tail and its prefix, the shard id
    /// chosen late) is refused exactly when the record's key would be.
    #[test]
    fn query_partitions_are_refused_as_record_keys_are(
        (fields, delimiter, prefixes, shard, _guard, values, _sk) in guard_case()
    ) {
        let record = encode(prefixes.0, delimiter, shard, &fields, &values)
            .and_then(|pk| check_table_partition(&pk).map(|()| pk));
        let choice = match shard {
            None => ShardChoice::Unsharded,
            Some(id) => ShardChoice::Computed { count: 16, schedule: &[], id: Ok(id.to_owned()) },
        };
        let tail = encode("", delimiter, None, &fields, &values);
        let query = PartitionKey::new(PK, prefixes.0, delimiter, choice, tail).render(None);
        prop_assert_eq!(&query, &record);
        if let Err(KeyError::ReservedPartition { key }) = &query {
            prop_assert!(key.starts_with(GUARD_PREFIX));
        }
    }
}

/// The fault probe: a facet with the delimiter `$` and empty prefixes, keyed to write onto
/// the guard of `x` (`$unique#User#email#1:t#1:x`, `$unique`), is refused.
#[test]
fn a_key_spelling_a_guard_is_refused() {
    let guard = guard("x", "t");
    assert_eq!(guard.pk, "$unique#User#email#1:t#1:x");
    let tail = guard.pk.strip_prefix('$').unwrap();
    let err = table_key(
        ("", ""),
        "$",
        None,
        &fields(&[false]),
        &[some(tail)],
        "unique",
    )
    .unwrap_err();
    assert_eq!(
        err,
        KeyError::ReservedPartition {
            key: guard.pk.clone()
        }
    );
    // The same values under a prefix are a key of their own.
    let key = table_key(
        ("#P", ""),
        "$",
        None,
        &fields(&[false]),
        &[some(tail)],
        "unique",
    )
    .unwrap();
    assert_eq!(key.sk(), GUARD_SK);
    assert!(!key.pk().starts_with(GUARD_PREFIX));
}

/// The cases above are not vacuous: many keys spell the guards' partition (and are refused),
/// and many accepted ones carry the guard sort key.
#[test]
fn the_guard_cases_reach_the_guards_partition() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut refused, mut guard_sk) = (0, 0);
    for _ in 0..4000 {
        let (fields, delimiter, prefixes, shard, _, values, sk) =
            guard_case().new_tree(&mut runner).unwrap().current();
        match table_key(prefixes, delimiter, shard, &fields, &values, &sk) {
            Err(KeyError::ReservedPartition { .. }) => refused += 1,
            Ok(key) if key.sk() == GUARD_SK => guard_sk += 1,
            _ => {}
        }
    }
    assert!(refused >= 40, "{refused} keys in the guards' partition");
    assert!(
        guard_sk >= 10,
        "{guard_sk} accepted keys with the guard sort key"
    );
}
