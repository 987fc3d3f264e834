//! Plane geometry: the image → mat mapping (one radial lens term, then a
//! homography) and its inverse, the camera's place read from it and the
//! point of the mat under a point above it (a stick's middle), and the
//! principal axis of a set of points (the mat outline's sides at
//! calibration, a pair's blob in the finder).
//!
//! Pure.

use serde::{Deserialize, Serialize};

/// A 3×3 homography, row-major.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Homography(pub [[f64; 3]; 3]);

impl Homography {
    pub fn apply(&self, p: [f64; 2]) -> [f64; 2] {
        let m = &self.0;
        let w = m[2][0] * p[0] + m[2][1] * p[1] + m[2][2];
        [
            (m[0][0] * p[0] + m[0][1] * p[1] + m[0][2]) / w,
            (m[1][0] * p[0] + m[1][1] * p[1] + m[1][2]) / w,
        ]
    }

    pub fn inverse(&self) -> Homography {
        let m = &self.0;
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        let c = |a: usize, b: usize, c2: usize, d: usize| m[a][b] * m[c2][d] - m[a][d] * m[c2][b];
        let inv = [
            [c(1, 1, 2, 2), -c(0, 1, 2, 2), c(0, 1, 1, 2)],
            [-c(1, 0, 2, 2), c(0, 0, 2, 2), -c(0, 0, 1, 2)],
            [c(1, 0, 2, 1), -c(0, 0, 2, 1), c(0, 0, 1, 1)],
        ];
        Homography(inv.map(|r| r.map(|v| v / det)))
    }

    /// The homography taking `src[i]` to `dst[i]` (four points, no three collinear).
    pub fn from_points(src: &[[f64; 2]; 4], dst: &[[f64; 2]; 4]) -> Option<Homography> {
        let mut a = [[0f64; 9]; 8];
        for i in 0..4 {
            let ([x, y], [u, v]) = (src[i], dst[i]);
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        // Gaussian elimination with partial pivoting.
        #[allow(clippy::needless_range_loop)]
        for col in 0..8 {
            let piv = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
            if a[piv][col].abs() < 1e-12 {
                return None;
            }
            a.swap(col, piv);
            for row in 0..8 {
                if row != col {
                    let f = a[row][col] / a[col][col];
                    for k in col..9 {
                        a[row][k] -= f * a[col][k];
                    }
                }
            }
        }
        let h: Vec<f64> = (0..8).map(|i| a[i][8] / a[i][i]).collect();
        Some(Homography([
            [h[0], h[1], h[2]],
            [h[3], h[4], h[5]],
            [h[6], h[7], 1.0],
        ]))
    }
}

/// One-term radial lens model about the image centre, in units of the half
/// diagonal: undistorted = c + (p − c)·(1 + k·r²); or, where the lens was
/// calibrated on a target ([`crate::lens`]), that calibration's model
/// ([`LensModel`]), which then replaces the one term (`k` is 0).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Lens {
    pub center: [f64; 2],
    pub radius: f64,
    pub k: f64,
    /// The calibrated lens, applied before everything else: "undistorted
    /// pixels" are then those of the pinhole camera with its focal lengths
    /// and principal point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<LensModel>,
}

/// A lens as OpenCV's camera calibration describes it: focal lengths and
/// principal point (pixels), radial terms k1, k2, k3 and tangential terms
/// p1, p2 on normalised coordinates (distorted = undistorted·(1 + k1·r² +
/// k2·r⁴ + k3·r⁶) + tangential). Pure arithmetic; `crate::lens` fits it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LensModel {
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
    pub cy: f64,
    pub k1: f64,
    pub k2: f64,
    pub p1: f64,
    pub p2: f64,
    pub k3: f64,
}

impl LensModel {
    /// Normalised undistorted coordinates → normalised distorted ones.
    fn distort_normalised(&self, x: f64, y: f64) -> (f64, f64) {
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (self.k1 + r2 * (self.k2 + r2 * self.k3));
        (
            x * radial + 2.0 * self.p1 * x * y + self.p2 * (r2 + 2.0 * x * x),
            y * radial + self.p1 * (r2 + 2.0 * y * y) + 2.0 * self.p2 * x * y,
        )
    }

    /// A distorted pixel → the undistorted pixel of the same ray (Newton's
    /// method on the distortion: a strong barrel lens, k1 = −0.2, needs it
    /// where the plain fixed-point iteration crawls in the corners).
    pub fn undistort(&self, p: [f64; 2]) -> [f64; 2] {
        let xd = (p[0] - self.cx) / self.fx;
        let yd = (p[1] - self.cy) / self.fy;
        let (mut x, mut y) = (xd, yd);
        for _ in 0..30 {
            let (u, v) = self.distort_normalised(x, y);
            let (ex, ey) = (u - xd, v - yd);
            if ex.abs() < 1e-12 && ey.abs() < 1e-12 {
                break;
            }
            // The Jacobian by central differences: the model is smooth.
            let h = 1e-7;
            let (ux1, vx1) = self.distort_normalised(x + h, y);
            let (ux0, vx0) = self.distort_normalised(x - h, y);
            let (uy1, vy1) = self.distort_normalised(x, y + h);
            let (uy0, vy0) = self.distort_normalised(x, y - h);
            let (a, b) = ((ux1 - ux0) / (2.0 * h), (uy1 - uy0) / (2.0 * h));
            let (c, d) = ((vx1 - vx0) / (2.0 * h), (vy1 - vy0) / (2.0 * h));
            let det = a * d - b * c;
            if det.abs() < 1e-12 {
                break;
            }
            x -= (d * ex - b * ey) / det;
            y -= (-c * ex + a * ey) / det;
        }
        [self.cx + x * self.fx, self.cy + y * self.fy]
    }

    /// An undistorted pixel → where the lens shows it.
    pub fn distort(&self, p: [f64; 2]) -> [f64; 2] {
        let (x, y) =
            self.distort_normalised((p[0] - self.cx) / self.fx, (p[1] - self.cy) / self.fy);
        [self.cx + x * self.fx, self.cy + y * self.fy]
    }
}

impl Lens {
    pub fn none(width: u32, height: u32) -> Lens {
        Lens {
            center: [(width as f64 - 1.0) / 2.0, (height as f64 - 1.0) / 2.0],
            radius: (width as f64).hypot(height as f64) / 2.0,
            k: 0.0,
            model: None,
        }
    }

    /// A picture of `width` × `height` seen through a calibrated lens.
    pub fn calibrated(width: u32, height: u32, model: LensModel) -> Lens {
        Lens {
            model: Some(model),
            ..Lens::none(width, height)
        }
    }

    pub fn undistort(&self, p: [f64; 2]) -> [f64; 2] {
        if let Some(m) = &self.model {
            return m.undistort(p);
        }
        let d = [
            (p[0] - self.center[0]) / self.radius,
            (p[1] - self.center[1]) / self.radius,
        ];
        let s = 1.0 + self.k * (d[0] * d[0] + d[1] * d[1]);
        [
            self.center[0] + d[0] * s * self.radius,
            self.center[1] + d[1] * s * self.radius,
        ]
    }

    pub fn distort(&self, p: [f64; 2]) -> [f64; 2] {
        if let Some(m) = &self.model {
            return m.distort(p);
        }
        let u = [
            (p[0] - self.center[0]) / self.radius,
            (p[1] - self.center[1]) / self.radius,
        ];
        let (mut x, mut y) = (u[0], u[1]);
        for _ in 0..6 {
            let s = 1.0 + self.k * (x * x + y * y);
            x = u[0] / s;
            y = u[1] / s;
        }
        [
            self.center[0] + x * self.radius,
            self.center[1] + y * self.radius,
        ]
    }
}

/// Image pixels ↔ mat centimetres (origin at the mat centre, y up).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MatMap {
    pub lens: Lens,
    /// Undistorted pixels → cm.
    pub h: Homography,
}

impl MatMap {
    pub fn to_cm(&self, px: [f64; 2]) -> [f64; 2] {
        self.h.apply(self.lens.undistort(px))
    }

    pub fn to_px(&self, cm: [f64; 2]) -> [f64; 2] {
        self.lens.distort(self.h.inverse().apply(cm))
    }

    /// Where the camera stands, in mat centimetres (x, y, and its height
    /// above the mat), read from the map as a pinhole camera whose principal
    /// point is the lens centre. The focal length comes from the map's
    /// perspective where its two measures of it agree within
    /// [`FOCAL_AGREE`]; under a few degrees of tilt there is too little
    /// perspective to tell, and `default_focal_px` stands in (an error of
    /// a sixth in it moves a stick's point at the mat's edge by about a
    /// twentieth of a centimetre). `None` where the map is no view from above.
    pub fn camera_centre(&self, default_focal_px: f64) -> Option<[f64; 3]> {
        self.camera_centre_at(default_focal_px, false)
    }

    /// [`MatMap::camera_centre`] for a camera whose focal length is known
    /// (a lens calibrated on a target): the map's perspective is not asked.
    pub fn camera_centre_with_focal(&self, focal_px: f64) -> Option<[f64; 3]> {
        self.camera_centre_at(focal_px, true)
    }

    fn camera_centre_at(&self, default_focal_px: f64, known: bool) -> Option<[f64; 3]> {
        let m = self.h.inverse().0;
        // The principal point: the calibrated lens's, else the picture's centre.
        let [cx, cy] = self.lens.model.map_or(self.lens.center, |l| [l.cx, l.cy]);
        // The columns of the mat → pixel map, the principal point at 0.
        let col = |j: usize| [m[0][j] - cx * m[2][j], m[1][j] - cy * m[2][j], m[2][j]];
        let (h1, h2, h3) = (col(0), col(1), col(2));
        let f = if known {
            default_focal_px
        } else {
            focal_from_perspective(h1, h2).unwrap_or(default_focal_px)
        };
        let a = |h: [f64; 3]| [h[0] / f, h[1] / f, h[2]];
        let (a1, a2, a3) = (a(h1), a(h2), a(h3));
        let norm = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        let mut scale = 2.0 / (norm(a1) + norm(a2));
        // The mat lies in front of the camera.
        if a3[2] < 0.0 {
            scale = -scale;
        }
        let (r1, r2, t) = (
            a1.map(|v| v * scale),
            a2.map(|v| v * scale),
            a3.map(|v| v * scale),
        );
        let r3 = [
            r1[1] * r2[2] - r1[2] * r2[1],
            r1[2] * r2[0] - r1[0] * r2[2],
            r1[0] * r2[1] - r1[1] * r2[0],
        ];
        let dot = |u: [f64; 3], v: [f64; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        let centre = [-dot(r1, t), -dot(r2, t), dot(r3, t).abs()];
        (centre.iter().all(|v| v.is_finite()) && centre[2] > 1.0).then_some(centre)
    }

    /// The point of the mat under a point `height` cm above it that shows at
    /// `px`, seen from a camera at `camera` ([`MatMap::camera_centre`]):
    /// the map alone puts it where the camera's ray through it meets the
    /// mat, further from the camera.
    pub fn under(&self, px: [f64; 2], height: f64, camera: Option<[f64; 3]>) -> [f64; 2] {
        let p = self.to_cm(px);
        match camera {
            Some([x, y, z]) if z > height => {
                let k = (z - height) / z;
                [x + (p[0] - x) * k, y + (p[1] - y) * k]
            }
            _ => p,
        }
    }

    /// Pixels per centimetre near an image point.
    pub fn px_per_cm(&self, px: [f64; 2]) -> f64 {
        let c = self.to_cm(px);
        let a = self.to_cm([px[0] + 1.0, px[1]]);
        let b = self.to_cm([px[0], px[1] + 1.0]);
        let det = (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
        1.0 / det.abs().sqrt()
    }
}

/// How closely the two measures of the focal length a plane's perspective
/// gives (`focal_from_perspective`) must agree to be taken.
pub const FOCAL_AGREE: f64 = 0.15;

/// The focal length (pixels) a view of a plane implies, from the first two
/// columns of its plane → pixel map (principal point at 0): the plane's two
/// axes must be at right angles and of one length. Each gives a measure;
/// `None` where either is missing (no perspective to read it from) or they
/// differ by more than [`FOCAL_AGREE`].
fn focal_from_perspective(h1: [f64; 3], h2: [f64; 3]) -> Option<f64> {
    let right_angle = -(h1[0] * h2[0] + h1[1] * h2[1]) / (h1[2] * h2[2]);
    let one_length = (h1[0] * h1[0] + h1[1] * h1[1] - h2[0] * h2[0] - h2[1] * h2[1])
        / (h2[2] * h2[2] - h1[2] * h1[2]);
    if !(right_angle.is_finite() && one_length.is_finite() && right_angle > 0.0 && one_length > 0.0)
    {
        return None;
    }
    let (f1, f2) = (right_angle.sqrt(), one_length.sqrt());
    ((f1 - f2).abs() <= FOCAL_AGREE * f1.max(f2)).then_some((f1 + f2) / 2.0)
}

/// The mean of `pts` and the angle (radians) of their long axis, by their
/// second moments.
pub fn principal_axis(pts: &[[f64; 2]]) -> ([f64; 2], f64) {
    let n = pts.len().max(1) as f64;
    let m = [
        pts.iter().map(|p| p[0]).sum::<f64>() / n,
        pts.iter().map(|p| p[1]).sum::<f64>() / n,
    ];
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for p in pts {
        let (dx, dy) = (p[0] - m[0], p[1] - m[1]);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    (m, 0.5 * (2.0 * sxy).atan2(sxx - syy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn homography_maps_points_and_inverts() {
        let src = [[10.0, 12.0], [300.0, 20.0], [290.0, 250.0], [15.0, 240.0]];
        let dst = [[-85.0, 85.0], [85.0, 85.0], [85.0, -85.0], [-85.0, -85.0]];
        let h = Homography::from_points(&src, &dst).unwrap();
        for i in 0..4 {
            let p = h.apply(src[i]);
            assert!((p[0] - dst[i][0]).abs() < 1e-6 && (p[1] - dst[i][1]).abs() < 1e-6);
            let q = h.inverse().apply(dst[i]);
            assert!((q[0] - src[i][0]).abs() < 1e-6 && (q[1] - src[i][1]).abs() < 1e-6);
        }
    }

    use yut_sim::Camera;

    /// A generated camera `dist` cm from the mat's centre, tilted `tilt_deg`
    /// towards azimuth `azimuth` (radians), focal length `f`, no lens
    /// distortion, and its map (undistorted pixels → mat cm) of the mat.
    fn camera_and_map(dist: f64, tilt_deg: f64, azimuth: f64, f: f64) -> (Camera, MatMap) {
        let (w, h) = (1280, 720);
        let cam = Camera::looking_at(
            [0.0, 0.0],
            dist,
            tilt_deg.to_radians(),
            azimuth,
            0.0,
            f,
            0.0,
            w,
            h,
        );
        let src = [[-80.0, 80.0], [80.0, 80.0], [80.0, -80.0], [-80.0, -80.0]];
        let px = src.map(|c| cam.project([c[0], c[1], 0.0]).unwrap());
        let hmg = Homography::from_points(&px, &src).unwrap();
        (
            cam,
            MatMap {
                lens: Lens::none(w, h),
                h: hmg,
            },
        )
    }

    #[test]
    fn the_camera_stands_where_the_map_s_perspective_puts_it() {
        // Tilted 12° and 4°: the perspective tells the focal length.
        for (dist, tilt, azimuth) in [(261.0, 12.0, -0.18), (241.0, 4.0, 0.86)] {
            let (cam, map) = camera_and_map(dist, tilt, azimuth, 700.0);
            let c = map.camera_centre(900.0).unwrap();
            for k in 0..3 {
                assert!((c[k] - cam.pos[k]).abs() < 0.5, "{c:?} for {:?}", cam.pos);
            }
        }
        // Straight down the map shows no perspective: the usual focal
        // length stands in, and the height follows from the scale.
        let (_, map) = camera_and_map(250.0, 0.0, 0.0, 700.0);
        let c = map.camera_centre(840.0).unwrap();
        assert!(c[0].abs() < 0.5 && c[1].abs() < 0.5, "{c:?}");
        assert!((c[2] - 300.0).abs() < 1.0, "{c:?}");
    }

    #[test]
    fn a_point_above_the_mat_is_placed_on_the_mat_under_it() {
        let (cam, map) = camera_and_map(261.0, 12.0, -0.18, 700.0);
        let camera = map.camera_centre(900.0);
        let project = |p: [f64; 2]| cam.project([p[0], p[1], 1.2]).unwrap();
        for p in [[90.0, 0.0], [-85.0, 40.0], [0.0, 0.0], [20.0, -95.0]] {
            let px = project(p);
            let q = map.under(px, 1.2, camera);
            assert!((q[0] - p[0]).hypot(q[1] - p[1]) < 0.01, "{q:?} for {p:?}");
            // The map alone puts it further from the camera.
            let seen = map.to_cm(px);
            let away = |a: [f64; 2]| (a[0] - cam.pos[0]).hypot(a[1] - cam.pos[1]);
            assert!(
                away(seen) > away(p) + 0.1 || away(p) < 10.0,
                "{seen:?} for {p:?}"
            );
        }
        // No camera known: the map's own reading.
        let px = project([90.0, 0.0]);
        assert_eq!(map.under(px, 1.2, None), map.to_cm(px));
    }

    #[test]
    fn the_principal_axis_of_a_thin_band_lies_along_it() {
        // A band 40 long and 4 wide at 30° (y down), centred on (100, 50).
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let pts: Vec<[f64; 2]> = (-20..=20)
            .flat_map(|t| (-2..=2).map(move |w| (t as f64, w as f64)))
            .map(|(t, w)| [100.0 + t * c - w * s, 50.0 + t * s + w * c])
            .collect();
        let (m, angle) = principal_axis(&pts);
        assert!((m[0] - 100.0).abs() < 1e-9 && (m[1] - 50.0).abs() < 1e-9);
        assert!(
            (angle.to_degrees() - 30.0).abs() < 1e-6,
            "{}",
            angle.to_degrees()
        );
    }

    #[test]
    fn lens_round_trip() {
        let lens = Lens {
            k: -0.08,
            ..Lens::none(640, 480)
        };
        let p = [600.0, 30.0];
        let q = lens.distort(lens.undistort(p));
        assert!((p[0] - q[0]).abs() < 1e-3 && (p[1] - q[1]).abs() < 1e-3);
    }

    #[test]
    fn a_calibrated_lens_round_trips_into_the_corners_of_a_strong_barrel() {
        let model = LensModel {
            fx: 760.0,
            fy: 758.0,
            cx: 641.0,
            cy: 358.0,
            k1: -0.2,
            k2: 0.01,
            p1: 0.001,
            p2: -0.0005,
            k3: 0.0,
        };
        let lens = Lens::calibrated(1280, 720, model);
        for p in [[0.0, 0.0], [1279.0, 719.0], [640.0, 10.0], [5.0, 360.0]] {
            let q = lens.distort(lens.undistort(p));
            assert!((p[0] - q[0]).hypot(p[1] - q[1]) < 1e-6, "{p:?} → {q:?}");
        }
        // The sim's camera model is this one with k1 alone: the same pixel.
        let cam =
            yut_sim::Camera::looking_at([0.0, 0.0], 250.0, 0.0, 0.0, 0.0, 760.0, -0.2, 1280, 720);
        let plain = LensModel {
            fx: 760.0,
            fy: 760.0,
            cx: cam.cx,
            cy: cam.cy,
            k1: -0.2,
            k2: 0.0,
            p1: 0.0,
            p2: 0.0,
            k3: 0.0,
        };
        let seen = cam.project([90.0, -60.0, 0.0]).unwrap();
        let straight = Camera::looking_at([0.0, 0.0], 250.0, 0.0, 0.0, 0.0, 760.0, 0.0, 1280, 720)
            .project([90.0, -60.0, 0.0])
            .unwrap();
        let back = plain.undistort(seen);
        assert!((back[0] - straight[0]).hypot(back[1] - straight[1]) < 1e-6);
    }
}
