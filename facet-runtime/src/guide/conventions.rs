#![doc = include_str!("../../docs/conventions.md")]
