//! Checks of the code's structure, run with the suite: no module cycles in any crate, and
//! the public API as listed in `tests/structure/public-api.txt`.

mod modules;
mod surface;
