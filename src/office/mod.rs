//! The tournament office (`yutstation office`, `docs/tournament.md`): its journal
//! ([`store`]), the core thread with its MQTT link to the stations ([`run`]), the
//! board's state ([`view`], pure), the hall screen and console ([`server`]), and a
//! local Mosquitto for the demo and the tests ([`broker`]). The tournament's logic
//! is the pure crate `yut_tournament`.
//!
//! Shell.

pub mod broker;
pub mod run;
pub mod server;
pub mod store;
pub mod view;
