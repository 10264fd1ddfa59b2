//! Checks of the code's structure, run with the suite: no module cycles in any crate, the
//! public API as listed in `tests/structure/public-api.txt`, and the attribute reference as
//! the derive parses attributes.

mod attributes;
mod modules;
mod surface;
