//! Rendered camera footage for the demo and the tests: a generated station (mat,
//! light, stick set from `yut_sim`) whose thrower throws whenever the match says a
//! throw is due. Each throw's rendered truth is handed to the demo's scorekeeper so
//! the calls can be checked; nothing of it reaches the vision.

use super::core::ThrowGate;
use super::sim_crew::{self, Crew, Shows};
use crate::capture::{CaptureError, Clock, Frame, FrameSource};
use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use yut_match::Millis;
use yut_sim::{self, FramePhase, Look, Renderer, Scene, ThrowTruth};

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
    /// The renderers of the look and of its half-size twin, made at their first
    /// frame and again after a bump: a look's pictures then render about four
    /// times faster (`yut_sim::Renderer`).
    renderer: Option<Renderer>,
    half_renderer: Option<Renderer>,
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
    /// The set-up crew: what they show the camera (the match throws only
    /// while they show [`Shows::Match`]), and the picture of it, rendered once.
    crew: Option<Arc<Crew>>,
    crew_picture: Option<(Shows, Mat)>,
    /// Knock the tripod once this many throws of a game are recorded.
    bump: Option<Bump>,
}

/// A bump planned, and when the first frame after it was shown.
struct Bump {
    after_throws: u32,
    shown: Arc<Mutex<Option<Bumped>>>,
    done: bool,
}

/// The first frame from the bumped camera: its station time, and when it
/// left the camera (for measuring how soon the station says so).
#[derive(Debug, Clone, Copy)]
pub struct Bumped {
    pub at_ms: Millis,
    pub at: Instant,
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
            renderer: None,
            half_renderer: None,
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
            crew: None,
            crew_picture: None,
            bump: None,
        }
    }

    /// Show what the set-up crew shows (`crew`, changed by whoever plays the
    /// crew); throws are thrown only while it is [`Shows::Match`].
    pub fn with_crew(mut self, crew: Arc<Crew>) -> SimCamera {
        self.crew = Some(crew);
        self
    }

    /// Knock the camera aside (turned 3°, moved 12 cm) once `after_throws`
    /// throws of a game are recorded; `shown` gets the first frame after it.
    pub fn bump_after(mut self, after_throws: u32, shown: Arc<Mutex<Option<Bumped>>>) -> SimCamera {
        self.bump = Some(Bump {
            after_throws,
            shown,
            done: false,
        });
        self
    }

    /// The crew's picture for `shows` (rendered once while it stays).
    fn crew_frame(&mut self, shows: &Shows) -> Result<Mat, CaptureError> {
        if let Some((s, m)) = &self.crew_picture {
            if s == shows {
                return Ok(m.try_clone()?);
            }
        }
        let img = self.render_shows(shows)?;
        self.crew_picture = Some((shows.clone(), img.try_clone()?));
        Ok(img)
    }

    fn render_shows(&self, shows: &Shows) -> Result<Mat, CaptureError> {
        let look = &self.look;
        let img = match shows {
            Shows::Blurred(inner) => {
                let sharp = self.render_shows(inner)?;
                let mut blurred = Mat::default();
                imgproc::gaussian_blur(
                    &sharp,
                    &mut blurred,
                    Size::new(0, 0),
                    4.0,
                    0.0,
                    opencv::core::BORDER_REFLECT,
                )?;
                return Ok(blurred);
            }
            Shows::Target(n) => {
                let sheet = sim_crew::target_sheet(yut_vision::lens::Paper::A2)?;
                let poses = yut_sim::SheetPose::crew_holds(&look.camera);
                let pose = poses[n % poses.len()];
                yut_sim::render_sheet(look, &sheet, &pose, *n as u64)
            }
            Shows::EmptyMat | Shows::Match => yut_sim::render(look, &yut_sim::empty_scene(look)),
            Shows::Teach { which, shot } => {
                yut_sim::render(look, &yut_sim::teach_scene_shot(look, which, *shot))
            }
            Shows::TeachTouching { which } => {
                yut_sim::render(look, &yut_sim::teach_scene_touching(look, which))
            }
            Shows::Throw(seed) => yut_sim::render(look, &yut_sim::throw_scene(look, *seed, None).0),
        }
        .to_bgr_mat()?;
        Ok(img)
    }

    /// Knock the camera if it is time: between throws, once the game has
    /// recorded the throws asked for.
    fn maybe_bump(&mut self) {
        let Some(b) = &mut self.bump else { return };
        if b.done || !self.queue.is_empty() {
            return;
        }
        if self.gate.borrow().throws < b.after_throws {
            return;
        }
        b.done = true;
        self.look = sim_crew::bumped_look(&self.look);
        self.half.camera = sim_crew::bumped(&self.half.camera, 3.0, 12.0);
        self.renderer = None;
        self.half_renderer = None;
        self.idle = None;
        self.still = None;
        self.crew_picture = None;
        eprintln!("yutstation: the rendered camera was bumped (turned 3°, moved 12 cm)");
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

impl SimCamera {
    /// The next frame's time. In real time one frame per 1/FPS; on a virtual
    /// clock as fast as the station keeps up, but an `idle` frame (nothing
    /// moving in view) waits a little so the match (the placer, the referee,
    /// the crew) can act.
    fn pace(&mut self, idle: bool) {
        let dt = 1000 / FPS;
        if self.clock.is_virtual() {
            if idle {
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
    }
}

impl FrameSource for SimCamera {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let shows = self.crew.as_ref().map(|c| c.shows());
        if let Some(shows) = shows.filter(|s| *s != Shows::Match) {
            self.pace(true);
            let image = self.crew_frame(&shows)?;
            if let Some(crew) = &self.crew {
                crew.mark_sent(&shows);
            }
            return Ok(Some(Frame {
                image,
                at_ms: self.t_ms,
            }));
        }
        let was_bumped = self.bump.as_ref().is_some_and(|b| b.done);
        self.maybe_bump();
        let bumped_now = !was_bumped && self.bump.as_ref().is_some_and(|b| b.done);
        if self.queue.is_empty() {
            if let Some(g) = self.may_throw() {
                self.start_throw(g);
            }
        }
        let idle = self.queue.is_empty();
        self.pace(idle);
        let image = match self.queue.pop_front() {
            Some((FramePhase::Still { .. }, scene)) => {
                if self.still.is_none() {
                    let renderer = self
                        .renderer
                        .get_or_insert_with(|| Renderer::new(&self.look));
                    self.still = Some(renderer.render(&scene).to_bgr_mat()?);
                }
                self.still.as_ref().expect("just rendered").try_clone()?
            }
            Some((FramePhase::Empty, _)) | None => self.idle()?,
            Some((_, scene)) => {
                let renderer = self
                    .half_renderer
                    .get_or_insert_with(|| Renderer::new(&self.half));
                let small = renderer.render(&scene).to_bgr_mat()?;
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
        if let Some(crew) = &self.crew {
            crew.mark_sent(&Shows::Match);
        }
        if bumped_now {
            if let Some(b) = &self.bump {
                if let Ok(mut shown) = b.shown.lock() {
                    *shown = Some(Bumped {
                        at_ms: self.t_ms,
                        at: Instant::now(),
                    });
                }
            }
        }
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
