//! A printed sheet in view of a look's camera: a grey picture (the lens
//! target a crew prints) on a flat rectangle anywhere in front of the camera,
//! held at a slant or laid on the mat, rendered over the look's empty mat
//! through the look's lens, with its exact truth (where each point of the
//! sheet shows).
//!
//! Pure and deterministic: the same look, sheet, pose and seed give the same
//! picture, byte for byte.

use crate::camera::Camera;
use crate::look::Look;
use crate::noise::{hash64, white};
use crate::render::{render, RgbImage};
use crate::scene::empty_scene;
use opencv::core::{Size, BORDER_REFLECT};
use opencv::imgproc;

/// A grey picture, row-major, 0 black to 255 white.
#[derive(Debug, Clone, PartialEq)]
pub struct GreyPicture {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

/// A printed sheet: its picture covers it edge to edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Sheet {
    pub picture: GreyPicture,
    /// Its width and height, cm.
    pub size_cm: [f64; 2],
}

/// Where a sheet is: its centre (world cm) and the world directions of its
/// picture's right and down.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SheetPose {
    pub centre: [f64; 3],
    pub right: [f64; 3],
    pub down: [f64; 3],
}

fn add(a: [f64; 3], b: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(v: [f64; 3]) -> [f64; 3] {
    let n = dot(v, v).sqrt();
    [v[0] / n, v[1] / n, v[2] / n]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `v` turned by `angle` (radians) about the unit axis `k` (Rodrigues).
fn turn(v: [f64; 3], k: [f64; 3], angle: f64) -> [f64; 3] {
    let (c, s) = (angle.cos(), angle.sin());
    let kxv = cross(k, v);
    let kv = dot(k, v);
    [
        v[0] * c + kxv[0] * s + k[0] * kv * (1.0 - c),
        v[1] * c + kxv[1] * s + k[1] * kv * (1.0 - c),
        v[2] * c + kxv[2] * s + k[2] * kv * (1.0 - c),
    ]
}

impl SheetPose {
    /// Where a crew holds a lens target for the lens pictures: about 95 cm
    /// under the camera (nearer a small picture's camera, so the markers stay
    /// readable), in the middle, near each corner and each edge of the
    /// picture, most of them tipped or tilted.
    pub fn crew_holds(cam: &Camera) -> Vec<SheetPose> {
        let (w, h) = (cam.width as f64, cam.height as f64);
        let spots = [
            (0.5, 0.5, 0.0, 0.0),
            (0.2, 0.22, 0.35, -0.3),
            (0.8, 0.22, -0.3, 0.3),
            (0.2, 0.78, 0.3, 0.35),
            (0.8, 0.78, -0.35, -0.3),
            (0.5, 0.2, 0.4, 0.0),
            (0.5, 0.8, -0.4, 0.0),
            (0.16, 0.5, 0.0, 0.4),
            (0.84, 0.5, 0.0, -0.4),
            (0.5, 0.5, 0.3, 0.3),
        ];
        let distance = 95.0 * (w / 1280.0).max(0.6);
        spots
            .into_iter()
            .enumerate()
            .map(|(i, (u, v, tip, tilt))| {
                SheetPose::facing(cam, [u * w, v * h], distance, 0.15 * i as f64, tip, tilt)
            })
            .collect()
    }

    /// A sheet held facing the camera `distance` cm from it, its centre
    /// showing at `pixel`, turned `spin` radians in its plane, then tipped
    /// `tip` radians about its own across axis and `tilt` about its up axis.
    pub fn facing(
        cam: &Camera,
        pixel: [f64; 2],
        distance: f64,
        spin: f64,
        tip: f64,
        tilt: f64,
    ) -> SheetPose {
        let ray = norm(cam.ray(pixel));
        let centre = add(cam.pos, ray, distance);
        let (cx, cy, cz) = (cam.rot[0], cam.rot[1], cam.rot[2]);
        let right = turn(cx, cz, spin);
        let down = turn(cy, cz, spin);
        let (right, down) = (turn(right, right, tip), turn(down, right, tip));
        let (right, down) = (turn(right, down, tilt), turn(down, down, tilt));
        SheetPose {
            centre,
            right,
            down,
        }
    }

    /// A sheet laid flat on the mat at `centre` (cm), its picture's right
    /// along world direction `yaw`; its up is the world's y turned likewise.
    pub fn on_mat(centre: [f64; 2], yaw: f64) -> SheetPose {
        SheetPose {
            centre: [centre[0], centre[1], 0.05],
            right: [yaw.cos(), yaw.sin(), 0.0],
            down: [yaw.sin(), -yaw.cos(), 0.0],
        }
    }

    /// The world point at `at` (cm from the sheet's top-left corner, right
    /// and down).
    pub fn point(&self, sheet: &Sheet, at: [f64; 2]) -> [f64; 3] {
        let [w, h] = sheet.size_cm;
        let p = add(self.centre, self.right, at[0] - w / 2.0);
        add(p, self.down, at[1] - h / 2.0)
    }
}

/// Subsamples per pixel side: edges anti-aliased as a camera's pixels
/// average them.
const SUB: usize = 3;

/// The look's empty mat with `sheet` at `pose` in front of it, paper and ink
/// lit evenly (white 88 %, ink 8 % of full scale), the look's blur and a
/// little sensor noise over all; `seed` draws the noise.
pub fn render_sheet(look: &Look, sheet: &Sheet, pose: &SheetPose, seed: u64) -> RgbImage {
    let cam = &look.camera;
    let base = render(look, &empty_scene(look));
    let (w, h) = (cam.width as usize, cam.height as usize);
    let normal = norm(cross(pose.right, pose.down));
    let [sw, sh] = sheet.size_cm;
    let pic = &sheet.picture;
    let (pw, ph) = (pic.width as f64, pic.height as f64);
    let mut data = base.data.clone();
    for y in 0..h {
        for x in 0..w {
            let (mut cover, mut level) = (0.0, 0.0);
            for sy in 0..SUB {
                for sx in 0..SUB {
                    let px = [
                        x as f64 + (sx as f64 + 0.5) / SUB as f64 - 0.5,
                        y as f64 + (sy as f64 + 0.5) / SUB as f64 - 0.5,
                    ];
                    let ray = cam.ray(px);
                    let den = dot(normal, ray);
                    if den.abs() < 1e-9 {
                        continue;
                    }
                    let t = dot(
                        normal,
                        [
                            pose.centre[0] - cam.pos[0],
                            pose.centre[1] - cam.pos[1],
                            pose.centre[2] - cam.pos[2],
                        ],
                    ) / den;
                    if t <= 0.0 {
                        continue;
                    }
                    let hit = add(cam.pos, ray, t);
                    let d = [
                        hit[0] - pose.centre[0],
                        hit[1] - pose.centre[1],
                        hit[2] - pose.centre[2],
                    ];
                    let u = dot(d, pose.right) + sw / 2.0;
                    let v = dot(d, pose.down) + sh / 2.0;
                    if !(0.0..sw).contains(&u) || !(0.0..sh).contains(&v) {
                        continue;
                    }
                    let (ix, iy) = ((u / sw * pw) as usize, (v / sh * ph) as usize);
                    let ink = pic.data[iy.min(pic.height as usize - 1) * pic.width as usize
                        + ix.min(pic.width as usize - 1)];
                    cover += 1.0;
                    level += 0.08 + 0.80 * ink as f64 / 255.0;
                }
            }
            if cover == 0.0 {
                continue;
            }
            let n = (SUB * SUB) as f64;
            let o = (y * w + x) * 3;
            for k in 0..3 {
                let under = data[o + k] as f64 / 255.0;
                let v = (level + under * (n - cover)) / n;
                data[o + k] = (v * 255.0).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    let img = RgbImage {
        width: cam.width,
        height: cam.height,
        data,
    };
    finish_sheet(look, img, seed).expect("OpenCV post-processing of a rendered sheet")
}

/// The look's blur (at least a camera's half pixel) and its sensor noise.
fn finish_sheet(look: &Look, img: RgbImage, seed: u64) -> opencv::Result<RgbImage> {
    let m = img.to_bgr_mat()?;
    let mut b = opencv::core::Mat::default();
    imgproc::gaussian_blur(
        &m,
        &mut b,
        Size::new(0, 0),
        look.blur_sigma.max(0.5),
        0.0,
        BORDER_REFLECT,
    )?;
    let mut out = RgbImage::from_bgr_mat(&b)?;
    let sigma = look.noise_sigma;
    let seed = hash64(seed ^ 0x5ee7);
    for (i, v) in out.data.iter_mut().enumerate() {
        let n = white(seed, i as i64, 3) * sigma * 3.4;
        *v = (*v as f64 + n).round().clamp(0.0, 255.0) as u8;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sheet_laid_on_the_mat_shows_where_the_camera_projects_it() {
        let mut look = Look::random(3, 320, 180);
        look.camera = Camera::looking_at([0.0, 0.0], 250.0, 0.0, 0.0, 0.0, 200.0, -0.2, 320, 180);
        look.noise_sigma = 0.0;
        // A black sheet 60 × 40 cm.
        let sheet = Sheet {
            picture: GreyPicture {
                width: 4,
                height: 4,
                data: vec![0; 16],
            },
            size_cm: [60.0, 40.0],
        };
        let pose = SheetPose::on_mat([10.0, -5.0], 0.0);
        let img = render_sheet(&look, &sheet, &pose, 1);
        let bare = render(&look, &empty_scene(&look));
        let at = |img: &RgbImage, p: [f64; 3]| {
            let px = look.camera.project(p).unwrap();
            let o = (px[1].round() as usize * 320 + px[0].round() as usize) * 3;
            img.data[o] as f64
        };
        // Just inside its edges it is ink-dark; 10 cm off them the mat shows
        // as it did without it.
        for inside in [[2.0, 20.0], [58.0, 20.0], [30.0, 2.0], [30.0, 38.0]] {
            assert!(at(&img, pose.point(&sheet, inside)) < 40.0, "{inside:?}");
        }
        for outside in [[-10.0, 20.0], [70.0, 20.0], [30.0, -10.0], [30.0, 50.0]] {
            let p = pose.point(&sheet, outside);
            assert!((at(&img, p) - at(&bare, p)).abs() < 12.0, "{outside:?}");
        }
    }
}
