//! Generated stations: a look's empty mat rendered, calibrated and its three
//! stick pictures taught, as a crew would set up a station with `/calibrate`. The
//! demo's rendered camera, `eval` and the vision tests all start from here.

use opencv::core::Mat;
use yut_sim::{Look, Scene};
use yut_vision::calibrate::{calibrate, MatSpec};
use yut_vision::classify::Classifier;
use yut_vision::Detector;

/// The station set up for a look, as a crew would with `/calibrate`: calibrate the
/// empty mat, teach the three stick pictures.
pub fn simulated_detector(look: &Look, classifier: Classifier) -> anyhow::Result<Detector> {
    Ok(simulated_station(look, classifier)?.0)
}

/// A generated station's detector and the measured sticks it was taught with.
pub fn simulated_station(
    look: &Look,
    classifier: Classifier,
) -> anyhow::Result<(Detector, yut_vision::TeachSet)> {
    let empty = render(look, &yut_sim::empty_scene(look))?;
    let spec: MatSpec = look.mat_arg().parse().map_err(anyhow::Error::msg)?;
    let cal = calibrate(&empty, spec).map_err(|e| anyhow::anyhow!("calibrate: {e}"))?;
    let teach = |w: &str| render(look, &yut_sim::teach_scene(look, w));
    // A station reading with a model refuses a stick set it cannot read, as
    // `teach` does; the stations that render training throws read with the
    // taught-faces rule and learn from every look.
    let checked_by = (!classifier.is_taught_rule()).then_some(&classifier);
    let t = yut_vision::teach(
        &cal,
        &empty,
        &[[&teach("front")?, &teach("back")?, &teach("marked")?]],
        checked_by,
    )
    .map_err(|e| anyhow::anyhow!("teach: {e}"))?;
    Ok((
        Detector::new(t.calibration, t.taught, empty, classifier)?,
        t.set,
    ))
}

/// A look's scene rendered as an OpenCV BGR picture.
pub fn render(look: &Look, scene: &Scene) -> anyhow::Result<Mat> {
    Ok(yut_sim::render(look, scene).to_bgr_mat()?)
}
