use faceteer::Facet;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct NoteV1 {
    text: String,
}

fn from_v1(old: NoteV1) -> Note {
    Note { id: String::new(), body: old.text }
}

/// Version 3 reads versions 1 and 2: one function is missing.
#[derive(Facet, Serialize, Deserialize)]
#[facet(schema_version = 3, upgrade = from_v1)]
struct Note {
    #[pk(prefix = "#NOTE")]
    #[sk(prefix = "#NOTE")]
    id: String,
    body: String,
}

/// An upgrade with no version to upgrade to.
#[derive(Facet, Serialize, Deserialize)]
#[facet(upgrade = from_v1)]
struct Memo {
    #[pk(prefix = "#MEMO")]
    #[sk(prefix = "#MEMO")]
    id: String,
}

/// Versions start at 1.
#[derive(Facet, Serialize, Deserialize)]
#[facet(schema_version = 0)]
struct Draft {
    #[pk(prefix = "#DRAFT")]
    #[sk(prefix = "#DRAFT")]
    id: String,
}

/// The stored version's attribute is faceteer's.
#[derive(Facet, Serialize, Deserialize)]
struct Page {
    #[pk(prefix = "#PAGE")]
    #[sk(prefix = "#PAGE")]
    id: String,
    #[serde(rename = "_facet_version")]
    revision: u32,
}

/// An upgrade function of another shape.
fn from_text(old: String) -> String {
    old
}

#[derive(Facet, Serialize, Deserialize)]
#[facet(schema_version = 2, upgrade = from_text)]
struct Sheet {
    #[pk(prefix = "#SHEET")]
    #[sk(prefix = "#SHEET")]
    id: String,
}

/// The old spelling of the schema version.
#[derive(Facet, Serialize, Deserialize)]
#[facet(version = 2)]
struct OldSpelling {
    #[pk(prefix = "#OLD")]
    #[sk(prefix = "#OLD")]
    id: String,
}

fn main() {}
