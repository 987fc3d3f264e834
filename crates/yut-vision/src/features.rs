//! What a stick looks like, as numbers: the cross-section profile (flat face:
//! even; round face: cylindrical shading and a highlight stripe), texture and
//! grain, taper and shading at the ends, edge crispness, colour, a dark mark.
//!
//! Each stick is resampled into a canonical patch (along × across) so every
//! feature is independent of where the stick lies and how big it looks.
//!
//! Pure.

use crate::sticks::{in_rect, others_than, Found};
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
pub const N_APPEAR: usize = 27;
/// Number of geometry features (used as they are).
pub const N_GEOM: usize = 4;
/// The shading across the stick: samples of its brightness against the mat
/// under it, from one long edge to the other (inner part), at [`PROFILE_V`].
pub const N_PROFILE: usize = 7;
/// Where the profile is sampled, as sin of the angle around a round face
/// (−1 and 1 are its long edges).
pub const PROFILE_V: [f32; N_PROFILE] = [-0.6, -0.4, -0.2, 0.0, 0.2, 0.4, 0.6];
/// Index of the profile block, then the across direction (x, y in the image).
pub const PROFILE: usize = N_APPEAR + N_GEOM;
pub const ACROSS: usize = PROFILE + N_PROFILE;
/// The stick's picture, coarse: its brightness against the mat under it on a
/// grid along × across the stick's own band (see `picture`), for the
/// picture net (`yut_vision::classify`).
pub const PICTURE: usize = ACROSS + 2;
pub const PIC_L: usize = 16;
pub const PIC_W: usize = 8;
pub const N_PICTURE: usize = PIC_L * PIC_W;
/// What a person tells a station's two faces apart by, measured robustly on
/// the middle of the stick's own band for the taught reader
/// (`yut_vision::taught_reader`): see [`own_look`].
pub const OWN: usize = PICTURE + N_PICTURE;
pub const N_OWN: usize = 6;
pub const N_FEATURES: usize = OWN + N_OWN;

/// Index of the mark features inside the appearance block.
pub const MARK_FRACTION: usize = 12;
pub const MARK_DEPTH: usize = 13;
/// The strongest local change of colour along the flat face (a band, a
/// cross, a dot or a letter in ink or paint).
pub const MARK_PEAK: usize = 23;
/// The width of the stick's own band (as it shows in its patch) against the
/// taught width.
pub const BAND_WIDTH: usize = 26;

/// The resampled patches of one stick, kept as bytes so a set of them can be
/// stored and the features recomputed without rendering again (`train --dump`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Patch {
    /// The frame, PL × PW BGR, row = across index.
    pub bgr: Vec<u8>,
    /// The empty mat at the same place.
    pub empty_bgr: Vec<u8>,
    /// The foreground mask (0 or 255).
    pub mask: Vec<u8>,
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

/// Frame pixels per patch pixel, along and across the stick.
fn patch_steps(nominal: (f64, f64)) -> (f64, f64) {
    (
        SPAN_L * nominal.0 / PL as f64,
        SPAN_W * nominal.1 / PW as f64,
    )
}

/// Where patch pixel (`i` along, `j` across) of stick `s` lies in the frame.
pub(crate) fn patch_point(s: &Found, nominal: (f64, f64), i: usize, j: usize) -> [f64; 2] {
    let (sx, sy) = patch_steps(nominal);
    let (d, n) = (s.dir, [-s.dir[1], s.dir[0]]);
    let u = (i as f64 - (PL as f64 / 2.0 - 0.5)) * sx;
    let v = (j as f64 - (PW as f64 / 2.0 - 0.5)) * sy;
    [
        s.center[0] + u * d[0] + v * n[0],
        s.center[1] + u * d[1] + v * n[1],
    ]
}

/// Resample a stick into the canonical patch. `nominal` is the taught (length,
/// width) in pixels at this place.
/// `mask_scale` is the mask's size relative to the frame. `shadows`: where
/// the station leaves its shadows out (`Reference::trimming_shadows`), its
/// [`crate::sticks::SHADOW_RATIO`]: a pixel the mask left out that is that
/// much darker than the empty mat in every channel is the mat in shadow, and
/// the empty patch takes it as the mat looks now (`relight`).
pub fn patch(
    frame: &Mat,
    empty: &Mat,
    mask: &Mat,
    mask_scale: f64,
    s: &Found,
    nominal: (f64, f64),
    shadows: Option<f64>,
) -> opencv::Result<Patch> {
    let (sx, sy) = patch_steps(nominal);
    let d = s.dir;
    let n = [-d[1], d[0]];
    let [ox, oy] = patch_point(s, nominal, 0, 0);
    let m = Mat::from_slice_2d(&[[sx * d[0], sy * n[0], ox], [sx * d[1], sy * n[1], oy]])?;
    let f = warp(frame, &m, imgproc::INTER_LINEAR)?;
    let e = warp(empty, &m, imgproc::INTER_LINEAR)?;
    let ms = mask_scale;
    let mm = Mat::from_slice_2d(&[
        [ms * sx * d[0], ms * sy * n[0], ms * ox],
        [ms * sx * d[1], ms * sy * n[1], ms * oy],
    ])?;
    let k = warp(mask, &mm, imgproc::INTER_NEAREST)?;
    let mut p = Patch {
        bgr: f.data_bytes()?.to_vec(),
        empty_bgr: e.data_bytes()?.to_vec(),
        mask: k.data_bytes()?.to_vec(),
    };
    if let Some(ratio) = shadows {
        relight(&mut p, ratio as f32);
    }
    Ok(p)
}

/// The empty patch as the mat looks now where a shadow falls on it: each
/// pixel outside the stick (`mask` 0) darker than `ratio` of the empty mat in
/// every channel takes the frame's colour. A coloured shadow (a window's
/// light blocked, a warm lamp's left) is then the mat to every measure that
/// compares the stick with the mat beside it: the band across the stick
/// ([`band`]) ends at the stick's edge, not at its shadow's.
fn relight(p: &mut Patch, ratio: f32) {
    for (k, &m) in p.mask.iter().enumerate() {
        let o = 3 * k;
        let shadow = m == 0
            && (0..3).all(|c| f32::from(p.bgr[o + c]) < ratio * f32::from(p.empty_bgr[o + c]));
        if shadow {
            p.empty_bgr[o..o + 3].copy_from_slice(&p.bgr[o..o + 3]);
        }
    }
}

/// Grey levels of a PL × PW BGR patch, and its chromaticity (r, g) averaged
/// over the stick's middle.
fn grey_of(b: &[u8]) -> (Vec<f32>, [f32; 2]) {
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
    (g, [cr / n, cg / n])
}

/// A patch as numbers: grey levels and chromaticity of frame and empty mat.
struct Levels {
    grey: Vec<f32>,
    empty: Vec<f32>,
    mask: Vec<f32>,
    chroma: [f32; 2],
    chroma_empty: [f32; 2],
}

impl Levels {
    fn of(p: &Patch) -> Levels {
        let (grey, chroma) = grey_of(&p.bgr);
        let (empty, chroma_empty) = grey_of(&p.empty_bgr);
        Levels {
            grey,
            empty,
            mask: p.mask.iter().map(|v| *v as f32 / 255.0).collect(),
            chroma,
            chroma_empty,
        }
    }
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

/// The patch with every other stick that shows in it painted over with the
/// empty mat (outside this stick's own footprint): a stick touching or
/// lying across this one must not pass for its shading, its edge or its mark.
/// `others` are the other sticks found in the same frame (frame pixels).
pub fn erase_others(patch: &Patch, s: &Found, nominal: (f64, f64), others: &[Found]) -> Patch {
    erase_covered(patch, s, nominal, &covered_pixels(s, nominal, others, 1.0))
}

/// [`erase_others`] from the pixels other sticks reach, grown by a pixel
/// (their edges blur into the mat), as [`covered_pixels`] gives them.
fn erase_covered(
    patch: &Patch,
    s: &Found,
    nominal: (f64, f64),
    covered: &[bool; PL * PW],
) -> Patch {
    let mut out = patch.clone();
    for (k, _) in covered.iter().enumerate().filter(|(_, c)| **c) {
        let q = patch_point(s, nominal, k % PL, k / PL);
        if in_rect(q, s.center, s.dir, s.length / 2.0, nominal.1 / 2.0) {
            continue;
        }
        out.bgr[k * 3..k * 3 + 3].copy_from_slice(&patch.empty_bgr[k * 3..k * 3 + 3]);
        out.mask[k] = 0;
    }
    out
}

/// The feature vector of one stick: `N_APPEAR` appearance features then
/// `N_GEOM` geometry features, the shading profile, the direction across and
/// the coarse picture. `others`: the other sticks found in the same frame
/// (they are painted over, see [`erase_others`]).
pub fn features(
    patch: &Patch,
    s: &Found,
    nominal: (f64, f64),
    others: &[Found],
) -> [f32; N_FEATURES] {
    // Where the other sticks reach: painted over for every measure below,
    // and left out of the stick's own look.
    let under_others = covered_pixels(s, nominal, others, 1.0);
    let erased = erase_covered(patch, s, nominal, &under_others);
    let patch = &erased;
    let p = &Levels::of(patch);
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
    f[MARK_FRACTION] =
        inner.iter().filter(|v| **v < 0.72 * med).count() as f32 / inner.len() as f32;
    f[MARK_DEPTH] = (med - sorted[sorted.len() / 100]) / med;
    // The stick as it shows across the patch, not the found blob: a hard
    // shadow in the blob moves its centre towards the shadow, and the taught
    // width includes shadows.
    let (band_centre, band_half) = band(patch, c0, c1);
    f[MARK_PEAK] = mark_peak(patch, (band_centre, band_half));
    // 24, 25: fine texture across and along, inside the stick's own band
    // (grain on a flat face runs along it, so it changes across); 26: the
    // band's width against the taught width.
    {
        let (bc, bh) = (band_centre, band_half);
        let j0 = ((bc - 0.6 * bh).round() as usize).max(1);
        let j1 = ((bc + 0.6 * bh).round() as usize).min(PW - 2);
        let (mut ta, mut tl, mut n) = (0f32, 0f32, 0f32);
        for j in j0..=j1 {
            for i in c0..c1 {
                ta += (g(i, j - 1) - 2.0 * g(i, j) + g(i, j + 1)).abs();
                tl += (g(i - 1, j) - 2.0 * g(i, j) + g(i + 1, j)).abs();
                n += 1.0;
            }
        }
        f[24] = ta / n.max(1.0) / pm;
        f[25] = tl / n.max(1.0) / pm;
        f[BAND_WIDTH] = in_widths(bh);
    }
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
    // 20..22 and the profile block: the shading across, read as the stick
    // against the empty mat under it (so mat texture and uneven light cancel).
    // A flat face is even; a round face (a half cylinder) is domed under light
    // from above and graded under light from one side.
    let ratio = |i: usize, j: usize| p.grey[j * PL + i] / p.empty[j * PL + i].max(1.0);
    let rprof: Vec<f32> = rows
        .clone()
        .map(|j| mean((c0..c1).map(|i| ratio(i, j))))
        .collect();
    // The profile across, at fractions of the band's half width (linear
    // interpolation between patch rows).
    let (centre_row, half_rows) = (band_centre, band_half);
    // The median along the stick: a mark or a knot does not move it.
    let row_ratio = |j: usize| {
        let mut v: Vec<f32> = (c0..c1).map(|i| ratio(i, j)).collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    let at = |v: f32| {
        let y = (centre_row + v * half_rows).clamp(0.0, (PW - 1) as f32);
        let j = (y.floor() as usize).min(PW - 2);
        let t = y - j as f32;
        row_ratio(j) * (1.0 - t) + row_ratio(j + 1) * t
    };
    let samples: Vec<f32> = PROFILE_V.iter().map(|v| at(*v)).collect();
    let sm = mean(samples.iter().copied()).max(1e-3);
    // 20: how even the inner part is (a flat face is even under any light).
    f[20] = (samples[1..N_PROFILE - 1]
        .iter()
        .map(|v| (v - sm).powi(2))
        .sum::<f32>()
        / (N_PROFILE - 2) as f32)
        .sqrt()
        / sm;
    let rm = mean(rprof.iter().copied()).max(1e-3);
    let outer = mean(
        rprof[..np / 5 + 1]
            .iter()
            .chain(rprof[np - np / 5 - 1..].iter())
            .copied(),
    );
    let inner = mean(rprof[np * 3 / 10..np - np * 3 / 10].iter().copied());
    // 21: the middle against the long edges; 22: a highlight line.
    f[21] = (inner - outer) / rm;
    f[22] = rprof.iter().cloned().fold(0.0, f32::max) / rm;
    // Geometry.
    f[N_APPEAR] = (s.width / nominal.1) as f32;
    f[N_APPEAR + 1] = (s.length / nominal.0) as f32;
    f[N_APPEAR + 2] = if s.shared { 1.0 } else { 0.0 };
    f[N_APPEAR + 3] = s.blob_ratio as f32;
    f[PROFILE..PROFILE + N_PROFILE].copy_from_slice(&samples);
    // The patch's rows run along n = (−d.y, d.x).
    f[ACROSS] = -s.dir[1] as f32;
    f[ACROSS + 1] = s.dir[0] as f32;
    f[PICTURE..PICTURE + N_PICTURE].copy_from_slice(&picture(p, (band_centre, band_half)));
    f[OWN..OWN + N_OWN].copy_from_slice(&own_look(patch, (band_centre, band_half), &under_others));
    f
}

/// The middle of a stick's band in its patch: the inner three fifths across
/// the band as it shows (`band`: the stick, not its shadow, which a found blob
/// may hold; no wider than the nominal width), and the inner seven tenths along
/// the nominal length, away from its ends.
fn own_core((centre, half): (f32, f32)) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let half = half.min(PW as f32 / SPAN_W as f32 / 2.0);
    let r0 = (centre - 0.6 * half).round().max(0.0) as usize;
    let r1 = ((centre + 0.6 * half).round() as usize + 1).min(PW);
    let rows = r0..r1.max(r0 + 1);
    let half_l = PL as f64 / SPAN_L / 2.0;
    let mid_l = PL as f64 / 2.0;
    let cols = (mid_l - 0.7 * half_l).ceil() as usize..(mid_l + 0.7 * half_l).floor() as usize;
    (rows, cols)
}

/// CIE L*a*b* of an 8-bit sRGB colour (D65).
fn lab_of(b: u8, g: u8, r: u8) -> [f32; 3] {
    let lin = |c: u8| {
        let c = c as f32 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(r), lin(g), lin(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f32| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// The median of `v` (which it sorts); 0 when empty.
fn median(v: &mut [f32]) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

/// A stick's own look, for the taught reader, on the middle of its band
/// (`own_core`, on the stick's `band` across the patch), each measured so that
/// a mark, a highlight or the corner of another stick moves it little: its
/// body's lightness against the mat under it (the 20th percentile of L* less
/// the mat's median), its colour (median a*, b*), its colour against the mat's
/// (the chroma of the difference), the spread of its lightness (grain,
/// highlights: the interquartile range of L*), and the shading across it (the
/// middle rows' L* less the outer rows').
///
/// The columns of the middle where another stick's outline reaches
/// (`under_others`, as [`covered_pixels`] gives them) are left out, while at
/// least [`OWN_LEAST_CLEAR`] of them stay clear: where a stick lies across
/// the middle of this one, what shows there is the other's face, and a dark
/// round face across a pale flat one pulled the flat one's body lightness
/// towards the round face (flat faces of crossing pairs placed at −0.7 on
/// the taught axis). Where the stick lies on top, it loses only some of its
/// own pixels.
pub fn own_look(patch: &Patch, band: (f32, f32), under_others: &[bool; PL * PW]) -> [f32; N_OWN] {
    let (rows, cols) = own_core(band);
    let lab = |bytes: &[u8], i: usize, j: usize| {
        let o = (j * PL + i) * 3;
        lab_of(bytes[o], bytes[o + 1], bytes[o + 2])
    };
    // The columns of the middle clear of every other stick: one lying across
    // covers a span of them. One lying beside, its outline along the band's
    // edge, covers them all, and the whole middle is measured as it shows
    // (leaving out only the rows along it would measure the far edge alone).
    let clear_cols: Vec<usize> = cols
        .clone()
        .filter(|&i| !rows.clone().any(|j| under_others[j * PL + i]))
        .collect();
    let enough_clear = clear_cols.len() as f32 >= OWN_LEAST_CLEAR * cols.len() as f32;
    let cols: Vec<usize> = if enough_clear {
        clear_cols
    } else {
        cols.collect()
    };
    let mut channel = [Vec::new(), Vec::new(), Vec::new()];
    let mut mat = [Vec::new(), Vec::new(), Vec::new()];
    for j in rows.clone() {
        for &i in &cols {
            let (s, e) = (lab(&patch.bgr, i, j), lab(&patch.empty_bgr, i, j));
            for k in 0..3 {
                channel[k].push(s[k]);
                mat[k].push(e[k]);
            }
        }
    }
    let mut lightness = channel[0].clone();
    lightness.sort_by(f32::total_cmp);
    let q = |f: f32| lightness[((lightness.len() - 1) as f32 * f) as usize];
    let iqr = q(0.75) - q(0.25);
    // The body's lightness, not its median: a highlight on a glossy round
    // face only brightens part of it, and a mark darkens less than a fifth.
    let body = q(0.2);
    let [_, a, b] = channel.map(|mut c| median(&mut c));
    let [ml, ma, mb] = mat.map(|mut c| median(&mut c));
    let row_l = |j: usize| {
        let mut v: Vec<f32> = cols.iter().map(|&i| lab(&patch.bgr, i, j)[0]).collect();
        median(&mut v)
    };
    let (r0, r1) = (rows.start, rows.end - 1);
    let mid = (r0 + r1) / 2;
    let shading = if r1 > r0 + 1 {
        row_l(mid) - (row_l(r0) + row_l(r1)) / 2.0
    } else {
        0.0
    };
    [body - ml, a, b, (a - ma).hypot(b - mb), iqr, shading]
}

/// The least share of the columns of a stick's middle (`own_core`) that must
/// lie clear of other sticks for [`own_look`] to measure only those: fewer,
/// and the stick is mostly under others or lies beside one along its length,
/// and the whole middle is measured as it shows.
pub const OWN_LEAST_CLEAR: f32 = 0.25;

/// The stick's picture for the picture net: brightness against the empty mat
/// under it (so the mat's texture and uneven light cancel), over its whole
/// length (its ends show whether it tapers) and across its band and a little
/// beyond each long edge, in `PIC_L` × `PIC_W` cells, divided by its median
/// inside (so a darker wood or a dimmer light changes nothing), less one.
/// Row-major: across index × PIC_L + along index.
fn picture(p: &Levels, (centre, half): (f32, f32)) -> [f32; N_PICTURE] {
    let ratio = |i: usize, j: usize| p.grey[j * PL + i] / p.empty[j * PL + i].max(1.0);
    let cell = PL / PIC_L;
    let mut out = [0f32; N_PICTURE];
    for k in 0..PIC_W {
        // From 1.4 half widths on one side of the band's centre to 1.4 on the other.
        let v = -1.4 + 2.8 * (k as f32 + 0.5) / PIC_W as f32;
        let y = (centre + v * half).clamp(0.0, (PW - 1) as f32);
        let j = (y.floor() as usize).min(PW - 2);
        let t = y - j as f32;
        for a in 0..PIC_L {
            let m = mean(
                (a * cell..(a + 1) * cell).map(|i| ratio(i, j) * (1.0 - t) + ratio(i, j + 1) * t),
            );
            out[k * PIC_L + a] = m;
        }
    }
    let mut inside: Vec<f32> = (2..PIC_W - 2)
        .flat_map(|k| (PIC_L / 4..PIC_L * 3 / 4).map(move |a| (k, a)))
        .map(|(k, a)| out[k * PIC_L + a])
        .collect();
    inside.sort_by(f32::total_cmp);
    let med = inside[inside.len() / 2].max(1e-3);
    for v in &mut out {
        *v = (*v / med - 1.0).clamp(-1.0, 1.0);
    }
    out
}

/// The picture turned end for end (the same stick found with the opposite
/// direction): training sees both, and the net reads both and averages.
pub fn picture_turned(pic: &[f32]) -> Vec<f32> {
    let mut out = vec![0f32; N_PICTURE];
    for k in 0..PIC_W {
        for a in 0..PIC_L {
            out[(PIC_W - 1 - k) * PIC_L + (PIC_L - 1 - a)] = pic[k * PIC_L + a];
        }
    }
    out
}

/// The stick across the patch (centre and half width, in rows): the band of
/// nominal width that differs most from the mat, counting a shadow (the mat's
/// own colour, darker) as mat, then its extent at half its contrast.
fn band(p: &Patch, c0: usize, c1: usize) -> (f32, f32) {
    band_at(p, c0, c1, 0.5)
}

/// Share of its peak contrast at which [`faint_band_width`] measures a
/// stick's extent across.
const FAINT_LEVEL: f32 = 0.2;

/// The columns that tell which of two crossing sticks lies on top
/// ([`meeting_evidence`]) are kept this many stick widths clear of the
/// others: half as far as the mark's (ADR 0044). Kept 0.6 of a width clear, a
/// stick crossed at its middle at a slant had too few columns left (under
/// `CROSSING_MIN_CLEAR`), above all a short, wide one, and which stick lay
/// on top went untold: a flat face lying on top, its mark in full view, went
/// to the referee. The shadow the upper stick casts beside itself may darken
/// some of the lower one's reference columns; the reference is a median per
/// row over them all, and a darker one only makes the lower stick look less
/// like itself where the upper one crosses it, never like the one on top.
pub const CROSSING_CLEARANCE: f64 = 0.3;

/// What the judge weighs of stick `i` of a frame's `found` sticks where it
/// meets others, measured on its `patch` with the others painted over once:
/// its band out to its faint edges ([`faint_band_width`]) where it shares its
/// blob (else 0), and for each stick of the frame how unlike itself it shows
/// where that one crosses it ([`crossing_misfit`], against its columns clear
/// of every other stick grown by [`CROSSING_CLEARANCE`] widths): `None` for
/// itself, for a stick whose footprint does not meet its own (`crosses`), and
/// where too little of either shows.
pub fn meeting_evidence(
    patch: &Patch,
    nominal: (f64, f64),
    found: &[Found],
    i: usize,
    crosses: &dyn Fn(usize) -> bool,
) -> (f32, Vec<Option<f32>>) {
    let s = &found[i];
    let crossing: Vec<bool> = (0..found.len()).map(|j| j != i && crosses(j)).collect();
    let mut misfits = vec![None; found.len()];
    if !s.shared && !crossing.contains(&true) {
        return (0.0, misfits);
    }
    let others = others_than(found, i);
    let erased = erase_others(patch, s, nominal, &others);
    let faint = if s.shared {
        faint_band_in(&erased)
    } else {
        0.0
    };
    if crossing.contains(&true) {
        let band = band_in(&erased, HALF_CONTRAST);
        let reach = covered_columns(s, nominal, &others, CROSSING_CLEARANCE * nominal.1);
        let clear: [bool; PL] = std::array::from_fn(|k| !reach[k]);
        for (j, m) in misfits.iter_mut().enumerate() {
            if crossing[j] {
                *m = crossing_misfit(patch, s, nominal, band, &clear, &found[j]);
            }
        }
    }
    (faint, misfits)
}

/// A stick's width as it shows out to its faint edges (at `FAINT_LEVEL` of
/// its contrast, not half), in taught widths, the other sticks painted over.
/// The round face's flanks turn from the light and darken: at half its
/// contrast a quarter of the round faces measured the narrowest band (as a
/// stick on its edge does), at a fifth 1 %. A stick on its edge is the
/// stick's thickness wide (about half its width) even so.
pub fn faint_band_width(patch: &Patch, s: &Found, nominal: (f64, f64), others: &[Found]) -> f32 {
    faint_band_in(&erase_others(patch, s, nominal, others))
}

/// [`faint_band_width`] of a patch the others are already painted over in.
fn faint_band_in(erased: &Patch) -> f32 {
    in_widths(band_in(erased, FAINT_LEVEL).1)
}

/// A band's half width (patch rows) as a share of the taught width.
fn in_widths(half: f32) -> f32 {
    half / (PW as f32 / SPAN_W as f32 / 2.0)
}

/// [`band`] with the extent measured where the contrast falls to `level` of
/// its peak.
fn band_at(p: &Patch, c0: usize, c1: usize, level: f32) -> (f32, f32) {
    let unlike_mat = |j: usize| -> f32 {
        let mut v: Vec<f32> = (c0..c1)
            .map(|i| {
                let o = (j * PL + i) * 3;
                let px = [p.bgr[o], p.bgr[o + 1], p.bgr[o + 2]].map(|c| c as f32);
                let e = [p.empty_bgr[o], p.empty_bgr[o + 1], p.empty_bgr[o + 2]].map(|c| c as f32);
                let ee = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).max(1.0);
                // The nearest shade of the mat's colour (a shadow or the mat).
                let g = ((px[0] * e[0] + px[1] * e[1] + px[2] * e[2]) / ee).clamp(0.0, 1.05);
                ((px[0] - g * e[0]).powi(2)
                    + (px[1] - g * e[1]).powi(2)
                    + (px[2] - g * e[2]).powi(2))
                .sqrt()
            })
            .collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    let s: Vec<f32> = (0..PW).map(unlike_mat).collect();
    let width = (PW as f64 / SPAN_W).round() as usize;
    let nominal = PW as f32 / 2.0 - 0.5;
    // Windows centred within a third of the stick width of the found centre
    // (a touching stick beside it must not take its place).
    let lo = ((nominal - width as f32 / 3.0) - (width as f32 - 1.0) / 2.0)
        .round()
        .max(0.0) as usize;
    let hi = (((nominal + width as f32 / 3.0) - (width as f32 - 1.0) / 2.0).round() as usize)
        .min(PW - width);
    let best = (lo..=hi.max(lo))
        .max_by(|a, b| {
            let sum = |k: usize| s[k..k + width].iter().sum::<f32>();
            sum(*a).total_cmp(&sum(*b))
        })
        .unwrap_or(0);
    let half_nominal = width as f32 / 2.0;
    let window = &s[best..best + width];
    let peak = window.iter().cloned().fold(0.0, f32::max);
    if peak <= 1e-3 {
        return (nominal, half_nominal);
    }
    // Where the contrast falls to that level, on each side of the peak
    // (sub-row).
    let level = peak * level;
    let top = best + window.iter().position(|v| *v >= level).unwrap_or(0);
    let bottom = best
        + window
            .iter()
            .rposition(|v| *v >= level)
            .unwrap_or(width - 1);
    let edge_before = |j: usize| -> f32 {
        if j == 0 || s[j - 1] >= level {
            return j as f32 - 0.5;
        }
        let t = (level - s[j - 1]) / (s[j] - s[j - 1]).max(1e-3);
        j as f32 - 1.0 + t
    };
    let edge_after = |j: usize| -> f32 {
        if j + 1 >= PW || s[j + 1] >= level {
            return j as f32 + 0.5;
        }
        let t = (s[j] - level) / (s[j] - s[j + 1]).max(1e-3);
        j as f32 + t
    };
    let (a, b) = (edge_before(top), edge_after(bottom));
    let c = ((a + b) / 2.0).clamp(nominal - width as f32 / 3.0, nominal + width as f32 / 3.0);
    let half = ((b - a) / 2.0).clamp(0.5 * half_nominal, 1.2 * half_nominal);
    (c, half)
}

/// How strongly some short stretch of the stick's middle differs in colour
/// from the stick itself: the mean colour distance to the stick's median
/// colour over the inner rows, in the worst window of three columns, against
/// the stick's brightness. The ends are left out (they darken on a round face).
fn mark_peak(p: &Patch, band: (f32, f32)) -> f32 {
    mark_peak_where(p, band, &[true; PL])
}

/// The middle columns the mark is looked for in (the ends darken on a round
/// face).
const MARK_COLS: std::ops::Range<usize> = PL * 3 / 20..PL * 17 / 20;

/// The rows of a band's inner part (centre ± 0.6 of its half width), where
/// the mark and the crossing are measured, clear of its blurred edges.
fn inner_rows((centre, half): (f32, f32)) -> std::ops::RangeInclusive<usize> {
    let j0 = (centre - 0.6 * half).round().max(0.0) as usize;
    let j1 = ((centre + 0.6 * half).round() as usize).min(PW - 1);
    j0..=j1
}

/// A patch pixel's colour (BGR).
fn colour_at(p: &Patch, i: usize, j: usize) -> [f32; 3] {
    let o = (j * PL + i) * 3;
    [p.bgr[o] as f32, p.bgr[o + 1] as f32, p.bgr[o + 2] as f32]
}

/// The median of some colours, channel by channel.
fn median_colour(colours: &[[f32; 3]]) -> [f32; 3] {
    std::array::from_fn(|ch| {
        let mut v: Vec<f32> = colours.iter().map(|c| c[ch]).collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    })
}

fn colour_distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Each patch column's mark strength (see [`mark_peak`]), over the columns in
/// `keep` only: the others are left out of the stick's median colour too, and
/// read `None`.
fn mark_columns(p: &Patch, band: (f32, f32), keep: &[bool; PL]) -> Vec<Option<f32>> {
    mark_columns_seen(p, band, keep, &[false; PL * PW])
}

/// [`mark_columns`] leaving out the pixels in `hidden` (row-major, as
/// [`covered_pixels`] gives them): a column is read on the inner rows that
/// show, and only where at least half of them do.
fn mark_columns_seen(
    p: &Patch,
    band: (f32, f32),
    keep: &[bool; PL],
    hidden: &[bool; PL * PW],
) -> Vec<Option<f32>> {
    let rows = inner_rows(band);
    let all_rows = rows.clone().count();
    let shown =
        |i: usize| -> Vec<usize> { rows.clone().filter(|&j| !hidden[j * PL + i]).collect() };
    let cols: Vec<(usize, Vec<usize>)> = MARK_COLS
        .filter(|&i| keep[i])
        .map(|i| (i, shown(i)))
        .filter(|(_, r)| 2 * r.len() >= all_rows)
        .collect();
    let mut out = vec![None; PL];
    if cols.is_empty() {
        return out;
    }
    let inside: Vec<[f32; 3]> = cols
        .iter()
        .flat_map(|(i, r)| r.iter().map(move |&j| colour_at(p, *i, j)))
        .collect();
    let med = median_colour(&inside);
    let bright = ((med[0] + med[1] + med[2]) / 3.0).max(8.0);
    for (i, r) in &cols {
        out[*i] = Some(mean(r.iter().map(|&j| colour_distance(colour_at(p, *i, j), med))) / bright);
    }
    out
}

/// Windows of three neighbouring kept columns: (middle column, strength).
fn mark_windows(cols: &[Option<f32>]) -> impl Iterator<Item = (usize, f32)> + '_ {
    cols.windows(3).enumerate().filter_map(|(k, w)| match w {
        [Some(a), Some(b), Some(c)] => Some((k + 1, (a + b + c) / 3.0)),
        _ => None,
    })
}

/// `mark_peak` over the columns in `keep` only (a window must lie wholly
/// inside them). `p` and `band` as [`own_band`] gives them: the score is then
/// the one [`features`] stores, over those columns.
pub fn mark_peak_where(p: &Patch, band: (f32, f32), keep: &[bool; PL]) -> f32 {
    mark_windows(&mark_columns(p, band, keep))
        .map(|(_, v)| v)
        .fold(0.0, f32::max)
}

/// [`mark_peak_where`] leaving out the pixels in `hidden` (see
/// `mark_columns_seen`).
pub fn mark_peak_seen(
    p: &Patch,
    band: (f32, f32),
    keep: &[bool; PL],
    hidden: &[bool; PL * PW],
) -> f32 {
    mark_windows(&mark_columns_seen(p, band, keep, hidden))
        .map(|(_, v)| v)
        .fold(0.0, f32::max)
}

/// Whether the middle half of a band's inner rows (where a mark across the
/// stick lies thickest) shows in every column of `cols`: none of those
/// pixels in `hidden`.
pub fn middle_shows(band: (f32, f32), cols: &[bool; PL], hidden: &[bool; PL * PW]) -> bool {
    let (centre, half) = band;
    let j0 = (centre - 0.3 * half).round().max(0.0) as usize;
    let j1 = ((centre + 0.3 * half).round() as usize).min(PW - 1);
    (0..PL)
        .filter(|&i| cols[i])
        .all(|i| (j0..=j1).all(|j| !hidden[j * PL + i]))
}

/// Where along a stick a patch column lies: its distance from the stick's
/// middle as a share of the taught length (0 at the middle, 0.5 at an end).
pub fn column_reach(i: usize) -> f32 {
    ((i as f32 + 0.5) / PL as f32 - 0.5).abs() * SPAN_L as f32
}

/// The stick's patch with others painted over, and its own band in it (as
/// the features measure them).
pub fn own_band(
    patch: &Patch,
    s: &Found,
    nominal: (f64, f64),
    others: &[Found],
) -> (Patch, (f32, f32)) {
    let erased = erase_others(patch, s, nominal, others);
    let b = band_in(&erased, HALF_CONTRAST);
    (erased, b)
}

/// The contrast level at which a stick's own band is measured ([`own_band`]).
const HALF_CONTRAST: f32 = 0.5;

/// The band of a patch the others are already painted over in
/// ([`erase_others`]), its extent measured at `level` of its contrast over
/// the stick's middle columns.
fn band_in(erased: &Patch, level: f32) -> (f32, f32) {
    band_at(erased, PL * 2 / 10, PL * 8 / 10, level)
}

/// How far from the stick's middle its mark reaches, as [`column_reach`]
/// (nearest, farthest): the windows whose strength clears `bar`. `None` when
/// none does.
pub fn mark_reach(patch: &Patch, s: &Found, nominal: (f64, f64), bar: f32) -> Option<[f32; 2]> {
    let (erased, b) = own_band(patch, s, nominal, &[]);
    mark_windows(&mark_columns(&erased, b, &[true; PL]))
        .filter(|(_, v)| *v >= bar)
        .map(|(i, _)| column_reach(i))
        .fold(None, |acc: Option<[f32; 2]>, r| {
            Some(acc.map_or([r, r], |[lo, hi]| [lo.min(r), hi.max(r)]))
        })
}

/// How far past a stick's own band (in taught widths) the foreground may
/// reach before [`foreground_beyond`] counts it: the band's edge blurs, and a
/// stick's own shadow lies beside it. (With a tenth of a width the shadow of a
/// marked stick on a small test picture hid its mark.)
const BEYOND_TOLERANCE: f32 = 0.2;

/// The patch columns where the foreground reaches past the stick's own band
/// (from [`own_band`]) on either long side (by more than
/// `BEYOND_TOLERANCE`): something lies across or against the stick there,
/// whatever the fit says of the other sticks. `patch` is the stick's patch as
/// resampled, the other sticks not painted over.
pub fn foreground_beyond(patch: &Patch, band: (f32, f32)) -> [bool; PL] {
    foreground_beyond_except(patch, band, &[false; PL * PW])
}

/// [`foreground_beyond`] leaving out the pixels in `explained` (the other
/// sticks found there, as [`covered_pixels`] gives them): what is left is
/// foreground no found stick accounts for.
pub fn foreground_beyond_except(
    patch: &Patch,
    (centre, half): (f32, f32),
    explained: &[bool; PL * PW],
) -> [bool; PL] {
    let tol = BEYOND_TOLERANCE * (PW as f64 / SPAN_W) as f32;
    let (lo, hi) = (centre - half - tol, centre + half + tol);
    std::array::from_fn(|i| {
        (0..PW)
            .filter(|&j| (j as f32) < lo || (j as f32) > hi)
            .any(|j| patch.mask[j * PL + i] > 0 && !explained[j * PL + i])
    })
}

/// Fewest pixels of another stick's footprint inside a stick's band, and
/// fewest clear columns, for [`crossing_misfit`] to measure.
const CROSSING_MIN_PIXELS: usize = 12;
const CROSSING_MIN_CLEAR: usize = 8;
/// The columns [`crossing_misfit`] reads the crossing in, and takes its clear
/// columns from where fewer than [`CROSSING_MIN_CLEAR`] of the middle ones
/// (`MARK_COLS`) are clear: a short, wide stick crossed at its middle keeps
/// only its ends clear. On fresh look 1005813, throw 15, a flat face lying
/// across the middle of a round one (sticks four widths long) kept one clear
/// middle column and 12 of these; which lay on top went untold, and the
/// flat face's mark, in full view, went to the referee (ADR 0079).
const CROSSING_COLS: std::ops::Range<usize> = PL / 20..PL * 19 / 20;

/// How unlike itself a stick shows where another stick's outline crosses its
/// band: the median colour distance there from the same rows of its clear
/// columns (their median colour per row), against the stick's brightness.
/// A stick lying on top of the other shows itself there (near 0); one lying
/// under it shows the other stick. A mark of its own covers less than half
/// of the crossing, so the median leaves it out (the mean read a marked
/// stick on top at 0.41, as unlike itself as one under).
/// `patch` as resampled (nothing painted over), `band` from [`own_band`],
/// `clear` the columns no other stick reaches (see [`covered_columns`]).
/// `None` when too little of either shows.
pub fn crossing_misfit(
    patch: &Patch,
    s: &Found,
    nominal: (f64, f64),
    band: (f32, f32),
    clear: &[bool; PL],
    other: &Found,
) -> Option<f32> {
    let rows = inner_rows(band);
    let mut cols: Vec<usize> = MARK_COLS.filter(|&i| clear[i]).collect();
    if cols.len() < CROSSING_MIN_CLEAR {
        cols = CROSSING_COLS.filter(|&i| clear[i]).collect();
    }
    if cols.len() < CROSSING_MIN_CLEAR {
        return None;
    }
    // Off the other's edges by a sixth of a width: they blur, and its shadow.
    let inset = nominal.1 / 6.0;
    let half_len = other.length / 2.0 - inset;
    let half_wid = other.width.max(nominal.1) / 2.0 - inset;
    let (mut dist, mut bright) = (Vec::new(), 0f32);
    for j in rows.clone() {
        let clear_colours: Vec<[f32; 3]> = cols.iter().map(|&i| colour_at(patch, i, j)).collect();
        let reference = median_colour(&clear_colours);
        bright += (reference[0] + reference[1] + reference[2]) / 3.0;
        for i in CROSSING_COLS {
            let q = patch_point(s, nominal, i, j);
            if half_wid > 0.0 && in_rect(q, other.center, other.dir, half_len, half_wid) {
                dist.push(colour_distance(colour_at(patch, i, j), reference));
            }
        }
    }
    if dist.len() < CROSSING_MIN_PIXELS {
        return None;
    }
    dist.sort_by(f32::total_cmp);
    let bright = (bright / rows.count() as f32).max(8.0);
    Some(dist[dist.len() / 2] / bright)
}

/// The patch columns where another stick's outline, grown by `margin`
/// pixels, reaches over this stick's footprint (there what shows is partly
/// the other stick or its shadow).
pub fn covered_columns(
    s: &Found,
    nominal: (f64, f64),
    others: &[Found],
    margin: f64,
) -> [bool; PL] {
    columns_covered(&covered_pixels(s, nominal, others, margin))
}

/// The patch columns where any of the stick's own rows is among `pixels`
/// (as [`covered_pixels`] gives them): [`covered_columns`] from a mask
/// already worked out.
pub fn columns_covered(pixels: &[bool; PL * PW]) -> [bool; PL] {
    std::array::from_fn(|i| stick_rows().any(|j| pixels[j * PL + i]))
}

/// The patch pixels (row-major, `j * PL + i`) that another stick's outline,
/// grown by `margin` pixels, reaches (see [`covered_columns`]).
pub fn covered_pixels(
    s: &Found,
    nominal: (f64, f64),
    others: &[Found],
    margin: f64,
) -> [bool; PL * PW] {
    std::array::from_fn(|k| {
        let q = patch_point(s, nominal, k % PL, k / PL);
        others.iter().any(|o| {
            in_rect(
                q,
                o.center,
                o.dir,
                o.length / 2.0 + margin,
                o.width.max(nominal.1) / 2.0 + margin,
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where another stick lies across the middle of this one, its own look
    /// is measured on the part clear of the other: a dark stick across a pale
    /// one does not darken the pale one's body or its colour.
    #[test]
    fn the_own_look_leaves_out_a_stick_lying_across() {
        let rows = stick_rows();
        let band = (PW as f32 / 2.0, rows.len() as f32 / 2.0);
        let across = PL * 4 / 10..PL * 6 / 10;
        let clean = patch_with(rows.clone(), 0..0, None);
        let crossed = patch_with(rows, 0..0, Some(across.clone()));
        let none = [false; PL * PW];
        let under: [bool; PL * PW] = std::array::from_fn(|k| across.contains(&(k % PL)));
        let alone = own_look(&clean, band, &none);
        let as_it_shows = own_look(&crossed, band, &none);
        let clear_part = own_look(&crossed, band, &under);
        assert!(
            as_it_shows[0] < alone[0] - 5.0,
            "{as_it_shows:?} against {alone:?}"
        );
        for k in 0..N_OWN {
            assert!(
                (clear_part[k] - alone[k]).abs() < 1e-3,
                "{k}: {clear_part:?} against {alone:?}"
            );
        }
        // Mostly covered: the whole middle as it shows.
        let all: [bool; PL * PW] = [true; PL * PW];
        assert_eq!(own_look(&crossed, band, &all), as_it_shows);
        // A stick lying beside, its outline along one edge of the band, covers
        // every column: the whole middle is measured, not its far edge alone.
        let (middle_rows, _) = own_core(band);
        let beside: [bool; PL * PW] = std::array::from_fn(|k| k / PL <= middle_rows.start);
        assert_eq!(own_look(&crossed, band, &beside), as_it_shows);
    }

    /// A patch of a green mat with a pale stick across rows `rows`, a shadow
    /// (the mat, darker) on `shadow`, and optional dark ink at columns `ink`.
    fn patch_with(
        rows: std::ops::Range<usize>,
        shadow: std::ops::Range<usize>,
        ink: Option<std::ops::Range<usize>>,
    ) -> Patch {
        let mat = [40u8, 90, 50];
        let wood = [120u8, 180, 220];
        let mut bgr = Vec::new();
        let mut empty = Vec::new();
        for j in 0..PW {
            for i in 0..PL {
                let px = if rows.contains(&j) {
                    if ink.as_ref().is_some_and(|k| k.contains(&i)) {
                        [20, 20, 25]
                    } else {
                        wood
                    }
                } else if shadow.contains(&j) {
                    mat.map(|c| c / 3)
                } else {
                    mat
                };
                bgr.extend(px);
                empty.extend(mat);
            }
        }
        Patch {
            bgr,
            empty_bgr: empty,
            mask: vec![255; PL * PW],
        }
    }

    #[test]
    fn the_band_follows_the_stick_not_its_shadow() {
        // Nominal: 15 rows centred on row 11.5. The stick sits 2 rows lower,
        // its hard shadow beside it.
        let p = patch_with(7..20, 3..7, None);
        let (centre, half) = band(&p, PL / 5, PL * 4 / 5);
        assert!((centre - 13.0).abs() < 0.6, "centre {centre}");
        assert!((half - 6.5).abs() < 0.8, "half width {half}");
    }

    #[test]
    fn a_coloured_shadow_relit_as_the_mat_leaves_the_band_on_the_stick() {
        // The stick on rows 7..15 (narrower than nominal), its shadow on the
        // rows after it: the mat lit by a warm lamp alone, darker in every
        // channel and warmer, which the mat's shades do not explain.
        // A faint round face, its colour change not twice the shadow's.
        let mut p = patch_with(7..15, 0..0, None);
        for j in 7..21 {
            let px = if j < 15 { [40, 100, 80] } else { [10, 55, 44] };
            for i in 0..PL {
                let o = (j * PL + i) * 3;
                p.bgr[o..o + 3].copy_from_slice(&px);
                if j >= 15 {
                    p.mask[j * PL + i] = 0;
                }
            }
        }
        for j in 0..7 {
            p.mask[j * PL..(j + 1) * PL].fill(0);
        }
        let (centre, half) = band(&p, PL / 5, PL * 4 / 5);
        assert!(centre > 12.5, "the shadow draws the band: centre {centre}");
        relight(&mut p, crate::sticks::SHADOW_RATIO as f32);
        let (centre, half_relit) = band(&p, PL / 5, PL * 4 / 5);
        assert!((centre - 10.5).abs() < 0.6, "centre {centre}");
        assert!(half_relit < half - 2.0, "{half_relit} against {half}");
        // The stick's own pixels keep the empty mat under them.
        assert_eq!(
            &p.empty_bgr[(10 * PL) * 3..(10 * PL) * 3 + 3],
            &[40, 90, 50]
        );
    }

    /// A stick along +x at the origin, with the patch's nominal size.
    fn found_at(center: [f64; 2]) -> Found {
        Found {
            center,
            dir: [1.0, 0.0],
            length: 58.0,
            width: 15.0 / SPAN_W * 1.6,
            shared: true,
            blob_ratio: 2.0,
        }
    }

    #[test]
    fn another_stick_beside_is_painted_over_and_this_one_is_kept() {
        // Nominal 64 × 15 px in frame pixels: one patch pixel per frame pixel
        // along, one per row across. This stick on rows 5..18 (nominal 4.5..19.5
        // ⇒ 5..=19), a neighbour lying beside it from row 20 on.
        let nominal = (PL as f64 / SPAN_L, PW as f64 / SPAN_W);
        let mut p = patch_with(5..20, 0..0, None);
        for j in 20..PW {
            for i in 0..PL {
                let o = (j * PL + i) * 3;
                p.bgr[o..o + 3].copy_from_slice(&[110, 170, 210]);
            }
        }
        let me = found_at([31.5, 11.5]);
        let beside = Found {
            center: [31.5, 11.5 + 15.0],
            ..me
        };
        let e = erase_others(&p, &me, nominal, &[beside]);
        // The neighbour is 58 px long: 30 px either way of the middle, with the margin.
        for i in 3..PL - 3 {
            for j in 21..PW {
                let o = (j * PL + i) * 3;
                assert_eq!(e.bgr[o..o + 3], e.empty_bgr[o..o + 3], "row {j} col {i}");
            }
            for j in 5..19 {
                let o = (j * PL + i) * 3;
                assert_eq!(e.bgr[o..o + 3], p.bgr[o..o + 3], "own row {j} col {i}");
            }
        }
        // Nobody near: nothing changes.
        let far = Found {
            center: [500.0, 500.0],
            ..me
        };
        assert_eq!(erase_others(&p, &me, nominal, &[far]), p);
    }

    /// A piece found far shorter than a stick still has the others that show in
    /// its patch painted over: its patch spans a whole stick's length, so a
    /// stick lying end to end with it shows at the patch's end.
    #[test]
    fn a_stick_showing_at_the_end_of_a_short_piece_s_patch_is_painted_over() {
        let nominal = (PL as f64 / SPAN_L, PW as f64 / SPAN_W);
        let p = patch_with(5..20, 0..0, None);
        let piece = Found {
            length: 2.0,
            ..found_at([31.5, 11.5])
        };
        // End to end with it, 61 px away (over half their lengths and two
        // widths), its near end (with the margin) 31 px from the piece's
        // middle: inside the patch, whose last column lies at 31.5 px.
        let beyond = Found {
            center: [31.5 + 61.0, 11.5],
            ..found_at([0.0, 0.0])
        };
        let e = erase_others(&p, &piece, nominal, &[beyond]);
        for j in 6..18 {
            let o = (j * PL + PL - 1) * 3;
            assert_eq!(e.bgr[o..o + 3], e.empty_bgr[o..o + 3], "row {j}");
            let o = (j * PL + PL / 2) * 3;
            assert_eq!(e.bgr[o..o + 3], p.bgr[o..o + 3], "own row {j}");
        }
    }

    #[test]
    fn the_picture_of_an_even_stick_is_flat_and_turns_end_for_end() {
        let p = patch_with(5..18, 0..0, None);
        let pic = picture(&Levels::of(&p), band(&p, PL / 5, PL * 4 / 5));
        // Inside the band the stick is even: every cell at its median.
        for k in 2..PIC_W - 2 {
            for a in 1..PIC_L - 1 {
                assert!(
                    pic[k * PIC_L + a].abs() < 1e-3,
                    "cell {k},{a}: {}",
                    pic[k * PIC_L + a]
                );
            }
        }
        // Beyond its long edges: the mat, much darker than the wood.
        assert!(pic[0] < -0.3 && pic[N_PICTURE - 1] < -0.3, "{pic:?}");
        let twice = picture_turned(&picture_turned(&pic));
        assert_eq!(twice, pic.to_vec());
        assert_eq!(picture_turned(&pic)[0], pic[N_PICTURE - 1]);
    }

    #[test]
    fn a_mark_stands_out_along_the_stick() {
        let peak = |p: Patch| mark_peak(&p, band(&p, PL / 5, PL * 4 / 5));
        let plain = peak(patch_with(5..18, 0..0, None));
        let marked = peak(patch_with(5..18, 0..0, Some(30..33)));
        assert!(plain < 0.05, "plain stick {plain}");
        assert!(marked > 0.5, "marked stick {marked}");
    }

    #[test]
    fn the_mark_is_placed_along_the_stick_and_read_only_where_asked() {
        let s = Found {
            center: [0.0, 0.0],
            dir: [1.0, 0.0],
            length: 60.0,
            width: 10.0,
            shared: false,
            blob_ratio: 1.0,
        };
        let nominal = (60.0, 10.0);
        let at_middle = patch_with(5..18, 0..0, Some(30..34));
        let [near, far] = mark_reach(&at_middle, &s, nominal, 0.3).unwrap();
        assert!(near < 0.03 && far < 0.06, "middle mark at {near}..{far}");
        let near_an_end = patch_with(5..18, 0..0, Some(48..51));
        let [near, far] = mark_reach(&near_an_end, &s, nominal, 0.3).unwrap();
        assert!(near > 0.22 && far < 0.36, "end mark at {near}..{far}");
        assert!(mark_reach(&patch_with(5..18, 0..0, None), &s, nominal, 0.3).is_none());
        // Leaving the mark's columns out leaves no mark.
        let mut keep = [true; PL];
        keep[28..36].iter_mut().for_each(|k| *k = false);
        let (erased, b) = own_band(&at_middle, &s, nominal, &[]);
        assert!(mark_peak_where(&erased, b, &keep) < 0.05);
        assert!(mark_peak_where(&erased, b, &[true; PL]) > 0.5);
        // Pixel by pixel: with the inner rows on one side of the mark's
        // columns hidden, the rest of them still read it; with all of them
        // hidden, or the middle rows, nothing reads there.
        let hide = |rows: std::ops::Range<usize>| -> [bool; PL * PW] {
            std::array::from_fn(|k| (28..36).contains(&(k % PL)) && rows.contains(&(k / PL)))
        };
        let (c, h) = b;
        let upper = hide(0..c.round() as usize);
        assert!(mark_peak_seen(&erased, b, &[true; PL], &upper) > 0.5);
        assert!(mark_peak_seen(&erased, b, &[true; PL], &hide(0..PW)) < 0.05);
        let cols: [bool; PL] = std::array::from_fn(|i| (30..34).contains(&i));
        assert!(!middle_shows(b, &cols, &upper));
        let outer = hide(0..(c - 0.5 * h).floor() as usize);
        assert!(middle_shows(b, &cols, &outer));
        assert!(mark_peak_seen(&erased, b, &[true; PL], &outer) > 0.5);
    }

    #[test]
    fn a_round_face_shows_its_full_width_out_to_its_faint_edges() {
        // Nominal: 15 rows (4..19) centred on row 11.5, as patch_with's
        // stick. A round face: bright along its crest, its flanks turned from
        // the light down to under a third of its contrast.
        let mut round = patch_with(4..19, 0..0, None);
        for j in 4..19 {
            let v = (j as f32 - 11.5) / 7.5;
            let k = 0.3 + 0.7 * (v * std::f32::consts::FRAC_PI_2).cos().powi(4);
            for i in 0..PL {
                let o = (j * PL + i) * 3;
                for c in 0..3 {
                    let (wood, mat) = (round.bgr[o + c] as f32, round.empty_bgr[o + c] as f32);
                    round.bgr[o + c] = (mat + k * (wood - mat)).round() as u8;
                }
            }
        }
        let s = found_at([31.5, 11.5]);
        let nominal = (PL as f64 / SPAN_L, PW as f64 / SPAN_W);
        let (_, half) = band(&round, PL / 5, PL * 4 / 5);
        assert!(half / 7.5 < 0.56, "at half its contrast: {}", half / 7.5);
        let faint = faint_band_width(&round, &s, nominal, &[]);
        assert!(faint > 0.85, "out to its faint edges: {faint}");
        // A stick on its edge is its thickness wide, about half its width.
        let on_edge = patch_with(8..16, 0..0, None);
        let faint = faint_band_width(&on_edge, &s, nominal, &[]);
        assert!(faint < 0.6, "on its edge: {faint}");
    }

    #[test]
    fn a_stick_on_top_shows_itself_where_another_crosses_it() {
        // This stick along the patch, another across its middle (columns
        // 24..39, 15 px wide), one patch pixel per frame pixel.
        let nominal = (PL as f64 / SPAN_L, PW as f64 / SPAN_W);
        let me = found_at([31.5, 11.5]);
        let across = Found {
            dir: [0.0, 1.0],
            ..me
        };
        // On top, with its own small mark where they cross.
        let on_top = patch_with(4..19, 0..0, Some(30..33));
        // Under: the other stick's darker round face shows there.
        let mut under = patch_with(4..19, 0..0, None);
        for j in 0..PW {
            for i in 24..39 {
                let o = (j * PL + i) * 3;
                under.bgr[o..o + 3].copy_from_slice(&[60, 90, 110]);
            }
        }
        let reach = covered_columns(&me, nominal, &[across], 0.6 * nominal.1);
        let clear: [bool; PL] = std::array::from_fn(|i| !reach[i]);
        let misfit = |p: &Patch| {
            let (_, band) = own_band(p, &me, nominal, &[]);
            crossing_misfit(p, &me, nominal, band, &clear, &across).unwrap()
        };
        let (top, below) = (misfit(&on_top), misfit(&under));
        assert!(top < 0.05, "on top: {top}");
        assert!(below > 0.4, "under: {below}");
        // Nothing crossing: nothing to measure.
        let far = Found {
            center: [500.0, 500.0],
            ..across
        };
        let (_, band) = own_band(&on_top, &me, nominal, &[]);
        assert_eq!(
            crossing_misfit(&on_top, &me, nominal, band, &clear, &far),
            None
        );
    }
}
