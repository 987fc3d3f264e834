//! yutstation: a camera-judged yut (윷놀이) competition station.
//!
//! The crate is split into a pure core (rules, match, vision algorithms, sensor
//! protocol: values in, values out, no I/O, time passed in) and a thin shell (CLI,
//! files, serial, SQLite, HTTP). See `ARCHITECTURE.md` for the map.

pub mod capture;
pub mod journal;
pub mod referee;
pub mod rules;
pub mod sensor;
pub mod sim;
pub mod station;
pub mod vision;
