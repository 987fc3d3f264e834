//! The station's vision, on OpenCV: calibrate a mat, teach a stick set, judge a
//! still frame, tell when a throw has settled.
//!
//! Values in, values out: images arrive as OpenCV matrices already loaded, the
//! profile as a value, time as a number. No clock, no thread, no camera. The one
//! module that touches the disk is [`files`] (profiles, their pictures and the
//! appearance models, which OpenCV loads from paths); the shells call it, the
//! algorithms never do.
//!
//! One still frame, stage by stage:
//!
//! 1. [`sticks`]: the foreground against the empty mat, and the sticks in it as
//!    rotated rectangles (touching ones split with the known stick size).
//! 2. [`mod@measure`]: each stick placed on the mat ([`geometry`], [`calibrate`]) and
//!    measured: its resampled patch, [`features`] relative to the taught set, and
//!    the evidence the verdict weighs where it meets other sticks (the taught
//!    mark place under another: [`mark_place`]).
//! 3. [`classify`]: the readers (a forest and a net on the features and the
//!    picture, the stick reader of [`reader`]) give each stick's face and mark;
//!    at a station whose sticks they cannot read, the reader learned from its
//!    own teaching pictures ([`taught_reader`]) gives the faces.
//! 4. [`verdict`]: the throw's reading, [`ThrowReading`], from those values alone
//!    (it reads no pixels), which leaves the result `None` (with reasons)
//!    whenever any part of it is not clear.
//!
//! [`Detector`] holds one station's calibration, taught set and models and runs
//! the stages, with the [`finer_look`] at a throw found in pieces where the
//! station's referee's calls showed it right; [`mod@teach`] learns a stick set from its pictures ([`profile`] keeps
//! it); [`settle`] follows a stream of frames to the still one to judge.

pub mod calibrate;
pub mod classify;
pub mod detector;
pub mod features;
pub mod files;
pub mod finer_look;
pub mod geometry;
pub mod lens;
pub mod mark_place;
pub mod measure;
pub mod moved;
pub mod profile;
pub mod reader;
pub mod settle;
pub mod sticks;
pub mod taught_reader;
pub mod teach;
pub mod verdict;

pub use detector::Detector;
pub use measure::{mark_score, measure, measure_placed, nominal_px, on_mat, refresh_all, Measured};
pub use teach::{
    check_readable, learn, readability, taught_mark_reads, teach, teach_measure, teach_notes,
    with_taught_tilt, TeachError, TeachSet, Teaching, FACES_LOOK_ALIKE, SMALL_STICK_PX, UNREADABLE,
};
pub use verdict::{
    judge, judge_with, Doubt, Face, Placement, Reason, StickReading, Thresholds, ThrowReading,
    CROSSED, FACE_CALL, MARK_NEED,
};
