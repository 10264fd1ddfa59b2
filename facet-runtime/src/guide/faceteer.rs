#![doc = include_str!("../../docs/faceteer.md")]
