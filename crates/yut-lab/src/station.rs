//! Generated stations: a look's empty mat rendered, calibrated and its three
//! stick pictures taught (in one shot or more), as a crew would set up a
//! station with `/calibrate`. The demo's rendered camera, `eval` and the vision
//! tests all start from here.

use opencv::core::Mat;
use yut_sim::{Look, Renderer, Scene};
use yut_vision::calibrate::{calibrate, MatSpec};
use yut_vision::classify::Classifier;
use yut_vision::Detector;

/// The station set up for a look, as a crew would with `/calibrate`: calibrate the
/// empty mat, teach the three stick pictures.
pub fn simulated_detector(look: &Look, classifier: Classifier) -> anyhow::Result<Detector> {
    Ok(simulated_station(look, classifier, 1)?.detector)
}

/// A generated station, as set up.
pub struct SimulatedStation {
    pub detector: Detector,
    /// The measured sticks of the first teaching shot.
    pub set: yut_vision::TeachSet,
    /// Those of the further shots.
    pub more: Vec<yut_vision::TeachSet>,
}

/// A generated station taught in `shots` shots (at least one): after the
/// first, the crew moves and turns the sticks and shoots again
/// (`yut_sim::teach_scene_shot`), as the station asks a crew to where it
/// reads with its own taught reader (`teach_notes`).
pub fn simulated_station(
    look: &Look,
    classifier: Classifier,
    shots: u64,
) -> anyhow::Result<SimulatedStation> {
    set_up_station(&Renderer::new(look), classifier, shots)
}

/// [`simulated_station`] with the look's renderer, which the caller goes on
/// rendering the look's throws with.
pub fn set_up_station(
    renderer: &Renderer,
    classifier: Classifier,
    shots: u64,
) -> anyhow::Result<SimulatedStation> {
    let look = renderer.look();
    let bgr = |scene: &Scene| -> anyhow::Result<Mat> { Ok(renderer.render(scene).to_bgr_mat()?) };
    let empty = bgr(&yut_sim::empty_scene(look))?;
    let spec: MatSpec = look.mat_arg().parse().map_err(anyhow::Error::msg)?;
    let cal = calibrate(&empty, spec).map_err(|e| anyhow::anyhow!("calibrate: {e}"))?;
    let shot_pictures = (0..shots.max(1))
        .map(|shot| {
            let teach = |w: &str| bgr(&yut_sim::teach_scene_shot(look, w, shot));
            Ok([teach("front")?, teach("back")?, teach("marked")?])
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let shot_refs: Vec<[&Mat; 3]> = shot_pictures.iter().map(|[f, b, m]| [f, b, m]).collect();
    // A station reading with a model refuses a stick set it cannot read, as
    // `teach` does; the stations that render training throws read with the
    // taught-faces rule and learn from every look.
    let checked_by = (!classifier.is_taught_rule()).then_some(&classifier);
    let t = yut_vision::teach(&cal, &empty, &shot_refs, checked_by)
        .map_err(|e| anyhow::anyhow!("teach: {e}"))?;
    Ok(SimulatedStation {
        detector: Detector::new(t.calibration, t.taught, empty, classifier)?,
        set: t.set,
        more: t.more,
    })
}

/// A look's scene rendered as an OpenCV BGR picture.
pub fn render(look: &Look, scene: &Scene) -> anyhow::Result<Mat> {
    Ok(yut_sim::render(look, scene).to_bgr_mat()?)
}
