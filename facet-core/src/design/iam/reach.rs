//! Which partitions of the table, of each index and of each vector index every facet's
//! records are in, and how a policy can name them: scoped by principal tags, open, or not
//! at all.
//!
//! A facet is *bound* to a scope when its table partition key is built from a scope field.
//! A resource (the table, an index) is *guarded* when a bound facet's records are in it, or
//! a facet keys it by a scope field: every statement on it then names the partitions it
//! may reach with `dynamodb:LeadingKeys`, and no facet's pattern may match another's
//! partitions that are scoped otherwise ([`IamError::Overlap`]).

use super::document::Resource;
use super::error::IamError;
use super::glob::{Glob, Part};
use super::options::IamScope;
use super::scope::{open_globs, scoped_globs, tag_of, KeyPlace};
use crate::design::model::{FacetDesign, TableDesign};
use crate::schema::IndexSchema;
use crate::unique::GUARD_PREFIX;

/// How a policy names one facet's partitions on one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Scoped: their patterns, the scope fields' values as principal tags.
    Scoped(Vec<Glob>),
    /// A facet bound to no scope: its patterns, every value a `*` (`None`: a native index,
    /// whose partitions are the records' own values and have no pattern).
    Open(Option<Vec<Glob>>),
    /// A bound facet's partitions that no scope field keys (an index keyed by other
    /// fields, a vector index): reading them reaches every scope's records. Their open
    /// patterns, as for [`Reach::Open`].
    Unscoped(Option<Vec<Glob>>),
}

impl Reach {
    /// The patterns naming the partitions: the scoped or open ones.
    pub(crate) fn globs(&self) -> Option<&[Glob]> {
        match self {
            Reach::Scoped(globs) => Some(globs),
            Reach::Open(globs) | Reach::Unscoped(globs) => globs.as_deref(),
        }
    }
}

/// One facet's partitions on one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The facet.
    pub(crate) facet: &'static str,
    /// Its key delimiter.
    pub(crate) delimiter: &'static str,
    /// How a policy names its partitions.
    pub(crate) reach: Reach,
}

/// The facets' partitions on one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Area {
    /// The table, an index or a vector index.
    pub(crate) resource: Resource,
    /// Each facet with records in it, in declaration order.
    pub(crate) entries: Vec<Entry>,
    /// Whether statements on it must name their partitions (see the module docs).
    pub(crate) guarded: bool,
}

impl Area {
    fn new(resource: Resource, entries: Vec<Entry>) -> Self {
        let guarded = entries
            .iter()
            .any(|e| matches!(e.reach, Reach::Scoped(_) | Reach::Unscoped(_)));
        Area {
            resource,
            entries,
            guarded,
        }
    }

    /// Facet `facet`'s partitions here.
    pub(crate) fn entry(&self, facet: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.facet == facet)
    }
}

/// The design's resources and the facets' partitions on each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reaches {
    /// The table.
    pub(crate) table: Area,
    /// Each secondary index, in [`TableDesign::indexes`] order.
    pub(crate) indexes: Vec<Area>,
    /// Each vector index, in [`TableDesign::vectors`] order.
    pub(crate) vectors: Vec<Area>,
    /// The partitions of the guard items of unique values (`$unique#<facet>#<field>#*`),
    /// each facet's fields in order.
    pub(crate) guards: Vec<Glob>,
}

impl Reaches {
    /// The partitions of `design`'s facets on each of its resources, scoped by `scopes`.
    pub(crate) fn of(design: &TableDesign<'_>, scopes: &[IamScope<'_>]) -> Result<Self, IamError> {
        let bound = |f: &FacetDesign<'_>| {
            f.schema
                .pk
                .fields
                .iter()
                .any(|x| tag_of(scopes, x).is_some())
        };
        let mut entries = Vec::new();
        for f in design.facets {
            let place = KeyPlace {
                facet: f.schema.name,
                index: None,
                delimiter: f.schema.delimiter,
            };
            entries.push(key_entry(f, &f.schema.pk, place, scopes, bound(f))?);
        }
        let table = Area::new(Resource::Table, entries);
        let mut indexes = Vec::new();
        for index in design.indexes() {
            let mut entries = Vec::new();
            for u in &index.uses {
                let f = facet(design, u.facet);
                entries.push(index_entry(f, u.index, index.name, scopes, bound(f))?);
            }
            indexes.push(Area::new(Resource::Index(index.name), entries));
        }
        let vectors = design
            .vectors()
            .into_iter()
            .map(|(v, used_by)| {
                let entries = used_by
                    .iter()
                    .map(|name| {
                        let f = facet(design, name);
                        let reach = if bound(f) {
                            Reach::Unscoped(None)
                        } else {
                            Reach::Open(None)
                        };
                        Entry {
                            facet: f.schema.name,
                            delimiter: f.schema.delimiter,
                            reach,
                        }
                    })
                    .collect();
                Area::new(Resource::Index(v.index), entries)
            })
            .collect();
        let reaches = Reaches {
            table,
            indexes,
            vectors,
            guards: guard_globs(design),
        };
        for area in std::iter::once(&reaches.table).chain(&reaches.indexes) {
            check_overlaps(design, area)?;
        }
        Ok(reaches)
    }

    /// The area of index `name` (a secondary or a vector index), by the table's name.
    pub(crate) fn index(&self, name: &str) -> Option<&Area> {
        self.indexes
            .iter()
            .chain(&self.vectors)
            .find(|a| matches!(a.resource, Resource::Index(n) if n == name))
    }

    /// Whether any resource is guarded: the design has partitions to scope.
    pub(crate) fn scoped(&self) -> bool {
        std::iter::once(&self.table)
            .chain(&self.indexes)
            .chain(&self.vectors)
            .any(|a| a.guarded)
    }
}

/// The design of facet `name` (one of the design's: index and vector uses name them).
fn facet<'d>(design: &'d TableDesign<'_>, name: &str) -> &'d FacetDesign<'d> {
    design
        .facets
        .iter()
        .find(|f| f.schema.name == name)
        .expect("an index's facet is the design's")
}

/// Facet `f`'s partitions keyed by `key`.
fn key_entry(
    f: &FacetDesign<'_>,
    key: &crate::schema::KeySchema,
    place: KeyPlace,
    scopes: &[IamScope<'_>],
    bound: bool,
) -> Result<Entry, IamError> {
    let reach = match scoped_globs(key, place, scopes)? {
        Some(globs) => Reach::Scoped(globs),
        None if bound => Reach::Unscoped(Some(open_globs(key, place.delimiter))),
        None => Reach::Open(Some(open_globs(key, place.delimiter))),
    };
    Ok(Entry {
        facet: f.schema.name,
        delimiter: f.schema.delimiter,
        reach,
    })
}

/// Facet `f`'s partitions of index `index` (named `name` by the table).
fn index_entry(
    f: &FacetDesign<'_>,
    index: &IndexSchema,
    name: &'static str,
    scopes: &[IamScope<'_>],
    bound: bool,
) -> Result<Entry, IamError> {
    let Some(native) = index.native else {
        let place = KeyPlace {
            facet: f.schema.name,
            index: Some(name),
            delimiter: f.schema.delimiter,
        };
        return key_entry(f, &index.pk, place, scopes, bound);
    };
    let fields = native.pk.iter().map(|k| k.name);
    if let Some(field) = fields
        .chain(index.pk.fields.iter().copied())
        .find(|x| tag_of(scopes, x).is_some())
    {
        return Err(IamError::NativeIndex {
            facet: f.schema.name,
            index: name,
            field,
        });
    }
    let reach = if bound {
        Reach::Unscoped(None)
    } else {
        Reach::Open(None)
    };
    Ok(Entry {
        facet: f.schema.name,
        delimiter: f.schema.delimiter,
        reach,
    })
}

/// The partitions of the guard items of every unique field, as
/// [`guards`](crate::unique::guards) keys them: `$unique#<facet>#<field>#` and the scope's
/// and the value's texts, which no pattern can scope (each is written after its length).
fn guard_globs(design: &TableDesign<'_>) -> Vec<Glob> {
    let mut out: Vec<Glob> = Vec::new();
    for f in design.facets {
        for unique in f.schema.unique {
            let head = format!("{GUARD_PREFIX}#{}#{}#", f.schema.name, unique.attribute);
            let glob = Glob::lit(&head).with(Part::Star);
            if !out.contains(&glob) {
                out.push(glob);
            }
        }
    }
    out
}

/// What an entry's patterns are scoped by: its tags, none for an open entry, its facet for
/// an unscoped one (whose partitions belong to every scope).
fn signature(entry: &Entry) -> String {
    match &entry.reach {
        Reach::Scoped(globs) => {
            let mut tags: Vec<&str> = globs.iter().flat_map(Glob::tags).collect();
            tags.sort_unstable();
            tags.dedup();
            format!("scoped:{}", tags.join(","))
        }
        Reach::Open(_) => "open".to_owned(),
        Reach::Unscoped(_) => format!("unscoped:{}", entry.facet),
    }
}

/// Whether one entry's pattern matching the other's partitions would open them wider: a
/// scoped entry's to another scope or to none, an unscoped entry's (left out of the roles)
/// to an open one.
fn at_risk(a: &Entry, b: &Entry) -> bool {
    let risky = matches!(
        (&a.reach, &b.reach),
        (Reach::Scoped(_), _)
            | (_, Reach::Scoped(_))
            | (Reach::Open(_), Reach::Unscoped(_))
            | (Reach::Unscoped(_), Reach::Open(_))
    );
    risky && signature(a) != signature(b)
}

/// Refuse two entries of a guarded area [`at_risk`] whose patterns can match one partition
/// (a tag matching any value).
fn check_overlaps(design: &TableDesign<'_>, area: &Area) -> Result<(), IamError> {
    if !area.guarded {
        return Ok(());
    }
    for (i, a) in area.entries.iter().enumerate() {
        for b in &area.entries[i + 1..] {
            if !at_risk(a, b) {
                continue;
            }
            let (Some(ga), Some(gb)) = (a.reach.globs(), b.reach.globs()) else {
                continue;
            };
            for x in ga {
                if let Some(y) = gb.iter().find(|y| x.overlaps(y)) {
                    return Err(IamError::Overlap {
                        resource: area.resource.describe(design.table),
                        facet: a.facet,
                        pattern: x.render(),
                        other: b.facet,
                        other_pattern: y.render(),
                    });
                }
            }
        }
    }
    Ok(())
}
