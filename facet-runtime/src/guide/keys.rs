#![doc = include_str!("../../docs/keys.md")]
