//! The station's end of the link, pure: bytes and their arrival time in, typed
//! events and link health out. The I/O shell (`link.rs`) only moves bytes.

use super::align::{ClockAlign, StationMs};
use super::apex::TimedHeight;
use yut_height_protocol::{
    decode_line, protocol_major, Body, DecodeError, Frame, LineFramer, Message, PROTOCOL,
    PROTOCOL_MAJOR,
};

/// Who is on the other end, from its `HELLO`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub proto: String,
    pub firmware: String,
    pub sensor: String,
    pub rate_hz: u16,
}

/// Where the link stands, for the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkState {
    /// No port open (not plugged in, or between retries).
    #[default]
    Disconnected,
    /// Port open, waiting for the device's `HELLO`.
    Handshaking,
    /// Talking.
    Live,
    /// The device speaks another major version of the protocol.
    Incompatible,
}

impl LinkState {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkState::Disconnected => "disconnected",
            LinkState::Handshaking => "handshaking",
            LinkState::Live => "live",
            LinkState::Incompatible => "incompatible",
        }
    }
}

/// Link health, for the console and for set-up. Counters run since the station
/// started (across reconnects).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkHealth {
    pub state: LinkState,
    pub device: Option<DeviceInfo>,
    pub last_line_ms: Option<StationMs>,
    pub last_heartbeat_ms: Option<StationMs>,
    pub last_height_mm: Option<u16>,
    pub lines_ok: u64,
    pub samples: u64,
    /// Lines damaged on the way (checksum mismatch).
    pub checksum_errors: u64,
    /// Lines cut short by the next line's `$`.
    pub torn_lines: u64,
    /// Lines that framed and passed the checksum but made no sense, and lines past
    /// the length limit.
    pub malformed: u64,
    /// Whole lines of a message type this version does not know (a newer device's
    /// compatible addition): skipped, counted in the sequence, not lost.
    pub unknown_types: u64,
    /// Bytes between lines (noise, a bootloader's banner).
    pub garbage_bytes: u64,
    /// Times the sequence number jumped, and the lines lost in those jumps.
    pub seq_gaps: u64,
    pub lines_lost: u64,
    /// Sensor faults the device reported in its last heartbeat.
    pub sensor_faults: u32,
    /// Times a live link was lost and the port reopened.
    pub reconnects: u64,
    /// The last problem, as one line a person can act on.
    pub last_error: Option<String>,
}

/// What the receiver hands on.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkEvent {
    /// The device introduced itself and speaks our major version.
    Hello(DeviceInfo),
    /// It speaks another version; the link should not be used.
    Incompatible(DeviceInfo),
    /// A reading, on the station's clock.
    Sample(TimedHeight),
    /// The firmware's own apex of a pass through the beam, on the station's clock.
    DeviceApex {
        height_mm: u16,
        station_ms: StationMs,
    },
    Ack {
        key: yut_height_protocol::Key,
        value: u32,
    },
    DeviceError {
        code: String,
        detail: String,
    },
}

/// Decodes the device's byte stream.
#[derive(Debug, Clone, Default)]
pub struct Receiver {
    framer: LineFramer,
    align: ClockAlign,
    next_seq: Option<u16>,
    greeted: bool,
    pub health: LinkHealth,
}

impl Receiver {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new connection: forget the partial line, the sequence and the greeting
    /// (the health counters stay).
    pub fn reconnected(&mut self, state: LinkState) {
        self.framer.reset();
        self.next_seq = None;
        self.greeted = false;
        self.health.state = state;
    }

    /// Whether the device has said a compatible `HELLO` on this connection.
    pub fn greeted(&self) -> bool {
        self.greeted
    }

    /// Take bytes that arrived at `now`.
    pub fn feed(&mut self, bytes: &[u8], now: StationMs, out: &mut Vec<LinkEvent>) {
        for &b in bytes {
            let garbage_before = self.framer.garbage_bytes();
            let frame = self.framer.push(b);
            let outcome = match frame {
                None => None,
                Some(Frame::Torn) => Some(Err(LineProblem::Torn)),
                Some(Frame::Overflow) => Some(Err(LineProblem::Malformed("line too long".into()))),
                Some(Frame::Line(line)) => Some(decode_owned(line)),
            };
            self.health.garbage_bytes += self.framer.garbage_bytes() - garbage_before;
            match outcome {
                None => {}
                Some(Ok(msg)) => self.message(msg, now, out),
                Some(Err(LineProblem::UnknownType { seq })) => {
                    self.health.unknown_types += 1;
                    if self.greeted {
                        self.count_seq(seq);
                    }
                }
                Some(Err(LineProblem::Torn)) => self.health.torn_lines += 1,
                Some(Err(LineProblem::Checksum)) => self.health.checksum_errors += 1,
                Some(Err(LineProblem::Malformed(why))) => {
                    self.health.malformed += 1;
                    self.health.last_error = Some(format!("malformed line from the sensor: {why}"));
                }
            }
        }
    }

    fn message(&mut self, msg: OwnedMessage, now: StationMs, out: &mut Vec<LinkEvent>) {
        self.health.lines_ok += 1;
        self.health.last_line_ms = Some(now);
        if let OwnedBody::Hello(info) = msg.body {
            // A hello starts a new count (the device may have rebooted) and a new
            // clock history.
            self.next_seq = Some(msg.seq.wrapping_add(1));
            self.align.reset();
            let device_ms = self.align.unwrap(msg.time_ms);
            self.align.observe(device_ms, now);
            self.health.device = Some(info.clone());
            if protocol_major(&info.proto) == Some(PROTOCOL_MAJOR) {
                self.greeted = true;
                self.health.state = LinkState::Live;
                out.push(LinkEvent::Hello(info));
            } else {
                self.greeted = false;
                self.health.state = LinkState::Incompatible;
                self.health.last_error = Some(format!(
                    "the sensor speaks {} but this station speaks {PROTOCOL}: flash matching firmware",
                    info.proto
                ));
                out.push(LinkEvent::Incompatible(info));
            }
            return;
        }
        if !self.greeted {
            // Before the greeting the version is unknown: nothing is trusted.
            return;
        }
        self.count_seq(msg.seq);
        let device_ms = self.align.unwrap(msg.time_ms);
        self.align.observe(device_ms, now);
        let to_station = |align: &ClockAlign, raw: u32| {
            // Times inside a body (apex) are close to the header's: unwrap relative to it.
            let delta = raw.wrapping_sub(msg.time_ms) as i32 as i64;
            align
                .to_station((device_ms as i64 + delta).max(0) as u64)
                .unwrap_or(now)
        };
        match msg.body {
            OwnedBody::Hello(_) => unreachable!("handled above"),
            OwnedBody::Heartbeat { sensor_faults } => {
                self.health.last_heartbeat_ms = Some(now);
                self.health.sensor_faults = sensor_faults;
            }
            OwnedBody::Sample { height_mm } => {
                self.health.samples += 1;
                self.health.last_height_mm = height_mm;
                let station_ms = self.align.to_station(device_ms).unwrap_or(now);
                out.push(LinkEvent::Sample(TimedHeight {
                    station_ms,
                    height_mm,
                }));
            }
            OwnedBody::Apex {
                height_mm,
                t_apex_ms,
            } => out.push(LinkEvent::DeviceApex {
                height_mm,
                station_ms: to_station(&self.align, t_apex_ms),
            }),
            OwnedBody::Ack { key, value } => out.push(LinkEvent::Ack { key, value }),
            OwnedBody::Error { code, detail } => {
                self.health.last_error = Some(format!("the sensor reports {code}: {detail}"));
                out.push(LinkEvent::DeviceError { code, detail });
            }
            OwnedBody::Ignored => {}
        }
    }
}

impl Receiver {
    /// A numbered line arrived: count the lines the sequence skipped as lost.
    fn count_seq(&mut self, seq: u16) {
        if let Some(expected) = self.next_seq {
            let jump = seq.wrapping_sub(expected);
            if jump != 0 && jump < 0x8000 {
                self.health.seq_gaps += 1;
                self.health.lines_lost += jump as u64;
            }
        }
        self.next_seq = Some(seq.wrapping_add(1));
    }
}

enum LineProblem {
    Torn,
    UnknownType { seq: u16 },
    Checksum,
    Malformed(String),
}

/// The parts of a message the station keeps, owned (a line's buffer is reused).
struct OwnedMessage {
    seq: u16,
    time_ms: u32,
    body: OwnedBody,
}

enum OwnedBody {
    Hello(DeviceInfo),
    Heartbeat {
        sensor_faults: u32,
    },
    Sample {
        height_mm: Option<u16>,
    },
    Apex {
        height_mm: u16,
        t_apex_ms: u32,
    },
    Ack {
        key: yut_height_protocol::Key,
        value: u32,
    },
    Error {
        code: String,
        detail: String,
    },
    /// Valid, but nothing for the station (a command echoed back, say).
    Ignored,
}

fn decode_owned(line: &[u8]) -> Result<OwnedMessage, LineProblem> {
    let Message { seq, time_ms, body } = decode_line(line).map_err(|e| match e {
        DecodeError::BadChecksum { .. } => LineProblem::Checksum,
        DecodeError::UnknownType { seq } => LineProblem::UnknownType { seq },
        other => LineProblem::Malformed(other.to_string()),
    })?;
    let body = match body {
        Body::Hello(h) => OwnedBody::Hello(DeviceInfo {
            proto: h.proto.into(),
            firmware: h.firmware.into(),
            sensor: h.sensor.into(),
            rate_hz: h.rate_hz,
        }),
        Body::Heartbeat { sensor_faults, .. } => OwnedBody::Heartbeat { sensor_faults },
        Body::Sample { height_mm, .. } => OwnedBody::Sample { height_mm },
        Body::Apex {
            height_mm,
            t_apex_ms,
            ..
        } => OwnedBody::Apex {
            height_mm,
            t_apex_ms,
        },
        Body::Ack { key, value, .. } => OwnedBody::Ack { key, value },
        Body::Error { code, detail, .. } => OwnedBody::Error {
            code: code.token().into(),
            detail: detail.into(),
        },
        Body::HelloRequest | Body::Set { .. } | Body::Get { .. } => OwnedBody::Ignored,
    };
    Ok(OwnedMessage { seq, time_ms, body })
}

#[cfg(test)]
mod tests {
    use super::*;
    use yut_height_protocol::{encode, Hello, MAX_LINE};

    fn line(seq: u16, time_ms: u32, body: Body<'_>) -> Vec<u8> {
        let mut buf = [0u8; MAX_LINE];
        let n = encode(&Message { seq, time_ms, body }, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn hello(proto: &str) -> Vec<u8> {
        line(
            0,
            50,
            Body::Hello(Hello {
                proto,
                firmware: "t/1",
                sensor: "TF-Luna",
                rate_hz: 100,
            }),
        )
    }

    fn sample(seq: u16, t: u32, h: u16) -> Vec<u8> {
        line(
            seq,
            t,
            Body::Sample {
                height_mm: Some(h),
                strength: 9,
            },
        )
    }

    #[test]
    fn counts_gaps_damage_and_garbage_and_keeps_going() {
        let mut rx = Receiver::new();
        let mut out = Vec::new();
        let mut stream = b"\x00boot\r\n".to_vec();
        stream.extend(hello(PROTOCOL));
        stream.extend(sample(1, 60, 1000));
        let mut bad = sample(2, 70, 1001);
        bad[10] ^= 1;
        stream.extend(bad);
        stream.extend(&sample(3, 80, 1002)[..9]); // torn by the next '$'
        stream.extend(sample(6, 110, 1005));
        rx.feed(&stream, 1_000, &mut out);
        let h = &rx.health;
        assert_eq!(h.state, LinkState::Live);
        assert_eq!(
            (h.checksum_errors, h.torn_lines, h.garbage_bytes),
            (1, 1, 5)
        );
        assert_eq!((h.seq_gaps, h.lines_lost), (1, 4));
        let samples: Vec<_> = out
            .iter()
            .filter_map(|e| match e {
                LinkEvent::Sample(s) => s.height_mm,
                _ => None,
            })
            .collect();
        assert_eq!(samples, vec![1000, 1005]);
    }

    /// A line of a type this version does not know, as a newer device sends it
    /// (a compatible addition, PROTOCOL.md): framed, checksummed, numbered.
    fn unknown_type(seq: u16, t: u32) -> Vec<u8> {
        let payload = format!("YH,{seq},{t},TEMP,215");
        format!(
            "${payload}*{:02X}\r\n",
            yut_height_protocol::crc8(payload.as_bytes())
        )
        .into_bytes()
    }

    #[test]
    fn a_message_type_this_version_does_not_know_is_skipped_not_lost() {
        let mut rx = Receiver::new();
        let mut out = Vec::new();
        let mut stream = hello(PROTOCOL);
        stream.extend(sample(1, 60, 1000));
        stream.extend(unknown_type(2, 65));
        stream.extend(unknown_type(3, 66));
        stream.extend(sample(4, 70, 1001));
        rx.feed(&stream, 1_000, &mut out);
        let h = &rx.health;
        assert_eq!((h.seq_gaps, h.lines_lost), (0, 0), "{h:?}");
        assert_eq!((h.unknown_types, h.malformed), (2, 0), "{h:?}");
        assert_eq!(h.samples, 2);
        // A line really lost after it still counts.
        rx.feed(&sample(6, 90, 1002), 1_010, &mut out);
        assert_eq!((rx.health.seq_gaps, rx.health.lines_lost), (1, 1));
    }

    #[test]
    fn another_major_version_is_refused() {
        let mut rx = Receiver::new();
        let mut out = Vec::new();
        rx.feed(&hello("yut-height/2"), 0, &mut out);
        rx.feed(&sample(1, 60, 1000), 5, &mut out);
        assert_eq!(rx.health.state, LinkState::Incompatible);
        assert!(matches!(out[..], [LinkEvent::Incompatible(_)]));
        assert!(rx
            .health
            .last_error
            .as_deref()
            .unwrap()
            .contains("yut-height/2"));
    }

    #[test]
    fn nothing_is_trusted_before_the_hello() {
        let mut rx = Receiver::new();
        let mut out = Vec::new();
        rx.feed(&sample(1, 60, 1000), 5, &mut out);
        assert!(out.is_empty());
        assert!(!rx.greeted());
    }
}
