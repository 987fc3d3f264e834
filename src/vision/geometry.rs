//! Plane geometry: the image → mat mapping (one radial lens term, then a
//! homography) and its inverse, and the principal axis of a set of points
//! (the mat outline's sides at calibration, a pair's blob in the finder).

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
/// diagonal: undistorted = c + (p − c)·(1 + k·r²).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Lens {
    pub center: [f64; 2],
    pub radius: f64,
    pub k: f64,
}

impl Lens {
    pub fn none(width: u32, height: u32) -> Lens {
        Lens {
            center: [(width as f64 - 1.0) / 2.0, (height as f64 - 1.0) / 2.0],
            radius: (width as f64).hypot(height as f64) / 2.0,
            k: 0.0,
        }
    }

    pub fn undistort(&self, p: [f64; 2]) -> [f64; 2] {
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

    /// Pixels per centimetre near an image point.
    pub fn px_per_cm(&self, px: [f64; 2]) -> f64 {
        let c = self.to_cm(px);
        let a = self.to_cm([px[0] + 1.0, px[1]]);
        let b = self.to_cm([px[0], px[1] + 1.0]);
        let det = (a[0] - c[0]) * (b[1] - c[1]) - (a[1] - c[1]) * (b[0] - c[0]);
        1.0 / det.abs().sqrt()
    }
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
}
