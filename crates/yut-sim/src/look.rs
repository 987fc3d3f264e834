//! A *look*: everything about one station that stays fixed between throws (mat,
//! floor, camera, lights, the stick set). Drawn at random from a seed, widely, so
//! that what is learned on some looks carries over to others.
//!
//! Pure and deterministic: the same seed gives the same look.

use crate::camera::Camera;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatShape {
    Circle,
    Square,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MatKind {
    Straw,
    Felt,
    Foam,
    Rubber,
    Cloth,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FloorKind {
    Tiles,
    Planks,
    Concrete,
    Carpet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MarkKind {
    Cross,
    Dot,
    Band,
    /// A 뒤-like brush glyph (ㄷ over ㅜ with a long stroke beside).
    Glyph,
}

/// A light: direction towards it, strength and how soft its shadows are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Light {
    /// Unit vector from the scene towards the light.
    pub dir: [f64; 3],
    pub intensity: f64,
    /// Penumbra width in cm (0.2 hard … 3 soft).
    pub softness: f64,
    /// Light colour multiplier (RGB).
    pub tint: [f64; 3],
}

/// How a stick set's round face is finished: the families of the generator's
/// stick sets. `Look::random` draws plain wood and bark only (the looks the
/// shipped models learned from); `Look::world` draws every family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Finish {
    /// The flat face's wood, a little to much darker.
    Plain,
    Bark,
    /// Oiled: a little darker and warmer, with a soft sheen.
    Oiled,
    /// Varnished: amber, glossy.
    Varnished,
    /// Stained dark (walnut, wenge), little sheen.
    Stained,
    /// Painted black or near-black lacquer, glossy.
    PaintedDark,
    /// Painted a colour (red, blue, green, orange …), some sheen.
    PaintedColour,
}

impl Finish {
    /// Every family, in a fixed order.
    pub const ALL: [Finish; 7] = [
        Finish::Plain,
        Finish::Bark,
        Finish::Oiled,
        Finish::Varnished,
        Finish::Stained,
        Finish::PaintedDark,
        Finish::PaintedColour,
    ];

    /// Its name on the command line (`eval --world --leave-out painted-dark`).
    pub fn name(self) -> &'static str {
        match self {
            Finish::Plain => "plain",
            Finish::Bark => "bark",
            Finish::Oiled => "oiled",
            Finish::Varnished => "varnished",
            Finish::Stained => "stained",
            Finish::PaintedDark => "painted-dark",
            Finish::PaintedColour => "painted-colour",
        }
    }
}

impl std::str::FromStr for Finish {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Finish::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Finish::ALL.iter().map(|f| f.name()).collect();
                format!("unknown finish {s:?} (one of {})", names.join(", "))
            })
    }
}

fn plain() -> Finish {
    Finish::Plain
}

/// The stick set: size and both faces' appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StickLook {
    pub length: f64,
    pub width: f64,
    pub thickness: f64,
    /// Flat face albedo (linear-ish 0..1 RGB).
    pub front: [f64; 3],
    /// Round face albedo.
    pub back: [f64; 3],
    /// Grain contrast on the flat face.
    pub grain: f64,
    /// Grain line spacing in cm.
    pub grain_period: f64,
    /// Fibre streaks / bark contrast on the round face.
    pub fibre: f64,
    /// Specular strength of the round face (sheen).
    pub sheen: f64,
    pub mark: MarkKind,
    pub mark_color: [f64; 3],
    /// Mark size factor (1 = about 3 cm).
    pub mark_size: f64,
    /// The round face's family (looks stored before families were drawn are
    /// plain or bark; they read as plain).
    #[serde(default = "plain")]
    pub finish: Finish,
}

/// One station's look.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Look {
    pub seed: u64,
    pub mat_shape: MatShape,
    pub mat_size_cm: f64,
    pub mat_kind: MatKind,
    pub mat_color: [f64; 3],
    pub mat_texture: f64,
    pub hem_color: [f64; 3],
    pub hem_width: f64,
    pub floor_kind: FloorKind,
    pub floor_color: [f64; 3],
    pub lights: Vec<Light>,
    pub ambient: f64,
    /// Window light: brightness gradient across the scene (direction, strength).
    pub gradient: ([f64; 2], f64),
    pub sticks: StickLook,
    pub camera: Camera,
    pub noise_sigma: f64,
    pub blur_sigma: f64,
    /// JPEG quality, or 0 for no compression.
    pub jpeg_quality: i32,
}

fn hsv(h: f64, s: f64, v: f64) -> [f64; 3] {
    let h = h.rem_euclid(1.0) * 6.0;
    let i = h.floor() as i32;
    let f = h - i as f64;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f)));
    match i {
        0 => [v, t, p],
        1 => [q, v, p],
        2 => [p, v, t],
        3 => [p, q, v],
        4 => [t, p, v],
        _ => [v, p, q],
    }
}

fn luma(c: [f64; 3]) -> f64 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

impl Look {
    /// A random look at the given image size.
    pub fn random(seed: u64, width: u32, height: u32) -> Look {
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x100c_5eed);
        let mat_shape = if rng.gen_bool(0.5) {
            MatShape::Circle
        } else {
            MatShape::Square
        };
        let mat_size_cm = rng.gen_range(150.0..200.0);
        let mat_kind = [
            MatKind::Straw,
            MatKind::Felt,
            MatKind::Foam,
            MatKind::Rubber,
            MatKind::Cloth,
        ][rng.gen_range(0..5)];
        let mat_color = match mat_kind {
            MatKind::Straw => hsv(
                rng.gen_range(0.08..0.14),
                rng.gen_range(0.35..0.6),
                rng.gen_range(0.55..0.8),
            ),
            MatKind::Rubber => hsv(
                rng.gen_range(0.0..1.0),
                rng.gen_range(0.0..0.3),
                rng.gen_range(0.12..0.3),
            ),
            _ => hsv(
                rng.gen_range(0.0..1.0),
                rng.gen_range(0.2..0.8),
                rng.gen_range(0.2..0.7),
            ),
        };
        let hem_factor = rng.gen_range(0.75..1.15);
        let hem_color = mat_color.map(|c| (c * hem_factor).min(1.0));
        // The floor must differ from the mat enough to see the mat's outline.
        let floor_kind = [
            FloorKind::Tiles,
            FloorKind::Planks,
            FloorKind::Concrete,
            FloorKind::Carpet,
        ][rng.gen_range(0..4)];
        let mut floor_color;
        loop {
            floor_color = hsv(
                rng.gen_range(0.0..1.0),
                rng.gen_range(0.0..0.5),
                rng.gen_range(0.15..0.9),
            );
            let d: f64 = (0..3)
                .map(|i| (floor_color[i] - mat_color[i]).powi(2))
                .sum::<f64>()
                .sqrt();
            if d > 0.22 {
                break;
            }
        }
        // Sticks: pale to dark wood, the round face a little to much darker, or bark.
        let wood = hsv(
            rng.gen_range(0.06..0.12),
            rng.gen_range(0.2..0.55),
            rng.gen_range(0.55..0.92),
        );
        let bark = rng.gen_bool(0.25);
        let back = if bark {
            hsv(
                rng.gen_range(0.05..0.1),
                rng.gen_range(0.3..0.6),
                rng.gen_range(0.2..0.45),
            )
        } else {
            let k = rng.gen_range(0.78..0.97);
            [wood[0] * k, wood[1] * k * 0.98, wood[2] * k * 0.95]
        };
        // Sticks must stand out from the mat (else no one could see them either).
        let mut front = wood;
        if (luma(front) - luma(mat_color)).abs() < 0.12
            && (luma(back) - luma(mat_color)).abs() < 0.12
        {
            front = front.map(|c| (c * 1.35).min(1.0));
        }
        let length = rng.gen_range(15.0..30.0);
        let stick_width = length * rng.gen_range(0.16..0.22);
        let thickness = stick_width * rng.gen_range(0.48..0.56);
        let mark = [
            MarkKind::Cross,
            MarkKind::Dot,
            MarkKind::Band,
            MarkKind::Glyph,
        ][rng.gen_range(0..4)];
        let mark_color = if rng.gen_bool(0.7) {
            [0.05, 0.04, 0.04]
        } else {
            hsv(rng.gen_range(0.0..1.0), 0.8, rng.gen_range(0.2..0.5))
        };
        let sticks = StickLook {
            length,
            width: stick_width,
            thickness,
            front,
            back,
            grain: rng.gen_range(0.03..0.15),
            grain_period: rng.gen_range(0.25..0.8),
            fibre: rng.gen_range(0.03..0.15),
            sheen: rng.gen_range(0.0..0.35),
            mark,
            mark_color,
            mark_size: rng.gen_range(0.8..1.3),
            finish: if bark { Finish::Bark } else { Finish::Plain },
        };
        // Lights: one to three, from overhead to a low window.
        let n_lights = rng.gen_range(1..=3);
        let mut lights = Vec::new();
        for _ in 0..n_lights {
            let el = rng.gen_range(35f64..85.0).to_radians();
            let az = rng.gen_range(0.0..std::f64::consts::TAU);
            lights.push(Light {
                dir: [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()],
                intensity: rng.gen_range(0.4..1.0) / n_lights as f64 * 1.4,
                softness: rng.gen_range(0.2..3.0),
                tint: hsv(rng.gen_range(0.05..0.6), rng.gen_range(0.0..0.15), 1.0),
            });
        }
        let dim = rng.gen_bool(0.2);
        let scale = if dim { rng.gen_range(0.35..0.6) } else { 1.0 };
        for l in &mut lights {
            l.intensity *= scale;
        }
        let ambient = rng.gen_range(0.2..0.5) * scale;
        let ga = rng.gen_range(0.0..std::f64::consts::TAU);
        let gradient = (
            [ga.cos(), ga.sin()],
            if rng.gen_bool(0.4) {
                rng.gen_range(0.1..0.4)
            } else {
                0.0
            },
        );
        // Camera: 2.2–3 m up, tilted up to 15°, the mat filling 70–92 % of the
        // short side of the image.
        let dist = rng.gen_range(220.0..300.0);
        let tilt = rng.gen_range(0f64..15.0).to_radians();
        let az = rng.gen_range(0.0..std::f64::consts::TAU);
        let yaw: f64 = rng.gen_range(-0.15..0.15);
        let extent = match mat_shape {
            MatShape::Circle => mat_size_cm / 2.0,
            MatShape::Square => mat_size_cm / 2.0 * (1.0 + yaw.abs()),
        };
        let fill = rng.gen_range(0.7..0.9);
        let f = fill * (height.min(width) as f64) / 2.0 * dist / extent / (1.0 + tilt.sin());
        let k1 = if rng.gen_bool(0.5) {
            -rng.gen_range(0.0..0.06)
        } else {
            0.0
        };
        let target = [rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0)];
        let camera = Camera::looking_at(target, dist, tilt, az, yaw, f, k1, width, height);
        let noise_sigma = if dim {
            rng.gen_range(3.0..7.0)
        } else {
            rng.gen_range(0.5..3.0)
        };
        Look {
            seed,
            mat_shape,
            mat_size_cm,
            mat_kind,
            mat_color,
            mat_texture: rng.gen_range(0.03..0.15),
            hem_color,
            hem_width: rng.gen_range(0.0..4.0),
            floor_kind,
            floor_color,
            lights,
            ambient,
            gradient,
            sticks,
            camera,
            noise_sigma,
            blur_sigma: rng.gen_range(0.0..1.2),
            jpeg_quality: if rng.gen_bool(0.6) {
                rng.gen_range(70..95)
            } else {
                0
            },
        }
    }

    /// A look drawn from the wider world (ADR 0093): a [`Look::random`] look
    /// whose stick set, mat, lights and camera are then redrawn, each from a
    /// stream of its own: every [`Finish`] of the round face, mats of any
    /// colour, hard spots and soft boxes, mixed colour temperatures, dim
    /// halls, tilts to 25° and barrel distortion to k1 = −0.2, webcam noise
    /// and JPEG. `Look::random`'s looks (the shipped models' world) are left
    /// as they were.
    pub fn world(seed: u64, width: u32, height: u32) -> Look {
        let mut look = Look::random(seed, width, height);
        let mut rng = SmallRng::seed_from_u64(seed ^ 0x0077_0e1d_0f1a_11ed);
        let finish = Finish::ALL[rng.gen_range(0..Finish::ALL.len())];
        look.restyle_sticks(finish, &mut rng);
        // Mats of any colour and brightness, the floor kept apart from them.
        if rng.gen_bool(0.5) {
            look.mat_color = hsv(
                rng.gen_range(0.0..1.0),
                rng.gen_range(0.0..0.9),
                rng.gen_range(0.1..0.85),
            );
            look.hem_color = look
                .mat_color
                .map(|c| (c * rng.gen_range(0.6..1.2)).min(1.0));
            loop {
                let d: f64 = (0..3)
                    .map(|i| (look.floor_color[i] - look.mat_color[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                if d > 0.22 {
                    break;
                }
                look.floor_color = hsv(
                    rng.gen_range(0.0..1.0),
                    rng.gen_range(0.0..0.5),
                    rng.gen_range(0.15..0.9),
                );
            }
        }
        // Lights: a hard spot, soft boxes, or mixed colour temperatures.
        match rng.gen_range(0..4) {
            0 => {
                for l in &mut look.lights {
                    l.softness = rng.gen_range(0.1..0.4);
                }
            }
            1 => {
                for l in &mut look.lights {
                    l.softness = rng.gen_range(2.5..5.0);
                }
            }
            2 => {
                let warm = hsv(rng.gen_range(0.06..0.1), rng.gen_range(0.15..0.35), 1.0);
                let cool = hsv(rng.gen_range(0.55..0.62), rng.gen_range(0.1..0.3), 1.0);
                for (i, l) in look.lights.iter_mut().enumerate() {
                    l.tint = if i % 2 == 0 { warm } else { cool };
                }
            }
            _ => {}
        }
        // Cameras: tilted to 25°, wide-angle lenses to k1 = −0.2.
        let tilt = rng.gen_range(0f64..25.0).to_radians();
        let k1 = match rng.gen_range(0..3) {
            0 => 0.0,
            1 => -rng.gen_range(0.0..0.08),
            _ => -rng.gen_range(0.08..0.2),
        };
        look.camera = look.camera.retilted(tilt, k1);
        look.noise_sigma = rng.gen_range(0.5..6.0);
        look.jpeg_quality = if rng.gen_bool(0.8) {
            rng.gen_range(60..95)
        } else {
            0
        };
        look
    }

    /// The stick set's round face (and sheen) redrawn for a family.
    fn restyle_sticks(&mut self, finish: Finish, rng: &mut SmallRng) {
        let s = &mut self.sticks;
        let wood = s.front;
        s.finish = finish;
        match finish {
            Finish::Plain => {
                let k = rng.gen_range(0.78..0.97);
                s.back = [wood[0] * k, wood[1] * k * 0.98, wood[2] * k * 0.95];
            }
            Finish::Bark => {
                s.back = hsv(
                    rng.gen_range(0.05..0.1),
                    rng.gen_range(0.3..0.6),
                    rng.gen_range(0.2..0.45),
                );
            }
            Finish::Oiled => {
                let k = rng.gen_range(0.6..0.85);
                s.back = [wood[0] * k, wood[1] * k * 0.92, wood[2] * k * 0.8];
                s.sheen = rng.gen_range(0.2..0.5);
            }
            Finish::Varnished => {
                s.back = hsv(
                    rng.gen_range(0.05..0.1),
                    rng.gen_range(0.55..0.85),
                    rng.gen_range(0.35..0.7),
                );
                s.sheen = rng.gen_range(0.5..1.0);
                s.fibre = rng.gen_range(0.02..0.08);
            }
            Finish::Stained => {
                s.back = hsv(
                    rng.gen_range(0.03..0.1),
                    rng.gen_range(0.3..0.7),
                    rng.gen_range(0.08..0.3),
                );
                s.sheen = rng.gen_range(0.0..0.25);
            }
            Finish::PaintedDark => {
                let v = rng.gen_range(0.02..0.1);
                s.back = [v, v * rng.gen_range(0.9..1.1), v * rng.gen_range(0.9..1.2)];
                s.sheen = rng.gen_range(0.3..1.0);
                s.fibre = rng.gen_range(0.0..0.03);
            }
            Finish::PaintedColour => {
                s.back = hsv(
                    rng.gen_range(0.0..1.0),
                    rng.gen_range(0.5..0.95),
                    rng.gen_range(0.25..0.8),
                );
                s.sheen = rng.gen_range(0.1..0.7);
                s.fibre = rng.gen_range(0.0..0.03);
            }
        }
    }

    /// Whether a mat-plane point lies on the mat.
    pub fn on_mat(&self, p: [f64; 2]) -> bool {
        let h = self.mat_size_cm / 2.0;
        match self.mat_shape {
            MatShape::Circle => p[0].hypot(p[1]) <= h,
            MatShape::Square => p[0].abs() <= h && p[1].abs() <= h,
        }
    }

    /// Signed distance from the mat edge (positive inside).
    pub fn inside_by(&self, p: [f64; 2]) -> f64 {
        let h = self.mat_size_cm / 2.0;
        match self.mat_shape {
            MatShape::Circle => h - p[0].hypot(p[1]),
            MatShape::Square => (h - p[0].abs()).min(h - p[1].abs()),
        }
    }

    /// The `--mat` argument describing this look's mat (`circle:160`).
    pub fn mat_arg(&self) -> String {
        let shape = match self.mat_shape {
            MatShape::Circle => "circle",
            MatShape::Square => "square",
        };
        format!("{shape}:{:.1}", self.mat_size_cm)
    }
}
