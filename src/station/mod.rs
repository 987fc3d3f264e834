//! The running station: the pure station core (commands, calls, the view the pages
//! draw) and the thin shell that wires capture → vision → judge → match → journal →
//! broadcast as tasks joined by channels, and serves the pages and the live API.
//!
//! Pure (no I/O, time passed in): [`command`], [`view`], [`core`].
//! Shell: [`hub`] (the seam between the tasks and the web server), [`server`]
//! (axum: pages, WebSocket, login), [`run`] (the tasks).

pub mod command;
pub mod hub;

pub use command::{Command, CommandError};
pub use hub::{CalibrateReply, CalibrateStep, Check, Hub, Published, Request};
pub mod auth;
pub mod board_view;
pub mod server;
