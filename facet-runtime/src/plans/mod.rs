//! What a write sends, planned before it is sent: the items and requests of puts and
//! updates, and the write times they carry. Shared by single writes, transactions and moves.

pub(crate) mod put;
pub(crate) mod stamp;
pub(crate) mod update;
