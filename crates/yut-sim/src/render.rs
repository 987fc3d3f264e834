//! The renderer: casts each pixel's ray onto the sticks (D-section surfaces seen
//! from above) and the mat plane, shades with the look's lights and shadows, then
//! adds sensor noise, blur and JPEG.
//!
//! Pure and deterministic: the same look and scene give the same picture, byte for byte.

use crate::look::{FloorKind, Look, MarkKind, MatKind};
use crate::noise::{fbm, hash64, value, LatticeRow};
use crate::scene::{Scene, StickPose};
use opencv::core::{Mat, Size, Vector, BORDER_REFLECT};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc};

/// An 8-bit RGB image, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct RgbImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl RgbImage {
    /// As an OpenCV BGR matrix.
    pub fn to_bgr_mat(&self) -> opencv::Result<Mat> {
        let flat = Mat::from_slice(&self.data)?;
        let rgb = flat.reshape(3, self.height as i32)?.try_clone()?;
        let mut bgr = Mat::default();
        imgproc::cvt_color_def(&rgb, &mut bgr, imgproc::COLOR_RGB2BGR)?;
        Ok(bgr)
    }

    /// From an OpenCV BGR matrix.
    pub fn from_bgr_mat(m: &Mat) -> opencv::Result<RgbImage> {
        let mut rgb = Mat::default();
        imgproc::cvt_color_def(m, &mut rgb, imgproc::COLOR_BGR2RGB)?;
        let rgb = if rgb.is_continuous() {
            rgb
        } else {
            rgb.try_clone()?
        };
        Ok(RgbImage {
            width: m.cols() as u32,
            height: m.rows() as u32,
            data: rgb.data_bytes()?.to_vec(),
        })
    }
}

/// The top surface of a stick's cross-section at one roll, sampled across its
/// plan width: for each bin, height, surface normal (across, up), whether it is
/// the flat face, and where on the flat face it is.
struct Section {
    vmin: f64,
    vmax: f64,
    bins: Vec<(f64, [f64; 2], bool, f64)>,
}

const BINS: usize = 48;

fn section(look: &Look, roll: f64) -> Section {
    let (w, t) = (look.sticks.width, look.sticks.thickness);
    let c = (w * w / 4.0 + t * t) / (2.0 * t);
    let r = c;
    let a0 = (w / 2.0).atan2(c - t);
    // Outline samples: flat face on top (y = t) and the arc through (0, 0).
    let mut pts: Vec<([f64; 2], [f64; 2], bool, f64)> = Vec::new();
    for i in 0..=80 {
        let v = -w / 2.0 + w * i as f64 / 80.0;
        pts.push(([v, t], [0.0, 1.0], true, v));
    }
    for i in 0..=160 {
        let a = -a0 + 2.0 * a0 * i as f64 / 160.0;
        pts.push((
            [r * a.sin(), c - r * a.cos()],
            [a.sin(), -a.cos()],
            false,
            0.0,
        ));
    }
    let (cs, sn) = (roll.cos(), roll.sin());
    let rot = |p: [f64; 2]| [p[0] * cs - p[1] * sn, p[0] * sn + p[1] * cs];
    let rotated: Vec<([f64; 2], [f64; 2], bool, f64)> = pts
        .iter()
        .map(|(p, n, f, v)| (rot([p[0], p[1] - t / 2.0]), rot(*n), *f, *v))
        .collect();
    let low = rotated.iter().map(|p| p.0[1]).fold(f64::MAX, f64::min);
    let vmin = rotated.iter().map(|p| p.0[0]).fold(f64::MAX, f64::min);
    let vmax = rotated.iter().map(|p| p.0[0]).fold(f64::MIN, f64::max);
    let mut bins = vec![(f64::MIN, [0.0, 1.0], false, 0.0); BINS];
    for (p, n, f, v) in rotated {
        if n[1] < -0.05 {
            continue;
        }
        let b = (((p[0] - vmin) / (vmax - vmin)) * (BINS as f64 - 1.0)).round() as usize;
        let h = p[1] - low;
        if h > bins[b].0 {
            bins[b] = (h, n, f, v);
        }
    }
    // Fill gaps from neighbours.
    for i in 0..BINS {
        if bins[i].0 == f64::MIN {
            let j = (0..BINS)
                .filter(|&j| bins[j].0 != f64::MIN)
                .min_by_key(|&j| (j as i64 - i as i64).abs())
                .unwrap_or(i);
            bins[i] = bins[j];
        }
    }
    Section { vmin, vmax, bins }
}

fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Distance from a point to a segment.
fn seg_dist(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ap = [p[0] - a[0], p[1] - a[1]];
    let t = ((ap[0] * ab[0] + ap[1] * ab[1]) / (ab[0] * ab[0] + ab[1] * ab[1])).clamp(0.0, 1.0);
    (ap[0] - t * ab[0]).hypot(ap[1] - t * ab[1])
}

/// Mark coverage (0..1) at flat-face coordinates (u along, v across), cm.
fn mark_at(look: &Look, u: f64, v: f64) -> f64 {
    let s = &look.sticks;
    let k = s.mark_size;
    let hw = s.width / 2.0;
    let stroke = 0.45 * k;
    let d = match s.mark {
        MarkKind::Dot => u.hypot(v) - 0.7 * k,
        MarkKind::Band => (u.abs() - 0.5 * k).max(v.abs() - hw),
        MarkKind::Cross => {
            let a = 1.3 * k;
            let b = (hw * 0.8).min(a);
            seg_dist([u, v], [-a, -b], [a, b]).min(seg_dist([u, v], [-a, b], [a, -b]))
                - stroke / 2.0
        }
        MarkKind::Glyph => {
            // 뒤 written across the stick: ㄷ on top of ㅜ, a long ㅣ beside.
            let g = 1.5 * k;
            let h = (hw * 0.85).min(g);
            let segs = [
                ([-g, -h], [-g * 0.2, -h]),
                ([-g, -h], [-g, h * 0.3]),
                ([-g, h * 0.3], [-g * 0.2, h * 0.3]),
                ([-g * 0.1, -h], [-g * 0.1, h * 0.5]),
                ([-g * 0.1, -h * 0.1], [g * 0.3, -h * 0.1]),
                ([g * 0.6, -h], [g * 0.6, h]),
            ];
            segs.iter()
                .map(|(a, b)| seg_dist([u, v], [a[1], a[0]], [b[1], b[0]]))
                .fold(f64::MAX, f64::min)
                - stroke / 2.0
        }
    };
    smoothstep(0.08, -0.08, d)
}

struct Prepared<'a> {
    pose: &'a StickPose,
    sec: Section,
    hl: f64,
    top: f64,
    /// The pose's trigonometry, computed once per stick rather than per pixel
    /// (it was a third of the rendering time).
    yaw_cos: f64,
    yaw_sin: f64,
    pitch_sin: f64,
    roll_cos: f64,
}

impl Prepared<'_> {
    /// The height at which a pixel's ray is first tried against the stick:
    /// a ray that misses it there misses the stick (its box of pixels is
    /// drawn at this height too).
    fn first_trial_height(&self) -> f64 {
        self.pose.z + self.top * 0.6
    }

    /// The height the stick's shadow is cast from.
    fn shadow_height(&self) -> f64 {
        self.first_trial_height() + self.hl * self.pitch_sin
    }

    /// The middle of its section across, and half its width.
    fn across(&self) -> (f64, f64) {
        (
            (self.sec.vmin + self.sec.vmax) / 2.0,
            (self.sec.vmax - self.sec.vmin) / 2.0,
        )
    }
}

fn mat_albedo(look: &Look, p: [f64; 2]) -> [f64; 3] {
    let t = look.mat_texture;
    let seed = look.seed;
    let inside = look.inside_by(p);
    if inside < look.hem_width {
        let stitch = if (inside - look.hem_width * 0.6).abs() < 0.12 {
            0.8
        } else {
            1.0
        };
        let f = (1.0 + t * fbm(seed ^ 3, p[0] * 0.5, p[1] * 0.5)) * stitch;
        return look.hem_color.map(|c| c * f);
    }
    let f = match look.mat_kind {
        MatKind::Straw => {
            let weave = (p[1] * std::f64::consts::TAU / 0.9).sin();
            let seam = if p[0].rem_euclid(4.0) < 0.2 {
                0.85
            } else {
                1.0
            };
            (1.0 + t * (0.6 * weave + fbm(seed, p[0] * 0.4, p[1] * 3.0))) * seam
        }
        MatKind::Felt => {
            1.0 + t
                * (fbm(seed, p[0] * 0.3, p[1] * 0.3) + 0.3 * fbm(seed ^ 9, p[0] * 4.0, p[1] * 4.0))
        }
        MatKind::Foam => {
            let seam = if p[0].rem_euclid(50.0) < 0.3 || p[1].rem_euclid(50.0) < 0.3 {
                0.8
            } else {
                1.0
            };
            (1.0 + t * 0.6 * fbm(seed, p[0] * 2.0, p[1] * 2.0)) * seam
        }
        MatKind::Rubber => {
            1.0 + t
                * (0.8 * fbm(seed, p[0] * 5.0, p[1] * 5.0) + fbm(seed ^ 4, p[0] * 0.1, p[1] * 0.1))
        }
        MatKind::Cloth => {
            let crease =
                -0.06 * (-(p[0] / 1.5).powi(2)).exp() - 0.06 * (-(p[1] / 1.5).powi(2)).exp();
            1.0 + t * 1.5 * fbm(seed, p[0] * 0.08, p[1] * 0.08) + crease
        }
    };
    look.mat_color.map(|c| c * f)
}

fn floor_albedo(look: &Look, p: [f64; 2]) -> [f64; 3] {
    let seed = look.seed ^ 0xf1;
    let f = match look.floor_kind {
        FloorKind::Tiles => {
            let s = 40.0;
            if p[0].rem_euclid(s) < 0.5 || p[1].rem_euclid(s) < 0.5 {
                0.7
            } else {
                1.0 + 0.05 * fbm(seed, p[0] * 0.1, p[1] * 0.1)
            }
        }
        FloorKind::Planks => {
            let row = (p[1] / 18.0).floor();
            let gap = if p[1].rem_euclid(18.0) < 0.3 {
                0.7
            } else {
                1.0
            };
            gap * (1.0
                + 0.12 * (value(seed, row, 0.0) - 0.5)
                + 0.08 * fbm(seed, p[0] * 0.05, p[1] * 1.5))
        }
        FloorKind::Concrete => 1.0 + 0.15 * fbm(seed, p[0] * 0.2, p[1] * 0.2),
        FloorKind::Carpet => 1.0 + 0.12 * fbm(seed, p[0] * 3.0, p[1] * 3.0),
    };
    look.floor_color.map(|c| c * f)
}

/// Render a scene at the look's camera resolution. To render several scenes
/// of one look, make its [`Renderer`] once.
pub fn render(look: &Look, scene: &Scene) -> RgbImage {
    Renderer::new(look).render(scene)
}

/// A box of pixels, bounds included.
#[derive(Clone, Copy)]
struct PixelBox {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl PixelBox {
    const EVERYWHERE: PixelBox = PixelBox {
        x0: f64::MIN,
        x1: f64::MAX,
        y0: f64::MIN,
        y1: f64::MAX,
    };

    /// The pixels whose rays can meet a rectangle lying flat at height `z`:
    /// `u` across ±`u_half` along `axis` (cos, sin of its yaw) from `center`,
    /// `v` across `v_range` beside it. Its outline is projected through the
    /// lens point by point (a barrel lens bows straight edges), with a margin
    /// of two pixels.
    fn around(
        cam: &crate::Camera,
        center: [f64; 2],
        axis: (f64, f64),
        u_half: f64,
        v_range: (f64, f64),
        z: f64,
    ) -> PixelBox {
        const STEPS: usize = 16;
        const MARGIN: f64 = 2.0;
        let (c, sn) = axis;
        let mut b = PixelBox {
            x0: f64::MAX,
            x1: f64::MIN,
            y0: f64::MAX,
            y1: f64::MIN,
        };
        let corners = [
            (-u_half, v_range.0),
            (u_half, v_range.0),
            (u_half, v_range.1),
            (-u_half, v_range.1),
        ];
        for k in 0..4 {
            let (a, e) = (corners[k], corners[(k + 1) % 4]);
            for i in 0..STEPS {
                let t = i as f64 / STEPS as f64;
                let (u, v) = (a.0 + (e.0 - a.0) * t, a.1 + (e.1 - a.1) * t);
                let world = [center[0] + u * c - v * sn, center[1] + u * sn + v * c, z];
                let Some(px) = cam.project_unfolded(world) else {
                    // Behind the camera, or where the lens folds: no box
                    // to keep to.
                    return PixelBox::EVERYWHERE;
                };
                b.x0 = b.x0.min(px[0] - MARGIN);
                b.x1 = b.x1.max(px[0] + MARGIN);
                b.y0 = b.y0.min(px[1] - MARGIN);
                b.y1 = b.y1.max(px[1] + MARGIN);
            }
        }
        b
    }

    fn covers_row(&self, y: f64) -> bool {
        y >= self.y0 && y <= self.y1
    }

    fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }
}

/// A look's renderer: what its camera sees of the bare mat and floor (each
/// pixel's ray, undistorted through the lens, the texture under it and its
/// colour where no stick shades it) worked out once, for every scene of the
/// look. Those were most of a picture's rendering time, and a look's pictures
/// (teaching, throws, sequences) are rendered by the dozen. A scene renders
/// byte for byte as `render` alone renders it.
pub struct Renderer {
    look: Look,
    /// Per pixel, row by row: its ray.
    rays: Vec<[f64; 3]>,
    /// The mat's or the floor's colour where the ray meets the floor.
    albedo: Vec<[f64; 3]>,
    /// The colour seen there where no stick shades it from any light, as
    /// the picture's samples keep it before noise.
    unshaded: Vec<[f32; 3]>,
    /// Whether the pixel's ray projects back onto it, as the boxes where
    /// sticks are tried assume. Far out in the corners of a strong barrel
    /// lens the lens model folds and undistorting does not come back; every
    /// stick is tried there.
    boxable: Vec<bool>,
}

/// Where a ray meets the floor, and the look's light gradient there.
fn ground_and_gradient(look: &Look, ray: [f64; 3]) -> ([f64; 2], f64) {
    let ground = look.camera.hit_plane(ray, 0.0);
    let half = look.mat_size_cm / 2.0;
    let grad = 1.0
        + look.gradient.1 * (ground[0] * look.gradient.0[0] + ground[1] * look.gradient.0[1])
            / half;
    (ground, grad)
}

impl Renderer {
    pub fn new(look: &Look) -> Renderer {
        let cam = &look.camera;
        let (w, h) = (cam.width as usize, cam.height as usize);
        let mut rays = Vec::with_capacity(w * h);
        let mut albedo = Vec::with_capacity(w * h);
        let mut unshaded = Vec::with_capacity(w * h);
        let mut boxable = Vec::with_capacity(w * h);
        for y in 0..h {
            for x in 0..w {
                let ray = cam.ray([x as f64, y as f64]);
                let (ground, grad) = ground_and_gradient(look, ray);
                let a = if look.on_mat(ground) {
                    mat_albedo(look, ground)
                } else {
                    floor_albedo(look, ground)
                };
                // As `render` shades the mat and floor, every light unblocked.
                let mut shade = [look.ambient; 3];
                for l in &look.lights {
                    let lit = 1.0;
                    for (i, sh) in shade.iter_mut().enumerate() {
                        *sh += l.intensity * l.dir[2] * lit * l.tint[i];
                    }
                }
                let along = [
                    cam.pos[0] + ray[0],
                    cam.pos[1] + ray[1],
                    cam.pos[2] + ray[2],
                ];
                boxable.push(cam.project_unfolded(along).is_some_and(|back| {
                    (back[0] - x as f64).abs() < 0.5 && (back[1] - y as f64).abs() < 0.5
                }));
                rays.push(ray);
                albedo.push(a);
                unshaded.push([
                    (a[0] * shade[0] * grad) as f32,
                    (a[1] * shade[1] * grad) as f32,
                    (a[2] * shade[2] * grad) as f32,
                ]);
            }
        }
        Renderer {
            look: look.clone(),
            rays,
            albedo,
            unshaded,
            boxable,
        }
    }

    /// The look this renderer renders.
    pub fn look(&self) -> &Look {
        &self.look
    }

    /// A scene of this renderer's look.
    pub fn render(&self, scene: &Scene) -> RgbImage {
        self.render_boxed(scene, true)
    }

    /// A scene, with each stick tried only in the box of pixels where it
    /// can be seen and shade the mat (`boxed`), or everywhere (the same
    /// picture, slower: what the boxes are checked against).
    fn render_boxed(&self, scene: &Scene, boxed: bool) -> RgbImage {
        let look = &self.look;
        let cam = &look.camera;
        let (w, h) = (cam.width as usize, cam.height as usize);
        let s = &look.sticks;
        let mut prepared: Vec<Prepared> = scene
            .sticks
            .iter()
            .map(|p| {
                let sec = section(look, p.roll);
                let top = sec.bins.iter().map(|b| b.0).fold(0.0, f64::max);
                Prepared {
                    pose: p,
                    sec,
                    hl: s.length * p.pitch.cos() / 2.0,
                    top,
                    yaw_cos: p.yaw.cos(),
                    yaw_sin: p.yaw.sin(),
                    pitch_sin: p.pitch.sin(),
                    roll_cos: p.roll.cos(),
                }
            })
            .collect();
        // Nearest to the camera first.
        prepared.sort_by(|a, b| (b.pose.z + b.top).total_cmp(&(a.pose.z + a.top)));
        // Where each stick can be seen, and where it can shade the mat: the
        // pixels outside are skipped, their colour unchanged to the last bit
        // (a stick's first trial height misses, a light's factor is 1).
        let axis = |st: &Prepared| (st.yaw_cos, st.yaw_sin);
        let seen: Vec<PixelBox> = prepared
            .iter()
            .map(|st| {
                if !boxed {
                    return PixelBox::EVERYWHERE;
                }
                PixelBox::around(
                    cam,
                    st.pose.center,
                    axis(st),
                    st.hl,
                    (st.sec.vmin, st.sec.vmax),
                    st.first_trial_height(),
                )
            })
            .collect();
        let shading: Vec<PixelBox> = look
            .lights
            .iter()
            .flat_map(|l| {
                prepared.iter().map(move |st| {
                    if !boxed {
                        return PixelBox::EVERYWHERE;
                    }
                    let hs = st.shadow_height();
                    let reach = l.softness.max(0.1) / 2.0;
                    let (vc, hw) = st.across();
                    let center = [
                        st.pose.center[0] - l.dir[0] / l.dir[2] * hs,
                        st.pose.center[1] - l.dir[1] / l.dir[2] * hs,
                    ];
                    PixelBox::around(
                        cam,
                        center,
                        axis(st),
                        st.hl + reach,
                        (vc - hw - reach, vc + hw + reach),
                        0.0,
                    )
                })
            })
            .collect();
        let mut out = vec![0f32; w * h * 3];
        let view_h = |ray: [f64; 3], l: [f64; 3]| {
            let v = [-ray[0], -ray[1], -ray[2]];
            let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            let hv = [l[0] + v[0] / n, l[1] + v[1] / n, l[2] + v[2] / n];
            let m = (hv[0] * hv[0] + hv[1] * hv[1] + hv[2] * hv[2]).sqrt();
            [hv[0] / m, hv[1] / m, hv[2] / m]
        };
        let hand_trig = scene.hand.map(|hand| (hand.yaw.cos(), hand.yaw.sin()));
        let mut near: Vec<&PixelBox> = Vec::new();
        for y in 0..h {
            let yf = y as f64;
            near.clear();
            near.extend(seen.iter().chain(&shading).filter(|b| b.covers_row(yf)));
            for x in 0..w {
                let i = y * w + x;
                let xf = x as f64;
                let boxable = self.boxable[i];
                let outside = |b: &PixelBox| boxable && !b.contains(xf, yf);
                if scene.hand.is_none() && boxable && near.iter().all(|b| outside(b)) {
                    out[i * 3..i * 3 + 3].copy_from_slice(&self.unshaded[i]);
                    continue;
                }
                let ray = self.rays[i];
                let (ground, grad) = ground_and_gradient(look, ray);
                let mut color: Option<[f64; 3]> = None;
                // Hand: a palm and fingers 12 cm up.
                if let (Some(hand), Some((c, sn))) = (scene.hand, hand_trig) {
                    let p = cam.hit_plane(ray, 12.0);
                    let d = [p[0] - hand.center[0], p[1] - hand.center[1]];
                    let (u, v) = (d[0] * c + d[1] * sn, -d[0] * sn + d[1] * c);
                    let palm = (u / 5.5).powi(2) + (v / 4.5).powi(2) < 1.0;
                    let finger =
                        u > 3.0 && u < 13.0 && (v.abs() < 4.0) && ((v + 4.0).rem_euclid(2.0) < 1.6);
                    let thumb =
                        u > -2.0 && u < 5.0 && v > 3.0 && v < 7.0 && (v - 3.0) < (u + 2.0) * 0.8;
                    if palm || finger || thumb {
                        let f = 0.8 + 0.2 * (1.0 - (v / 6.0).powi(2)).max(0.0);
                        color = Some([0.85 * f, 0.62 * f, 0.5 * f]);
                    }
                }
                if color.is_none() {
                    for (st, seen) in prepared.iter().zip(&seen) {
                        if outside(seen) {
                            continue;
                        }
                        let p = st.pose;
                        let mut hgt = st.first_trial_height();
                        let mut hit = None;
                        for _ in 0..2 {
                            let q = cam.hit_plane(ray, hgt);
                            let d = [q[0] - p.center[0], q[1] - p.center[1]];
                            let (c, sn) = (st.yaw_cos, st.yaw_sin);
                            let (u, v) = (d[0] * c + d[1] * sn, -d[0] * sn + d[1] * c);
                            if u.abs() > st.hl || v < st.sec.vmin || v > st.sec.vmax {
                                hit = None;
                                break;
                            }
                            let fb = (v - st.sec.vmin) / (st.sec.vmax - st.sec.vmin)
                                * (BINS as f64 - 1.0);
                            let bin = st.sec.bins[fb.round() as usize];
                            // Rounded ends: the section shrinks over the last 7 %.
                            let e = 0.07 * s.length;
                            let tt = ((u.abs() - (st.hl - e)) / e).clamp(0.0, 1.0);
                            let roundness = (1.0 - st.roll_cos) / 2.0;
                            let shrink = (1.0 - 0.25 * tt * tt) * (1.0 - roundness)
                                + ((1.0 - tt * tt).max(0.0).sqrt() * 0.7 + 0.3) * roundness;
                            let (vc, hw) = st.across();
                            if (v - vc).abs() > hw * shrink {
                                hit = None;
                                break;
                            }
                            let along = (u + st.hl) / (2.0 * st.hl);
                            hgt = p.z
                                + bin.0 * (0.3 + 0.7 * shrink)
                                + (2.0 * st.hl) * along * st.pitch_sin;
                            hit = Some((u, v, bin, tt, (v - vc).abs() / (hw * shrink)));
                        }
                        let Some((u, _v, bin, tt, edge)) = hit else {
                            continue;
                        };
                        let (_, n2, flat, vflat) = bin;
                        let su = u.signum();
                        let nu = su * tt * 0.9;
                        let scale = (1.0 - nu * nu).max(0.0).sqrt();
                        let (c, sn) = (st.yaw_cos, st.yaw_sin);
                        let (nv, nw) = (n2[0] * scale, n2[1] * scale);
                        let n = [nu * c - nv * sn, nu * sn + nv * c, nw];
                        let mut albedo = if flat {
                            let wob = 0.3 * (value(p.grain_offset.to_bits(), u * 0.15, 0.0) - 0.5);
                            let g = (std::f64::consts::TAU * (vflat + wob + p.grain_offset)
                                / s.grain_period)
                                .sin();
                            let f = 1.0
                                + s.grain
                                    * (0.7 * g + 0.6 * fbm(look.seed ^ 11, u * 0.2, vflat * 3.0));
                            s.front.map(|k| k * f * p.tint)
                        } else {
                            let f = 1.0
                                + s.fibre
                                    * 2.0
                                    * fbm(
                                        look.seed ^ 13 ^ p.grain_offset.to_bits(),
                                        u * 0.12,
                                        n2[0] * 6.0,
                                    );
                            s.back.map(|k| k * f * p.tint)
                        };
                        if flat && p.marked {
                            let m = mark_at(look, u, vflat);
                            if m > 0.0 {
                                for (i, a) in albedo.iter_mut().enumerate() {
                                    *a = *a * (1.0 - m) + s.mark_color[i] * m;
                                }
                            }
                        }
                        if flat && edge > 0.93 {
                            albedo = albedo.map(|a| a * 0.85);
                        }
                        let mut shade = [look.ambient; 3];
                        let mut spec = 0.0;
                        for l in &look.lights {
                            let ndl =
                                (n[0] * l.dir[0] + n[1] * l.dir[1] + n[2] * l.dir[2]).max(0.0);
                            for (i, sh) in shade.iter_mut().enumerate() {
                                *sh += l.intensity * ndl * l.tint[i];
                            }
                            let hv = view_h(ray, l.dir);
                            let ndh = (n[0] * hv[0] + n[1] * hv[1] + n[2] * hv[2]).max(0.0);
                            spec += l.intensity
                                * if flat {
                                    0.3 * s.sheen * ndh.powi(40)
                                } else {
                                    s.sheen * ndh.powi(18)
                                };
                        }
                        color = Some([
                            albedo[0] * shade[0] * grad + spec,
                            albedo[1] * shade[1] * grad + spec,
                            albedo[2] * shade[2] * grad + spec,
                        ]);
                        break;
                    }
                }
                let shaded = || !shading.iter().all(outside);
                if color.is_none() && !shaded() {
                    out[i * 3..i * 3 + 3].copy_from_slice(&self.unshaded[i]);
                    continue;
                }
                let color = color.unwrap_or_else(|| {
                    let albedo = self.albedo[i];
                    let mut shade = [look.ambient; 3];
                    for l in &look.lights {
                        let mut lit = 1.0;
                        for st in &prepared {
                            let p = st.pose;
                            let hs = st.shadow_height();
                            let q = [
                                ground[0] + l.dir[0] / l.dir[2] * hs,
                                ground[1] + l.dir[1] / l.dir[2] * hs,
                            ];
                            let d = [q[0] - p.center[0], q[1] - p.center[1]];
                            let (c, sn) = (st.yaw_cos, st.yaw_sin);
                            let (u, v) = (d[0] * c + d[1] * sn, -d[0] * sn + d[1] * c);
                            let (vc, hw) = st.across();
                            let dist = (u.abs() - st.hl).max((v - vc).abs() - hw);
                            let soft = l.softness.max(0.1);
                            lit *= 1.0 - 0.92 * smoothstep(soft / 2.0, -soft / 2.0, dist);
                        }
                        for (i, sh) in shade.iter_mut().enumerate() {
                            *sh += l.intensity * l.dir[2] * lit * l.tint[i];
                        }
                    }
                    [
                        albedo[0] * shade[0] * grad,
                        albedo[1] * shade[1] * grad,
                        albedo[2] * shade[2] * grad,
                    ]
                });
                for (o, c) in out[i * 3..i * 3 + 3].iter_mut().zip(color) {
                    *o = c as f32;
                }
            }
        }
        // Sensor noise, then lens blur and JPEG.
        let sigma = look.noise_sigma / 255.0 * 3.4;
        let noise = LatticeRow::new(hash64(scene.noise_seed), 7);
        let data: Vec<u8> = out
            .iter()
            .enumerate()
            .map(|(i, v)| {
                // `white(seed, i, 7)`, its row hashed once.
                let n = noise.white(i as i64) * sigma;
                to_byte((*v as f64 + n) * 255.0)
            })
            .collect();
        let img = RgbImage {
            width: cam.width,
            height: cam.height,
            data,
        };
        finish(look, img).expect("OpenCV post-processing of a rendered image")
    }
}

/// `x.round().clamp(0.0, 255.0) as u8`, to the same byte, without a call to
/// libm's `round` for every sample of a picture (a tenth of its rendering).
fn to_byte(x: f64) -> u8 {
    if x.is_nan() || x < 0.5 {
        0
    } else if x >= 255.5 {
        255
    } else {
        // 0.5 <= x < 255.5: the truncation is exact, and so is the fraction.
        let whole = x as u8;
        whole + u8::from(x - whole as f64 >= 0.5)
    }
}

fn finish(look: &Look, img: RgbImage) -> opencv::Result<RgbImage> {
    if look.blur_sigma < 0.3 && look.jpeg_quality == 0 {
        return Ok(img);
    }
    let mut m = img.to_bgr_mat()?;
    if look.blur_sigma >= 0.3 {
        let mut b = Mat::default();
        imgproc::gaussian_blur(
            &m,
            &mut b,
            Size::new(0, 0),
            look.blur_sigma,
            0.0,
            BORDER_REFLECT,
        )?;
        m = b;
    }
    if look.jpeg_quality > 0 {
        let mut buf = Vector::<u8>::new();
        let params =
            Vector::<i32>::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, look.jpeg_quality]);
        imgcodecs::imencode(".jpg", &m, &mut buf, &params)?;
        m = imgcodecs::imdecode(&buf, imgcodecs::IMREAD_COLOR)?;
    }
    RgbImage::from_bgr_mat(&m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boxes that spare a picture most of its pixels' work are drawn
    /// wide enough: pictures rendered with them and without are the same to
    /// the byte, through a strong barrel lens, a tilted camera, soft and low
    /// lights, sticks stacked, leaning and off the mat, and a hand.
    #[test]
    fn a_stick_is_tried_only_where_it_can_be_seen_or_shade_yet_every_pixel_is_as_before() {
        use crate::scene::{teach_scene, throw_scene, HardCase};
        let mut looks = vec![Look::random(5, 320, 180)];
        looks.extend((1_300_040..1_300_046).map(|seed| Look::world(seed, 320, 180)));
        // Fine enough that the boxes' margin is narrower than the penumbra.
        let mut wide = Look::world(1_400_297, 960, 540);
        wide.camera = wide.camera.retilted(0.4, -0.2);
        for l in &mut wide.lights {
            l.softness = 3.0;
            l.dir = [0.9, 0.3, 0.316];
        }
        looks.push(wide);
        for look in &looks {
            let renderer = Renderer::new(look);
            let mut scenes = vec![teach_scene(look, "marked")];
            for (k, case) in HardCase::ALL.iter().enumerate() {
                scenes.push(throw_scene(look, 11 + k as u64, Some(*case)).0);
            }
            let mut handed = scenes[1].clone();
            handed.hand = Some(crate::scene::Hand {
                center: handed.sticks[0].center,
                yaw: 0.7,
            });
            scenes.push(handed);
            for scene in &scenes {
                assert!(
                    renderer.render(scene) == renderer.render_boxed(scene, false),
                    "look {}: a box left out a pixel its stick reaches",
                    look.seed
                );
            }
        }
    }

    #[test]
    fn to_byte_rounds_as_std_does() {
        let odd = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.5,
            -0.49999999999999994,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            254.49999999999997,
            254.5,
            255.49999999999997,
            255.5,
            1e300,
        ];
        let steps = (0..200_000).map(|i| -10.0 + i as f64 * 0.001_37);
        for x in odd.into_iter().chain(steps) {
            assert_eq!(to_byte(x), x.round().clamp(0.0, 255.0) as u8, "{x}");
        }
    }
}
