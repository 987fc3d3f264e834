//! Reading one line into a typed message.

use crate::message::{Body, ErrorCode, Hello, Key, Message};
use crate::{crc8, MAX_LINE, TALKER};
use core::fmt;

/// Why a line was rejected. The station counts [`DecodeError::BadChecksum`] as
/// line noise and the rest as malformed or foreign lines; none of them is fatal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Does not start with `$`.
    NoStart,
    /// Longer than [`MAX_LINE`].
    TooLong,
    /// A byte outside printable ASCII, a second `$`, or a `*` before the checksum.
    Garbled,
    /// No `*XX` checksum at the end.
    NoChecksum,
    /// The checksum does not match the text: the line was damaged on the way.
    BadChecksum { expected: u8, found: u8 },
    /// Not a `YH` line (another talker on the wire).
    NotOurs,
    /// A header field (sequence number, time) is missing or not a number.
    BadHeader,
    /// A message type this version does not know (a newer sender): skip it. Its
    /// header was read: `seq` counts it, so it is not taken for a lost line.
    UnknownType { seq: u16 },
    /// A required field is missing.
    MissingField(&'static str),
    /// A field is present but not valid.
    BadField(&'static str),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NoStart => f.write_str("line does not start with '$'"),
            DecodeError::TooLong => write!(f, "line longer than {MAX_LINE} bytes"),
            DecodeError::Garbled => f.write_str("line holds a non-printable byte or a stray '$'"),
            DecodeError::NoChecksum => f.write_str("line has no '*XX' checksum"),
            DecodeError::BadChecksum { expected, found } => {
                write!(
                    f,
                    "checksum {found:02X} does not match the text ({expected:02X})"
                )
            }
            DecodeError::NotOurs => f.write_str("not a YH line"),
            DecodeError::BadHeader => f.write_str("bad sequence number or time"),
            DecodeError::UnknownType { .. } => f.write_str("unknown message type"),
            DecodeError::MissingField(name) => write!(f, "missing field '{name}'"),
            DecodeError::BadField(name) => write!(f, "bad field '{name}'"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for DecodeError {}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// A plain decimal: digits only (no sign, no spaces), at most ten of them.
fn number(field: &str) -> Option<u64> {
    if field.is_empty() || field.len() > 10 || !field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    field.parse().ok()
}

fn num<T: TryFrom<u64>>(field: Option<&str>, name: &'static str) -> Result<T, DecodeError> {
    let field = field.ok_or(DecodeError::MissingField(name))?;
    number(field)
        .and_then(|n| T::try_from(n).ok())
        .ok_or(DecodeError::BadField(name))
}

fn text<'a>(field: Option<&'a str>, name: &'static str) -> Result<&'a str, DecodeError> {
    match field {
        None => Err(DecodeError::MissingField(name)),
        Some("") => Err(DecodeError::BadField(name)),
        Some(s) => Ok(s),
    }
}

fn key(field: Option<&str>) -> Result<Key, DecodeError> {
    let field = field.ok_or(DecodeError::MissingField("key"))?;
    Key::from_token(field).ok_or(DecodeError::BadField("key"))
}

/// Decode one line. A trailing `\n` or `\r\n` is allowed and ignored. Fields after
/// the ones this version knows are ignored: a newer minor version may append them.
pub fn decode_line(line: &[u8]) -> Result<Message<'_>, DecodeError> {
    if line.len() > MAX_LINE {
        return Err(DecodeError::TooLong);
    }
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // The limit counts the "\r\n" a sender must add, even if this copy lacks it
    // (found by fuzzing: a 96-byte line without its end could not be re-sent).
    if line.len() + 2 > MAX_LINE {
        return Err(DecodeError::TooLong);
    }
    if line.first() != Some(&b'$') {
        return Err(DecodeError::NoStart);
    }
    if line[1..]
        .iter()
        .any(|&b| !(0x20..=0x7e).contains(&b) || b == b'$')
    {
        return Err(DecodeError::Garbled);
    }
    let n = line.len();
    if n < 4 || line[n - 3] != b'*' {
        return Err(DecodeError::NoChecksum);
    }
    let (Some(hi), Some(lo)) = (hex_digit(line[n - 2]), hex_digit(line[n - 1])) else {
        return Err(DecodeError::NoChecksum);
    };
    // '*' only introduces the checksum: one inside a field would let text through
    // that no sender can write (found by fuzzing).
    if line[1..n - 3].contains(&b'*') {
        return Err(DecodeError::Garbled);
    }
    let found = hi << 4 | lo;
    let payload = &line[1..n - 3];
    let expected = crc8(payload);
    if expected != found {
        return Err(DecodeError::BadChecksum { expected, found });
    }
    // Printable ASCII was checked above, so this cannot fail.
    let payload = core::str::from_utf8(payload).map_err(|_| DecodeError::Garbled)?;
    let mut fields = payload.split(',');
    if fields.next() != Some(TALKER) {
        return Err(DecodeError::NotOurs);
    }
    let seq = fields
        .next()
        .and_then(number)
        .and_then(|n| u16::try_from(n).ok())
        .ok_or(DecodeError::BadHeader)?;
    let time_ms = fields
        .next()
        .and_then(number)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or(DecodeError::BadHeader)?;
    let kind = fields.next().ok_or(DecodeError::MissingField("type"))?;
    let mut f = fields.peekable();
    let body = match kind {
        "HELLO" if f.peek().is_none() => Body::HelloRequest,
        "HELLO" => Body::Hello(Hello {
            proto: text(f.next(), "proto")?,
            firmware: text(f.next(), "firmware")?,
            sensor: text(f.next(), "sensor")?,
            rate_hz: num(f.next(), "rate_hz")?,
        }),
        "HB" => Body::Heartbeat {
            samples: num(f.next(), "samples")?,
            sensor_faults: num(f.next(), "sensor_faults")?,
        },
        "H" => {
            let height_mm = match f.next() {
                None => return Err(DecodeError::MissingField("height_mm")),
                Some("-") => None,
                h => Some(num(h, "height_mm")?),
            };
            Body::Sample {
                height_mm,
                strength: num(f.next(), "strength")?,
            }
        }
        "APEX" => Body::Apex {
            height_mm: num(f.next(), "height_mm")?,
            t_rise_ms: num(f.next(), "t_rise_ms")?,
            t_apex_ms: num(f.next(), "t_apex_ms")?,
        },
        "SET" => Body::Set {
            key: key(f.next())?,
            value: num(f.next(), "value")?,
        },
        "GET" => Body::Get {
            key: key(f.next())?,
        },
        "ACK" => Body::Ack {
            ref_seq: num(f.next(), "ref_seq")?,
            key: key(f.next())?,
            value: num(f.next(), "value")?,
        },
        "ERR" => {
            let code = ErrorCode::from_token(text(f.next(), "code")?);
            let ref_seq = match f.next() {
                None => return Err(DecodeError::MissingField("ref_seq")),
                Some("-") => None,
                r => Some(num(r, "ref_seq")?),
            };
            Body::Error {
                code,
                ref_seq,
                detail: f.next().unwrap_or(""),
            }
        }
        _ => return Err(DecodeError::UnknownType { seq }),
    };
    Ok(Message { seq, time_ms, body })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode;

    fn line(msg: &Message<'_>) -> ([u8; MAX_LINE], usize) {
        let mut buf = [0u8; MAX_LINE];
        let n = encode(msg, &mut buf).unwrap();
        (buf, n)
    }

    #[test]
    fn sample_line_reads_as_documented() {
        let msg = Message {
            seq: 7,
            time_ms: 1234,
            body: Body::Sample {
                height_mm: Some(1520),
                strength: 880,
            },
        };
        let (buf, n) = line(&msg);
        let text = core::str::from_utf8(&buf[..n]).unwrap();
        let crc = crc8(b"YH,7,1234,H,1520,880");
        let mut want = [0u8; 40];
        let want_len = {
            use core::fmt::Write;
            struct W<'a>(&'a mut [u8], usize);
            impl Write for W<'_> {
                fn write_str(&mut self, s: &str) -> core::fmt::Result {
                    self.0[self.1..self.1 + s.len()].copy_from_slice(s.as_bytes());
                    self.1 += s.len();
                    Ok(())
                }
            }
            let mut w = W(&mut want, 0);
            write!(w, "$YH,7,1234,H,1520,880*{crc:02X}\r\n").unwrap();
            w.1
        };
        assert_eq!(text.as_bytes(), &want[..want_len]);
        assert_eq!(decode_line(&buf[..n]), Ok(msg));
    }

    #[test]
    fn a_flipped_byte_fails_the_checksum() {
        let msg = Message {
            seq: 1,
            time_ms: 2,
            body: Body::Sample {
                height_mm: Some(1500),
                strength: 100,
            },
        };
        let (mut buf, n) = line(&msg);
        buf[12] = b'9';
        assert!(matches!(
            decode_line(&buf[..n]),
            Err(DecodeError::BadChecksum { .. })
        ));
    }

    #[test]
    fn rejects_lines_that_are_not_ours() {
        assert_eq!(decode_line(b"hello"), Err(DecodeError::NoStart));
        assert_eq!(decode_line(b"$YH,1,2,H,3,4"), Err(DecodeError::NoChecksum));
        assert_eq!(decode_line(b"$\x01"), Err(DecodeError::Garbled));
        let crc = crc8(b"GP,1,2,H");
        let mut l = *b"$GP,1,2,H*00";
        l[10] = b"0123456789ABCDEF"[(crc >> 4) as usize];
        l[11] = b"0123456789ABCDEF"[(crc & 15) as usize];
        assert_eq!(decode_line(&l), Err(DecodeError::NotOurs));
    }

    #[test]
    fn unknown_types_and_extra_fields() {
        fn with_crc(payload: &str) -> ([u8; MAX_LINE], usize) {
            let mut buf = [0u8; MAX_LINE];
            buf[0] = b'$';
            buf[1..=payload.len()].copy_from_slice(payload.as_bytes());
            let crc = crc8(payload.as_bytes());
            let hex = b"0123456789ABCDEF";
            let n = payload.len() + 1;
            buf[n] = b'*';
            buf[n + 1] = hex[(crc >> 4) as usize];
            buf[n + 2] = hex[(crc & 15) as usize];
            (buf, n + 3)
        }
        let (b, n) = with_crc("YH,1,2,TEMP,31");
        assert_eq!(
            decode_line(&b[..n]),
            Err(DecodeError::UnknownType { seq: 1 })
        );
        let (b, n) = with_crc("YH,1,2,HB,10,0,future");
        assert_eq!(
            decode_line(&b[..n]).unwrap().body,
            Body::Heartbeat {
                samples: 10,
                sensor_faults: 0
            }
        );
        let (b, n) = with_crc("YH,1,2,H,70000,0");
        assert_eq!(
            decode_line(&b[..n]),
            Err(DecodeError::BadField("height_mm"))
        );
        let (b, n) = with_crc("YH,1,2,H,-5,0");
        assert_eq!(
            decode_line(&b[..n]),
            Err(DecodeError::BadField("height_mm"))
        );
        let (b, n) = with_crc("YH,99999,2,HB,1,1");
        assert_eq!(decode_line(&b[..n]), Err(DecodeError::BadHeader));
    }
}
