//! Cutting a byte stream into lines, in a fixed buffer.
//!
//! A serial link drops, repeats and invents bytes (a plug half in, a device booting,
//! a bootloader's banner). The framer never fails: it resynchronises on the next `$`
//! and reports what it threw away, so the receiver can count it.

use crate::MAX_LINE;

/// What the framer hands back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line from `$` up to (not including) `\n`; may still fail its
    /// checksum.
    Line(&'a [u8]),
    /// A line was cut short by the next `$`: bytes were lost.
    Torn,
    /// A line ran past [`MAX_LINE`] without `\n`; it is skipped up to the next `$`
    /// or `\n`.
    Overflow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Between,
    InLine,
    Skipping,
}

/// Incremental line framer. Feed it bytes one at a time with [`LineFramer::push`].
#[derive(Debug, Clone)]
pub struct LineFramer {
    buf: [u8; MAX_LINE],
    len: usize,
    state: State,
    garbage: u64,
}

impl Default for LineFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl LineFramer {
    pub const fn new() -> Self {
        LineFramer {
            buf: [0; MAX_LINE],
            len: 0,
            state: State::Between,
            garbage: 0,
        }
    }

    /// Bytes seen outside any line (not counting line ends) since creation.
    pub fn garbage_bytes(&self) -> u64 {
        self.garbage
    }

    /// Forget a partial line (after a reconnect: what came before is unrelated).
    pub fn reset(&mut self) {
        self.len = 0;
        self.state = State::Between;
    }

    /// Take one byte; returns a frame when one ends with it.
    pub fn push(&mut self, byte: u8) -> Option<Frame<'_>> {
        match byte {
            b'$' => {
                let torn = self.state == State::InLine;
                self.buf[0] = b'$';
                self.len = 1;
                self.state = State::InLine;
                torn.then_some(Frame::Torn)
            }
            b'\n' => match core::mem::replace(&mut self.state, State::Between) {
                State::InLine => Some(Frame::Line(&self.buf[..self.len])),
                State::Between | State::Skipping => None,
            },
            _ => match self.state {
                State::InLine if self.len + 1 >= MAX_LINE => {
                    // Room is kept for the '\n', which counts towards MAX_LINE.
                    self.state = State::Skipping;
                    Some(Frame::Overflow)
                }
                State::InLine => {
                    self.buf[self.len] = byte;
                    self.len += 1;
                    None
                }
                State::Skipping => None,
                State::Between => {
                    if byte != b'\r' {
                        self.garbage += 1;
                    }
                    None
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode_line, encode, Body, Message};

    /// Feed bytes and collect what came out, as owned descriptions.
    fn run(
        framer: &mut LineFramer,
        bytes: &[u8],
    ) -> ([Option<Result<u16, &'static str>>; 16], usize) {
        let mut out = [None; 16];
        let mut n = 0;
        for &b in bytes {
            if let Some(frame) = framer.push(b) {
                out[n] = Some(match frame {
                    Frame::Line(l) => decode_line(l).map(|m| m.seq).map_err(|_| "bad"),
                    Frame::Torn => Err("torn"),
                    Frame::Overflow => Err("overflow"),
                });
                n += 1;
            }
        }
        (out, n)
    }

    fn sample(seq: u16) -> ([u8; MAX_LINE], usize) {
        let mut buf = [0; MAX_LINE];
        let msg = Message {
            seq,
            time_ms: 10 * seq as u32,
            body: Body::Sample {
                height_mm: Some(1000 + seq),
                strength: 50,
            },
        };
        let n = encode(&msg, &mut buf).unwrap();
        (buf, n)
    }

    #[test]
    fn garbage_then_lines_then_torn_line() {
        let mut framer = LineFramer::new();
        let (a, an) = sample(1);
        let (b, bn) = sample(2);
        let mut stream = [0u8; 256];
        let mut len = 0;
        for part in [&b"\x00\xffboot"[..], &a[..an], &b[..bn / 2], &b[..bn]] {
            stream[len..len + part.len()].copy_from_slice(part);
            len += part.len();
        }
        let (out, n) = run(&mut framer, &stream[..len]);
        assert_eq!(n, 3);
        assert_eq!(out[0], Some(Ok(1)));
        assert_eq!(out[1], Some(Err("torn")));
        assert_eq!(out[2], Some(Ok(2)));
        assert_eq!(framer.garbage_bytes(), 6);
    }

    #[test]
    fn overlong_line_is_skipped_and_the_next_one_read() {
        let mut framer = LineFramer::new();
        let mut stream = [b'x'; 300];
        stream[0] = b'$';
        stream[299] = b'\n';
        let (out, n) = run(&mut framer, &stream);
        assert_eq!((n, out[0]), (1, Some(Err("overflow"))));
        let (a, an) = sample(9);
        let (out, n) = run(&mut framer, &a[..an]);
        assert_eq!((n, out[0]), (1, Some(Ok(9))));
    }

    #[test]
    fn a_line_of_exactly_max_length_fits() {
        let mut framer = LineFramer::new();
        let mut line = [b'a'; MAX_LINE];
        line[0] = b'$';
        line[MAX_LINE - 1] = b'\n';
        let mut got = None;
        for &b in &line {
            if let Some(f) = framer.push(b) {
                got = Some(matches!(f, Frame::Line(l) if l.len() == MAX_LINE - 1));
            }
        }
        assert_eq!(got, Some(true));
    }
}
