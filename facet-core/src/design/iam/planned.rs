//! A policy before its ARNs are written.

use super::document;
use super::names;
use super::options::PolicyKind;
use crate::design::model::TableDesign;

/// A policy before its ARNs are written.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    pub(crate) name: String,
    pub(crate) kind: PolicyKind,
    pub(crate) description: String,
    pub(crate) notes: Vec<String>,
    pub(crate) document: document::Document,
}

impl Planned {
    pub(crate) fn new(
        design: &TableDesign<'_>,
        kind: PolicyKind,
        description: String,
        notes: Vec<String>,
        document: document::Document,
    ) -> Self {
        let table = crate::design::cloudformation::logical_id(design.table);
        let name = match &kind {
            PolicyKind::Role(role) => format!("{table}{}", role.as_str()),
            PolicyKind::Pattern { facet, pattern } => {
                format!("{table}{}{}", names::pascal(facet), names::pascal(pattern))
            }
        };
        Planned {
            name,
            kind,
            description,
            notes,
            document,
        }
    }
}
