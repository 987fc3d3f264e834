//! What a stick looks like, as numbers: the cross-section profile (flat face:
//! even; round face: cylindrical shading and a highlight stripe), texture and
//! grain, taper and shading at the ends, edge crispness, colour, a dark mark.
//!
//! Each stick is resampled into a canonical patch (along × across) so every
//! feature is independent of where the stick lies and how big it looks.

use super::sticks::Found;
use opencv::core::{Mat, Scalar, Size, BORDER_REPLICATE};
use opencv::imgproc;
use opencv::prelude::*;

/// Patch size: along the stick, across it.
pub const PL: usize = 64;
pub const PW: usize = 24;
/// The patch covers this much of the nominal length and width.
const SPAN_L: f64 = 1.1;
const SPAN_W: f64 = 1.6;

/// Number of appearance features (normalised against the taught set).
pub const N_APPEAR: usize = 20;
/// Number of geometry features (used as they are).
pub const N_GEOM: usize = 4;
pub const N_FEATURES: usize = N_APPEAR + N_GEOM;

/// Index of the mark features inside the appearance block.
pub const MARK_FRACTION: usize = 12;
pub const MARK_DEPTH: usize = 13;

/// The resampled patches of one stick.
pub struct Patch {
    /// Grey level of the frame, PL × PW, row = across index.
    pub grey: Vec<f32>,
    pub empty: Vec<f32>,
    pub mask: Vec<f32>,
    /// Chromaticity (r, g) of the frame and of the empty mat, averaged over the
    /// stick's middle.
    pub chroma: [f32; 2],
    pub chroma_empty: [f32; 2],
}

fn warp(src: &Mat, m: &Mat, interp: i32) -> opencv::Result<Mat> {
    let mut out = Mat::default();
    imgproc::warp_affine(
        src,
        &mut out,
        m,
        Size::new(PL as i32, PW as i32),
        interp | imgproc::WARP_INVERSE_MAP,
        BORDER_REPLICATE,
        Scalar::all(0.0),
    )?;
    Ok(out)
}

/// Resample a stick into the canonical patch. `nominal` is the taught (length,
/// width) in pixels at this place.
/// `mask_scale` is the mask's size relative to the frame.
pub fn patch(
    frame: &Mat,
    empty: &Mat,
    mask: &Mat,
    mask_scale: f64,
    s: &Found,
    nominal: (f64, f64),
) -> opencv::Result<Patch> {
    let sx = SPAN_L * nominal.0 / PL as f64;
    let sy = SPAN_W * nominal.1 / PW as f64;
    let d = s.dir;
    let n = [-d[1], d[0]];
    let ox =
        s.center[0] - (PL as f64 / 2.0 - 0.5) * sx * d[0] - (PW as f64 / 2.0 - 0.5) * sy * n[0];
    let oy =
        s.center[1] - (PL as f64 / 2.0 - 0.5) * sx * d[1] - (PW as f64 / 2.0 - 0.5) * sy * n[1];
    let m = Mat::from_slice_2d(&[[sx * d[0], sy * n[0], ox], [sx * d[1], sy * n[1], oy]])?;
    let f = warp(frame, &m, imgproc::INTER_LINEAR)?;
    let e = warp(empty, &m, imgproc::INTER_LINEAR)?;
    let ms = mask_scale;
    let mm = Mat::from_slice_2d(&[
        [ms * sx * d[0], ms * sy * n[0], ms * ox],
        [ms * sx * d[1], ms * sy * n[1], ms * oy],
    ])?;
    let k = warp(mask, &mm, imgproc::INTER_NEAREST)?;
    let grey_of = |bgr: &Mat| -> opencv::Result<(Vec<f32>, [f32; 2])> {
        let b = bgr.data_bytes()?;
        let mut g = Vec::with_capacity(PL * PW);
        let (mut cr, mut cg, mut n) = (0f32, 0f32, 0f32);
        for j in 0..PW {
            for i in 0..PL {
                let o = (j * PL + i) * 3;
                let (bb, gg, rr) = (b[o] as f32, b[o + 1] as f32, b[o + 2] as f32);
                g.push(0.114 * bb + 0.587 * gg + 0.299 * rr);
                if (9..15).contains(&j) && (16..48).contains(&i) {
                    let s = bb + gg + rr + 1.0;
                    cr += rr / s;
                    cg += gg / s;
                    n += 1.0;
                }
            }
        }
        Ok((g, [cr / n, cg / n]))
    };
    let (grey, chroma) = grey_of(&f)?;
    let (empty, chroma_empty) = grey_of(&e)?;
    let mask = k.data_bytes()?.iter().map(|v| *v as f32 / 255.0).collect();
    Ok(Patch {
        grey,
        empty,
        mask,
        chroma,
        chroma_empty,
    })
}

fn mean(v: impl Iterator<Item = f32>) -> f32 {
    let (mut s, mut n) = (0f32, 0f32);
    for x in v {
        s += x;
        n += 1.0;
    }
    if n > 0.0 {
        s / n
    } else {
        0.0
    }
}

/// Rows of the patch that lie on a stick of nominal width (centre ± half width).
fn stick_rows() -> std::ops::Range<usize> {
    let half = PW as f64 / SPAN_W / 2.0;
    let c = PW as f64 / 2.0;
    ((c - half + 1.0).ceil() as usize)..((c + half - 1.0).floor() as usize)
}

/// The feature vector of one stick: `N_APPEAR` appearance features then
/// `N_GEOM` geometry features.
pub fn features(p: &Patch, s: &Found, nominal: (f64, f64)) -> [f32; N_FEATURES] {
    let g = |i: usize, j: usize| p.grey[j * PL + i];
    let rows = stick_rows();
    let (c0, c1) = (PL * 2 / 10, PL * 8 / 10);
    let prof: Vec<f32> = rows
        .clone()
        .map(|j| mean((c0..c1).map(|i| g(i, j))))
        .collect();
    let pm = mean(prof.iter().copied()).max(1.0);
    let np = prof.len();
    let stick_mean = pm;
    let empty_mean = mean(
        rows.clone()
            .flat_map(|j| (c0..c1).map(move |i| (i, j)))
            .map(|(i, j)| p.empty[j * PL + i]),
    )
    .max(1.0);
    let mut f = [0f32; N_FEATURES];
    // 0: brightness against the mat under it.
    f[0] = stick_mean / empty_mean;
    // 1: profile flatness.
    f[1] = (prof.iter().map(|v| (v - pm).powi(2)).sum::<f32>() / np as f32).sqrt() / pm;
    // 2: centre against edges.
    let edge = mean(prof[..2].iter().chain(prof[np - 2..].iter()).copied());
    let centre = mean(prof[np / 2 - 2..np / 2 + 2].iter().copied());
    f[2] = (centre - edge) / pm;
    // 3: highlight stripe.
    f[3] = prof.iter().cloned().fold(0.0, f32::max) / pm;
    // 4: asymmetry of the profile.
    f[4] = mean((0..np / 2).map(|k| (prof[k] - prof[np - 1 - k]).abs())) / pm;
    // 5, 6: texture along and across.
    let (mut ga, mut gc, mut n) = (0f32, 0f32, 0f32);
    for j in rows.start + 1..rows.end - 1 {
        for i in c0..c1 {
            ga += (g(i + 1, j) - g(i, j)).abs();
            gc += (g(i, j + 1) - g(i, j)).abs();
            n += 1.0;
        }
    }
    f[5] = ga / n / pm;
    f[6] = gc / n / pm;
    // 7: taper: how much of the nominal width is foreground near the ends.
    let occ = |cols: &[usize]| {
        mean(
            cols.iter()
                .map(|&i| rows.clone().map(|j| p.mask[j * PL + i]).sum::<f32>()),
        )
    };
    let ends: Vec<usize> = (4..9).chain(PL - 9..PL - 4).collect();
    let mids: Vec<usize> = (c0..c1).collect();
    f[7] = occ(&ends) / occ(&mids).max(1.0);
    // 8: brightness at the ends.
    f[8] = mean(
        ends.iter()
            .flat_map(|&i| rows.clone().map(move |j| (i, j)))
            .map(|(i, j)| g(i, j)),
    ) / pm;
    // 9: edge crispness: steepest step at the long edges against the contrast.
    let contrast = (stick_mean - empty_mean).abs().max(4.0);
    let step = |j0: usize, j1: usize| mean((c0..c1).map(|i| (g(i, j1) - g(i, j0)).abs()));
    let top = rows.start;
    let bot = rows.end - 1;
    let s_top = step(top - 2, top - 1)
        .max(step(top - 1, top))
        .max(step(top, top + 1));
    let s_bot = step(bot - 1, bot)
        .max(step(bot, bot + 1))
        .max(step(bot + 1, bot + 2));
    f[9] = (s_top + s_bot) / 2.0 / contrast;
    // 10, 11: colour against the mat's.
    f[10] = p.chroma[0] - p.chroma_empty[0];
    f[11] = p.chroma[1] - p.chroma_empty[1];
    // 12, 13: a dark mark inside the stick.
    let inner: Vec<f32> = (rows.start + 1..rows.end - 1)
        .flat_map(|j| (PL / 8..PL * 7 / 8).map(move |i| (i, j)))
        .map(|(i, j)| g(i, j))
        .collect();
    let mut sorted = inner.clone();
    sorted.sort_by(f32::total_cmp);
    let med = sorted[sorted.len() / 2].max(1.0);
    f[12] = inner.iter().filter(|v| **v < 0.72 * med).count() as f32 / inner.len() as f32;
    f[13] = (med - sorted[sorted.len() / 100]) / med;
    // 14: variation along the stick (occlusion, shadows across it).
    let along: Vec<f32> = (c0..c1)
        .map(|i| mean(rows.clone().map(|j| g(i, j))))
        .collect();
    let am = mean(along.iter().copied()).max(1.0);
    f[14] = (along.iter().map(|v| (v - am).powi(2)).sum::<f32>() / along.len() as f32).sqrt() / am;
    // 15..19: the folded profile (symmetric part), five samples.
    for k in 0..5 {
        let a = k * (np / 2) / 5;
        f[15 + k] = (prof[a] + prof[np - 1 - a]) / 2.0 / pm;
    }
    // Geometry.
    f[N_APPEAR] = (s.width / nominal.1) as f32;
    f[N_APPEAR + 1] = (s.length / nominal.0) as f32;
    f[N_APPEAR + 2] = if s.shared { 1.0 } else { 0.0 };
    f[N_APPEAR + 3] = s.blob_ratio as f32;
    f
}
