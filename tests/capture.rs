//! Frame sources: a real video file written and read back through OpenCV's videoio,
//! stamped on the station clock at the file's own frame rate; a missing camera or
//! file is one line a person can act on.

use opencv::core::{Mat, Scalar, Size, CV_8UC3};
use opencv::prelude::*;
use opencv::videoio::{VideoWriter, VideoWriterTrait};
use yutstation::capture::{CaptureError, Clock, FrameSource, VideoSource};

#[test]
fn a_video_file_plays_at_its_frame_rate_on_the_station_clock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("throws.avi");
    let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G').unwrap();
    let mut w = VideoWriter::new(
        &path.to_string_lossy(),
        fourcc,
        20.0,
        Size::new(160, 120),
        true,
    )
    .unwrap();
    assert!(w.is_opened().unwrap(), "OpenCV can write MJPG AVI");
    for i in 0..12 {
        let f = Mat::new_rows_cols_with_default(120, 160, CV_8UC3, Scalar::all(i as f64 * 20.0))
            .unwrap();
        w.write(&f).unwrap();
    }
    w.release().unwrap();

    let clock = Clock::virtual_now();
    let t0 = clock.now();
    let mut src = VideoSource::video(&path, clock.clone()).unwrap();
    assert!(src.describe().contains("throws.avi"));
    let mut stamps = Vec::new();
    while let Some(frame) = src.next_frame().unwrap() {
        assert_eq!((frame.image.cols(), frame.image.rows()), (160, 120));
        stamps.push(frame.at_ms - t0);
    }
    assert_eq!(stamps.len(), 12, "every frame, then the end");
    assert!(stamps.windows(2).all(|w| w[1] - w[0] == 50), "{stamps:?}");
    assert_eq!(clock.now() - t0, 550, "the virtual clock follows the file");
}

#[test]
fn a_missing_source_says_what_to_do() {
    let e = VideoSource::video("no/such/video.avi".as_ref(), Clock::Wall)
        .err()
        .unwrap();
    assert!(matches!(e, CaptureError::VideoUnavailable { .. }));
    assert!(e.to_string().contains("no/such/video.avi"), "{e}");
    match VideoSource::camera(57, Clock::Wall) {
        Err(e @ CaptureError::CameraUnavailable { .. }) => {
            assert!(e.to_string().contains("plugged in"), "{e}")
        }
        Err(e) => panic!("unexpected: {e}"),
        Ok(_) => eprintln!("a camera 57 exists here; nothing to check"),
    }
}

#[test]
fn a_folder_of_frames_or_a_camera_number_opens_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let f = Mat::new_rows_cols_with_default(40, 60, CV_8UC3, Scalar::all(i as f64)).unwrap();
        let path = dir.path().join(format!("{i:05}.png"));
        opencv::imgcodecs::imwrite(&path.to_string_lossy(), &f, &opencv::core::Vector::new())
            .unwrap();
    }
    let clock = Clock::virtual_now();
    let t0 = clock.now();
    let mut src = yutstation::capture::open(dir.path().to_str().unwrap(), 25, clock).unwrap();
    let mut stamps = Vec::new();
    while let Some(f) = src.next_frame().unwrap() {
        stamps.push(f.at_ms - t0);
    }
    assert_eq!(stamps, vec![0, 40, 80]);
    match yutstation::capture::open("camera:57", 25, Clock::Wall) {
        Err(e) => assert!(e.to_string().starts_with("camera 57"), "{e}"),
        Ok(s) => eprintln!("{} exists here", s.describe()),
    }
}
