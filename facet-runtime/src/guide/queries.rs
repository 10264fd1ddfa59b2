#![doc = include_str!("../../docs/queries.md")]
