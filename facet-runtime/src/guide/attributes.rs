#![doc = include_str!("../../docs/attributes.md")]
