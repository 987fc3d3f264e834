//! Finding sticks: what differs from the empty mat (shadows mostly excluded),
//! split into sticks using the known stick size, each as a rotated rectangle.

use opencv::core::{Mat, Point, Point2f, Scalar, Size, Vector, BORDER_CONSTANT, CV_32F};
use opencv::imgproc;
use opencv::prelude::*;

/// The empty mat prepared once for differencing: its Lab picture and the
/// per-pixel lightness thresholds.
pub struct Reference {
    /// The empty image, lightly smoothed, in Lab (8-bit).
    pub lab: Mat,
    /// Lightness rise above which a pixel is brighter than the mat (16-bit).
    pub rise: Mat,
    /// Lightness under which a pixel is darker than any shadow (16-bit).
    pub floor: Mat,
    pub width: i32,
    pub height: i32,
}

/// The scale at which masks are made: large frames are halved (sticks stay
/// several pixels wide, and it is four times less work).
pub fn work_scale(width: i32) -> f64 {
    if width > 900 {
        0.5
    } else {
        1.0
    }
}

/// Smooth (or shrink) and convert a BGR frame to Lab at the working scale.
pub fn to_lab(m: &Mat) -> opencv::Result<Mat> {
    let sc = work_scale(m.cols());
    let mut s = Mat::default();
    if sc < 1.0 {
        imgproc::resize(m, &mut s, Size::new(0, 0), sc, sc, imgproc::INTER_AREA)?;
    } else {
        imgproc::blur_def(m, &mut s, Size::new(3, 3))?;
    }
    let mut lab = Mat::default();
    imgproc::cvt_color_def(&s, &mut lab, imgproc::COLOR_BGR2Lab)?;
    Ok(lab)
}

fn channel(m: &Mat, i: i32) -> opencv::Result<Mat> {
    let mut c = Mat::default();
    opencv::core::extract_channel(m, &mut c, i)?;
    Ok(c)
}

impl Reference {
    pub fn new(empty: &Mat) -> opencv::Result<Reference> {
        let lab = to_lab(empty)?;
        let l = channel(&lab, 0)?;
        let mut l16 = Mat::default();
        l.convert_to(&mut l16, opencv::core::CV_16S, 1.0, 0.0)?;
        // Brighter: a rise of 6 + 6 % of the mat's lightness. Darker than a
        // shadow: under 55 % of it (shadows are left out on purpose).
        let mut rise = Mat::default();
        l.convert_to(&mut rise, opencv::core::CV_16S, 1.06, 6.0)?;
        let mut floor = Mat::default();
        l.convert_to(&mut floor, opencv::core::CV_16S, 0.55, 0.0)?;
        let (width, height) = (lab.cols(), lab.rows());
        Ok(Reference {
            lab,
            rise,
            floor,
            width,
            height,
        })
    }
}

/// The foreground mask (255 = not the empty mat or floor, and not a shadow).
/// `frame_lab` comes from [`to_lab`].
pub fn foreground(frame_lab: &Mat, reference: &Reference) -> opencv::Result<Mat> {
    use opencv::core::{absdiff, add_def, bitwise_or_def, compare, CMP_GT, CMP_LT, CV_16S};
    let l = channel(frame_lab, 0)?;
    let mut l16 = Mat::default();
    l.convert_to(&mut l16, CV_16S, 1.0, 0.0)?;
    let mut bright = Mat::default();
    compare(&l16, &reference.rise, &mut bright, CMP_GT)?;
    let mut dark = Mat::default();
    compare(&l16, &reference.floor, &mut dark, CMP_LT)?;
    // Colour change (shadows keep the colour): |Δa| + |Δb|.
    let mut da = Mat::default();
    absdiff(
        &channel(frame_lab, 1)?,
        &channel(&reference.lab, 1)?,
        &mut da,
    )?;
    let mut db = Mat::default();
    absdiff(
        &channel(frame_lab, 2)?,
        &channel(&reference.lab, 2)?,
        &mut db,
    )?;
    let mut dc = Mat::default();
    add_def(&da, &db, &mut dc)?;
    let mut colour = Mat::default();
    compare(&dc, &Scalar::all(9.0), &mut colour, CMP_GT)?;
    let mut m1 = Mat::default();
    bitwise_or_def(&bright, &dark, &mut m1)?;
    let mut m = Mat::default();
    bitwise_or_def(&m1, &colour, &mut m)?;
    let k = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(3, 3))?;
    let mut o1 = Mat::default();
    imgproc::morphology_ex_def(&m, &mut o1, imgproc::MORPH_OPEN, &k)?;
    Ok(o1)
}

/// Bridge gaps inside a stick (a dark mark on a dark mat reads as mat) with a
/// closing a little over half a stick width wide.
pub fn bridge(mask: &Mat, stick_width_px: f64) -> opencv::Result<Mat> {
    let k = ((stick_width_px * 0.6).round() as i32).max(3) | 1;
    let kernel = imgproc::get_structuring_element_def(imgproc::MORPH_ELLIPSE, Size::new(k, k))?;
    let mut out = Mat::default();
    imgproc::morphology_ex_def(mask, &mut out, imgproc::MORPH_CLOSE, &kernel)?;
    Ok(out)
}

/// One stick as found: a rotated rectangle in image pixels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
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

/// Every found stick but the `i`-th.
pub fn others_than(found: &[Found], i: usize) -> Vec<Found> {
    found
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != i)
        .map(|(_, f)| *f)
        .collect()
}

/// Whether point `q` lies in the rectangle of centre `c`, unit direction
/// `dir` (along its length), half length `hl` and half width `hw`.
pub fn in_rect(q: [f64; 2], c: [f64; 2], dir: [f64; 2], hl: f64, hw: f64) -> bool {
    let (dx, dy) = (q[0] - c[0], q[1] - c[1]);
    (dx * dir[0] + dy * dir[1]).abs() <= hl && (-dx * dir[1] + dy * dir[0]).abs() <= hw
}

/// The share of a stick's footprint that other sticks' footprints cover:
/// one lies across it or it lies across one (0 for sticks that only touch
/// side by side, or lie apart). Sampled on a grid over the footprint.
pub fn covered_share(s: &Found, others: &[Found]) -> f64 {
    const ALONG: usize = 16;
    const ACROSS: usize = 4;
    let n = [-s.dir[1], s.dir[0]];
    let mut covered = 0;
    for a in 0..ALONG {
        for b in 0..ACROSS {
            let u = ((a as f64 + 0.5) / ALONG as f64 - 0.5) * s.length;
            let v = ((b as f64 + 0.5) / ACROSS as f64 - 0.5) * s.width;
            let q = [
                s.center[0] + u * s.dir[0] + v * n[0],
                s.center[1] + u * s.dir[1] + v * n[1],
            ];
            if others
                .iter()
                .any(|o| in_rect(q, o.center, o.dir, o.length / 2.0, o.width / 2.0))
            {
                covered += 1;
            }
        }
    }
    covered as f64 / (ALONG * ACROSS) as f64
}

/// Expected stick size in pixels at an image point.
pub type SizeAt<'a> = &'a dyn Fn([f64; 2]) -> (f64, f64);

/// Find sticks in a foreground mask. `size_at` gives the expected (length,
/// width) in pixels at a point.
/// With `split` off every blob is taken as one stick (teaching, where the
/// stick size is not known yet and the sticks lie apart).
pub fn find_sticks(mask: &Mat, size_at: SizeAt, split: bool) -> opencv::Result<Vec<Found>> {
    let mut labels = Mat::default();
    let mut stats = Mat::default();
    let mut cents = Mat::default();
    let n =
        imgproc::connected_components_with_stats_def(mask, &mut labels, &mut stats, &mut cents)?;
    // Components big enough to matter.
    struct Comp {
        ids: Vec<i32>,
        area: f64,
        rect: opencv::core::Rect,
        centre: [f64; 2],
    }
    let mut comps: Vec<Comp> = Vec::new();
    for i in 1..n {
        let area = *stats.at_2d::<i32>(i, imgproc::CC_STAT_AREA)? as f64;
        let rect = opencv::core::Rect::new(
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_LEFT)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_TOP)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_WIDTH)?,
            *stats.at_2d::<i32>(i, imgproc::CC_STAT_HEIGHT)?,
        );
        let centre = [*cents.at_2d::<f64>(i, 0)?, *cents.at_2d::<f64>(i, 1)?];
        let (l, wd) = size_at(centre);
        if area >= 0.12 * l * wd {
            comps.push(Comp {
                ids: vec![i],
                area,
                rect,
                centre,
            });
        }
    }
    let points_of = |c: &Comp| -> opencv::Result<Vector<Point>> {
        let lab = Mat::roi(&labels, c.rect)?;
        let mut all = Vector::<Point>::new();
        for id in &c.ids {
            let mut b = Mat::default();
            opencv::core::compare(&lab, &Scalar::all(*id as f64), &mut b, opencv::core::CMP_EQ)?;
            let mut pts = Vector::<Point>::new();
            opencv::core::find_non_zero(&b, &mut pts)?;
            for p in pts.iter() {
                all.push(Point::new(p.x + c.rect.x, p.y + c.rect.y));
            }
        }
        Ok(all)
    };
    // Pieces of one stick cut by a dark mark: two small, collinear parts that
    // together make one stick.
    loop {
        let mut merged = false;
        'pairs: for a in 0..comps.len() {
            for b in a + 1..comps.len() {
                let (l, wd) = size_at(comps[a].centre);
                let a1 = l * wd;
                if comps[a].area > 0.85 * a1 || comps[b].area > 0.85 * a1 {
                    continue;
                }
                let (ca, cb) = (comps[a].centre, comps[b].centre);
                if (ca[0] - cb[0]).hypot(ca[1] - cb[1]) > l * 0.8 {
                    continue;
                }
                let mut pts = points_of(&comps[a])?;
                for p in points_of(&comps[b])?.iter() {
                    pts.push(p);
                }
                let rr = imgproc::min_area_rect(&pts)?;
                let rl = rr.size.width.max(rr.size.height) as f64;
                let rw = rr.size.width.min(rr.size.height) as f64;
                let ratio = (comps[a].area + comps[b].area) / a1;
                if rl <= 1.2 * l && rw <= 1.5 * wd && (0.4..1.35).contains(&ratio) {
                    let cb_ = comps.remove(b);
                    let ca_ = &mut comps[a];
                    let tot = ca_.area + cb_.area;
                    ca_.centre = [
                        (ca_.centre[0] * ca_.area + cb_.centre[0] * cb_.area) / tot,
                        (ca_.centre[1] * ca_.area + cb_.centre[1] * cb_.area) / tot,
                    ];
                    ca_.area = tot;
                    ca_.rect |= cb_.rect;
                    ca_.ids.extend(cb_.ids);
                    merged = true;
                    break 'pairs;
                }
            }
        }
        if !merged {
            break;
        }
    }
    let mut out = Vec::new();
    for comp in &comps {
        let (area, c) = (comp.area, comp.centre);
        let (x, y, w, h) = (comp.rect.x, comp.rect.y, comp.rect.width, comp.rect.height);
        let (l, wd) = size_at(c);
        let a1 = l * wd;
        // This blob alone, cropped with a margin.
        let m = (l * 0.6) as i32;
        let x0 = (x - m).max(0);
        let y0 = (y - m).max(0);
        let x1 = (x + w + m).min(mask.cols());
        let y1 = (y + h + m).min(mask.rows());
        let roi = opencv::core::Rect::new(x0, y0, x1 - x0, y1 - y0);
        let lab = Mat::roi(&labels, roi)?.try_clone()?;
        let mut blob = Mat::zeros(roi.height, roi.width, opencv::core::CV_8U)?.to_mat()?;
        for id in &comp.ids {
            let mut b = Mat::default();
            opencv::core::compare(&lab, &Scalar::all(*id as f64), &mut b, opencv::core::CMP_EQ)?;
            let mut acc = Mat::default();
            opencv::core::bitwise_or_def(&blob, &b, &mut acc)?;
            blob = acc;
        }
        let ratio = area / a1;
        let mut pts = Vector::<Point>::new();
        opencv::core::find_non_zero(&blob, &mut pts)?;
        let rr = imgproc::min_area_rect(&pts)?;
        let (rl, rw) = (
            rr.size.width.max(rr.size.height) as f64,
            rr.size.width.min(rr.size.height) as f64,
        );
        let single = !split || (ratio < 1.45 && rl < 1.25 * l && rw < 1.5 * wd);
        if single {
            let th = (rr.angle as f64).to_radians();
            let mut dir = [th.cos(), th.sin()];
            if rr.size.height > rr.size.width {
                dir = [-dir[1], dir[0]];
            }
            out.push(Found {
                center: [
                    rr.center.x as f64 + x0 as f64,
                    rr.center.y as f64 + y0 as f64,
                ],
                dir,
                length: rl,
                // Area over length: less swayed by a ragged edge than the box.
                width: (area / rl.max(1.0)).min(rw),
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

/// A fitted stick in crop pixels: centre, unit direction, width.
type Placed = ([f64; 2], [f64; 2], f64);

/// Greedy rotated-template fit of up to `k` sticks (plus one more if much is left
/// unexplained) to one blob. Returns centres, directions and widths (crop pixels).
fn fit_rects(blob: &Mat, k: usize, l: f64, wd: f64) -> opencv::Result<Vec<Placed>> {
    let (bw, bh) = (blob.cols(), blob.rows());
    let mut weight = Mat::default();
    blob.convert_to(&mut weight, CV_32F, 1.0 / 255.0, 0.0)?;
    let total: f64 = opencv::core::sum_elems(&weight)?[0];
    let diag = ((bw * bw + bh * bh) as f64).sqrt().ceil() as i32 + 2;
    let centre = Point2f::new(bw as f32 / 2.0, bh as f32 / 2.0);
    let mut out = Vec::new();
    let mut explained = 0.0;
    let mut target = k;
    // Score of the best placement of a stick at one angle on a weight map
    // scaled by `sc`: (score, centre, direction, width) in crop pixels.
    let place = |wmap: &Mat, sc: f64, ang: f64| -> opencv::Result<(f64, [f64; 2], [f64; 2], f64)> {
        let (mw, mh) = (wmap.cols(), wmap.rows());
        let dg = ((mw * mw + mh * mh) as f64).sqrt().ceil() as i32 + 2;
        let mut rot = imgproc::get_rotation_matrix_2d(
            Point2f::new(mw as f32 / 2.0, mh as f32 / 2.0),
            ang,
            1.0,
        )?;
        *rot.at_2d_mut::<f64>(0, 2)? += (dg - mw) as f64 / 2.0;
        *rot.at_2d_mut::<f64>(1, 2)? += (dg - mh) as f64 / 2.0;
        let mut r = Mat::default();
        imgproc::warp_affine(
            &wmap,
            &mut r,
            &rot,
            Size::new(dg, dg),
            imgproc::INTER_LINEAR,
            BORDER_CONSTANT,
            Scalar::all(0.0),
        )?;
        // Reward covered foreground, penalise covered background.
        let mut centred = Mat::default();
        r.convert_to(&mut centred, CV_32F, 1.0, -0.5)?;
        let mut best = (f64::MIN, [0.0; 2], [1.0, 0.0], wd);
        for (wk, wpx) in [(1.0, wd), (0.55, wd * 0.55)] {
            let mut score = Mat::default();
            imgproc::box_filter(
                &centred,
                &mut score,
                CV_32F,
                Size::new((l * sc).round() as i32, ((wpx * sc).round() as i32).max(2)),
                Point::new(-1, -1),
                false,
                BORDER_CONSTANT,
            )?;
            let mut maxv = 0.0;
            let mut maxl = Point::default();
            opencv::core::min_max_loc(
                &score,
                None,
                Some(&mut maxv),
                None,
                Some(&mut maxl),
                &opencv::core::no_array(),
            )?;
            let maxv = maxv / (sc * sc);
            if maxv > best.0 {
                let m = |r: i32, c: i32| -> opencv::Result<f64> { rot.at_2d::<f64>(r, c).copied() };
                let (a, b, c, d) = (m(0, 0)?, m(0, 1)?, m(1, 0)?, m(1, 1)?);
                let (tx, ty) = (m(0, 2)?, m(1, 2)?);
                let det = a * d - b * c;
                let (u, v) = (maxl.x as f64 - tx, maxl.y as f64 - ty);
                let cx = (d * u - b * v) / det / sc;
                let cy = (-c * u + a * v) / det / sc;
                let (dx, dy) = (d / det, -c / det);
                let n = dx.hypot(dy);
                best = (maxv, [cx, cy], [dx / n, dy / n], wk * wd);
            }
        }
        Ok(best)
    };
    let _ = (diag, centre);
    while out.len() < target && out.len() < 6 {
        // Coarse at half size every 6°, then fine at full size around the best.
        let mut half = Mat::default();
        imgproc::resize(
            &weight,
            &mut half,
            Size::new(0, 0),
            0.5,
            0.5,
            imgproc::INTER_AREA,
        )?;
        let mut coarse = (f64::MIN, 0.0);
        for step in 0..30 {
            let ang = step as f64 * 6.0;
            let r = place(&half, 0.5, ang)?;
            if r.0 > coarse.0 {
                coarse = (r.0, ang);
            }
        }
        let mut best = (f64::MIN, [0.0; 2], [1.0, 0.0], wd);
        for da in [-4.0, -2.0, 0.0, 2.0, 4.0] {
            let r = place(&weight, 1.0, coarse.1 + da)?;
            if r.0 > best.0 {
                best = r;
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
    refine(blob, &mut out, l, wd)?;
    Ok(out)
}

/// How well a set of sticks explains a blob: foreground covered, less half of
/// each background pixel covered and half of each doubly covered one.
fn explain(fg: &[u8], bw: usize, bh: usize, rects: &[Placed], l: f64) -> f64 {
    // Bounding box of all rectangles, to skip most of the crop.
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (c, _, _) in rects {
        x0 = x0.min(c[0] - l / 2.0 - 1.0);
        y0 = y0.min(c[1] - l / 2.0 - 1.0);
        x1 = x1.max(c[0] + l / 2.0 + 1.0);
        y1 = y1.max(c[1] + l / 2.0 + 1.0);
    }
    let xs = (x0.max(0.0) as usize)..(x1.max(0.0) as usize).min(bw);
    let ys = (y0.max(0.0) as usize)..(y1.max(0.0) as usize).min(bh);
    let mut score = 0.0;
    for y in ys {
        for x in xs.clone() {
            let mut n = 0;
            for (c, d, w) in rects {
                let (dx, dy) = (x as f64 - c[0], y as f64 - c[1]);
                let u = dx * d[0] + dy * d[1];
                let v = -dx * d[1] + dy * d[0];
                if u.abs() <= l / 2.0 && v.abs() <= w / 2.0 {
                    n += 1;
                }
            }
            if n == 0 {
                continue;
            }
            if fg[y * bw + x] > 0 {
                score += 1.0 - 0.25 * (n - 1) as f64;
            } else {
                score -= 0.5 * n as f64;
            }
        }
    }
    score
}

/// Local search on the greedy fit: shift, turn and narrow each stick while
/// that explains the blob better (undoes fits that straddle two sticks).
fn refine(blob: &Mat, rects: &mut [Placed], l: f64, wd: f64) -> opencv::Result<()> {
    let (bw, bh) = (blob.cols() as usize, blob.rows() as usize);
    let fg = blob.data_bytes()?.to_vec();
    let mut best = explain(&fg, bw, bh, rects, l);
    for _round in 0..12 {
        let mut improved = false;
        for i in 0..rects.len() {
            let (c, d, w) = rects[i];
            let n = [-d[1], d[0]];
            let turn = |a: f64| {
                let (cs, sn) = (a.cos(), a.sin());
                [d[0] * cs - d[1] * sn, d[0] * sn + d[1] * cs]
            };
            let other_w = if w < wd * 0.8 { wd } else { wd * 0.55 };
            let moves = [
                ([c[0] + n[0], c[1] + n[1]], d, w),
                ([c[0] - n[0], c[1] - n[1]], d, w),
                ([c[0] + 2.0 * n[0], c[1] + 2.0 * n[1]], d, w),
                ([c[0] - 2.0 * n[0], c[1] - 2.0 * n[1]], d, w),
                ([c[0] + d[0], c[1] + d[1]], d, w),
                ([c[0] - d[0], c[1] - d[1]], d, w),
                (c, turn(0.03), w),
                (c, turn(-0.03), w),
                (c, d, other_w),
            ];
            for (k, m) in moves.into_iter().enumerate() {
                rects[i] = m;
                let sc = explain(&fg, bw, bh, rects, l);
                // Narrowing must clearly pay: a stick on its edge is half as wide.
                let need = if k == 8 { 0.1 * l * wd } else { 0.25 };
                if sc > best + need {
                    best = sc;
                    improved = true;
                    break;
                }
                rects[i] = (c, d, w);
            }
        }
        if !improved {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stick(center: [f64; 2], angle_deg: f64) -> Found {
        let a = angle_deg.to_radians();
        Found {
            center,
            dir: [a.cos(), a.sin()],
            length: 60.0,
            width: 12.0,
            shared: true,
            blob_ratio: 2.0,
        }
    }

    #[test]
    fn sticks_side_by_side_do_not_cover_each_other_and_crossing_ones_do() {
        let me = stick([100.0, 100.0], 0.0);
        // Touching along a long edge (a width and a bit apart): nothing covered.
        let beside = stick([110.0, 112.5], 0.0);
        assert_eq!(covered_share(&me, &[beside]), 0.0);
        // Lying across the middle at right angles: a width of its length.
        let across = stick([100.0, 100.0], 90.0);
        let share = covered_share(&me, &[across]);
        assert!((0.15..0.3).contains(&share), "{share}");
        // Apart: nothing.
        assert_eq!(covered_share(&me, &[stick([300.0, 100.0], 0.0)]), 0.0);
        assert!(share > crate::vision::CROSSED);
    }
}
