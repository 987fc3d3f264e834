//! The simulated device, pure: time in, bytes out. No clock and no port here, so
//! the runtime (`crate::run`) stays a thin loop and the model can be tested alone.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use yut_height_protocol::{
    decode_line, encode, Body, ErrorCode, Frame, Hello, Key, LineFramer, Message, MAX_LINE,
    PROTOCOL,
};

/// Gravity in mm per ms².
pub const G_MM_PER_MS2: f64 = 9.806_65e-3;

/// What the simulated device is and how badly its link behaves.
#[derive(Debug, Clone)]
pub struct DeviceConfig {
    pub firmware: String,
    pub sensor: String,
    pub rate_hz: u16,
    pub heartbeat_ms: u32,
    /// Send `APEX` events (the firmware's `apex=1`).
    pub apex_events: bool,
    /// Standard deviation of the range noise, mm.
    pub noise_mm: f64,
    /// Readings are rounded to this (1 for mm output, 10 for a TF-Luna in cm mode).
    pub resolution_mm: u16,
    /// Probability that any one byte sent is lost.
    pub drop_prob: f64,
    /// Device clock at boot, ms (a large value exercises the 2^32 wrap).
    pub boot_clock_ms: u32,
    pub seed: u64,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig {
            firmware: "yh-sim/0.1.0".into(),
            sensor: "TF-Luna(sim)".into(),
            rate_hz: 100,
            heartbeat_ms: 1000,
            apex_events: true,
            noise_mm: 3.0,
            resolution_mm: 1,
            drop_prob: 0.0,
            boot_clock_ms: 0,
            seed: 1,
        }
    }
}

/// One pass of the sticks through the beam: a ballistic arc from the release
/// height up to the apex and back down.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arc {
    pub release_mm: f64,
    pub apex_mm: f64,
    /// Device time of release, ms since boot (not wrapped).
    pub start_ms: u64,
}

impl Arc {
    /// Time from release to apex, ms.
    pub fn rise_ms(&self) -> f64 {
        (2.0 * (self.apex_mm - self.release_mm).max(0.0) / G_MM_PER_MS2).sqrt()
    }

    /// Height at device time `t`, or `None` outside the pass.
    pub fn height_at(&self, t_ms: u64) -> Option<f64> {
        let dt = t_ms as f64 - self.start_ms as f64;
        let rise = self.rise_ms();
        if dt < 0.0 || dt > 2.0 * rise {
            return None;
        }
        let from_apex = dt - rise;
        Some(self.apex_mm - 0.5 * G_MM_PER_MS2 * from_apex * from_apex)
    }

    pub fn end_ms(&self) -> u64 {
        self.start_ms + (2.0 * self.rise_ms()).ceil() as u64
    }
}

/// The device's state between ticks.
pub struct DeviceModel {
    cfg: DeviceConfig,
    rng: SmallRng,
    seq: u16,
    samples: u32,
    next_heartbeat: u64,
    arc: Option<Arc>,
    /// Highest reading of the current pass, for the on-device apex event.
    pass: Option<(u16, u64, u64)>,
    corrupt_next: usize,
    tear_next: usize,
    framer: LineFramer,
    lens_mm: u32,
    ceiling_mm: u32,
    min_strength: u32,
}

impl DeviceModel {
    pub fn new(cfg: DeviceConfig) -> Self {
        let rng = SmallRng::seed_from_u64(cfg.seed);
        DeviceModel {
            rng,
            seq: 0,
            samples: 0,
            next_heartbeat: cfg.heartbeat_ms as u64,
            arc: None,
            pass: None,
            corrupt_next: 0,
            tear_next: 0,
            framer: LineFramer::new(),
            lens_mm: 40,
            ceiling_mm: 0,
            min_strength: 100,
            cfg,
        }
    }

    pub fn config(&self) -> &DeviceConfig {
        &self.cfg
    }

    pub fn set_noise(&mut self, noise_mm: f64) {
        self.cfg.noise_mm = noise_mm;
    }

    pub fn set_drop(&mut self, drop_prob: f64) {
        self.cfg.drop_prob = drop_prob;
    }

    /// Damage one byte in each of the next `lines` lines (the checksum will catch it).
    pub fn corrupt_lines(&mut self, lines: usize) {
        self.corrupt_next += lines;
    }

    /// Cut each of the next `lines` lines short (a plug pulled mid-line, a reset):
    /// the station sees them torn by the following line's `$`.
    pub fn tear_lines(&mut self, lines: usize) {
        self.tear_next += lines;
    }

    /// Start a throw at device time `t_ms`; returns its arc.
    pub fn throw(&mut self, t_ms: u64, release_mm: f64, apex_mm: f64) -> Arc {
        let arc = Arc {
            release_mm,
            apex_mm,
            start_ms: t_ms,
        };
        self.arc = Some(arc);
        arc
    }

    pub fn throwing(&self) -> bool {
        self.arc.is_some()
    }

    /// The device clock as sent on the wire for uptime `t_ms`.
    fn wire_time(&self, t_ms: u64) -> u32 {
        (self.cfg.boot_clock_ms as u64).wrapping_add(t_ms) as u32
    }

    fn line(&mut self, t_ms: u64, body: Body<'_>, out: &mut Vec<u8>) {
        let msg = Message {
            seq: self.seq,
            time_ms: self.wire_time(t_ms),
            body,
        };
        self.seq = self.seq.wrapping_add(1);
        let mut buf = [0u8; MAX_LINE];
        let n = encode(&msg, &mut buf).expect("simulator lines fit");
        let mut n = n;
        if self.tear_next > 0 {
            self.tear_next -= 1;
            n = self.rng.gen_range(2..n - 3);
        }
        let line = &mut buf[..n];
        if self.corrupt_next > 0 && n > 8 {
            self.corrupt_next -= 1;
            // Flip a bit in a digit or letter between '$' and '*'.
            let i = self.rng.gen_range(1..n - 5);
            line[i] ^= 0x01;
        }
        for &b in line.iter() {
            if self.cfg.drop_prob == 0.0 || !self.rng.gen_bool(self.cfg.drop_prob) {
                out.push(b);
            }
        }
    }

    /// The boot banner: what the device says when it comes up.
    pub fn hello(&mut self, t_ms: u64, out: &mut Vec<u8>) {
        let firmware = self.cfg.firmware.clone();
        let sensor = self.cfg.sensor.clone();
        let rate_hz = self.cfg.rate_hz;
        self.line(
            t_ms,
            Body::Hello(Hello {
                proto: PROTOCOL,
                firmware: &firmware,
                sensor: &sensor,
                rate_hz,
            }),
            out,
        );
    }

    fn gaussian(&mut self) -> f64 {
        // Box-Muller: two uniforms to one standard normal.
        let u1: f64 = self.rng.gen_range(f64::EPSILON..1.0);
        let u2: f64 = self.rng.gen();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// One sample period at uptime `t_ms`: a height line, and a heartbeat or an apex
    /// event when one is due.
    pub fn tick(&mut self, t_ms: u64, out: &mut Vec<u8>) {
        let height = self.arc.and_then(|arc| arc.height_at(t_ms));
        if height.is_none() {
            if let Some(arc) = self.arc {
                if t_ms > arc.end_ms() {
                    self.arc = None;
                }
            }
        }
        let reading = height.map(|h| {
            let noisy = h + self.cfg.noise_mm * self.gaussian();
            let res = self.cfg.resolution_mm.max(1) as f64;
            ((noisy / res).round() * res).clamp(0.0, u16::MAX as f64) as u16
        });
        let reading = reading.filter(|&h| self.ceiling_mm == 0 || (h as u32) < self.ceiling_mm);
        let strength = if reading.is_some() { 900 } else { 20 };
        self.samples = self.samples.wrapping_add(1);
        self.line(
            t_ms,
            Body::Sample {
                height_mm: reading,
                strength,
            },
            out,
        );
        match (reading, self.pass) {
            (Some(h), None) => self.pass = Some((h, t_ms, t_ms)),
            (Some(h), Some((best, rise, _))) if h > best => self.pass = Some((h, rise, t_ms)),
            (None, Some((best, rise, apex))) => {
                self.pass = None;
                if self.cfg.apex_events {
                    let body = Body::Apex {
                        height_mm: best,
                        t_rise_ms: self.wire_time(rise),
                        t_apex_ms: self.wire_time(apex),
                    };
                    self.line(t_ms, body, out);
                }
            }
            _ => {}
        }
        if t_ms >= self.next_heartbeat {
            self.next_heartbeat = t_ms + self.cfg.heartbeat_ms as u64;
            let body = Body::Heartbeat {
                samples: self.samples,
                sensor_faults: 0,
            };
            self.line(t_ms, body, out);
        }
    }

    /// Bytes from the station: answer its commands.
    pub fn receive(&mut self, t_ms: u64, bytes: &[u8], out: &mut Vec<u8>) {
        let mut replies: Vec<Body<'static>> = Vec::new();
        for &b in bytes {
            let mut line = [0u8; MAX_LINE];
            let frame = match self.framer.push(b) {
                Some(Frame::Line(l)) => {
                    line[..l.len()].copy_from_slice(l);
                    Some(Ok(l.len()))
                }
                Some(Frame::Torn | Frame::Overflow) => Some(Err(())),
                None => None,
            };
            let reply = match frame {
                Some(Ok(n)) => match decode_line(&line[..n]) {
                    Ok(msg) => Some(self.command(msg)),
                    Err(_) => Some(Err((ErrorCode::BadLine, None))),
                },
                Some(Err(())) => Some(Err((ErrorCode::BadLine, None))),
                None => None,
            };
            match reply {
                Some(Ok(Some(body))) => replies.push(body),
                Some(Ok(None)) => replies.push(Body::HelloRequest), // marker: send hello
                Some(Err((code, ref_seq))) => replies.push(Body::Error {
                    code,
                    ref_seq,
                    detail: "",
                }),
                None => {}
            }
        }
        for body in replies {
            match body {
                Body::HelloRequest => self.hello(t_ms, out),
                body => self.line(t_ms, body, out),
            }
        }
    }

    /// `Ok(None)` means "send HELLO".
    #[allow(clippy::type_complexity)]
    fn command(
        &mut self,
        msg: Message<'_>,
    ) -> Result<Option<Body<'static>>, (ErrorCode<'static>, Option<u16>)> {
        match msg.body {
            Body::HelloRequest => Ok(None),
            Body::Get { key } => Ok(Some(Body::Ack {
                ref_seq: msg.seq,
                key,
                value: self.get(key),
            })),
            Body::Set { key, value } => {
                let (lo, hi) = key.range();
                if !(lo..=hi).contains(&value) {
                    return Err((ErrorCode::Range, Some(msg.seq)));
                }
                match key {
                    Key::Rate => self.cfg.rate_hz = value as u16,
                    Key::Lens => self.lens_mm = value,
                    Key::Ceiling => self.ceiling_mm = value,
                    Key::MinStrength => self.min_strength = value,
                    Key::Apex => self.cfg.apex_events = value == 1,
                    Key::Heartbeat => self.cfg.heartbeat_ms = value,
                }
                Ok(Some(Body::Ack {
                    ref_seq: msg.seq,
                    key,
                    value: self.get(key),
                }))
            }
            _ => Err((ErrorCode::Unknown, Some(msg.seq))),
        }
    }

    fn get(&self, key: Key) -> u32 {
        match key {
            Key::Rate => self.cfg.rate_hz as u32,
            Key::Lens => self.lens_mm,
            Key::Ceiling => self.ceiling_mm,
            Key::MinStrength => self.min_strength,
            Key::Apex => self.cfg.apex_events as u32,
            Key::Heartbeat => self.cfg.heartbeat_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8]) -> Vec<Body<'static>> {
        let mut framer = LineFramer::new();
        let mut out = Vec::new();
        for &b in bytes {
            if let Some(Frame::Line(l)) = framer.push(b) {
                let msg = decode_line(l).unwrap();
                // Only numeric bodies are collected, so nothing borrows the line.
                match msg.body {
                    Body::Sample { .. }
                    | Body::Apex { .. }
                    | Body::Heartbeat { .. }
                    | Body::Ack { .. } => out.push(match msg.body {
                        Body::Sample {
                            height_mm,
                            strength,
                        } => Body::Sample {
                            height_mm,
                            strength,
                        },
                        Body::Apex {
                            height_mm,
                            t_rise_ms,
                            t_apex_ms,
                        } => Body::Apex {
                            height_mm,
                            t_rise_ms,
                            t_apex_ms,
                        },
                        Body::Heartbeat {
                            samples,
                            sensor_faults,
                        } => Body::Heartbeat {
                            samples,
                            sensor_faults,
                        },
                        Body::Ack {
                            ref_seq,
                            key,
                            value,
                        } => Body::Ack {
                            ref_seq,
                            key,
                            value,
                        },
                        _ => unreachable!(),
                    }),
                    _ => {}
                }
            }
        }
        out
    }

    #[test]
    fn a_throw_rises_to_its_apex_and_reports_it() {
        let mut dev = DeviceModel::new(DeviceConfig {
            noise_mm: 0.0,
            ..DeviceConfig::default()
        });
        let mut out = Vec::new();
        let arc = dev.throw(0, 1000.0, 1600.0);
        let mut t = 0;
        while t < arc.end_ms() + 30 {
            dev.tick(t, &mut out);
            t += 10;
        }
        let bodies = decode_all(&out);
        let max = bodies
            .iter()
            .filter_map(|b| match b {
                Body::Sample { height_mm, .. } => *height_mm,
                _ => None,
            })
            .max()
            .unwrap();
        assert!((1595..=1600).contains(&max), "max {max}");
        assert!(bodies
            .iter()
            .any(|b| matches!(b, Body::Apex { height_mm, .. } if *height_mm == max)));
    }

    #[test]
    fn answers_set_and_get_and_refuses_out_of_range() {
        let mut dev = DeviceModel::new(DeviceConfig::default());
        let mut cmd = Vec::new();
        for (seq, body) in [
            (
                5,
                Body::Set {
                    key: Key::Rate,
                    value: 50,
                },
            ),
            (
                6,
                Body::Set {
                    key: Key::Rate,
                    value: 999,
                },
            ),
            (7, Body::Get { key: Key::Rate }),
        ] {
            let mut buf = [0u8; MAX_LINE];
            let n = encode(
                &Message {
                    seq,
                    time_ms: 0,
                    body,
                },
                &mut buf,
            )
            .unwrap();
            cmd.extend_from_slice(&buf[..n]);
        }
        let mut out = Vec::new();
        dev.receive(0, &cmd, &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(",ACK,5,rate,50*"), "{text}");
        assert!(text.contains(",ERR,RANGE,6,"), "{text}");
        assert!(text.contains(",ACK,7,rate,50*"), "{text}");
    }
}
