#![doc = include_str!("../../docs/errors.md")]
