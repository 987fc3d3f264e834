//! The seam between the station's tasks and its web server: the newest published
//! state, a channel of requests (commands, calibration steps) with replies, the newest
//! live camera picture, and read access to evidence. The server holds a [`Hub`] and
//! nothing else of the station; it holds no game logic.
//!
//! Shell: channels and shared state.

use super::command::Command;
use crate::journal::EvidenceStore;
use serde::Serialize;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, watch};

/// One published state: what every viewer is sent.
#[derive(Debug, Clone, Default)]
pub struct Published {
    /// Increases with every change (not with heartbeats).
    pub seq: u64,
    /// The state as JSON (`docs/station-api.md`, "State"), serialised once for all
    /// viewers.
    pub state_json: Arc<str>,
    /// The newest call, as JSON (the `call` message's body), and the seq of the
    /// change that made it. Later changes carry it on, so a viewer whose session
    /// skipped that change (a newer one, such as new win chances, replaced it before
    /// the session read it) is still sent the call, once.
    pub call_json: Option<Arc<str>>,
    pub call_seq: u64,
}

/// A step of the set-up wizard (`POST /api/calibrate/{step}`), in order: the
/// lens (optional: pictures of the target, then the fit), the empty mat, the
/// sticks (flat faces, round faces, the marked stick; again for each further
/// shot), a test throw, save. `recheck` sets a moved camera up again;
/// `done` is only ever a reply's next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalibrateStep {
    Lens,
    LensFit,
    Empty,
    Front,
    Back,
    Marked,
    Throw,
    Save,
    Recheck,
    Done,
}

/// One check of a calibration step (light, focus, mat size, ...).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

/// The answer to a calibration step. A refused step (`ok` false) changes
/// nothing: the wizard's earlier steps and the station's profile stay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibrateReply {
    pub ok: bool,
    /// What was found or what is wrong, in the crew's words.
    pub message: String,
    pub checks: Vec<Check>,
    /// The step to take next, where the step was done.
    pub next: Option<CalibrateStep>,
    /// A picture to show with the answer (the taught sticks outlined, the
    /// test throw judged), as a `data:` URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
}

/// What the web server asks of the station.
#[derive(Debug)]
pub enum Request {
    /// A referee command, by `by` (the name given at login). The reply is the
    /// journal id of the entry, or the reason it was refused (one line).
    Command {
        by: String,
        command: Command,
        reply: oneshot::Sender<Result<i64, String>>,
    },
    /// A calibration step; `mat` is the mat spec for [`CalibrateStep::Empty`],
    /// with the camera's height above the mat where the crew measured it.
    Calibrate {
        by: String,
        step: CalibrateStep,
        mat: Option<String>,
        camera_height_cm: Option<f64>,
        reply: oneshot::Sender<CalibrateReply>,
    },
}

/// Everything the web server may use.
#[derive(Clone)]
pub struct Hub {
    pub published: watch::Receiver<Arc<Published>>,
    pub requests: mpsc::Sender<Request>,
    /// The newest camera picture with overlays, JPEG; `None` before the first frame.
    pub live: watch::Receiver<Option<Arc<[u8]>>>,
    /// Evidence blobs by hash (read only).
    pub evidence: Arc<EvidenceStore>,
    /// The referee PIN.
    pub pin: Arc<str>,
    /// The win chances, the line over the game and the stick fairness, as the
    /// insight task last worked them out.
    pub insight: watch::Receiver<Arc<super::insight::Insight>>,
}

impl Hub {
    /// Send a command and wait for its reply.
    pub async fn command(&self, by: &str, command: Command) -> Result<i64, String> {
        let (reply, answer) = oneshot::channel();
        self.requests
            .send(Request::Command {
                by: by.to_string(),
                command,
                reply,
            })
            .await
            .map_err(|_| "the station is shutting down".to_string())?;
        answer
            .await
            .map_err(|_| "the station is shutting down".to_string())?
    }

    /// Run a calibration step and wait for its reply.
    pub async fn calibrate(
        &self,
        by: &str,
        step: CalibrateStep,
        mat: Option<String>,
        camera_height_cm: Option<f64>,
    ) -> CalibrateReply {
        let (reply, answer) = oneshot::channel();
        let down = || CalibrateReply {
            ok: false,
            message: "the station is shutting down".into(),
            checks: vec![],
            next: None,
            picture: None,
        };
        if self
            .requests
            .send(Request::Calibrate {
                by: by.to_string(),
                step,
                mat,
                camera_height_cm,
                reply,
            })
            .await
            .is_err()
        {
            return down();
        }
        answer.await.unwrap_or_else(|_| down())
    }
}
