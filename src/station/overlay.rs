//! Pictures for people: the mat outline and each stick's reading drawn on a frame
//! (the console's live view and the evidence kept with every call).
//!
//! Pure drawing on a picture given to it.

use opencv::core::{Mat, Point, Scalar, Size, Vector};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc};
use yut_vision::calibrate::{outline_points, Calibration};
use yut_vision::{Face, Placement, ThrowReading};

/// The frame with the mat outline and the readings drawn on it.
pub fn annotate(
    img: &Mat,
    cal: Option<&Calibration>,
    v: Option<&ThrowReading>,
) -> opencv::Result<Mat> {
    let mut out = img.try_clone()?;
    if let Some(cal) = cal {
        let mut polys = Vector::<Vector<Point>>::new();
        polys.push(outline_points(cal));
        imgproc::polylines(
            &mut out,
            &polys,
            true,
            Scalar::new(255.0, 255.0, 0.0, 0.0),
            2,
            imgproc::LINE_AA,
            0,
        )?;
    }
    let Some(v) = v else { return Ok(out) };
    for s in &v.sticks {
        let colour = match s.face {
            Face::Front => Scalar::new(0.0, 220.0, 0.0, 0.0),
            Face::Back => Scalar::new(255.0, 80.0, 0.0, 0.0),
            Face::Unsure => Scalar::new(0.0, 0.0, 255.0, 0.0),
        };
        let label = format!(
            "{}{} {:.2}{}",
            match s.face {
                Face::Front => "F",
                Face::Back => "B",
                Face::Unsure => "?",
            },
            if s.marked { "*" } else { "" },
            s.confidence,
            match s.placement {
                Placement::OnMat => "",
                Placement::OnLine => " line",
                Placement::OffMat => " off",
            }
        );
        let c = Point::new(s.center_px[0] as i32, s.center_px[1] as i32);
        imgproc::circle(&mut out, c, 4, colour, -1, imgproc::LINE_AA, 0)?;
        let th = s.angle_deg.to_radians();
        let d = Point::new((th.cos() * 40.0) as i32, (-th.sin() * 40.0) as i32);
        imgproc::line(&mut out, c - d, c + d, colour, 2, imgproc::LINE_AA, 0)?;
        imgproc::put_text(
            &mut out,
            &label,
            c + Point::new(8, -8),
            imgproc::FONT_HERSHEY_SIMPLEX,
            0.6,
            colour,
            2,
            imgproc::LINE_AA,
            false,
        )?;
    }
    let head = format!(
        "{} (best guess {}, {:.2})",
        v.result.map(|r| r.id()).unwrap_or("undecided"),
        v.best_guess.id(),
        v.confidence
    );
    imgproc::put_text(
        &mut out,
        &head,
        Point::new(20, 40),
        imgproc::FONT_HERSHEY_SIMPLEX,
        1.1,
        Scalar::new(0.0, 255.0, 255.0, 0.0),
        2,
        imgproc::LINE_AA,
        false,
    )?;
    Ok(out)
}

/// The frame with a red band across its top saying `text` (the live view
/// while the camera no longer fits the profile).
pub fn banner(img: &Mat, text: &str) -> opencv::Result<Mat> {
    let mut out = img.try_clone()?;
    let (w, h) = (out.cols(), (out.rows() / 10).max(24));
    imgproc::rectangle(
        &mut out,
        opencv::core::Rect::new(0, 0, w, h),
        Scalar::new(0.0, 0.0, 200.0, 0.0),
        -1,
        imgproc::LINE_8,
        0,
    )?;
    let scale = f64::from(h) / 40.0;
    imgproc::put_text(
        &mut out,
        text,
        Point::new(h / 3, h * 2 / 3),
        imgproc::FONT_HERSHEY_SIMPLEX,
        scale,
        Scalar::new(255.0, 255.0, 255.0, 0.0),
        2,
        imgproc::LINE_AA,
        false,
    )?;
    Ok(out)
}

/// JPEG bytes of `img`, scaled down to at most `max_width` pixels wide.
pub fn jpeg(img: &Mat, max_width: i32, quality: i32) -> opencv::Result<Vec<u8>> {
    let scaled;
    let src = if img.cols() > max_width {
        let f = max_width as f64 / img.cols() as f64;
        let mut m = Mat::default();
        imgproc::resize(img, &mut m, Size::new(0, 0), f, f, imgproc::INTER_AREA)?;
        scaled = m;
        &scaled
    } else {
        img
    };
    let mut buf = Vector::<u8>::new();
    let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, quality]);
    imgcodecs::imencode(".jpg", src, &mut buf, &params)?;
    Ok(buf.to_vec())
}
