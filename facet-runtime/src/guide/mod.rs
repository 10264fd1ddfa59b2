//! The guide: pages on using faceteer, each with examples that compile.
//!
//! * [`attributes`]: every attribute and option the derives read;
//! * [`exactly_once`]: every write reported exactly; what a lost answer gives and costs;
//! * [`errors`]: the call's deadline, retries, and the one error type;
//! * [`faceteer`]: sharing a table with Faceteer for TypeScript, the wire format.

pub mod attributes;
pub mod errors;
pub mod exactly_once;
pub mod faceteer;
