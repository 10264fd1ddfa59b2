#![doc = include_str!("../../docs/writes.md")]
