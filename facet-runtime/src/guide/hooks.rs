#![doc = include_str!("../../docs/hooks.md")]
