//! One station's judge, pure: its calibration, taught set, empty-mat reference and
//! models together, and the stages of judging a still frame run in order
//! (measure, read, judge).

use crate::calibrate::Calibration;
use crate::classify::{self, Classifier};
use crate::mark_place::read_marks_where_crossed;
use crate::measure::{measure_placed, nominal_px, station_reference, Measured};
use crate::profile::Taught;
use crate::reader;
use crate::settle;
use crate::sticks::{Found, Reference, Split};
use crate::verdict::{judge, ThrowReading};
use opencv::core::Mat;
use opencv::prelude::*;

/// Everything needed to judge frames from one station.
pub struct Detector {
    pub calibration: Calibration,
    pub taught: Taught,
    pub reference: Reference,
    pub empty: Mat,
    pub classifier: Classifier,
    /// The taught faces as the stick reader sees them (`Taught::seen`), for
    /// a profile taught since the reader.
    pub looks: Option<reader::TaughtLooks>,
}

impl Detector {
    pub fn new(
        calibration: Calibration,
        taught: Taught,
        empty: Mat,
        classifier: Classifier,
    ) -> opencv::Result<Detector> {
        Ok(Detector {
            reference: station_reference(&empty, &taught)?,
            looks: taught.seen.as_ref().map(reader::TaughtSticks::looks),
            calibration,
            taught,
            empty,
            classifier,
        })
    }

    /// The settle tracker's bars for this station's sticks
    /// ([`settle::Config::for_stick`]): a taught stick's share of the frame
    /// at the mat's centre.
    pub fn settle_config(&self) -> settle::Config {
        let centre = self.calibration.map.to_px([0.0, 0.0]);
        let (l, w) = nominal_px(
            &self.calibration,
            self.taught.length_cm,
            self.taught.width_cm,
            centre,
        );
        let frame = f64::from(self.empty.cols()) * f64::from(self.empty.rows());
        settle::Config::for_stick(l * w / frame.max(1.0))
    }

    /// Judge one still frame.
    pub fn detect(&self, frame: &Mat) -> opencv::Result<ThrowReading> {
        let (m, probs) = self.read(frame)?;
        Ok(judge(&self.calibration, &self.taught, &m, &probs))
    }

    /// Find the sticks of one still frame and measure them at the taught size,
    /// the taught mark place read where sticks cross.
    pub fn measure(&self, frame: &Mat) -> opencv::Result<Vec<Measured>> {
        self.measure_placed(frame, &|_, _| {})
    }

    /// [`Detector::measure`] with each stick's placement passed through `place`.
    pub fn measure_placed(
        &self,
        frame: &Mat,
        place: &dyn Fn(&mut Found, (f64, f64)),
    ) -> opencv::Result<Vec<Measured>> {
        let mut sticks = measure_placed(
            &self.calibration,
            &self.reference,
            &self.empty,
            frame,
            (self.taught.length_cm, self.taught.width_cm),
            Split::Blobs {
                lone_area: f64::from(self.taught.front_area.max(self.taught.back_area)),
            },
            place,
            true,
        )?;
        read_marks_where_crossed(&self.taught, &mut sticks);
        Ok(sticks)
    }

    /// Face probabilities of measured sticks.
    pub fn probs(&self, sticks: &[Measured]) -> opencv::Result<Vec<classify::FaceProbs>> {
        self.classifier
            .read(&self.taught, self.looks.as_ref(), sticks)
    }

    /// Find the sticks of one still frame and read their faces (the verdict
    /// is `judge` of these).
    pub fn read(&self, frame: &Mat) -> opencv::Result<(Vec<Measured>, Vec<classify::FaceProbs>)> {
        let m = self.measure(frame)?;
        let probs = self.probs(&m)?;
        Ok((m, probs))
    }
}
