//! The partitions a partition key reaches, as `dynamodb:LeadingKeys` patterns: scoped, with
//! each scope field's value replaced by its principal tag, or open, every value a `*`.
//!
//! The text follows [`key_pattern`](crate::design::key_pattern) and the key writer
//! ([`KeyWriter`](crate::key::KeyWriter)): the prefix, then each segment after the delimiter
//! (none before the first segment of a key without a prefix): the shard id, then each field
//! value. A scoped key's scope fields must be its first values (after the shard id, which
//! is enumerated); the values after them are one `<delimiter>*`, and when they can all be
//! absent the key without them is listed too.

use super::error::IamError;
use super::glob::{Glob, Part};
use super::options::IamScope;
use crate::design::model::TableDesign;
use crate::design::patterns::key_pattern;
use crate::schema::KeySchema;
use crate::shard::shard_ids;

/// The most shard ids a scoped key lists: each is one more pattern, and a managed policy
/// holds at most 6,144 characters.
pub const MAX_SCOPED_SHARDS: usize = 32;

/// A partition key and where it is: the facet, the index (`None`: the table) and the
/// facet's delimiter.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyPlace {
    pub(crate) facet: &'static str,
    pub(crate) index: Option<&'static str>,
    pub(crate) delimiter: &'static str,
}

/// The segments of a key pattern, as the key writer joins them.
struct Segments {
    glob: Glob,
    first: bool,
    delimiter: &'static str,
}

impl Segments {
    fn new(key: &KeySchema, delimiter: &'static str) -> Self {
        let glob = if key.no_prefix {
            Glob::default()
        } else {
            Glob::lit(key.prefix)
        };
        Segments {
            glob,
            first: key.no_prefix,
            delimiter,
        }
    }

    fn push(&mut self, part: Part) {
        if !std::mem::take(&mut self.first) {
            self.glob.push_lit(self.delimiter);
        }
        self.glob = std::mem::take(&mut self.glob).with(part);
    }
}

/// The principal tag of `field`'s scope, if a scope names it (the first that does).
pub(crate) fn tag_of<'a>(scopes: &[IamScope<'a>], field: &str) -> Option<&'a str> {
    scopes.iter().find(|s| s.field == field).map(|s| s.tag)
}

/// The patterns of every partition `key` writes, its scope fields' values replaced by
/// their principal tags; `None` when no scope field is in the key.
pub(crate) fn scoped_globs(
    key: &KeySchema,
    place: KeyPlace,
    scopes: &[IamScope<'_>],
) -> Result<Option<Vec<Glob>>, IamError> {
    let fields = key.fields;
    let leading = fields
        .iter()
        .take_while(|f| tag_of(scopes, f).is_some())
        .count();
    if let Some(field) = fields[leading..]
        .iter()
        .find(|f| tag_of(scopes, f).is_some())
    {
        return Err(IamError::ScopeNotLeading {
            facet: place.facet,
            index: place.index,
            field,
            after: fields[leading],
            key: key_pattern(key, place.delimiter),
        });
    }
    if leading == 0 {
        return Ok(None);
    }
    let optional = |i: usize| key.optional.get(i).copied().unwrap_or(false);
    if let Some(j) = (0..leading).find(|&j| optional(j) && j + 1 < fields.len()) {
        return Err(IamError::OptionalScope {
            facet: place.facet,
            index: place.index,
            field: fields[j],
        });
    }
    let shards: Vec<Option<String>> = match &key.shard {
        None => vec![None],
        Some(shard) => {
            let ids = shard_ids(shard.count, shard.schedule);
            if ids.len() > MAX_SCOPED_SHARDS {
                return Err(IamError::TooManyShards {
                    facet: place.facet,
                    index: place.index,
                    shards: ids.len(),
                    max: MAX_SCOPED_SHARDS,
                });
            }
            ids.into_iter().map(Some).collect()
        }
    };
    let rest_can_be_absent = (leading..fields.len()).all(optional);
    let mut out = Vec::new();
    for shard in shards {
        let mut segments = Segments::new(key, place.delimiter);
        if let Some(id) = shard {
            segments.push(Part::Lit(id));
        }
        for field in &fields[..leading] {
            let tag = tag_of(scopes, field).expect("a scope field");
            segments.push(Part::Tag(tag.to_owned()));
        }
        if leading == fields.len() {
            out.push(segments.glob);
            continue;
        }
        if rest_can_be_absent {
            out.push(segments.glob.clone());
        }
        segments.push(Part::Star);
        out.push(segments.glob);
    }
    Ok(Some(out))
}

/// The patterns of every partition `key` writes, whatever its values: the prefix, and the
/// prefix, the delimiter and `*` unless the key is constant (both when it can be its prefix
/// alone); `*` for a key without a prefix.
pub(crate) fn open_globs(key: &KeySchema, delimiter: &str) -> Vec<Glob> {
    if key.no_prefix {
        return vec![Glob::default().with(Part::Star)];
    }
    if key.is_constant() {
        return vec![Glob::lit(key.prefix)];
    }
    let mut out = Vec::new();
    if key.can_be_prefix_alone() {
        out.push(Glob::lit(key.prefix));
    }
    let mut glob = Glob::lit(key.prefix);
    glob.push_lit(delimiter);
    out.push(glob.with(Part::Star));
    out
}

/// Whether `tag` is a tag key IAM accepts: 1 to 128 ASCII letters, digits and
/// `_ . : / = + - @` (IAM also allows spaces and other letters; a policy variable is safer
/// without them).
fn valid_tag(tag: &str) -> bool {
    (1..=128).contains(&tag.len())
        && tag
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.:/=+-@".contains(c))
}

/// Refuse a scope whose tag IAM does not accept, or whose field no facet's partition key
/// (of the table or of an index, a native index's attributes included) is built from.
pub(crate) fn check_scopes(
    design: &TableDesign<'_>,
    scopes: &[IamScope<'_>],
) -> Result<(), IamError> {
    for scope in scopes {
        if !valid_tag(scope.tag) {
            return Err(IamError::InvalidTag {
                field: scope.field.to_owned(),
                tag: scope.tag.to_owned(),
            });
        }
        let used = design.facets.iter().any(|f| {
            let s = f.schema;
            let native = s.indexes.iter().filter_map(|i| i.native);
            let native_fields = native.flat_map(|n| n.pk.iter().map(|k| k.name));
            std::iter::once(&s.pk)
                .chain(s.indexes.iter().map(|i| &i.pk))
                .flat_map(|k| k.fields.iter().copied())
                .chain(native_fields)
                .any(|field| field == scope.field)
        });
        if !used {
            return Err(IamError::UnusedScope {
                field: scope.field.to_owned(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::fixtures;
    use crate::schema::{ShardSchema, PK};

    const SCOPES: [IamScope<'static>; 2] =
        [IamScope::new("team", "team"), IamScope::new("org", "org")];

    fn place() -> KeyPlace {
        KeyPlace {
            facet: "F",
            index: None,
            delimiter: "_",
        }
    }

    fn rendered(key: &KeySchema) -> Result<Option<Vec<String>>, IamError> {
        let globs = scoped_globs(key, place(), &SCOPES)?;
        Ok(globs.map(|g| g.iter().map(Glob::render).collect()))
    }

    #[test]
    fn scope_fields_become_tags_and_later_values_a_star() {
        let key = fixtures::key(PK, "#T", &["team"], &[false]);
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            ["#T_${aws:PrincipalTag/team}"]
        );
        let key = fixtures::key(PK, "#T", &["org", "team", "id"], &[false, false, false]);
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            ["#T_${aws:PrincipalTag/org}_${aws:PrincipalTag/team}_*"]
        );
        // Values that can all be absent: the key without them too.
        let key = fixtures::key(PK, "#T", &["team", "a", "b"], &[false, true, true]);
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            [
                "#T_${aws:PrincipalTag/team}",
                "#T_${aws:PrincipalTag/team}_*"
            ]
        );
        // No prefix: no delimiter before the first value.
        let key = KeySchema {
            no_prefix: true,
            ..fixtures::key(PK, "", &["team", "id"], &[false, false])
        };
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            ["${aws:PrincipalTag/team}_*"]
        );
        // A prefix holding wildcard characters is matched as it is.
        let key = fixtures::key(PK, "$T*", &["team"], &[false]);
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            ["${$}T${*}_${aws:PrincipalTag/team}"]
        );
        let key = fixtures::key(PK, "#U", &["userId"], &[false]);
        assert_eq!(rendered(&key).unwrap(), None);
    }

    #[test]
    fn sharded_keys_list_each_shard() {
        let shard = |count| ShardSchema {
            count,
            fields: &["id"],
            schedule: &[],
            time_field: None,
        };
        let key = KeySchema {
            shard: Some(shard(3)),
            ..fixtures::key(PK, "#E", &["team", "day"], &[false, false])
        };
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            [
                "#E_0_${aws:PrincipalTag/team}_*",
                "#E_1_${aws:PrincipalTag/team}_*",
                "#E_2_${aws:PrincipalTag/team}_*"
            ]
        );
        let key = KeySchema {
            shard: Some(shard(33)),
            ..key
        };
        assert_eq!(
            rendered(&key).unwrap_err(),
            IamError::TooManyShards {
                facet: "F",
                index: None,
                shards: 33,
                max: 32
            }
        );
    }

    #[test]
    fn scopes_must_lead_and_be_required_when_followed() {
        let key = fixtures::key(PK, "#T", &["id", "team"], &[false, false]);
        let err = rendered(&key).unwrap_err();
        assert_eq!(
            err,
            IamError::ScopeNotLeading {
                facet: "F",
                index: None,
                field: "team",
                after: "id",
                key: "#T_{id}_{team}".into()
            }
        );
        assert!(
            err.to_string().contains("facet `F`'s partition key"),
            "{err}"
        );
        let key = fixtures::key(PK, "#T", &["team", "id"], &[true, false]);
        assert_eq!(
            rendered(&key).unwrap_err(),
            IamError::OptionalScope {
                facet: "F",
                index: None,
                field: "team"
            }
        );
        // Optional and last: a record without it has the prefix alone.
        let key = fixtures::key(PK, "#T", &["team"], &[true]);
        assert_eq!(
            rendered(&key).unwrap().unwrap(),
            ["#T_${aws:PrincipalTag/team}"]
        );
    }

    #[test]
    fn open_keys_are_their_prefix_and_a_star() {
        let open = |key: &KeySchema| -> Vec<String> {
            open_globs(key, "::").iter().map(Glob::render).collect()
        };
        assert_eq!(open(&fixtures::key(PK, "#U", &["id"], &[false])), ["#U::*"]);
        assert_eq!(open(&fixtures::key(PK, "#C", &[], &[])), ["#C"]);
        assert_eq!(
            open(&fixtures::key(PK, "#C", &["a"], &[true])),
            ["#C", "#C::*"]
        );
        let bare = KeySchema {
            no_prefix: true,
            ..fixtures::key(PK, "", &["a"], &[false])
        };
        assert_eq!(open(&bare), ["*"]);
    }

    #[test]
    fn tags_must_be_tag_keys() {
        assert!(valid_tag("team"));
        assert!(valid_tag("app:tenant-id/x=1+y@z_"));
        for bad in ["", "a}b", "a b", "a$", &"x".repeat(129)] {
            assert!(!valid_tag(bad), "{bad}");
        }
    }
}
