//! Finding sticks: what differs from the empty mat (shadows mostly excluded),
//! split into sticks using the known stick size, each as a rotated rectangle.

use opencv::core::{Mat, Point, Point2f, Scalar, Size, Vector, BORDER_CONSTANT, CV_32F};
use opencv::imgproc;
use opencv::prelude::*;

/// The empty mat prepared once for differencing.
pub struct Reference {
    /// The empty image, lightly smoothed (BGR).
    pub smooth: Mat,
    pub width: i32,
    pub height: i32,
}

impl Reference {
    pub fn new(empty: &Mat) -> opencv::Result<Reference> {
        Ok(Reference {
            smooth: smooth(empty)?,
            width: empty.cols(),
            height: empty.rows(),
        })
    }
}

fn smooth(m: &Mat) -> opencv::Result<Mat> {
    let mut s = Mat::default();
    imgproc::blur_def(m, &mut s, Size::new(3, 3))?;
    Ok(s)
}

/// The foreground mask (255 = not the empty mat or floor, and not a shadow).
pub fn foreground(frame_smooth: &Mat, reference: &Reference) -> opencv::Result<Mat> {
    let a = frame_smooth.data_bytes()?;
    let b = reference.smooth.data_bytes()?;
    let mut out = vec![0u8; a.len() / 3];
    for (i, o) in out.iter_mut().enumerate() {
        let p = &a[i * 3..i * 3 + 3];
        let q = &b[i * 3..i * 3 + 3];
        let si = p[0] as i32 + p[1] as i32 + p[2] as i32;
        let se = q[0] as i32 + q[1] as i32 + q[2] as i32;
        let ds = si - se;
        if ds > 24.max(se * 3 / 20) || ds < -(24.max(se / 2)) {
            *o = 255;
            continue;
        }
        // Colour change at similar brightness (shadows keep the colour).
        let (fi, fe) = ((si + 3) as f32, (se + 3) as f32);
        let mut dev = 0f32;
        for c in 0..3 {
            dev = dev.max((p[c] as f32 / fi - q[c] as f32 / fe).abs());
        }
        if dev > 0.045 && dev * fi.min(fe) > 22.0 {
            *o = 255;
        }
    }
    let m = Mat::from_slice(&out)?
        .reshape(1, reference.height)?
        .try_clone()?;
    let k = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(3, 3))?;
    let mut o1 = Mat::default();
    imgproc::morphology_ex_def(&m, &mut o1, imgproc::MORPH_OPEN, &k)?;
    let mut o2 = Mat::default();
    imgproc::morphology_ex_def(&o1, &mut o2, imgproc::MORPH_CLOSE, &k)?;
    Ok(o2)
}

/// One stick as found: a rotated rectangle in image pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    pub center: [f64; 2],
    /// Unit vector along the long axis (image coordinates, y down).
    pub dir: [f64; 2],
    pub length: f64,
    pub width: f64,
    /// It shares its blob with other sticks (touching, crossing, resting).
    pub shared: bool,
    /// Blob area over the expected single-stick area.
    pub blob_ratio: f64,
}

impl Found {
    /// Counter-clockwise from image +x as viewed, in [0, 180).
    pub fn angle_deg(&self) -> f64 {
        (-self.dir[1])
            .atan2(self.dir[0])
            .to_degrees()
            .rem_euclid(180.0)
    }

    pub fn corners(&self) -> [[f64; 2]; 4] {
        let (d, n) = (self.dir, [-self.dir[1], self.dir[0]]);
        let (hl, hw) = (self.length / 2.0, self.width / 2.0);
        [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].map(|(a, b)| {
            [
                self.center[0] + a * hl * d[0] + b * hw * n[0],
                self.center[1] + a * hl * d[1] + b * hw * n[1],
            ]
        })
    }
}

/// Expected stick size in pixels at an image point.
pub type SizeAt<'a> = &'a dyn Fn([f64; 2]) -> (f64, f64);

/// Find sticks in a foreground mask. `size_at` gives the expected (length,
/// width) in pixels at a point.
pub fn find_sticks(mask: &Mat, size_at: SizeAt) -> opencv::Result<Vec<Found>> {
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut cents = Mat::default();
    let n = imgproc::connected_components_with_stats_def(mask, &mut labels, &mut stats, &mut cents)?;
    let mut out = Vec::new();
    for i in 1..n {
        let area = *stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA)? as f64;
        let x = *stats.at_2d::<i32>(i, imgproc::CC_STAT_LEFT)?;
        let y = *stats.at_2d::<i32>(i, imgproc::CC_STAT_TOP)?;
        let w = *stats.at_2d::<i32>(i, imgproc::CC_STAT_WIDTH)?;
        let h = *stats.at_2d::<i32>(i, imgproc::CC_STAT_HEIGHT)?;
        let c = [
            *cents.at_2d::<f64>(i, 0)?,
            *cents.at_2d::<f64>(i, 1)?,
        ];
        let (l, wd) = size_at(c);
        let a1 = l * wd;
        if area < 0.12 * a1 {
            continue;
        }
        // This blob alone, cropped with a margin.
        let m = (l * 0.6) as i32;
        let x0 = (x - m).max(0);
        let y0 = (y - m).max(0);
        let x1 = (x + w + m).min(mask.cols());
        let y1 = (y + h + m).min(mask.rows());
        let roi = opencv::core::Rect::new(x0, y0, x1 - x0, y1 - y0);
        let lab = Mat::roi(&labels, roi)?.try_clone()?;
        let mut blob = Mat::default();
        opencv::core::compare(&lab, &Scalar::all(i as f64), &mut blob, opencv::core::CMP_EQ)?;
        let ratio = area / a1;
        let mut pts = Vector::<Point>::new();
        opencv::core::find_non_zero(&blob, &mut pts)?;
        let rr = imgproc::min_area_rect(&pts)?;
        let (rl, rw) = (
            rr.size.width.max(rr.size.height) as f64,
            rr.size.width.min(rr.size.height) as f64,
        );
        let single = ratio < 1.45 && rl < 1.25 * l && rw < 1.5 * wd;
        if single {
            let th = (rr.angle as f64).to_radians();
            let mut dir = [th.cos(), th.sin()];
            if rr.size.height > rr.size.width {
                dir = [-dir[1], dir[0]];
            }
            out.push(Found {
                center: [rr.center.x as f64 + x0 as f64, rr.center.y as f64 + y0 as f64],
                dir,
                length: rl,
                width: rw,
                shared: false,
                blob_ratio: ratio,
            });
            continue;
        }
        let k = ((ratio / 0.95).round() as usize).clamp(1, 5);
        let fits = fit_rects(&blob, k, l, wd)?;
        for (cc, dir, width) in fits {
            out.push(Found {
                center: [cc[0] + x0 as f64, cc[1] + y0 as f64],
                dir,
                length: l,
                width,
                shared: true,
                blob_ratio: ratio,
            });
        }
    }
    Ok(out)
}

/// Greedy rotated-template fit of up to `k` sticks (plus one more if much is left
/// unexplained) to one blob. Returns centres, directions and widths (crop pixels).
fn fit_rects(blob: &Mat, k: usize, l: f64, wd: f64) -> opencv::Result<Vec<([f64; 2], [f64; 2], f64)>> {
    let (bw, bh) = (blob.cols(), blob.rows());
    let mut weight = Mat::default();
    blob.convert_to(&mut weight, CV_32F, 1.0 / 255.0, 0.0)?;
    let total: f64 = opencv::core::sum_elems(&weight)?[0];
    let diag = ((bw * bw + bh * bh) as f64).sqrt().ceil() as i32 + 2;
    let centre = Point2f::new(bw as f32 / 2.0, bh as f32 / 2.0);
    let mut out = Vec::new();
    let mut explained = 0.0;
    let mut target = k;
    while out.len() < target && out.len() < 6 {
        let mut best = (f64::MIN, [0.0; 2], [1.0, 0.0], wd);
        for step in 0..60 {
            let ang = step as f64 * 3.0;
            let mut rot = imgproc::get_rotation_matrix_2d(centre, ang, 1.0)?;
            // Shift so the rotated crop fits in a diag × diag square.
            *rot.at_2d_mut::<f64>(0, 2)? += (diag - bw) as f64 / 2.0;
            *rot.at_2d_mut::<f64>(1, 2)? += (diag - bh) as f64 / 2.0;
            let mut r = Mat::default();
            imgproc::warp_affine(
                &weight,
                &mut r,
                &rot,
                Size::new(diag, diag),
                imgproc::INTER_LINEAR,
                BORDER_CONSTANT,
                Scalar::all(0.0),
            )?;
            // Reward covered foreground, penalise covered background.
            let mut centred = Mat::default();
            r.convert_to(&mut centred, CV_32F, 1.0, -0.5)?;
            for (wk, wpx) in [(1.0, wd), (0.55, wd * 0.55)] {
                let mut score = Mat::default();
                imgproc::box_filter(
                    &centred,
                    &mut score,
                    CV_32F,
                    Size::new(l.round() as i32, (wpx.round() as i32).max(2)),
                    Point::new(-1, -1),
                    false,
                    BORDER_CONSTANT,
                )?;
                let mut maxv = 0.0;
                let mut maxl = Point::default();
                opencv::core::min_max_loc(&score, None, Some(&mut maxv), None, Some(&mut maxl), &opencv::core::no_array())?;
                if maxv > best.0 {
                    // Back to crop coordinates through the inverse rotation.
                    let m = |r: i32, c: i32| -> opencv::Result<f64> { rot.at_2d::<f64>(r, c).copied() };
                    let (a, b, c, d) = (m(0, 0)?, m(0, 1)?, m(1, 0)?, m(1, 1)?);
                    let (tx, ty) = (m(0, 2)?, m(1, 2)?);
                    let det = a * d - b * c;
                    let (u, v) = (maxl.x as f64 - tx, maxl.y as f64 - ty);
                    let cx = (d * u - b * v) / det;
                    let cy = (-c * u + a * v) / det;
                    let dx = d / det;
                    let dy = -c / det;
                    let n = dx.hypot(dy);
                    best = (maxv, [cx, cy], [dx / n, dy / n], wk * wd);
                }
            }
        }
        if best.0 <= 0.0 {
            break;
        }
        // Dim what this stick explains, so the next fit looks elsewhere.
        let (c, d, w) = (best.1, best.2, best.3);
        let n = [-d[1], d[0]];
        let pts: Vector<Point> = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|(a, b)| {
                Point::new(
                    (c[0] + a * l / 2.0 * d[0] + b * w / 2.0 * n[0]).round() as i32,
                    (c[1] + a * l / 2.0 * d[1] + b * w / 2.0 * n[1]).round() as i32,
                )
            })
            .collect();
        let mut cover = Mat::zeros(bh, bw, opencv::core::CV_8U)?.to_mat()?;
        imgproc::fill_convex_poly_def(&mut cover, &pts, Scalar::all(255.0))?;
        let mut covered = Mat::default();
        opencv::core::bitwise_and_def(&blob, &cover, &mut covered)?;
        let got = opencv::core::count_non_zero(&covered)? as f64;
        let mut dimmed = Mat::default();
        weight.copy_to(&mut dimmed)?;
        let mut part = Mat::default();
        opencv::core::multiply_def(&weight, &Scalar::all(0.3), &mut part)?;
        part.copy_to_masked(&mut dimmed, &cover)?;
        weight = dimmed;
        explained += got;
        out.push((c, d, w));
        if out.len() == target && total - explained > 0.5 * l * wd && target < 5 {
            target += 1;
        }
    }
    Ok(out)
}
