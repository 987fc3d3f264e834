//! The settle tracker: empty → motion → still → judged → collected. Pure: it is
//! fed per-frame measurements with their timestamps and answers what to do.
//! It never asks for a call while anything moves, asks once per throw, and warns
//! when the sticks vanish before a call was made.

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;

/// What one frame shows, reduced to two numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameStats {
    pub t_ms: u64,
    /// Fraction of (small-scale) pixels that changed since the previous frame.
    pub motion: f64,
    /// Fraction of (small-scale) pixels that differ from the empty mat.
    pub presence: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleState {
    Empty,
    Motion,
    Judged,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleEvent {
    /// Something arrived on the mat.
    ThrowStarted,
    /// Everything has been still long enough: judge this frame. `first_still_ms`
    /// is when the sticks stopped.
    Judge { first_still_ms: u64 },
    /// The mat is empty again after a call.
    Collected,
    /// The sticks were taken away before any call was made.
    PickedUpBeforeCall,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Motion fraction under which a frame is still.
    pub still_motion: f64,
    /// Presence above which something is on the mat, and under which it is empty.
    pub present: f64,
    pub absent: f64,
    /// How long everything must stay still before judging.
    pub settle_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            still_motion: 0.0005,
            present: 0.0008,
            absent: 0.0003,
            settle_ms: 60,
        }
    }
}

/// Presence, in taught sticks, above which something is on the mat and
/// under which it is empty, and motion, in taught sticks, under which a
/// frame is still (`Config::for_stick`).
const PRESENT_STICKS: f64 = 0.45;
const ABSENT_STICKS: f64 = 0.15;
const STILL_STICKS: f64 = 0.28;

impl Config {
    /// The bars for a station whose taught stick covers `stick_share` of the
    /// frame: something is on the mat once about half a stick shows, the mat
    /// is empty under a sixth of one, and a frame is still when what changed
    /// since the last is under 0.28 of one (never more than the fixed bar).
    /// The fixed bars (`default`) are those of a stick of about 0.18 % of the
    /// frame (28 × 6.5 cm at 3 pixels a centimetre). Four sticks of 14.7 ×
    /// 2.6 cm at 2.4 (look 1003800) cover 0.11 % together, about the fixed
    /// bar for one; and small sticks still rolling slowly change fewer
    /// pixels than the fixed motion bar (look 1003811, 16.9 × 2.9 cm, was
    /// judged while its sticks moved once presence was measured right).
    pub fn for_stick(stick_share: f64) -> Config {
        let fixed = Config::default();
        Config {
            present: PRESENT_STICKS * stick_share,
            absent: ABSENT_STICKS * stick_share,
            still_motion: (STILL_STICKS * stick_share).min(fixed.still_motion),
            ..fixed
        }
    }
}

#[derive(Debug, Clone)]
pub struct Tracker {
    pub cfg: Config,
    state: SettleState,
    prev_t: Option<u64>,
    still_since: Option<u64>,
}

impl Tracker {
    pub fn new(cfg: Config) -> Tracker {
        Tracker {
            cfg,
            state: SettleState::Empty,
            prev_t: None,
            still_since: None,
        }
    }

    pub fn state(&self) -> SettleState {
        self.state
    }

    /// Feed one frame; at most one event comes back.
    pub fn update(&mut self, s: FrameStats) -> Option<SettleEvent> {
        let prev_t = self.prev_t.replace(s.t_ms);
        let still = s.motion < self.cfg.still_motion;
        match self.state {
            SettleState::Empty => {
                if s.presence > self.cfg.present {
                    self.state = SettleState::Motion;
                    self.still_since = None;
                    return Some(SettleEvent::ThrowStarted);
                }
                None
            }
            SettleState::Motion => {
                if s.presence < self.cfg.absent && still {
                    self.state = SettleState::Empty;
                    self.still_since = None;
                    return Some(SettleEvent::PickedUpBeforeCall);
                }
                if !still {
                    self.still_since = None;
                    return None;
                }
                // Still since the previous frame: the sticks stopped at it.
                let since = *self.still_since.get_or_insert(prev_t.unwrap_or(s.t_ms));
                if s.t_ms.saturating_sub(since) >= self.cfg.settle_ms {
                    self.state = SettleState::Judged;
                    return Some(SettleEvent::Judge {
                        first_still_ms: since,
                    });
                }
                None
            }
            SettleState::Judged => {
                if s.presence < self.cfg.absent && still {
                    self.state = SettleState::Empty;
                    return Some(SettleEvent::Collected);
                }
                None
            }
        }
    }
}

/// A frame reduced for the tracker.
pub struct Small {
    /// Smoothed grey at most 320 pixels wide, for motion: sensor noise
    /// averages out while a stick moving a centimetre still shows.
    pub grey: Mat,
    /// Colour at most 640 pixels wide, for presence (what differs from the
    /// empty mat, as the stick finder sees it: colour changes count, shadows
    /// do not). That is the finder's own scale for a 1280-wide frame: at 320
    /// wide a stick 2.6 cm wide at 2.4 pixels a centimetre is a pixel and a
    /// half, and the mask's opening wipes it out.
    pub bgr: Mat,
}

/// Reduce a BGR frame for the tracker.
pub fn small_grey(frame: &Mat) -> opencv::Result<Small> {
    let shrunk = |width: f64| -> opencv::Result<Mat> {
        let f = (width / frame.cols().max(1) as f64).min(1.0);
        let mut m = Mat::default();
        imgproc::resize(frame, &mut m, Size::new(0, 0), f, f, imgproc::INTER_AREA)?;
        Ok(m)
    };
    let mut g = Mat::default();
    imgproc::cvt_color_def(&shrunk(320.0)?, &mut g, imgproc::COLOR_BGR2GRAY)?;
    let mut grey = Mat::default();
    imgproc::blur_def(&g, &mut grey, Size::new(5, 5))?;
    Ok(Small {
        grey,
        bgr: shrunk(640.0)?,
    })
}

fn changed(a: &Mat, b: &Mat, thr: i32) -> opencv::Result<f64> {
    let (x, y) = (a.data_bytes()?, b.data_bytes()?);
    let n = x
        .iter()
        .zip(y)
        .filter(|(p, q)| (**p as i32 - **q as i32).abs() > thr)
        .count();
    Ok(n as f64 / x.len().max(1) as f64)
}

/// The empty mat as the tracker compares each frame with it: the finder's
/// reference (Lab picture and lightness bars) at the scale of `Small::bgr`,
/// made once per profile, not once per frame.
pub struct EmptyMat {
    reference: super::sticks::Reference,
}

/// Prepare the empty mat's picture for [`frame_stats`].
pub fn empty_mat(empty: &Mat) -> opencv::Result<EmptyMat> {
    Ok(EmptyMat {
        reference: super::sticks::Reference::new(&small_grey(empty)?.bgr)?,
    })
}

/// Motion against the previous small frame and presence against the empty mat.
pub fn frame_stats(
    t_ms: u64,
    small: &Small,
    prev: Option<&Small>,
    empty: &EmptyMat,
) -> opencv::Result<FrameStats> {
    let motion = match prev {
        Some(p) => changed(&small.grey, &p.grey, 4)?,
        None => 1.0,
    };
    let fg = super::sticks::foreground(&super::sticks::to_lab(&small.bgr)?, &empty.reference)?;
    let presence =
        opencv::core::count_non_zero(&fg)? as f64 / (fg.rows() * fg.cols()).max(1) as f64;
    Ok(FrameStats {
        t_ms,
        motion,
        presence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(t: u64, motion: f64, presence: f64) -> FrameStats {
        FrameStats {
            t_ms: t,
            motion,
            presence,
        }
    }

    #[test]
    fn the_bars_follow_the_taught_stick_and_motion_never_gets_laxer() {
        // A stick of 0.18 % of the frame: about the fixed bars.
        let mid = Config::for_stick(0.0018);
        let fixed = Config::default();
        assert!((mid.present / fixed.present - 1.0).abs() < 0.05, "{mid:?}");
        assert!((mid.absent / fixed.absent - 1.0).abs() < 0.15, "{mid:?}");
        assert!(mid.still_motion <= fixed.still_motion);
        // Thin sticks (look 1003800): four of them at rest, 0.11 % of the
        // frame, are on the mat; half of one is not enough to be empty.
        let thin = Config::for_stick(0.00024);
        assert!(0.0011 > thin.present && 0.00012 > thin.absent, "{thin:?}");
        assert!(thin.still_motion < 0.0001, "{thin:?}");
        // Big sticks never get a laxer still bar than the fixed one.
        assert_eq!(Config::for_stick(0.01).still_motion, fixed.still_motion);
        assert_eq!(thin.settle_ms, fixed.settle_ms);
    }

    #[test]
    fn one_call_after_settling_and_a_warning_for_early_pickup() {
        let mut tr = Tracker::new(Config::default());
        assert_eq!(tr.update(f(0, 0.0, 0.0)), None);
        assert_eq!(
            tr.update(f(33, 0.05, 0.01)),
            Some(SettleEvent::ThrowStarted)
        );
        assert_eq!(tr.update(f(66, 0.02, 0.01)), None);
        assert_eq!(tr.update(f(100, 0.0, 0.01)), None);
        assert_eq!(
            tr.update(f(133, 0.0, 0.01)),
            Some(SettleEvent::Judge { first_still_ms: 66 })
        );
        assert_eq!(tr.update(f(166, 0.0, 0.01)), None);
        assert_eq!(tr.update(f(200, 0.05, 0.02)), None);
        assert_eq!(tr.update(f(233, 0.0, 0.0)), Some(SettleEvent::Collected));
        // Next throw taken away before it settled.
        assert_eq!(
            tr.update(f(266, 0.05, 0.01)),
            Some(SettleEvent::ThrowStarted)
        );
        assert_eq!(tr.update(f(300, 0.05, 0.01)), None);
        assert_eq!(
            tr.update(f(333, 0.0, 0.0)),
            Some(SettleEvent::PickedUpBeforeCall)
        );
    }
}
