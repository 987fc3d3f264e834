//! The throw-height sensor, station side, pure: bytes and times in, events and
//! checks out. No port, no thread, no clock (the serial link that owns the port is
//! the station's, `yutstation::sensor`).
//!
//! The rulebook wants the sticks thrown upward above shoulder height (seated) or
//! waist height (standing). An optional sensor beside the mat (see
//! `firmware-bridge/firmware/README.md`) streams heights over a serial line in the
//! `yut-height/1` protocol (`firmware-bridge/PROTOCOL.md`, crate
//! `yut_height_protocol`).
//!
//! - [`align`]: the device's clock onto the station's.
//! - [`apex`]: the apex within a throw window and the height rule: pass, or a
//!   violation proposed to the referee as 낙.
//! - [`receiver`]: bytes to events and link health.
//!
//! The station runs without a sensor: every check then says
//! [`apex::HeightCheck::Unmeasured`] and nothing is proposed.

pub mod align;
pub mod apex;
pub mod receiver;

pub use align::StationMs;
pub use apex::{
    apex_in_window, check_height, Apex, HeightCheck, HeightRule, TimedHeight, Unmeasured,
};
pub use receiver::{DeviceInfo, LinkEvent, LinkHealth, LinkState, Receiver};

/// The check when the station has no sensor configured.
pub fn check_without_sensor() -> HeightCheck {
    HeightCheck::Unmeasured(Unmeasured::NoSensor)
}
