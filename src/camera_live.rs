//! Live cameras through nokhwa (V4L2 on Linux), built with the `camera`
//! feature: the cameras and their formats (`yutstation camera list`), a camera
//! opened in the chosen format as the station's frame source (MJPEG decoded by
//! OpenCV), and its exposure, white balance and focus locked once the station
//! is set up.
//!
//! Shell: the device. What is chosen and locked is decided in
//! [`crate::camera`], which the tests check without a camera.

use crate::camera::{
    choose_format, control_states, controls_from_v4l2, lock_plan, v4l2_writes, ControlInfo, Format,
    RawControl,
};
use crate::capture::{CaptureError, Clock, Frame, FrameSource};
use crate::station::view::ControlState;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, ControlValueDescription, ControlValueSetter,
    FrameFormat, KnownCameraControl, RequestedFormat, RequestedFormatType, Resolution,
};
use nokhwa::Camera;
use opencv::core::{Mat, Vector};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;

/// A camera as `camera list` prints it.
#[derive(Debug, Clone)]
pub struct Listing {
    pub index: u32,
    pub name: String,
    pub formats: Vec<Format>,
    pub controls: Vec<ControlInfo>,
    /// Why its formats or controls could not be read, if they could not.
    pub problem: Option<String>,
}

fn fourcc(f: FrameFormat) -> &'static str {
    match f {
        FrameFormat::MJPEG => "MJPG",
        FrameFormat::YUYV => "YUYV",
        FrameFormat::NV12 => "NV12",
        FrameFormat::GRAY => "GREY",
        FrameFormat::RAWRGB => "RGB3",
        FrameFormat::RAWBGR => "BGR3",
    }
}

fn frame_format(fourcc: &str) -> Option<FrameFormat> {
    Some(match fourcc {
        "MJPG" => FrameFormat::MJPEG,
        "YUYV" => FrameFormat::YUYV,
        "NV12" => FrameFormat::NV12,
        "GREY" => FrameFormat::GRAY,
        "RGB3" => FrameFormat::RAWRGB,
        "BGR3" => FrameFormat::RAWBGR,
        _ => return None,
    })
}

fn format_of(f: &CameraFormat) -> Format {
    Format {
        fourcc: fourcc(f.format()).into(),
        width: f.resolution().width(),
        height: f.resolution().height(),
        fps: f.frame_rate(),
    }
}

/// A camera's V4L2 controls as numbers.
fn raw_controls(cam: &Camera) -> Vec<RawControl> {
    let Ok(list) = cam.camera_controls() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|c| {
            let id = match c.control() {
                KnownCameraControl::Other(id) => id as u32,
                known => nokhwa_bindings_id(known)?,
            };
            let (value, min, max) = match c.description() {
                ControlValueDescription::IntegerRange {
                    value, min, max, ..
                } => (*value, *min, *max),
                ControlValueDescription::Integer { value, .. } => (*value, *value, *value),
                ControlValueDescription::Boolean { value, .. } => (i64::from(*value), 0, 1),
                _ => return None,
            };
            Some(RawControl {
                id,
                value,
                min,
                max,
            })
        })
        .collect()
}

/// The V4L2 id nokhwa names a known control by (its exposure is
/// `V4L2_CID_EXPOSURE`, its white balance the temperature; the rest are not
/// among the three the station locks).
fn nokhwa_bindings_id(known: KnownCameraControl) -> Option<u32> {
    match known {
        KnownCameraControl::WhiteBalance => Some(crate::camera::v4l2::WHITE_BALANCE_TEMPERATURE),
        _ => None,
    }
}

/// Every camera, with its formats and controls.
pub fn list() -> Result<Vec<Listing>, String> {
    let cameras = nokhwa::query(ApiBackend::Auto).map_err(|e| e.to_string())?;
    Ok(cameras
        .iter()
        .filter_map(|info| {
            let CameraIndex::Index(index) = info.index() else {
                return None;
            };
            let opened = Camera::new(
                info.index().clone(),
                RequestedFormat::new::<RgbFormat>(RequestedFormatType::None),
            );
            let (formats, controls, problem) = match opened {
                Ok(mut cam) => {
                    let formats = cam
                        .compatible_camera_formats()
                        .map(|f| f.iter().map(format_of).collect())
                        .unwrap_or_default();
                    (formats, controls_from_v4l2(&raw_controls(&cam)), None)
                }
                Err(e) => (Vec::new(), Vec::new(), Some(e.to_string())),
            };
            Some(Listing {
                index: *index,
                name: info.human_name(),
                formats,
                controls,
                problem,
            })
        })
        .collect())
}

/// A live camera as the station's frame source.
pub struct LiveCamera {
    cam: Camera,
    index: u32,
    format: Format,
    clock: Clock,
    locked: bool,
}

impl LiveCamera {
    /// Open camera `index` in the offered format nearest `want`
    /// ([`choose_format`]) and start it.
    pub fn open(index: u32, want: &Format, clock: Clock) -> Result<LiveCamera, CaptureError> {
        let unavailable = || CaptureError::CameraUnavailable {
            index: index as i32,
        };
        let mut cam = Camera::new(
            CameraIndex::Index(index),
            RequestedFormat::new::<RgbFormat>(RequestedFormatType::None),
        )
        .map_err(|_| unavailable())?;
        let offered: Vec<Format> = cam
            .compatible_camera_formats()
            .map_err(|_| unavailable())?
            .iter()
            .map(format_of)
            .collect();
        let format = choose_format(&offered, want).ok_or(CaptureError::NoUsableFormat {
            index: index as i32,
        })?;
        let fmt = CameraFormat::new(
            Resolution::new(format.width, format.height),
            frame_format(&format.fourcc).ok_or_else(unavailable)?,
            format.fps,
        );
        cam.set_camera_requset(RequestedFormat::new::<RgbFormat>(
            RequestedFormatType::Exact(fmt),
        ))
        .map_err(|_| unavailable())?;
        cam.open_stream().map_err(|_| unavailable())?;
        Ok(LiveCamera {
            cam,
            index,
            format,
            clock,
            locked: false,
        })
    }

    fn decode(&self, bytes: &[u8], kind: FrameFormat) -> opencv::Result<Mat> {
        let (w, h) = (self.format.width as i32, self.format.height as i32);
        match kind {
            FrameFormat::MJPEG => {
                imgcodecs::imdecode(&Vector::<u8>::from_slice(bytes), imgcodecs::IMREAD_COLOR)
            }
            FrameFormat::YUYV => {
                let m = Mat::from_slice(bytes)?.reshape(2, h)?.try_clone()?;
                let mut bgr = Mat::default();
                imgproc::cvt_color_def(&m, &mut bgr, imgproc::COLOR_YUV2BGR_YUYV)?;
                Ok(bgr)
            }
            FrameFormat::NV12 => {
                let m = Mat::from_slice(bytes)?.reshape(1, h * 3 / 2)?.try_clone()?;
                let mut bgr = Mat::default();
                imgproc::cvt_color_def(&m, &mut bgr, imgproc::COLOR_YUV2BGR_NV12)?;
                Ok(bgr)
            }
            FrameFormat::GRAY => {
                let m = Mat::from_slice(bytes)?.reshape(1, h)?.try_clone()?;
                let mut bgr = Mat::default();
                imgproc::cvt_color_def(&m, &mut bgr, imgproc::COLOR_GRAY2BGR)?;
                Ok(bgr)
            }
            FrameFormat::RAWRGB | FrameFormat::RAWBGR => {
                let m = Mat::from_slice(bytes)?.reshape(3, h)?.try_clone()?;
                if kind == FrameFormat::RAWBGR {
                    return Ok(m);
                }
                let mut bgr = Mat::default();
                imgproc::cvt_color_def(&m, &mut bgr, imgproc::COLOR_RGB2BGR)?;
                let _ = w;
                Ok(bgr)
            }
        }
    }
}

impl FrameSource for LiveCamera {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let lost = || CaptureError::CameraLost {
            index: self.index as i32,
        };
        let buffer = self.cam.frame().map_err(|_| lost())?;
        let at_ms = self.clock.now();
        let image = self.decode(buffer.buffer(), buffer.source_frame_format())?;
        if image.empty() {
            return Err(lost());
        }
        Ok(Some(Frame { image, at_ms }))
    }

    fn describe(&self) -> String {
        format!("camera {} ({})", self.index, self.format)
    }

    fn controls(&mut self) -> Vec<ControlState> {
        control_states(&controls_from_v4l2(&raw_controls(&self.cam)), self.locked)
    }

    fn lock_controls(&mut self) -> Vec<ControlState> {
        let plan = lock_plan(&controls_from_v4l2(&raw_controls(&self.cam)));
        for step in &plan {
            for (id, value) in v4l2_writes(step) {
                if let Err(e) = self.cam.set_camera_control(
                    KnownCameraControl::Other(u128::from(id)),
                    ControlValueSetter::Integer(value),
                ) {
                    eprintln!("yutstation: camera {}: {e}", self.index);
                }
            }
        }
        self.locked = true;
        self.controls()
    }
}
