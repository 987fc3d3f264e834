//! Scenes (stick poses on a look) and their ground truth, including the hard
//! cases the station must refer rather than guess.
//!
//! Pure and deterministic: the same seeds give the same scene.

use crate::look::Look;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::f64::consts::{FRAC_PI_2, PI};
use yut_rules::yut::ThrowResult;

/// One stick's pose. Roll 0 = flat face up, π = round face up; pitch tilts the
/// long axis (resting one end on another stick); `z` is its lowest point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StickPose {
    pub center: [f64; 2],
    pub yaw: f64,
    pub roll: f64,
    pub pitch: f64,
    pub z: f64,
    pub marked: bool,
    /// Per-stick albedo multiplier (each stick has its own tint).
    pub tint: f64,
    /// Per-stick grain phase.
    pub grain_offset: f64,
}

/// A hand (collecting sticks), drawn over everything.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hand {
    pub center: [f64; 2],
    pub yaw: f64,
}

/// What one image shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scene {
    pub sticks: Vec<StickPose>,
    pub hand: Option<Hand>,
    /// Seed for per-image sensor noise.
    pub noise_seed: u64,
}

/// The hard cases of the issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HardCase {
    None,
    Touching,
    Crossing,
    Resting,
    OnEdge,
    Leaning,
    OnLine,
    OffMat,
}

impl HardCase {
    pub const ALL: [HardCase; 8] = [
        HardCase::None,
        HardCase::Touching,
        HardCase::Crossing,
        HardCase::Resting,
        HardCase::OnEdge,
        HardCase::Leaning,
        HardCase::OnLine,
        HardCase::OffMat,
    ];

    /// Every case but the plain throw (`train --hard-cases`). Checked when
    /// compiled: `ALL` starts with the plain throw.
    pub const HARD: &'static [HardCase] = match Self::ALL.split_first() {
        Some((HardCase::None, rest)) => rest,
        _ => panic!("HardCase::ALL must start with the plain throw"),
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TruthFace {
    Front,
    Back,
    Ambiguous,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TruthPlacement {
    OnMat,
    OnLine,
    OffMat,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StickTruth {
    pub face: TruthFace,
    /// n·ẑ of the flat face's outward normal.
    pub up: f64,
    pub marked: bool,
    pub placement: TruthPlacement,
    pub center_px: [f64; 2],
    pub center_cm: [f64; 2],
    pub angle_deg: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThrowTruth {
    pub result: ThrowResult,
    pub ambiguous: bool,
    /// Exactly one stick lies flat face up and another lies over its middle,
    /// where a mark is: no camera can see whether it is the marked stick, so
    /// 도 and 뒷도 look alike. The station must refer such a throw
    /// ([`ThrowTruth::to_refer`]; stored sets from before this was kept read
    /// false).
    #[serde(default)]
    pub mark_covered: bool,
    pub case: HardCase,
    pub sticks: Vec<StickTruth>,
}

impl ThrowTruth {
    /// Whether a station must refer this throw to the referee: ambiguous by
    /// the rules (a stick on its edge, leaning, on the line), or a 도 or 뒷도
    /// whose deciding mark lies under another stick, which no camera sees.
    pub fn to_refer(&self) -> bool {
        self.ambiguous || self.mark_covered
    }
}

impl StickPose {
    /// n·ẑ of the flat face's outward normal.
    pub fn up(&self) -> f64 {
        self.roll.cos() * self.pitch.cos()
    }

    /// Half length and half width of the footprint seen from above (cm).
    pub fn half_extent(&self, look: &Look) -> (f64, f64) {
        let s = &look.sticks;
        let w = (s.width * self.roll.cos()).abs() + (s.thickness * self.roll.sin()).abs();
        (s.length * self.pitch.cos() / 2.0, w.max(s.thickness) / 2.0)
    }

    /// Whether a mat-plane point lies in the footprint seen from above.
    pub fn covers(&self, look: &Look, p: [f64; 2]) -> bool {
        let (hl, hw) = self.half_extent(look);
        let (c, s) = (self.yaw.cos(), self.yaw.sin());
        let (dx, dy) = (p[0] - self.center[0], p[1] - self.center[1]);
        (dx * c + dy * s).abs() <= hl && (-dx * s + dy * c).abs() <= hw
    }

    /// The footprint's corners on the mat plane.
    pub fn corners(&self, look: &Look) -> [[f64; 2]; 4] {
        let (hl, hw) = self.half_extent(look);
        let (c, s) = (self.yaw.cos(), self.yaw.sin());
        let mut out = [[0.0; 2]; 4];
        for (i, (a, b)) in [(hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw)]
            .into_iter()
            .enumerate()
        {
            out[i] = [
                self.center[0] + a * c - b * s,
                self.center[1] + a * s + b * c,
            ];
        }
        out
    }
}

fn rects_overlap(a: &[[f64; 2]; 4], b: &[[f64; 2]; 4], margin: f64) -> bool {
    // Separating axis test on the two rectangles' edge normals.
    for poly in [a, b] {
        for i in 0..2 {
            let e = [poly[i + 1][0] - poly[i][0], poly[i + 1][1] - poly[i][1]];
            let n = e[1].hypot(e[0]);
            let axis = [-e[1] / n, e[0] / n];
            let proj = |p: &[[f64; 2]; 4]| {
                let v: Vec<f64> = p.iter().map(|q| q[0] * axis[0] + q[1] * axis[1]).collect();
                (
                    v.iter().cloned().fold(f64::MAX, f64::min),
                    v.iter().cloned().fold(f64::MIN, f64::max),
                )
            };
            let (a0, a1) = proj(a);
            let (b0, b1) = proj(b);
            if a1 + margin < b0 || b1 + margin < a0 {
                return false;
            }
        }
    }
    true
}

/// The ground truth of a scene on a look.
pub fn truth(look: &Look, scene: &Scene, case: HardCase) -> ThrowTruth {
    let mut sticks = Vec::new();
    for p in &scene.sticks {
        let up = p.up();
        let face = if up > 0.5 {
            TruthFace::Front
        } else if up < -0.5 {
            TruthFace::Back
        } else {
            TruthFace::Ambiguous
        };
        let placement = if !look.on_mat(p.center) {
            TruthPlacement::OffMat
        } else if p.corners(look).iter().any(|c| !look.on_mat(*c)) {
            TruthPlacement::OnLine
        } else {
            TruthPlacement::OnMat
        };
        let (_, hw) = p.half_extent(look);
        let mid = [
            p.center[0],
            p.center[1],
            p.z + hw.min(look.sticks.thickness / 2.0),
        ];
        let center_px = look.camera.project(mid).unwrap_or([f64::NAN; 2]);
        let (hl, _) = p.half_extent(look);
        let a = look
            .camera
            .project([
                p.center[0] + hl * p.yaw.cos(),
                p.center[1] + hl * p.yaw.sin(),
                mid[2],
            ])
            .unwrap_or(center_px);
        // Image y points down: counter-clockwise as viewed is -dy.
        let angle_deg = (-(a[1] - center_px[1]))
            .atan2(a[0] - center_px[0])
            .to_degrees()
            .rem_euclid(180.0);
        sticks.push(StickTruth {
            face,
            up,
            marked: p.marked,
            placement,
            center_px,
            center_cm: p.center,
            angle_deg,
        });
    }
    let fronts = sticks.iter().filter(|s| s.up > 0.0).count() as u8;
    let marked_up = sticks.iter().any(|s| s.marked && s.up > 0.0);
    let result = if sticks.iter().any(|s| s.placement == TruthPlacement::OffMat) {
        ThrowResult::Nak
    } else {
        ThrowResult::from_sticks(fronts, marked_up).unwrap_or(ThrowResult::Nak)
    };
    let ambiguous = sticks
        .iter()
        .any(|s| s.face == TruthFace::Ambiguous || s.placement == TruthPlacement::OnLine);
    ThrowTruth {
        result,
        ambiguous,
        mark_covered: mark_covered(look, scene),
        case,
        sticks,
    }
}

/// Whether the one stick lying flat face up (if exactly one does) has another
/// stick lying over its middle (see `ThrowTruth::mark_covered`).
fn mark_covered(look: &Look, scene: &Scene) -> bool {
    let flat: Vec<&StickPose> = scene.sticks.iter().filter(|p| p.up() > 0.0).collect();
    let [f] = flat.as_slice() else {
        return false;
    };
    scene
        .sticks
        .iter()
        .any(|o| o.z > f.z && o.covers(look, f.center))
}

fn flat_roll(rng: &mut SmallRng, front: bool) -> f64 {
    let jitter = rng.gen_range(-0.08..0.08);
    if front {
        jitter
    } else {
        PI + jitter
    }
}

fn base_pose(rng: &mut SmallRng, center: [f64; 2], front: bool, marked: bool) -> StickPose {
    StickPose {
        center,
        yaw: rng.gen_range(0.0..PI),
        roll: flat_roll(rng, front),
        pitch: 0.0,
        z: 0.0,
        marked,
        tint: rng.gen_range(0.93..1.07),
        grain_offset: rng.gen_range(0.0..100.0),
    }
}

fn in_view(look: &Look, p: &StickPose) -> bool {
    let cam = &look.camera;
    p.corners(look)
        .iter()
        .all(|c| match cam.project([c[0], c[1], 0.0]) {
            Some(px) => {
                px[0] > 8.0
                    && px[1] > 8.0
                    && px[0] < cam.width as f64 - 8.0
                    && px[1] < cam.height as f64 - 8.0
            }
            None => false,
        })
}

/// Throw `k` of a look as `yutstation eval` and `yutstation simulate` render
/// it (throw 0 first): the one numbering of a look's throws, so a throw named
/// in a report (look 1005677, throw 32) can be rendered again anywhere.
pub fn numbered_throw(look: &Look, k: u64) -> (Scene, ThrowTruth) {
    throw_scene(look, k * 7919 + 13, None)
}

/// A random throw on a look. `case` forces a hard case; `None` draws one (about
/// half of all throws are plain).
pub fn throw_scene(look: &Look, seed: u64, case: Option<HardCase>) -> (Scene, ThrowTruth) {
    let mut rng = SmallRng::seed_from_u64(seed ^ look.seed.rotate_left(17) ^ 0x7407);
    let case = case.unwrap_or_else(|| {
        let r: f64 = rng.gen();
        match r {
            r if r < 0.5 => HardCase::None,
            r if r < 0.58 => HardCase::Touching,
            r if r < 0.65 => HardCase::Crossing,
            r if r < 0.72 => HardCase::Resting,
            r if r < 0.79 => HardCase::OnEdge,
            r if r < 0.86 => HardCase::Leaning,
            r if r < 0.93 => HardCase::OnLine,
            _ => HardCase::OffMat,
        }
    });
    let s = look.sticks.clone();
    let half = look.mat_size_cm / 2.0;
    let spread = (half - s.length * 0.6) * 0.75;
    let fronts: Vec<bool> = (0..4).map(|_| rng.gen_bool(0.5)).collect();
    let marked_index = rng.gen_range(0..4);
    for _attempt in 0..400 {
        let mut sticks: Vec<StickPose> = Vec::new();
        let mut ok = true;
        // Index of the stick the hard case is about (placed last).
        #[allow(clippy::needless_range_loop)]
        for i in 0..4 {
            let marked = i == marked_index;
            let special = i == 3 && case != HardCase::None;
            let pose = if !special {
                let c = [
                    rng.gen_range(-spread..spread),
                    rng.gen_range(-spread..spread),
                ];
                base_pose(&mut rng, c, fronts[i], marked)
            } else {
                let anchor = sticks[rng.gen_range(0..3)];
                let mut p = base_pose(&mut rng, [0.0, 0.0], fronts[i], marked);
                let (ax, ay) = (anchor.yaw.cos(), anchor.yaw.sin());
                let (nx, ny) = (-ay, ax);
                match case {
                    HardCase::Touching => {
                        p.yaw = anchor.yaw + rng.gen_range(-0.05..0.05);
                        let side = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                        let off = s.width * rng.gen_range(1.0..1.06) * side;
                        let along = rng.gen_range(-0.35..0.35) * s.length;
                        p.center = [
                            anchor.center[0] + nx * off + ax * along,
                            anchor.center[1] + ny * off + ay * along,
                        ];
                    }
                    HardCase::Crossing => {
                        p.yaw = anchor.yaw + rng.gen_range(0.5..(PI - 0.5));
                        let along = rng.gen_range(-0.25..0.25) * s.length;
                        p.center = [anchor.center[0] + ax * along, anchor.center[1] + ay * along];
                        p.z = s.thickness;
                        p.pitch = rng.gen_range(0.0..0.06);
                    }
                    HardCase::Resting => {
                        // One end up on the anchor, the other on the mat.
                        p.yaw = anchor.yaw + rng.gen_range(0.6..(PI - 0.6));
                        p.pitch = (s.thickness / (s.length * 0.8)).asin();
                        p.z = s.thickness * 0.5;
                        let (px, py) = (p.yaw.cos(), p.yaw.sin());
                        let d = s.length * 0.4;
                        p.center = [anchor.center[0] + px * d, anchor.center[1] + py * d];
                    }
                    HardCase::OnEdge | HardCase::Leaning => {
                        let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                        p.roll = if case == HardCase::OnEdge {
                            sign * (FRAC_PI_2 + rng.gen_range(-0.2..0.2))
                        } else {
                            // leaning against the anchor: |n·z| well under 0.5
                            let r = rng.gen_range(1.2..1.9);
                            sign * if rng.gen_bool(0.5) { r } else { PI - r }
                        };
                        p.yaw = anchor.yaw + rng.gen_range(-0.1..0.1);
                        let side = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                        let off = (s.width / 2.0 + s.thickness * 0.6) * side;
                        let along = rng.gen_range(-0.3..0.3) * s.length;
                        p.center = [
                            anchor.center[0] + nx * off + ax * along,
                            anchor.center[1] + ny * off + ay * along,
                        ];
                        if case == HardCase::OnEdge && rng.gen_bool(0.5) {
                            // Alone on the mat, on its edge.
                            p.center = [
                                rng.gen_range(-spread..spread),
                                rng.gen_range(-spread..spread),
                            ];
                        }
                    }
                    HardCase::OnLine => {
                        let t = rng.gen_range(0.0..std::f64::consts::TAU);
                        let r = half - rng.gen_range(1.5..(s.length * 0.3));
                        p.center = match look.mat_shape {
                            super::look::MatShape::Circle => [r * t.cos(), r * t.sin()],
                            super::look::MatShape::Square => {
                                let along = rng.gen_range(-half * 0.8..half * 0.8);
                                match rng.gen_range(0..4) {
                                    0 => [r, along],
                                    1 => [-r, along],
                                    2 => [along, r],
                                    _ => [along, -r],
                                }
                            }
                        };
                        p.yaw = rng.gen_range(0.0..PI);
                    }
                    HardCase::OffMat => {
                        let t = rng.gen_range(0.0..std::f64::consts::TAU);
                        let r = half + rng.gen_range(2.0..(s.length * 0.9));
                        p.center = match look.mat_shape {
                            super::look::MatShape::Circle => [r * t.cos(), r * t.sin()],
                            super::look::MatShape::Square => {
                                let along = rng.gen_range(-half * 0.8..half * 0.8);
                                match rng.gen_range(0..4) {
                                    0 => [r, along],
                                    1 => [-r, along],
                                    2 => [along, r],
                                    _ => [along, -r],
                                }
                            }
                        };
                    }
                    HardCase::None => unreachable!(),
                }
                p
            };
            // Plain sticks: clearly inside, apart from the others.
            let corners = pose.corners(look);
            if !special {
                if corners.iter().any(|c| look.inside_by(*c) < 2.0) {
                    ok = false;
                }
                if sticks
                    .iter()
                    .any(|o| rects_overlap(&o.corners(look), &corners, 1.0))
                {
                    ok = false;
                }
            } else {
                let min_in = corners
                    .iter()
                    .map(|c| look.inside_by(*c))
                    .fold(f64::MAX, f64::min);
                let centre_in = look.inside_by(pose.center);
                let clear = match case {
                    // Decisions must not hinge on a millimetre: keep truth clear
                    // of the line by 1.5 cm either way.
                    HardCase::OnLine => centre_in > 1.5 && min_in < -1.5,
                    HardCase::OffMat => centre_in < -1.5,
                    _ => min_in > 2.0,
                };
                if !clear {
                    ok = false;
                }
                // The special stick may touch its anchor, never the others.
                let overlapping = sticks
                    .iter()
                    .filter(|o| rects_overlap(&o.corners(look), &corners, 0.5))
                    .count();
                let allowed = matches!(
                    case,
                    HardCase::Touching
                        | HardCase::Crossing
                        | HardCase::Resting
                        | HardCase::Leaning
                        | HardCase::OnEdge
                );
                if overlapping > usize::from(allowed) {
                    ok = false;
                }
            }
            if !in_view(look, &pose) {
                ok = false;
            }
            if !ok {
                break;
            }
            sticks.push(pose);
        }
        if ok {
            // The special stick was placed last; shuffle so order says nothing.
            let order = rng.gen_range(0..4);
            sticks.swap(3, order);
            let scene = Scene {
                sticks,
                hand: None,
                noise_seed: rng.gen(),
            };
            let t = truth(look, &scene, case);
            return (scene, t);
        }
    }
    // Could not place this case on this look (tiny view?): fall back to plain.
    throw_scene(look, seed.wrapping_add(0x1000), Some(HardCase::None))
}

/// The empty mat of a look, as a station's calibration photographs it.
pub fn empty_scene(look: &Look) -> Scene {
    Scene {
        sticks: vec![],
        hand: None,
        noise_seed: look.seed ^ 0xe,
    }
}

/// The three teach pictures' scenes, in the same places: all flat faces up
/// (`front`), all round faces up (`back`), only the marked stick flat up.
pub fn teach_scene(look: &Look, which: &str) -> Scene {
    let mut rng = SmallRng::seed_from_u64(look.seed ^ 0x7eac);
    let d = look.mat_size_cm * 0.2;
    let places = [[-d, -d], [d, -d], [-d, d], [d, d]];
    let sticks = places
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let marked = i == 1;
            let front = match which {
                "front" => true,
                "back" => false,
                _ => marked,
            };
            let mut p = base_pose(&mut rng, *c, front, marked);
            p.roll = if front { 0.0 } else { PI };
            p
        })
        .collect();
    Scene {
        sticks,
        hand: None,
        noise_seed: rng.gen::<u64>() ^ which.len() as u64,
    }
}

/// [`teach_scene`] for a further teaching shot: the sticks moved round the
/// mat's centre by a turn of about a third and each turned anew (shot 0 is
/// `teach_scene` itself), as a crew moves and turns them to shoot again.
pub fn teach_scene_shot(look: &Look, which: &str, shot: u64) -> Scene {
    let mut scene = teach_scene(look, which);
    if shot == 0 {
        return scene;
    }
    let mut rng = SmallRng::seed_from_u64(look.seed ^ 0x5407 ^ shot.wrapping_mul(0x9e37));
    let a = 2.1 * shot as f64;
    let (c, s) = (a.cos(), a.sin());
    for p in &mut scene.sticks {
        let [x, y] = p.center;
        p.center = [x * c - y * s, x * s + y * c];
        p.yaw = rng.gen_range(0.0..PI);
    }
    scene.noise_seed ^= shot;
    scene
}

/// [`teach_scene`] with two of the sticks laid touching side by side (a
/// teaching picture the station must refuse).
pub fn teach_scene_touching(look: &Look, which: &str) -> Scene {
    let mut scene = teach_scene(look, which);
    let (a, b) = (scene.sticks[0], &mut scene.sticks[2]);
    let w = look.sticks.width;
    b.yaw = a.yaw;
    b.center = [
        a.center[0] - a.yaw.sin() * w * 0.98,
        a.center[1] + a.yaw.cos() * w * 0.98,
    ];
    scene
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(center: [f64; 2], yaw: f64, front: bool, z: f64) -> StickPose {
        StickPose {
            center,
            yaw,
            roll: if front { 0.0 } else { PI },
            pitch: 0.0,
            z,
            marked: false,
            tint: 1.0,
            grain_offset: 0.0,
        }
    }

    #[test]
    fn the_one_flat_face_under_another_stick_has_its_mark_covered() {
        let look = Look::random(1, 1280, 720);
        let t = look.sticks.thickness;
        let far = |x: f64| pose([x, 50.0], 0.0, false, 0.0);
        let scene = |sticks: Vec<StickPose>| Scene {
            sticks,
            hand: None,
            noise_seed: 0,
        };
        // The flat one under a round one that crosses its middle.
        let under = scene(vec![
            pose([0.0, 0.0], 0.0, true, 0.0),
            pose([0.0, 0.0], 1.2, false, t),
            far(-40.0),
            far(40.0),
        ]);
        assert!(mark_covered(&look, &under));
        // The flat one on top: its mark shows.
        let on_top = scene(vec![
            pose([0.0, 0.0], 0.0, false, 0.0),
            pose([0.0, 0.0], 1.2, true, t),
            far(-40.0),
            far(40.0),
        ]);
        assert!(!mark_covered(&look, &on_top));
        // Crossed away from its middle.
        let l = look.sticks.length;
        let aside = scene(vec![
            pose([0.0, 0.0], 0.0, true, 0.0),
            pose([0.4 * l, 0.0], 1.2, false, t),
            far(-40.0),
            far(40.0),
        ]);
        assert!(!mark_covered(&look, &aside));
        // Two flat faces: the mark decides nothing.
        let two = scene(vec![
            pose([0.0, 0.0], 0.0, true, 0.0),
            pose([0.0, 0.0], 1.2, false, t),
            pose([-40.0, 50.0], 0.0, true, 0.0),
            far(40.0),
        ]);
        assert!(!mark_covered(&look, &two));
    }
}
