//! Where frames come from: a camera, a video file, or (for the demo and tests) the
//! renderer. Shell code: it owns devices and files and stamps each frame with the
//! station clock; everything downstream is judged on those stamps.

use opencv::core::Mat;
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use yut_match::Millis;

/// The station's clock, in milliseconds since the Unix epoch. `Wall` is the real
/// clock; `Virtual` is advanced by a simulated camera so that a headless demo runs
/// as fast as the machine allows with the same timings as a live one.
#[derive(Debug, Clone)]
pub enum Clock {
    Wall,
    Virtual(Arc<AtomicU64>),
}

impl Clock {
    /// A virtual clock starting at the current wall time.
    pub fn virtual_now() -> Clock {
        Clock::Virtual(Arc::new(AtomicU64::new(wall_ms())))
    }

    pub fn now(&self) -> Millis {
        match self {
            Clock::Wall => wall_ms(),
            Clock::Virtual(t) => t.load(Ordering::SeqCst),
        }
    }

    /// Advance a virtual clock to `to` (never backwards); the wall clock ignores it.
    pub fn advance_to(&self, to: Millis) {
        if let Clock::Virtual(t) = self {
            t.fetch_max(to, Ordering::SeqCst);
        }
    }

    pub fn is_virtual(&self) -> bool {
        matches!(self, Clock::Virtual(_))
    }
}

fn wall_ms() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// One frame with the station time it was taken.
pub struct Frame {
    pub image: Mat,
    pub at_ms: Millis,
}

/// Why frames stopped coming. One line a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error("camera {index} cannot be opened: is it plugged in, and not used by another program?")]
    CameraUnavailable { index: i32 },
    #[error("camera {index} stopped sending frames (unplugged?): the station keeps running; plug it back and restart the station, or enter throws by hand")]
    CameraLost { index: i32 },
    #[error("camera {index} offers no format of 10 frames a second or more: try another camera")]
    NoUsableFormat { index: i32 },
    #[error("video {path} cannot be opened: is it a video file OpenCV can read (MJPG/AVI, MP4 with ffmpeg)?")]
    VideoUnavailable { path: PathBuf },
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// A source of frames. `Ok(None)` means it has ended (the end of a video file).
pub trait FrameSource: Send {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError>;
    /// For the status line: "camera 0", "video match.avi", "rendered footage".
    fn describe(&self) -> String;
    /// The camera's exposure, white balance and focus as `/calibrate` shows
    /// them; none for a file, rendered footage or a camera opened through
    /// OpenCV (whose controls are not known).
    fn controls(&mut self) -> Vec<crate::station::view::ControlState> {
        Vec::new()
    }
    /// Lock those controls at the values the camera settled on (after the
    /// station is set up, so the empty-mat picture stays valid); what they
    /// are then.
    fn lock_controls(&mut self) -> Vec<crate::station::view::ControlState> {
        Vec::new()
    }
}

enum VideoKind {
    Camera(i32),
    Video(PathBuf),
}

/// A camera or a video file through OpenCV's videoio. A video file is played at its
/// own frame rate, as a camera would deliver it, so the station sees real timings.
pub struct VideoSource {
    cap: VideoCapture,
    kind: VideoKind,
    clock: Clock,
    started: Instant,
    start_ms: Millis,
    frames: u64,
    fps: f64,
}

/// Held while OpenCV opens or releases a capture: its videoio backends
/// (GStreamer's first initialisation among them) are not safe to open from
/// two threads at once. Two tests opening a missing camera together crashed
/// the test process (SIGSEGV in CI).
static VIDEOIO: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `VIDEOIO`, held. A panic elsewhere while it was held leaves nothing
/// half-done to guard, so a poisoned lock is taken as is.
fn videoio_lock() -> std::sync::MutexGuard<'static, ()> {
    VIDEOIO.lock().unwrap_or_else(|e| e.into_inner())
}

/// Open a capture with `VIDEOIO` held; `None` when it did not open (and it
/// is let go while still held).
fn opened(
    open: impl FnOnce() -> opencv::Result<VideoCapture>,
) -> opencv::Result<Option<VideoCapture>> {
    let _one_at_a_time = videoio_lock();
    let cap = open()?;
    Ok(cap.is_opened()?.then_some(cap))
}

impl Drop for VideoSource {
    fn drop(&mut self) {
        let _one_at_a_time = videoio_lock();
        // Nothing to tell anyone if letting the device or file go fails.
        let _ = self.cap.release();
    }
}

impl VideoSource {
    pub fn camera(index: i32, clock: Clock) -> Result<VideoSource, CaptureError> {
        let Some(cap) = opened(|| VideoCapture::new(index, videoio::CAP_ANY))? else {
            return Err(CaptureError::CameraUnavailable { index });
        };
        Ok(Self::with(cap, VideoKind::Camera(index), clock))
    }

    pub fn video(path: &Path, clock: Clock) -> Result<VideoSource, CaptureError> {
        let unavailable = || CaptureError::VideoUnavailable {
            path: path.to_path_buf(),
        };
        if !path.is_file() {
            return Err(unavailable());
        }
        let Some(cap) =
            opened(|| VideoCapture::from_file(&path.to_string_lossy(), videoio::CAP_ANY))?
        else {
            return Err(unavailable());
        };
        Ok(Self::with(cap, VideoKind::Video(path.to_path_buf()), clock))
    }

    fn with(cap: VideoCapture, kind: VideoKind, clock: Clock) -> VideoSource {
        let fps = cap.get(videoio::CAP_PROP_FPS).unwrap_or(0.0);
        let fps = if fps.is_finite() && fps >= 1.0 {
            fps
        } else {
            10.0
        };
        VideoSource {
            cap,
            kind,
            start_ms: clock.now(),
            clock,
            started: Instant::now(),
            frames: 0,
            fps,
        }
    }
}

impl FrameSource for VideoSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let mut image = Mat::default();
        let got = self.cap.read(&mut image)?;
        if !got || image.empty() {
            return match self.kind {
                VideoKind::Camera(index) => Err(CaptureError::CameraLost { index }),
                VideoKind::Video(_) => Ok(None),
            };
        }
        let at_ms = match self.kind {
            VideoKind::Camera(_) => self.clock.now(),
            VideoKind::Video(_) => {
                let offset = (self.frames as f64 * 1000.0 / self.fps) as u64;
                self.frames += 1;
                if self.clock.is_virtual() {
                    self.clock.advance_to(self.start_ms + offset);
                } else {
                    let due = self.started + Duration::from_millis(offset);
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                }
                self.start_ms + offset
            }
        };
        Ok(Some(Frame { image, at_ms }))
    }

    fn describe(&self) -> String {
        match &self.kind {
            VideoKind::Camera(i) => format!("camera {i}"),
            VideoKind::Video(p) => format!("video {}", p.display()),
        }
    }
}

/// A folder of still frames (PNG or JPEG, in name order) played at `fps`: what
/// `yutstation simulate --sequence` writes, or frames exported from a camera.
pub struct FolderSource {
    frames: std::vec::IntoIter<PathBuf>,
    folder: PathBuf,
    clock: Clock,
    start_ms: Millis,
    index: u64,
    fps: u64,
}

impl FolderSource {
    pub fn new(folder: &Path, fps: u64, clock: Clock) -> std::io::Result<FolderSource> {
        let mut frames: Vec<PathBuf> = std::fs::read_dir(folder)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                matches!(
                    p.extension()
                        .and_then(|e| e.to_str())
                        .map(|e| e.to_ascii_lowercase())
                        .as_deref(),
                    Some("png" | "jpg" | "jpeg")
                )
            })
            .collect();
        frames.sort();
        Ok(FolderSource {
            frames: frames.into_iter(),
            folder: folder.to_path_buf(),
            start_ms: clock.now(),
            clock,
            index: 0,
            fps: fps.max(1),
        })
    }
}

impl FrameSource for FolderSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let Some(path) = self.frames.next() else {
            return Ok(None);
        };
        let image =
            opencv::imgcodecs::imread(&path.to_string_lossy(), opencv::imgcodecs::IMREAD_COLOR)?;
        let at_ms = self.start_ms + self.index * 1000 / self.fps;
        self.index += 1;
        self.clock.advance_to(at_ms);
        Ok(Some(Frame { image, at_ms }))
    }

    fn describe(&self) -> String {
        format!("frames in {}", self.folder.display())
    }
}

/// Open what a person names as a source: a folder of frames, a video file, or a
/// camera (`camera:N`, or just `N`). Folders and files run on `clock` as given;
/// cameras always stamp the wall clock.
pub fn open(source: &str, fps: u64, clock: Clock) -> Result<Box<dyn FrameSource>, CaptureError> {
    let camera = source
        .strip_prefix("camera:")
        .unwrap_or(source)
        .parse::<i32>()
        .ok();
    let path = Path::new(source);
    if path.is_dir() {
        return FolderSource::new(path, fps, clock)
            .map(|s| Box::new(s) as Box<dyn FrameSource>)
            .map_err(|_| CaptureError::VideoUnavailable {
                path: path.to_path_buf(),
            });
    }
    match camera {
        Some(index) if !path.exists() => Ok(Box::new(VideoSource::camera(index, Clock::Wall)?)),
        _ => Ok(Box::new(VideoSource::video(path, clock)?)),
    }
}
