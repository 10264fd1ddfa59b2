#![doc = include_str!("../../docs/exactly-once.md")]
