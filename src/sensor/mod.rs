//! The throw-height sensor: the serial link and the height rule.
//!
//! The rulebook wants the sticks thrown upward above shoulder height (seated) or
//! waist height (standing). An optional sensor beside the mat (see
//! `firmware-bridge/firmware/README.md`) streams heights over a serial line in the
//! `yut-height/1` protocol (`firmware-bridge/PROTOCOL.md`, crate
//! `yut_height_protocol`).
//!
//! - Pure: [`align`] (device clock → station clock), [`apex`] (apex within a throw
//!   window, the height rule → pass, or violation proposed to the referee as 낙),
//!   [`receiver`] (bytes → events and link health).
//! - Shell: [`link`] (the port, handshake, version check, reconnect with backoff).
//!
//! The station runs without a sensor: every check then says
//! [`apex::HeightCheck::Unmeasured`] and nothing is proposed.

pub mod align;
pub mod apex;
pub mod link;
pub mod receiver;

pub use align::StationMs;
pub use apex::{
    apex_in_window, check_height, Apex, HeightCheck, HeightRule, TimedHeight, Unmeasured,
};
pub use link::{LinkConfig, SensorLink, StationClock};
pub use receiver::{DeviceInfo, Event, Health, LinkState, Receiver};

/// The check when the station has no sensor configured.
pub fn check_without_sensor() -> HeightCheck {
    HeightCheck::Unmeasured(Unmeasured::NoSensor)
}
