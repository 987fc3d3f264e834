//! A pinhole camera with one radial (barrel) term, looking at the mat plane.
//!
//! Pure.

use serde::{Deserialize, Serialize};

/// World: mat plane z = 0, origin at the mat centre, x right, y "up" in the
/// top-down view, z towards the camera; units are centimetres.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    /// Camera centre in world cm.
    pub pos: [f64; 3],
    /// Rows: the camera's x (image right), y (image down) and z (forward) axes in
    /// world coordinates.
    pub rot: [[f64; 3]; 3],
    /// Focal length in pixels.
    pub f: f64,
    /// Principal point.
    pub cx: f64,
    pub cy: f64,
    /// Radial distortion: distorted = undistorted · (1 + k1·r²), r in focal units.
    /// Negative is barrel.
    pub k1: f64,
    pub width: u32,
    pub height: u32,
}

fn norm(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    [v[0] / n, v[1] / n, v[2] / n]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl Camera {
    /// A camera `dist` cm from the point `target` on the mat, tilted `tilt` rad
    /// from vertical towards azimuth `azimuth`, image x roughly along world
    /// direction `yaw`, with focal length `f` px.
    #[allow(clippy::too_many_arguments)]
    pub fn looking_at(
        target: [f64; 2],
        dist: f64,
        tilt: f64,
        azimuth: f64,
        yaw: f64,
        f: f64,
        k1: f64,
        width: u32,
        height: u32,
    ) -> Camera {
        let pos = [
            target[0] + dist * tilt.sin() * azimuth.cos(),
            target[1] + dist * tilt.sin() * azimuth.sin(),
            dist * tilt.cos(),
        ];
        let z = norm([target[0] - pos[0], target[1] - pos[1], -pos[2]]);
        let hint = [yaw.cos(), yaw.sin(), 0.0];
        let d = dot(hint, z);
        let x = norm([hint[0] - d * z[0], hint[1] - d * z[1], hint[2] - d * z[2]]);
        let y = cross(z, x);
        Camera {
            pos,
            rot: [x, y, z],
            f,
            cx: (width as f64 - 1.0) / 2.0,
            cy: (height as f64 - 1.0) / 2.0,
            k1,
            width,
            height,
        }
    }

    /// The same camera over the same point of the mat, from the same distance,
    /// tilted `tilt` rad from vertical instead, with lens term `k1`; its focal
    /// length shortened as a steeper tilt needs to keep the mat in view.
    pub fn retilted(&self, tilt: f64, k1: f64) -> Camera {
        let target = self.hit_plane(self.ray([self.cx, self.cy]), 0.0);
        let d = [
            self.pos[0] - target[0],
            self.pos[1] - target[1],
            self.pos[2],
        ];
        let dist = dot(d, d).sqrt();
        let old_tilt = (d[2] / dist).clamp(-1.0, 1.0).acos();
        let azimuth = d[1].atan2(d[0]);
        let yaw = self.rot[0][1].atan2(self.rot[0][0]);
        let f = self.f * (1.0 + old_tilt.sin()) / (1.0 + tilt.sin());
        Camera::looking_at(
            target,
            dist,
            tilt,
            azimuth,
            yaw,
            f,
            k1,
            self.width,
            self.height,
        )
    }

    /// A world point's undistorted image coordinates (in focal units from
    /// the principal point); `None` behind the camera.
    fn normalized(&self, p: [f64; 3]) -> Option<(f64, f64)> {
        let d = [p[0] - self.pos[0], p[1] - self.pos[1], p[2] - self.pos[2]];
        let zc = dot(self.rot[2], d);
        if zc <= 1e-9 {
            return None;
        }
        Some((dot(self.rot[0], d) / zc, dot(self.rot[1], d) / zc))
    }

    /// Undistorted image coordinates to a pixel, through the lens.
    fn distorted(&self, (xn, yn): (f64, f64)) -> [f64; 2] {
        let s = 1.0 + self.k1 * (xn * xn + yn * yn);
        [self.cx + self.f * xn * s, self.cy + self.f * yn * s]
    }

    /// World point to pixel (with distortion); `None` behind the camera.
    pub fn project(&self, p: [f64; 3]) -> Option<[f64; 2]> {
        self.normalized(p).map(|n| self.distorted(n))
    }

    /// [`Camera::project`] where the lens model is one to one: `None` also
    /// beyond the radius where barrel distortion folds back (`1 + 3·k1·r² ≤ 0`),
    /// past which a farther point lands nearer the centre of the picture.
    pub fn project_unfolded(&self, p: [f64; 3]) -> Option<[f64; 2]> {
        let (xn, yn) = self.normalized(p)?;
        (1.0 + 3.0 * self.k1 * (xn * xn + yn * yn) > 0.0).then(|| self.distorted((xn, yn)))
    }

    /// Pixel to the world direction of its ray (undistorting first).
    pub fn ray(&self, px: [f64; 2]) -> [f64; 3] {
        let xd = (px[0] - self.cx) / self.f;
        let yd = (px[1] - self.cy) / self.f;
        let (mut xu, mut yu) = (xd, yd);
        // To convergence: in the corners of a strong barrel lens (k1 = −0.2)
        // each step shrinks the error only about half, and four steps left
        // the picture a few pixels off what `project` says.
        for _ in 0..60 {
            let s = 1.0 + self.k1 * (xu * xu + yu * yu);
            let (x, y) = (xd / s, yd / s);
            let moved = (x - xu).abs() + (y - yu).abs();
            (xu, yu) = (x, y);
            if moved < 1e-12 {
                break;
            }
        }
        let r = self.rot;
        [
            r[0][0] * xu + r[1][0] * yu + r[2][0],
            r[0][1] * xu + r[1][1] * yu + r[2][1],
            r[0][2] * xu + r[1][2] * yu + r[2][2],
        ]
    }

    /// Where the ray of a pixel meets the horizontal plane z = `h`.
    pub fn hit_plane(&self, ray: [f64; 3], h: f64) -> [f64; 2] {
        let s = (h - self.pos[2]) / ray[2];
        [self.pos[0] + s * ray[0], self.pos[1] + s * ray[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strong_barrel_lens_s_corners_round_trip_too() {
        // f = 1000 px: the picture's corners (0.73 of f from its centre) lie
        // inside the one-term model's fold, which at k1 = −0.2 is 0.86 of f;
        // past it the model has no inverse to round-trip to.
        let cam = Camera::looking_at([0.0, 0.0], 250.0, 0.0, 0.0, 0.0, 1000.0, -0.2, 1280, 720);
        for px in [[0.0, 0.0], [1279.0, 719.0], [3.0, 700.0]] {
            let p = cam.hit_plane(cam.ray(px), 0.0);
            let back = cam.project([p[0], p[1], 0.0]).unwrap();
            assert!(
                (back[0] - px[0]).hypot(back[1] - px[1]) < 1e-6,
                "{px:?} → {back:?}"
            );
        }
    }

    #[test]
    fn project_and_ray_round_trip() {
        let cam = Camera::looking_at([3.0, -2.0], 240.0, 0.2, 0.7, 0.1, 900.0, -0.05, 640, 480);
        for p in [[0.0, 0.0, 0.0], [50.0, -40.0, 0.0], [-80.0, 70.0, 2.0]] {
            let px = cam.project(p).unwrap();
            let back = cam.hit_plane(cam.ray(px), p[2]);
            assert!((back[0] - p[0]).abs() < 1e-3, "{back:?} vs {p:?}");
            assert!((back[1] - p[1]).abs() < 1e-3, "{back:?} vs {p:?}");
        }
    }
}
