#![doc = include_str!("../../docs/testing.md")]
