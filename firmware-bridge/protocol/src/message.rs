//! Typed messages. Text fields borrow from the decoded line, so decoding allocates
//! nothing and works on a microcontroller-sized buffer.

/// One line of the protocol: header (sequence number, sender's clock) and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    /// Sender's sequence number, +1 per line sent (wrapping at 65536). Each direction
    /// counts on its own; a jump tells the receiver that lines were lost.
    pub seq: u16,
    /// Sender's clock in milliseconds (the device's time since boot, wrapping at 2^32;
    /// the station sends its own uptime, which the device ignores).
    pub time_ms: u32,
    pub body: Body<'a>,
}

/// What a line says. Device → station: `Hello`, `Heartbeat`, `Sample`, `Apex`,
/// `Ack`, `Error`. Station → device: `HelloRequest`, `Set`, `Get`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body<'a> {
    /// `HELLO` with no fields: the station asks the device to introduce itself.
    HelloRequest,
    /// `HELLO,<proto>,<firmware>,<sensor>,<rate_hz>`: sent at boot and on request.
    Hello(Hello<'a>),
    /// `HB,<samples>,<sensor_faults>`: once a second, so a silent link is noticed.
    Heartbeat {
        /// Samples sent since boot (wrapping).
        samples: u32,
        /// Sensor frames that failed their checksum or timed out since boot.
        sensor_faults: u32,
    },
    /// `H,<height_mm|->,<strength>`: one range reading turned into a height above
    /// the floor; `-` when nothing is in the beam (weak return or background).
    Sample {
        height_mm: Option<u16>,
        /// The sensor's signal strength (TF-Luna "Amp"); 0 if it has none.
        strength: u16,
    },
    /// `APEX,<height_mm>,<t_rise_ms>,<t_apex_ms>`: the firmware's own apex of one
    /// pass through the beam (optional: only with `apex=1`). Device times.
    Apex {
        height_mm: u16,
        t_rise_ms: u32,
        t_apex_ms: u32,
    },
    /// `SET,<key>,<value>`: change a setting; answered by `ACK` or `ERR`.
    Set { key: Key, value: u32 },
    /// `GET,<key>`: read a setting; answered by `ACK`.
    Get { key: Key },
    /// `ACK,<ref_seq>,<key>,<value>`: the value now in force, for the command whose
    /// sequence number was `ref_seq`.
    Ack { ref_seq: u16, key: Key, value: u32 },
    /// `ERR,<code>,<ref_seq|->,<detail>`: something went wrong; `ref_seq` names the
    /// station's command it answers, if any.
    Error {
        code: ErrorCode<'a>,
        ref_seq: Option<u16>,
        detail: &'a str,
    },
}

/// The device's introduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello<'a> {
    /// Protocol family and version, e.g. `yut-height/1`; the major must match.
    pub proto: &'a str,
    /// Firmware name and version, e.g. `yh-avr/0.1.0`.
    pub firmware: &'a str,
    /// Sensor model, e.g. `TF-Luna`.
    pub sensor: &'a str,
    /// Samples per second the device sends.
    pub rate_hz: u16,
}

/// Device settings the station may read and change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// `rate`: samples per second, 1..=250.
    Rate,
    /// `lens`: height of the sensor's lens above the floor in mm, 0..=2000; added to
    /// each range reading.
    Lens,
    /// `ceil`: heights at or above this (mm) are the ceiling or a fixture, sent as
    /// `-`; 0 turns the cut-off off.
    Ceiling,
    /// `minstr`: weakest return strength taken as a target, 0..=65535.
    MinStrength,
    /// `apex`: 1 to send `APEX` events, 0 not to.
    Apex,
    /// `hb`: heartbeat period in ms, 100..=10000.
    Heartbeat,
}

impl Key {
    pub const ALL: [Key; 6] = [
        Key::Rate,
        Key::Lens,
        Key::Ceiling,
        Key::MinStrength,
        Key::Apex,
        Key::Heartbeat,
    ];

    /// The key's token on the wire.
    pub fn token(self) -> &'static str {
        match self {
            Key::Rate => "rate",
            Key::Lens => "lens",
            Key::Ceiling => "ceil",
            Key::MinStrength => "minstr",
            Key::Apex => "apex",
            Key::Heartbeat => "hb",
        }
    }

    pub fn from_token(token: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.token() == token)
    }

    /// The values a device accepts for this key (inclusive).
    pub fn range(self) -> (u32, u32) {
        match self {
            Key::Rate => (1, 250),
            Key::Lens => (0, 2000),
            Key::Ceiling => (0, 8000),
            Key::MinStrength => (0, 65535),
            Key::Apex => (0, 1),
            Key::Heartbeat => (100, 10000),
        }
    }
}

/// Error codes. Codes this version does not know decode as [`ErrorCode::Other`], so
/// a newer device's errors still reach the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode<'a> {
    /// `BADLINE`: a station line failed its checksum or framing.
    BadLine,
    /// `UNKNOWN`: an unknown message type or key.
    Unknown,
    /// `RANGE`: a `SET` value outside the key's range.
    Range,
    /// `SENSOR`: the range sensor stopped answering or sends bad frames.
    Sensor,
    /// `OVERFLOW`: the device's send buffer overflowed and lines were dropped.
    Overflow,
    Other(&'a str),
}

impl<'a> ErrorCode<'a> {
    pub fn token(self) -> &'a str {
        match self {
            ErrorCode::BadLine => "BADLINE",
            ErrorCode::Unknown => "UNKNOWN",
            ErrorCode::Range => "RANGE",
            ErrorCode::Sensor => "SENSOR",
            ErrorCode::Overflow => "OVERFLOW",
            ErrorCode::Other(s) => s,
        }
    }

    pub fn from_token(token: &'a str) -> ErrorCode<'a> {
        match token {
            "BADLINE" => ErrorCode::BadLine,
            "UNKNOWN" => ErrorCode::Unknown,
            "RANGE" => ErrorCode::Range,
            "SENSOR" => ErrorCode::Sensor,
            "OVERFLOW" => ErrorCode::Overflow,
            other => ErrorCode::Other(other),
        }
    }
}

/// Whether `text` may travel as a text field: printable ASCII without the framing
/// characters `$`, `,` and `*`.
pub fn is_field_text(text: &str) -> bool {
    text.bytes()
        .all(|b| (0x20..=0x7e).contains(&b) && b != b'$' && b != b',' && b != b'*')
}
