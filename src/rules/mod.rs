//! Game rules, pure: no I/O, no clocks.

pub mod gostop;
pub mod yut;
