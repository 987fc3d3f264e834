//! yutstation: the station's shell around the pure crates of the workspace.
//!
//! Everything here does I/O or owns a thread: frame sources ([`capture`]), the
//! sensor's serial link ([`sensor`]), the journal's store ([`journal`]) and the
//! running station with its web server ([`station`]), and the tournament office
//! over MQTT ([`office`]). The rules (`yut_rules`), the
//! match (`yut_match`), the sensor protocol (`yut_sensor`) and the vision
//! (`yut_vision`) are pure crates below it; the lab (`yut_lab`) and the renderer
//! (`yut_sim`) give the demo its rendered station. No game logic lives here;
//! [`text`] holds the pure helpers that put times and people's text on a terminal;
//! [`camera`] the pure choices for a live camera (its format, its controls to
//! lock), and `camera_live` (the `camera` feature) the camera itself.
//! See `ARCHITECTURE.md` for the map.

pub mod camera;
#[cfg(feature = "camera")]
pub mod camera_live;
pub mod capture;
pub mod journal;
pub mod office;
pub mod sensor;
pub mod station;
pub mod text;
