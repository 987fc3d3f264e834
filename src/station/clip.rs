//! Replay clips: the vision keeps the last second of frames in memory, and from
//! the moment a throw leaves the hand to its rest hands them to an encoder
//! thread that writes them as WebM (VP8) through OpenCV's FFmpeg writer; the
//! still with the call's stick outlines drawn on it closes the clip, held for a
//! second. Frames are scaled to [`CLIP_WIDTH`] and at most [`MAX_FPS`] a second
//! are kept; a frame that finds the encoder behind is dropped (the clip gets
//! choppier, the vision never waits). ADR 0095.
//!
//! Shell: a thread, OpenCV's video writer and a temporary file.

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::videoio::{VideoCapture, VideoWriter, CAP_ANY, CAP_FFMPEG};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::time::Duration;
use yut_match::Millis;

/// Width of a clip's frames (the height follows the camera's).
pub const CLIP_WIDTH: i32 = 640;
/// Frames kept from before the throw was seen to start.
pub const PRE_ROLL_MS: Millis = 1000;
/// A throw longer than this in the air is cut (the clip keeps its start and the
/// rest picture).
pub const MAX_CLIP_MS: Millis = 10_000;
/// At most this many frames a second go into a clip.
pub const MAX_FPS: f64 = 15.0;
/// The clips' container and codec: what Chromium plays and Debian's OpenCV
/// writes (ADR 0095).
pub const CLIP_MIME: &str = "video/webm";

enum ToEncoder {
    Frame(Mat),
    Finish,
}

struct Encoder {
    frames: SyncSender<ToEncoder>,
    done: Receiver<Result<Vec<u8>, String>>,
    started_ms: Millis,
    fps: f64,
}

/// The vision thread's recorder of replay clips.
#[derive(Default)]
pub struct ClipRecorder {
    pre_roll: VecDeque<(Millis, Mat)>,
    encoder: Option<Encoder>,
    last_kept: Option<Millis>,
    /// The reason the last clip could not be made, for the status line.
    pub last_problem: Option<String>,
}

impl ClipRecorder {
    /// Take one camera frame at `at_ms`.
    pub fn frame(&mut self, at_ms: Millis, image: &Mat) {
        if self
            .last_kept
            .is_some_and(|t| (at_ms.saturating_sub(t) as f64) < 1000.0 / MAX_FPS - 1.0)
        {
            return;
        }
        let Ok(small) = scaled(image) else { return };
        self.last_kept = Some(at_ms);
        match &mut self.encoder {
            Some(enc) if at_ms.saturating_sub(enc.started_ms) <= MAX_CLIP_MS => {
                // Behind: the frame is dropped, never waited for.
                if let Err(TrySendError::Disconnected(_)) =
                    enc.frames.try_send(ToEncoder::Frame(small))
                {
                    self.encoder = None;
                }
            }
            Some(_) => {}
            None => {
                self.pre_roll.push_back((at_ms, small));
                while self
                    .pre_roll
                    .front()
                    .is_some_and(|(t, _)| at_ms.saturating_sub(*t) > PRE_ROLL_MS)
                {
                    self.pre_roll.pop_front();
                }
            }
        }
    }

    /// A throw has started: the clip begins with the frames kept before it.
    pub fn throw_started(&mut self, at_ms: Millis) {
        let fps = self.rate();
        let pre_roll: Vec<Mat> = self.pre_roll.drain(..).map(|(_, m)| m).collect();
        let Some(first) = pre_roll.first() else {
            self.encoder = None;
            return;
        };
        let size = first.size().unwrap_or_default();
        let (frames_tx, frames_rx) = mpsc::sync_channel::<ToEncoder>(64);
        let (done_tx, done_rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("clip".into())
            .spawn(move || {
                let _ = done_tx.send(encode(frames_rx, size, fps));
            });
        if spawned.is_err() {
            self.encoder = None;
            return;
        }
        for m in pre_roll {
            let _ = frames_tx.try_send(ToEncoder::Frame(m));
        }
        self.encoder = Some(Encoder {
            frames: frames_tx,
            done: done_rx,
            started_ms: at_ms,
            fps,
        });
    }

    /// The throw has come to rest: close the clip with `last` (the still with
    /// the call drawn on it), held for a second; its bytes.
    pub fn finish(&mut self, last: &Mat) -> Option<Vec<u8>> {
        let enc = self.encoder.take()?;
        if let Ok(small) = scaled(last) {
            for _ in 0..(enc.fps.round() as usize).max(1) {
                // The end waits for room: it is what the referee looks at.
                if enc.frames.send(ToEncoder::Frame(small.clone())).is_err() {
                    break;
                }
            }
        }
        let _ = enc.frames.send(ToEncoder::Finish);
        match enc.done.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(bytes)) => {
                self.last_problem = None;
                Some(bytes)
            }
            Ok(Err(e)) => {
                self.last_problem = Some(e);
                None
            }
            Err(_) => {
                self.last_problem = Some("the clip encoder did not finish in 10 s".into());
                None
            }
        }
    }

    /// The throw ended without a call (the sticks were picked up): no clip.
    pub fn abandon(&mut self) {
        self.encoder = None;
    }

    /// Frames a second kept, as the pre-roll shows (at most [`MAX_FPS`]).
    fn rate(&self) -> f64 {
        let n = self.pre_roll.len();
        if n < 2 {
            return MAX_FPS;
        }
        let span = self.pre_roll[n - 1].0.saturating_sub(self.pre_roll[0].0) as f64;
        if span <= 0.0 {
            return MAX_FPS;
        }
        ((n - 1) as f64 * 1000.0 / span).clamp(1.0, MAX_FPS)
    }
}

fn scaled(image: &Mat) -> opencv::Result<Mat> {
    let f = f64::from(CLIP_WIDTH) / f64::from(image.cols().max(1));
    let mut out = Mat::default();
    let size = Size::new(
        CLIP_WIDTH,
        ((f64::from(image.rows()) * f).round() as i32) & !1,
    );
    imgproc::resize(image, &mut out, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    Ok(out)
}

/// Write the frames as they come into a temporary WebM; its bytes at the end.
fn encode(frames: Receiver<ToEncoder>, size: Size, fps: f64) -> Result<Vec<u8>, String> {
    static CLIPS: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "yutstation-clip-{}-{}.webm",
        std::process::id(),
        CLIPS.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let vp8 = VideoWriter::fourcc('V', 'P', '8', '0').map_err(|e| e.to_string())?;
        let mut writer = VideoWriter::new_with_backend(
            &path.to_string_lossy(),
            CAP_FFMPEG,
            vp8,
            fps,
            size,
            true,
        )
        .map_err(|e| format!("the clip writer: {e}"))?;
        if !writer.is_opened().unwrap_or(false) {
            return Err("OpenCV cannot write WebM (VP8) here: no clips".to_string());
        }
        let mut written = 0;
        for msg in frames.iter() {
            match msg {
                ToEncoder::Frame(m) => {
                    if m.size().ok() == Some(size) {
                        writer.write(&m).map_err(|e| e.to_string())?;
                        written += 1;
                    }
                }
                ToEncoder::Finish => break,
            }
        }
        writer.release().map_err(|e| e.to_string())?;
        if written == 0 {
            return Err("no frames for the clip".into());
        }
        std::fs::read(&path).map_err(|e| format!("the clip file: {e}"))
    })();
    let _ = std::fs::remove_file(&path);
    result
}

/// Decode a clip with OpenCV: its frames, width and height (a clip that plays
/// has two frames or more).
pub fn decode(bytes: &[u8]) -> anyhow::Result<(u32, i32, i32)> {
    static CHECKS: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "yutstation-check-{}-{}.webm",
        std::process::id(),
        CHECKS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes)?;
    let decoded = (|| -> opencv::Result<(u32, i32, i32)> {
        let mut cap = VideoCapture::from_file(&path.to_string_lossy(), CAP_ANY)?;
        let (mut frames, mut w, mut h) = (0, 0, 0);
        let mut m = Mat::default();
        while cap.read(&mut m).unwrap_or(false) && !m.empty() {
            frames += 1;
            (w, h) = (m.cols(), m.rows());
        }
        Ok((frames, w, h))
    })();
    let _ = std::fs::remove_file(&path);
    Ok(decoded?)
}
