//! What awaiting an update or an upsert gives: nothing, or the record after or before it.

use faceteer_core::plan::Returning;
use faceteer_core::schema::PK;
use faceteer_core::{from_item, Facet, Item};

use crate::error::{Error, Result};

mod sealed {
    pub trait Sealed {}
}

/// What awaiting an update gives: nothing ([`Nothing`]), or a record ([`New`], [`Old`]).
pub trait Returns: sealed::Sealed + Send + 'static {
    /// What DynamoDB is asked to return.
    const RETURNING: Returning;
    /// The result for facet `F`.
    type Output<F: Facet>: Send;
    /// The result from the attributes returned.
    fn output<F: Facet>(attributes: Option<Item>) -> Result<Self::Output<F>>;
    /// The record the result holds, if any (for the facet's `after_read` hooks).
    #[doc(hidden)]
    fn record_mut<F: Facet>(output: &mut Self::Output<F>) -> Option<&mut F>;
}

/// An update that returns nothing (the default).
#[derive(Debug, Clone, Copy)]
pub enum Nothing {}
/// An update that returns the record as it is after the update.
#[derive(Debug, Clone, Copy)]
pub enum New {}
/// An update that returns the record as it was before the update.
#[derive(Debug, Clone, Copy)]
pub enum Old {}

impl sealed::Sealed for Nothing {}
impl sealed::Sealed for New {}
impl sealed::Sealed for Old {}

impl Returns for Nothing {
    const RETURNING: Returning = Returning::Nothing;
    type Output<F: Facet> = ();
    fn output<F: Facet>(_: Option<Item>) -> Result<()> {
        Ok(())
    }
    fn record_mut<F: Facet>(_: &mut ()) -> Option<&mut F> {
        None
    }
}

/// The record from the attributes an update returned.
fn record<F: Facet>(attributes: Option<Item>) -> Result<F> {
    let item = attributes.ok_or(Error::MissingKeyAttribute(PK.to_owned()))?;
    Ok(from_item::<F>(item)?)
}

impl Returns for New {
    const RETURNING: Returning = Returning::New;
    type Output<F: Facet> = F;
    fn output<F: Facet>(attributes: Option<Item>) -> Result<F> {
        record(attributes)
    }
    fn record_mut<F: Facet>(output: &mut F) -> Option<&mut F> {
        Some(output)
    }
}

impl Returns for Old {
    const RETURNING: Returning = Returning::Old;
    type Output<F: Facet> = F;
    fn output<F: Facet>(attributes: Option<Item>) -> Result<F> {
        record(attributes)
    }
    fn record_mut<F: Facet>(output: &mut F) -> Option<&mut F> {
        Some(output)
    }
}

/// Updates whose result makes sense when the update created the record: [`Nothing`] and
/// [`New`] ([`Old`] would have no record to return).
pub trait CanCreate: Returns {}
impl CanCreate for Nothing {}
impl CanCreate for New {}
