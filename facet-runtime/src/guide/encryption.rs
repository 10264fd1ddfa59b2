#![doc = include_str!("../../docs/encryption.md")]
