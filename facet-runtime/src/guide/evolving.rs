#![doc = include_str!("../../docs/evolving.md")]
