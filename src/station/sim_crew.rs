//! The rendered set-up crew, for the demo and the tests: what they put in front
//! of a rendered camera at each step of setting a station up (the lens target
//! held at an arm's length in the middle, near each corner and each edge; the
//! empty mat; the sticks laid for teaching, moved and turned for each further
//! shot; a test throw) and a bumped camera.
//!
//! Pure: scenes and poses from a look; `sim_camera` renders them.

use std::sync::Mutex;
use yut_sim::{Camera, GreyPicture, Look, Sheet};
use yut_vision::lens::{LensTarget, Paper};

/// What the crew shows the camera.
#[derive(Debug, Clone, PartialEq)]
pub enum Shows {
    /// The lens target held at the `n`th place ([`yut_sim::SheetPose::crew_holds`]).
    Target(usize),
    /// The empty mat.
    EmptyMat,
    /// The sticks laid for teaching: `front`, `back` or `marked`, in the
    /// places of shot `shot` (0 the first; each further shot moved and turned).
    Teach { which: &'static str, shot: u64 },
    /// Two of the sticks laid touching in the teaching picture.
    TeachTouching { which: &'static str },
    /// A throw at rest (seed).
    Throw(u64),
    /// What the crew shows, out of focus (a Gaussian blur of 4 px).
    Blurred(Box<Shows>),
    /// Throws whenever the match says one is due (the match is on).
    Match,
}

/// The crew in front of a rendered camera: what they show now, and what the
/// camera last sent a frame of (so a test knows the station has seen it).
#[derive(Debug)]
pub struct Crew {
    shows: Mutex<Shows>,
    sent: Mutex<Option<Shows>>,
}

impl Crew {
    pub fn new(shows: Shows) -> Crew {
        Crew {
            shows: Mutex::new(shows),
            sent: Mutex::new(None),
        }
    }

    pub fn show(&self, shows: Shows) {
        if let Ok(mut s) = self.shows.lock() {
            *s = shows;
        }
    }

    pub fn shows(&self) -> Shows {
        self.shows
            .lock()
            .map(|s| s.clone())
            .unwrap_or(Shows::EmptyMat)
    }

    /// What the camera last sent a frame of.
    pub fn sent(&self) -> Option<Shows> {
        self.sent.lock().ok().and_then(|s| s.clone())
    }

    pub(crate) fn mark_sent(&self, shows: &Shows) {
        if let Ok(mut s) = self.sent.lock() {
            if s.as_ref() != Some(shows) {
                *s = Some(shows.clone());
            }
        }
    }
}

/// The printed target as the renderer shows it (4 px per mm).
pub fn target_sheet(paper: Paper) -> opencv::Result<Sheet> {
    let target = LensTarget::new(paper)
        .map_err(|e| opencv::Error::new(opencv::core::StsError, e.to_string()))?;
    let (width, height, data) = target.picture(4.0);
    let [w, h] = paper.size_mm();
    Ok(Sheet {
        picture: GreyPicture {
            width,
            height,
            data,
        },
        size_cm: [w / 10.0, h / 10.0],
    })
}

/// The camera after a knock on the tripod: turned `degrees` about its own
/// axis and shifted `shift_cm` sideways.
pub fn bumped(cam: &Camera, degrees: f64, shift_cm: f64) -> Camera {
    let a = degrees.to_radians();
    let (c, s) = (a.cos(), a.sin());
    let [x, y, z] = cam.rot;
    let turn = |u: [f64; 3], v: [f64; 3]| -> [f64; 3] {
        [
            c * u[0] + s * v[0],
            c * u[1] + s * v[1],
            c * u[2] + s * v[2],
        ]
    };
    let rot = [turn(x, y), turn(y, [-x[0], -x[1], -x[2]]), z];
    let mut moved = *cam;
    moved.rot = rot;
    moved.pos = [
        cam.pos[0] + x[0] * shift_cm,
        cam.pos[1] + x[1] * shift_cm,
        cam.pos[2] + x[2] * shift_cm,
    ];
    moved
}

/// A look whose camera was bumped.
pub fn bumped_look(look: &Look) -> Look {
    let mut l = look.clone();
    l.camera = bumped(&look.camera, 3.0, 12.0);
    l
}
