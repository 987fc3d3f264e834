//! Game rules, pure: no I/O, no clocks.

pub mod yut;
