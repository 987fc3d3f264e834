//! The running station: the pure station core (commands, calls, the view the pages
//! draw) and the thin shell that wires capture → vision → judge → match → journal →
//! broadcast as tasks joined by channels, and serves the pages and the live API.
//!
//! Pure (no I/O, time passed in): [`command`], [`view`], [`core`], [`auth`],
//! [`board_view`].
//! Shell: [`clip`] (replay clips), [`hub`] (the seam between the tasks and the web
//! server), [`insight`] (win chances and stick fairness, off the core thread),
//! [`mqtt`] (the link to the tournament office), [`sim_crew`] and [`sim_camera`]
//! (rendered set-up and footage for the demo and tests), [`server`]
//! (axum: pages, WebSocket, login), [`run`] (the tasks).

pub mod auth;
pub mod board_view;
pub mod clip;
pub mod command;
pub mod core;
pub mod eyes;
pub mod hub;
pub mod insight;
pub mod mqtt;
pub mod overlay;
pub mod run;
pub mod server;
pub mod sim_camera;
pub mod sim_crew;
pub mod view;

pub use command::{Command, CommandError};
pub use hub::{CalibrateReply, CalibrateStep, Check, Hub, Published, Request};
