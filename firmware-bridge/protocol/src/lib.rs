//! The `yut-height/1` line protocol between a throw-height sensor and the yut station.
//!
//! One message is one printable ASCII line, so a person can read the link in any
//! serial terminal:
//!
//! ```text
//! $YH,<seq>,<time_ms>,<TYPE>[,<field>...]*<crc>\r\n
//! ```
//!
//! `<crc>` is CRC-8/SMBUS (polynomial 0x07, init 0) of every byte between `$` and `*`,
//! in two upper-case hex digits. `PROTOCOL.md` beside this crate is the specification;
//! this crate is its reference implementation, shared by the station, the device
//! simulator and (as a conformance check) the C firmware's test.
//!
//! The core is `no_std` without allocation: [`encode`] writes into a caller's buffer,
//! [`decode_line`] borrows its text fields from the line, and [`LineFramer`] cuts a
//! byte stream into lines in a fixed buffer, surviving garbage and torn lines. The
//! `std` feature adds `std::error::Error` impls.
#![cfg_attr(not(feature = "std"), no_std)]

mod crc;
mod decode;
mod encode;
mod framer;
pub mod fuzzing;
mod message;

pub use crc::crc8;
pub use decode::{decode_line, DecodeError};
pub use encode::{encode, EncodeError};
pub use framer::{Frame, LineFramer};
pub use message::{Body, ErrorCode, Hello, Key, Message};

/// The protocol name and major version this crate speaks, as sent in `HELLO`.
pub const PROTOCOL: &str = "yut-height/1";
/// The protocol family, without the version.
pub const PROTOCOL_FAMILY: &str = "yut-height";
/// The major version this crate speaks.
pub const PROTOCOL_MAJOR: u16 = 1;
/// Longest line, from `$` to `\n` inclusive. Both ends may rely on it for buffers.
pub const MAX_LINE: usize = 96;
/// Talker id: the first field of every line.
pub const TALKER: &str = "YH";

/// Split a `HELLO` protocol string such as `yut-height/1` into its major version.
/// `None` if it is not this protocol family at all.
pub fn protocol_major(proto: &str) -> Option<u16> {
    let rest = proto.strip_prefix(PROTOCOL_FAMILY)?.strip_prefix('/')?;
    let major = rest.split('.').next()?;
    if major.is_empty() || !major.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    major.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_major_parses_family_and_version() {
        assert_eq!(protocol_major("yut-height/1"), Some(1));
        assert_eq!(protocol_major("yut-height/2.3"), Some(2));
        assert_eq!(protocol_major("yut-height/"), None);
        assert_eq!(protocol_major("yut-heights/1"), None);
        assert_eq!(protocol_major("nmea/1"), None);
        assert_eq!(protocol_major(PROTOCOL), Some(PROTOCOL_MAJOR));
    }
}
