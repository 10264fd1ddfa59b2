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
