#![doc = include_str!("../../docs/operating.md")]
