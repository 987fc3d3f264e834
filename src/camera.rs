//! Live cameras: which of a camera's formats the station takes, and how its
//! controls (exposure, white balance, focus) are locked once the station is
//! set up, so the empty-mat picture stays what the camera shows.
//!
//! Pure: the choices from what a camera offers. The hardware itself (listing
//! devices, opening one, setting its controls through V4L2) is
//! [`crate::camera_live`], built with the `camera` feature (nokhwa); nothing
//! here needs a camera.

use crate::station::view::ControlState;
use std::fmt;

/// One mode a camera offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// `MJPG`, `YUYV`, `NV12` …
    pub fourcc: String,
    pub width: u32,
    pub height: u32,
    pub fps: u32,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}x{} at {} fps",
            self.fourcc, self.width, self.height, self.fps
        )
    }
}

/// The format the station asks for unless told otherwise: MJPEG (the camera
/// compresses, so USB 2 carries 1280×720 at 30 fps), 1280×720 (what the
/// vision was measured at), 30 fps.
pub fn default_format() -> Format {
    Format {
        fourcc: "MJPG".into(),
        width: 1280,
        height: 720,
        fps: 30,
    }
}

/// The offered format nearest `want`: the same size first (the vision's
/// figures hold at the size it was measured at), then MJPEG over an
/// uncompressed one (which USB 2 carries only at a low frame rate), then the
/// frame rate nearest `want`'s without going under 10; failing the size, the
/// largest size no wider than 1920 with at least 10 fps. `None` when nothing
/// offered reaches 10 fps.
pub fn choose_format(offered: &[Format], want: &Format) -> Option<Format> {
    let usable: Vec<&Format> = offered.iter().filter(|f| f.fps >= 10).collect();
    let score = |f: &Format| {
        let same_size = f.width == want.width && f.height == want.height;
        let same_kind = f.fourcc.eq_ignore_ascii_case(&want.fourcc);
        let fps_gap = (i64::from(f.fps) - i64::from(want.fps)).unsigned_abs();
        (
            !same_size,
            !same_kind,
            fps_gap,
            // Failing the size: the largest under the cap first.
            if f.width <= 1920 {
                u64::MAX - u64::from(f.width) * u64::from(f.height)
            } else {
                u64::MAX
            },
        )
    };
    usable.into_iter().min_by_key(|f| score(f)).cloned()
}

/// A control the station locks after set-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlKind {
    Exposure,
    WhiteBalance,
    Focus,
}

impl ControlKind {
    pub const ALL: [ControlKind; 3] = [
        ControlKind::Exposure,
        ControlKind::WhiteBalance,
        ControlKind::Focus,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ControlKind::Exposure => "exposure",
            ControlKind::WhiteBalance => "white balance",
            ControlKind::Focus => "focus",
        }
    }

    /// What a missing control means for the crew.
    fn missing(self) -> &'static str {
        match self {
            ControlKind::Exposure => "this camera has no exposure control: it keeps adjusting to the light, and a change of light or a person in a bright shirt may stop the automatic calls; prefer a camera with manual exposure",
            ControlKind::WhiteBalance => "this camera has no white balance control: colours may drift as the light changes; keep the hall's light steady",
            ControlKind::Focus => "this camera has no focus control (a fixed-focus lens): fine as long as the mat looks sharp",
        }
    }
}

/// What a camera says of one of its controls.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlInfo {
    pub kind: ControlKind,
    /// Whether it can be set by hand (its automatic mode turned off).
    pub manual: bool,
    /// Whether it is automatic now.
    pub automatic: bool,
    /// Its value now, where the camera tells it.
    pub value: Option<i64>,
}

/// The V4L2 controls (Linux) behind each of [`ControlKind`]: the one that
/// turns its automatic mode on and off, and the one that holds its value.
pub mod v4l2 {
    /// `exposure_auto`, a menu: 1 is manual, 0 and 3 automatic.
    pub const EXPOSURE_AUTO: u32 = 0x009a_0901;
    pub const EXPOSURE_MANUAL: i64 = 1;
    /// `exposure_time_absolute`.
    pub const EXPOSURE_ABSOLUTE: u32 = 0x009a_0902;
    /// `white_balance_automatic`, on or off.
    pub const WHITE_BALANCE_AUTO: u32 = 0x0098_090c;
    /// `white_balance_temperature`.
    pub const WHITE_BALANCE_TEMPERATURE: u32 = 0x0098_091a;
    /// `focus_automatic_continuous`, on or off.
    pub const FOCUS_AUTO: u32 = 0x009a_090c;
    /// `focus_absolute`.
    pub const FOCUS_ABSOLUTE: u32 = 0x009a_090a;
}

/// One V4L2 control as a camera lists it: its id, its value now, and for a
/// menu or a range its least and greatest value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawControl {
    pub id: u32,
    pub value: i64,
    pub min: i64,
    pub max: i64,
}

/// The three controls the station locks, read from a camera's V4L2 list.
pub fn controls_from_v4l2(raw: &[RawControl]) -> Vec<ControlInfo> {
    let find = |id: u32| raw.iter().find(|c| c.id == id);
    let mut out = Vec::new();
    let kinds = [
        (
            ControlKind::Exposure,
            v4l2::EXPOSURE_AUTO,
            v4l2::EXPOSURE_ABSOLUTE,
        ),
        (
            ControlKind::WhiteBalance,
            v4l2::WHITE_BALANCE_AUTO,
            v4l2::WHITE_BALANCE_TEMPERATURE,
        ),
        (ControlKind::Focus, v4l2::FOCUS_AUTO, v4l2::FOCUS_ABSOLUTE),
    ];
    for (kind, auto_id, value_id) in kinds {
        let (auto, value) = (find(auto_id), find(value_id));
        if auto.is_none() && value.is_none() {
            continue;
        }
        let (manual, automatic) = match (kind, auto) {
            (_, None) => (true, false),
            (ControlKind::Exposure, Some(a)) => (
                (a.min..=a.max).contains(&v4l2::EXPOSURE_MANUAL),
                a.value != v4l2::EXPOSURE_MANUAL,
            ),
            (_, Some(a)) => (true, a.value != 0),
        };
        out.push(ControlInfo {
            kind,
            manual,
            automatic,
            value: value.map(|v| v.value),
        });
    }
    out
}

/// The V4L2 writes that carry out a lock step, in order: the automatic mode
/// off, then the value it had settled on (as (id, value)).
pub fn v4l2_writes(step: &LockStep) -> Vec<(u32, i64)> {
    match *step {
        LockStep::Fix { kind, value } => {
            let (auto, off, value_id) = match kind {
                ControlKind::Exposure => (
                    v4l2::EXPOSURE_AUTO,
                    v4l2::EXPOSURE_MANUAL,
                    v4l2::EXPOSURE_ABSOLUTE,
                ),
                ControlKind::WhiteBalance => {
                    (v4l2::WHITE_BALANCE_AUTO, 0, v4l2::WHITE_BALANCE_TEMPERATURE)
                }
                ControlKind::Focus => (v4l2::FOCUS_AUTO, 0, v4l2::FOCUS_ABSOLUTE),
            };
            let mut w = vec![(auto, off)];
            if let Some(v) = value {
                w.push((value_id, v));
            }
            w
        }
        _ => Vec::new(),
    }
}

/// What to do with each control at lock time: keep the value the camera
/// settled on with the automatic mode off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockStep {
    /// Turn its automatic mode off, keeping the value it has now.
    Fix {
        kind: ControlKind,
        value: Option<i64>,
    },
    /// Already set by hand: nothing to do.
    AlreadyFixed(ControlKind),
    /// The camera offers only the automatic mode.
    CannotFix(ControlKind),
    /// The camera has no such control.
    Missing(ControlKind),
}

/// The steps that lock a camera's controls.
pub fn lock_plan(controls: &[ControlInfo]) -> Vec<LockStep> {
    ControlKind::ALL
        .iter()
        .map(|&kind| match controls.iter().find(|c| c.kind == kind) {
            None => LockStep::Missing(kind),
            Some(c) if !c.manual => LockStep::CannotFix(kind),
            Some(c) if !c.automatic => LockStep::AlreadyFixed(kind),
            Some(c) => LockStep::Fix {
                kind,
                value: c.value,
            },
        })
        .collect()
}

/// The controls as `/calibrate` shows them: `locked` (with the value kept),
/// `automatic` (not locked yet, or the camera cannot), or `missing`.
pub fn control_states(controls: &[ControlInfo], locked: bool) -> Vec<ControlState> {
    ControlKind::ALL
        .iter()
        .map(|&kind| {
            let state = |state: &str, detail: String| ControlState {
                name: kind.name().into(),
                state: state.into(),
                detail,
            };
            match controls.iter().find(|c| c.kind == kind) {
                None => state("missing", kind.missing().into()),
                Some(c) if !c.manual => state(
                    "automatic",
                    "this camera offers only its automatic mode: it cannot be locked".into(),
                ),
                Some(c) if !c.automatic => state(
                    "locked",
                    match c.value {
                        Some(v) => format!("set by hand, at {v}"),
                        None => "set by hand".into(),
                    },
                ),
                Some(_) if locked => state(
                    "automatic",
                    "the camera did not take the lock: it is still automatic".into(),
                ),
                Some(_) => state(
                    "automatic",
                    "automatic until the station is set up; locked when the profile is saved"
                        .into(),
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fourcc: &str, width: u32, height: u32, fps: u32) -> Format {
        Format {
            fourcc: fourcc.into(),
            width,
            height,
            fps,
        }
    }

    #[test]
    fn mjpeg_1280_by_720_at_30_is_taken_where_offered_and_the_nearest_else() {
        let webcam = [
            f("YUYV", 1280, 720, 10),
            f("YUYV", 640, 480, 30),
            f("MJPG", 1920, 1080, 30),
            f("MJPG", 1280, 720, 30),
            f("MJPG", 1280, 720, 60),
        ];
        assert_eq!(
            choose_format(&webcam, &default_format()),
            Some(f("MJPG", 1280, 720, 30))
        );
        // No MJPEG: the size before the compression.
        let raw = [f("YUYV", 1280, 720, 10), f("YUYV", 640, 480, 30)];
        assert_eq!(
            choose_format(&raw, &default_format()),
            Some(f("YUYV", 1280, 720, 10))
        );
        // Not the size: the largest up to 1920 wide.
        let other = [
            f("MJPG", 640, 480, 30),
            f("MJPG", 1920, 1080, 30),
            f("MJPG", 3840, 2160, 15),
        ];
        assert_eq!(
            choose_format(&other, &default_format()),
            Some(f("MJPG", 1920, 1080, 30))
        );
        // Under 10 fps is no camera for a throw.
        assert_eq!(
            choose_format(&[f("YUYV", 1280, 720, 5)], &default_format()),
            None
        );
    }

    #[test]
    fn a_webcam_s_v4l2_list_reads_as_its_three_controls_and_locks_in_order() {
        let raw = [
            RawControl {
                id: v4l2::EXPOSURE_AUTO,
                value: 3,
                min: 0,
                max: 3,
            },
            RawControl {
                id: v4l2::EXPOSURE_ABSOLUTE,
                value: 156,
                min: 3,
                max: 2047,
            },
            RawControl {
                id: v4l2::WHITE_BALANCE_AUTO,
                value: 1,
                min: 0,
                max: 1,
            },
            RawControl {
                id: v4l2::WHITE_BALANCE_TEMPERATURE,
                value: 4600,
                min: 2000,
                max: 6500,
            },
        ];
        let controls = controls_from_v4l2(&raw);
        assert_eq!(controls.len(), 2, "no focus control: a fixed-focus lens");
        let plan = lock_plan(&controls);
        assert_eq!(
            v4l2_writes(&plan[0]),
            vec![(v4l2::EXPOSURE_AUTO, 1), (v4l2::EXPOSURE_ABSOLUTE, 156)]
        );
        assert_eq!(
            v4l2_writes(&plan[1]),
            vec![
                (v4l2::WHITE_BALANCE_AUTO, 0),
                (v4l2::WHITE_BALANCE_TEMPERATURE, 4600)
            ]
        );
        assert_eq!(plan[2], LockStep::Missing(ControlKind::Focus));
        assert!(v4l2_writes(&plan[2]).is_empty());
        // An exposure menu without the manual mode cannot be locked.
        let auto_only = [RawControl {
            id: v4l2::EXPOSURE_AUTO,
            value: 3,
            min: 2,
            max: 3,
        }];
        assert_eq!(
            lock_plan(&controls_from_v4l2(&auto_only))[0],
            LockStep::CannotFix(ControlKind::Exposure)
        );
    }

    #[test]
    fn the_lock_keeps_each_automatic_control_s_value_and_says_what_is_missing() {
        let controls = [
            ControlInfo {
                kind: ControlKind::Exposure,
                manual: true,
                automatic: true,
                value: Some(156),
            },
            ControlInfo {
                kind: ControlKind::WhiteBalance,
                manual: false,
                automatic: true,
                value: None,
            },
        ];
        assert_eq!(
            lock_plan(&controls),
            vec![
                LockStep::Fix {
                    kind: ControlKind::Exposure,
                    value: Some(156)
                },
                LockStep::CannotFix(ControlKind::WhiteBalance),
                LockStep::Missing(ControlKind::Focus),
            ]
        );
        let shown = control_states(&controls, false);
        assert_eq!(shown[0].state, "automatic");
        assert!(shown[0].detail.contains("locked when the profile is saved"));
        assert_eq!(shown[2].state, "missing");
        assert!(shown[2].detail.contains("fixed-focus"));
        // Once locked, the camera reports manual mode.
        let after = [ControlInfo {
            automatic: false,
            ..controls[0].clone()
        }];
        assert_eq!(control_states(&after, true)[0].state, "locked");
        assert_eq!(
            control_states(&after, true)[0].detail,
            "set by hand, at 156"
        );
    }
}
