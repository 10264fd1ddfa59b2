#![doc = include_str!("../../docs/projections.md")]
