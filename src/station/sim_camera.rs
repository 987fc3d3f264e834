//! Rendered camera footage for the demo and the tests: a generated station (mat,
//! light, stick set from `yut_sim`) whose thrower throws whenever the match says a
//! throw is due. Each throw's rendered truth is handed to the demo's scorekeeper so
//! the calls can be checked; nothing of it reaches the vision.

use super::core::ThrowGate;
use crate::capture::{CaptureError, Clock, Frame, FrameSource};
use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use yut_match::Millis;
use yut_sim::{self, FramePhase, Look, Scene, ThrowTruth};

/// One rendered throw and what it really was.
#[derive(Debug, Clone)]
pub struct RenderedThrow {
    pub game: u32,
    /// The match's throw number this throw will get if the station records it.
    pub number: u32,
    pub truth: ThrowTruth,
    /// When its first frame was shown.
    pub at_ms: Millis,
}

/// Frames per second of the rendered footage.
pub const FPS: u64 = 10;

/// Called when a rendered throw leaves the thrower's hands.
type ThrowHook = Box<dyn FnMut(&ThrowTruth) + Send>;

/// The rendered camera.
pub struct SimCamera {
    look: Look,
    seed: u64,
    clock: Clock,
    gate: watch::Receiver<ThrowGate>,
    truths: Sender<RenderedThrow>,
    queue: VecDeque<(FramePhase, Scene)>,
    /// The same station at half the resolution: frames in motion are rendered with
    /// it and scaled up (only still frames are judged, and they are full size), so
    /// the demo keeps up in real time on a small machine.
    half: Look,
    /// The current throw's resting picture, rendered once for all its still frames.
    still: Option<Mat>,
    /// The gate as it was when the last throw was thrown: the next waits until the
    /// match has recorded that one.
    thrown_at: Option<ThrowGate>,
    idle: Option<Mat>,
    next_due: Instant,
    t_ms: Millis,
    throws: u64,
    on_throw: Option<ThrowHook>,
    /// On a virtual clock, how long an idle frame (no throw in the air) waits.
    idle_wait: Duration,
}

impl SimCamera {
    pub fn new(
        look: Look,
        seed: u64,
        clock: Clock,
        gate: watch::Receiver<ThrowGate>,
        truths: Sender<RenderedThrow>,
    ) -> SimCamera {
        let t_ms = clock.now();
        let mut half = look.clone();
        let c = &mut half.camera;
        c.f /= 2.0;
        c.width /= 2;
        c.height /= 2;
        c.cx = (c.width as f64 - 1.0) / 2.0;
        c.cy = (c.height as f64 - 1.0) / 2.0;
        SimCamera {
            half,
            still: None,
            look,
            seed,
            clock,
            gate,
            truths,
            queue: VecDeque::new(),
            thrown_at: None,
            idle: None,
            next_due: Instant::now(),
            t_ms,
            throws: 0,
            on_throw: None,
            idle_wait: Duration::from_millis(2),
        }
    }

    /// Also call `f` when a throw leaves the thrower's hands (to drive a simulated
    /// height sensor).
    pub fn on_throw(mut self, f: impl FnMut(&ThrowTruth) + Send + 'static) -> SimCamera {
        self.on_throw = Some(Box::new(f));
        self
    }

    /// On a virtual clock, let idle frames wait `wait` (2 ms unless set): many
    /// stations on one machine waiting for their next match should not spin.
    pub fn idle_wait(mut self, wait: Duration) -> SimCamera {
        self.idle_wait = wait;
        self
    }

    /// Whether the thrower may throw now.
    fn may_throw(&self) -> Option<ThrowGate> {
        let g = *self.gate.borrow();
        let recorded = match self.thrown_at {
            None => true,
            Some(before) => g.game != before.game || g.throws > before.throws,
        };
        (g.due && recorded).then_some(g)
    }

    fn start_throw(&mut self, g: ThrowGate) {
        self.throws += 1;
        let seq = yut_sim::throw_sequence(
            &self.look,
            self.seed.wrapping_add(self.throws * 7919),
            1,
            FPS,
            6,
        );
        let truth = seq.throws[0].clone();
        self.still = None;
        self.queue.extend(
            seq.frames
                .into_iter()
                .filter(|f| f.throw == 0)
                .map(|f| (f.phase, f.scene)),
        );
        self.thrown_at = Some(g);
        if let Some(f) = &mut self.on_throw {
            f(&truth);
        }
        let _ = self.truths.send(RenderedThrow {
            game: g.game,
            number: g.throws + 1,
            truth,
            at_ms: self.t_ms,
        });
    }
}

impl FrameSource for SimCamera {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let dt = 1000 / FPS;
        if self.queue.is_empty() {
            if let Some(g) = self.may_throw() {
                self.start_throw(g);
            }
        }
        // Pace: in real time one frame per 1/FPS; on a virtual clock, as fast as
        // the station keeps up, but idle frames wait a little so the match (the
        // placer, the referee) can act.
        if self.clock.is_virtual() {
            if self.queue.is_empty() {
                std::thread::sleep(self.idle_wait);
            }
            self.t_ms = self.t_ms.max(self.clock.now()) + dt;
            self.clock.advance_to(self.t_ms);
        } else {
            if let Some(wait) = self.next_due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            self.next_due = Instant::now() + Duration::from_millis(dt);
            self.t_ms = self.clock.now();
        }
        let image = match self.queue.pop_front() {
            Some((FramePhase::Still { .. }, scene)) => {
                if self.still.is_none() {
                    self.still = Some(yut_sim::render(&self.look, &scene).to_bgr_mat()?);
                }
                self.still.as_ref().expect("just rendered").try_clone()?
            }
            Some((FramePhase::Empty, _)) | None => self.idle()?,
            Some((_, scene)) => {
                let small = yut_sim::render(&self.half, &scene).to_bgr_mat()?;
                let mut full = Mat::default();
                imgproc::resize(
                    &small,
                    &mut full,
                    Size::new(
                        self.look.camera.width as i32,
                        self.look.camera.height as i32,
                    ),
                    0.0,
                    0.0,
                    imgproc::INTER_LINEAR,
                )?;
                full
            }
        };
        Ok(Some(Frame {
            image,
            at_ms: self.t_ms,
        }))
    }

    fn describe(&self) -> String {
        format!("rendered footage (look {})", self.look.seed)
    }
}

impl SimCamera {
    /// The empty mat, rendered once.
    fn idle(&mut self) -> opencv::Result<Mat> {
        if self.idle.is_none() {
            self.idle =
                Some(yut_sim::render(&self.look, &yut_sim::empty_scene(&self.look)).to_bgr_mat()?);
        }
        self.idle.as_ref().expect("just rendered").try_clone()
    }
}
