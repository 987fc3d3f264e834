//! Writing a message as one line into a caller's buffer.

use crate::message::{is_field_text, Body, ErrorCode, Message};
use crate::{crc8, MAX_LINE, TALKER};
use core::fmt::{self, Write};

/// Why a message could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodeError {
    /// The buffer (or [`MAX_LINE`]) is too small for the line.
    TooLong,
    /// A text field holds a character the line cannot carry (`$`, `,`, `*`, or
    /// anything outside printable ASCII), or a required one (`HELLO`'s fields, an
    /// error code) is empty.
    BadText,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::TooLong => write!(f, "line longer than {MAX_LINE} bytes"),
            EncodeError::BadText => write!(f, "text field with a character the line cannot carry"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for EncodeError {}

struct Cursor<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A required text field: non-empty, and only characters a field may carry.
fn text(s: &str) -> Result<&str, EncodeError> {
    if !s.is_empty() && is_field_text(s) {
        Ok(s)
    } else {
        Err(EncodeError::BadText)
    }
}

/// Write `msg` as one complete line (`$`…`*XX\r\n`) at the start of `buf`; returns
/// its length. Lines longer than [`MAX_LINE`] are refused even if `buf` is larger,
/// so the receiver's fixed buffer always fits what a conforming sender writes.
pub fn encode(msg: &Message<'_>, buf: &mut [u8]) -> Result<usize, EncodeError> {
    let cap = buf.len().min(MAX_LINE);
    let mut w = Cursor {
        buf: &mut buf[..cap],
        len: 0,
    };
    write_body(&mut w, msg).map_err(|_| EncodeError::TooLong)??;
    let crc = crc8(&w.buf[1..w.len]);
    write!(w, "*{crc:02X}\r\n").map_err(|_| EncodeError::TooLong)?;
    Ok(w.len)
}

/// The outer `Result` is "out of room", the inner one a bad field.
fn write_body(
    w: &mut Cursor<'_>,
    msg: &Message<'_>,
) -> Result<Result<(), EncodeError>, fmt::Error> {
    write!(w, "${TALKER},{},{},", msg.seq, msg.time_ms)?;
    match msg.body {
        Body::HelloRequest => w.write_str("HELLO")?,
        Body::Hello(h) => {
            let (Ok(p), Ok(fw), Ok(s)) = (text(h.proto), text(h.firmware), text(h.sensor)) else {
                return Ok(Err(EncodeError::BadText));
            };
            write!(w, "HELLO,{p},{fw},{s},{}", h.rate_hz)?;
        }
        Body::Heartbeat {
            samples,
            sensor_faults,
        } => write!(w, "HB,{samples},{sensor_faults}")?,
        Body::Sample {
            height_mm,
            strength,
        } => match height_mm {
            Some(mm) => write!(w, "H,{mm},{strength}")?,
            None => write!(w, "H,-,{strength}")?,
        },
        Body::Apex {
            height_mm,
            t_rise_ms,
            t_apex_ms,
        } => write!(w, "APEX,{height_mm},{t_rise_ms},{t_apex_ms}")?,
        Body::Set { key, value } => write!(w, "SET,{},{value}", key.token())?,
        Body::Get { key } => write!(w, "GET,{}", key.token())?,
        Body::Ack {
            ref_seq,
            key,
            value,
        } => write!(w, "ACK,{ref_seq},{},{value}", key.token())?,
        Body::Error {
            code,
            ref_seq,
            detail,
        } => {
            let token = code.token();
            let code_ok = !token.is_empty() && is_field_text(token);
            let known_spelled_as_other = matches!(code, ErrorCode::Other(_))
                && !matches!(ErrorCode::from_token(token), ErrorCode::Other(_));
            if !code_ok || known_spelled_as_other || !is_field_text(detail) {
                return Ok(Err(EncodeError::BadText));
            }
            write!(w, "ERR,{token},")?;
            match ref_seq {
                Some(r) => write!(w, "{r}")?,
                None => w.write_str("-")?,
            }
            write!(w, ",{detail}")?;
        }
    }
    Ok(Ok(()))
}
