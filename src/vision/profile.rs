//! The station profile: calibration plus the taught stick set, as a readable,
//! versioned TOML file. The empty-mat picture lives beside it as a PNG.

use super::calibrate::Calibration;
use super::features::N_APPEAR;
use serde::{Deserialize, Serialize};

/// Bump when the meaning of a field changes; older files are refused with a
/// message to re-run calibrate and teach.
pub const PROFILE_VERSION: u32 = 1;

/// What teaching learned about one stick set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Taught {
    /// Stick size on the mat.
    pub length_cm: f64,
    pub width_cm: f64,
    /// Mean appearance features of the flat faces and of the round faces.
    pub front_mean: Vec<f32>,
    pub back_mean: Vec<f32>,
    /// Their within-face spread.
    pub front_std: Vec<f32>,
    pub back_std: Vec<f32>,
    /// Mark score above which a flat face counts as the marked stick, and the
    /// half-gap between the marked stick and the most mark-like other one.
    pub mark_threshold: f32,
    pub mark_margin: f32,
}

impl Taught {
    /// Appearance features mapped so the taught flat face sits at +1 and the
    /// taught round face at −1 (per feature, where it tells them apart).
    pub fn normalise(&self, f: &[f32]) -> Vec<f32> {
        (0..N_APPEAR)
            .map(|i| {
                let (a, b) = (self.front_mean[i], self.back_mean[i]);
                let mid = (a + b) / 2.0;
                let eps = 0.05 * (a.abs() + b.abs()) / 2.0 + 0.005;
                let half = ((a - b) / 2.0).abs().max(eps);
                let sign = if a >= b { 1.0 } else { -1.0 };
                ((f[i] - mid) / half * sign).clamp(-8.0, 8.0)
            })
            .collect()
    }
}

/// The profile file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub version: u32,
    /// The empty-mat picture, relative to the profile file.
    pub empty_image: String,
    pub calibration: Calibration,
    pub sticks: Option<Taught>,
}

impl Profile {
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a profile always serialises");
        format!(
            "# yutstation station profile: written by `yutstation calibrate` and `yutstation teach`.\n\
             # Distances in cm on the mat (origin at its centre, y up), pixels in the camera image.\n{body}"
        )
    }

    pub fn from_toml(text: &str) -> Result<Profile, String> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let v: Version =
            toml::from_str(text).map_err(|e| format!("not a station profile: {}", e.message()))?;
        if v.version != PROFILE_VERSION {
            return Err(format!(
                "profile version {} is not supported (expected {PROFILE_VERSION}): run calibrate and teach again",
                v.version
            ));
        }
        toml::from_str(text).map_err(|e| format!("corrupt station profile: {}", e.message()))
    }
}
