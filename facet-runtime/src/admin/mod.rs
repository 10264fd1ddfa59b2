//! Administering the table: creating it as the declared facets need it, and checking an
//! existing table against them.

mod create;
mod indexes;
pub(crate) mod settings;
pub(crate) mod stream;
mod verify;
mod wait;

pub use settings::SettingsReport;
pub use verify::{Difference, Verification};

impl crate::table::Table {
    /// The declared facets, or [`Error::TableSetup`](crate::Error::TableSetup) saying what
    /// needs them (`why`, after "has no declared facets").
    pub(crate) fn declared_facets(
        &self,
        why: &str,
    ) -> crate::error::Result<&[&'static faceteer_core::schema::FacetSchema]> {
        self.facets().ok_or_else(|| {
            crate::error::Error::TableSetup(format!(
                "table {} has no declared facets{why}; open it with `Table::declared` (after \
                 `faceteer::table!`) or `Table::with_facets`",
                self.name()
            ))
        })
    }
}
