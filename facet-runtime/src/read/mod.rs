//! What a read returns: whole records, or projections after `.select::<P>()`.

mod get;
mod mode;

pub use get::Get;
pub(crate) use mode::{decode_stored, stored_item};
pub use mode::{Fetched, Read, Select, Whole};
