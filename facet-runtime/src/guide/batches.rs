#![doc = include_str!("../../docs/batches.md")]
