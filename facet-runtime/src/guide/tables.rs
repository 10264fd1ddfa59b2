#![doc = include_str!("../../docs/tables.md")]
