//! The guide: pages on using faceteer, each with examples that compile.

pub mod attributes;
