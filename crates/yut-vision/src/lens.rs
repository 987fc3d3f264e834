//! The lens target and lens calibration: a ChArUco board (a chessboard with an
//! ArUco marker in each white square, so a corner is known by its markers even
//! where part of the board is out of view) printed at true scale on A3 or A2,
//! found in pictures, and OpenCV's ChArUco camera calibration fitted to the
//! corners of several pictures ([`LensModel`], applied before everything else:
//! `calibrate::calibrate_with_lens`).
//!
//! On the OpenCV 4.6 of Debian's packages ChArUco is in the contrib `aruco`
//! module (ADR 0105). The board's layout is taken from OpenCV's own drawing
//! of it, so the printed target, the rendered one and the detector agree by
//! construction.
//!
//! Pure: pictures in, values out (the SVG and PDF as text and bytes; the
//! command line writes them).

use crate::geometry::LensModel;
use opencv::aruco::{self, CharucoBoard, CharucoBoardTrait, Dictionary};
use opencv::core::{Mat, Point2f, Ptr, Size, TermCriteria, TermCriteria_Type, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The paper a target is printed on (landscape).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paper {
    A3,
    A2,
}

impl FromStr for Paper {
    type Err = String;
    fn from_str(s: &str) -> Result<Paper, String> {
        match s.to_ascii_uppercase().as_str() {
            "A3" => Ok(Paper::A3),
            "A2" => Ok(Paper::A2),
            _ => Err(format!("paper `{s}`: expected A3 or A2")),
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Paper::A3 => "A3",
            Paper::A2 => "A2",
        })
    }
}

impl Paper {
    /// Width and height in millimetres, landscape.
    pub fn size_mm(self) -> [f64; 2] {
        match self {
            Paper::A3 => [420.0, 297.0],
            Paper::A2 => [594.0, 420.0],
        }
    }
}

/// Squares across and down.
pub const SQUARES: [i32; 2] = [12, 8];
/// The marker's side over the square's.
pub const MARKER_SHARE: f64 = 0.7;
/// Cells across a marker: 5 bits and a black border cell each side.
const CELLS: usize = 7;
/// OpenCV's dictionary of the markers: 5 × 5 bits, 100 markers (48 used).
const DICTIONARY: i32 = aruco::DICT_5X5_100;
/// The drawing the layout is read from: pixels per square, chosen so the
/// marker and its cells fall on whole pixels (80 × 0.7 = 56 = 7 × 8).
const DRAW_SQUARE_PX: i32 = 80;

/// Why a lens target or a lens calibration was refused; each says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LensError {
    #[error("no lens target in the picture: hold the printed target in full view of the camera, flat, without glare on it")]
    NoTarget,
    #[error("only {0} of the target's corners show: bring more of the target into the picture (at least {MIN_CORNERS})")]
    TooFewCorners(usize),
    #[error("the picture is blurred (edges spread over {0:.1} px): hold the target still, and focus the camera on it")]
    Blurred(f64),
    #[error("{0} pictures of the target are not enough: take at least {MIN_VIEWS}, the target in the middle, near each corner and each edge of the picture, some of them tilted")]
    TooFewViews(usize),
    #[error("the pictures leave the {0} of the picture uncovered: take more with the target near that edge (the lens bends most there)")]
    NotCovered(&'static str),
    #[error(
        "the pictures are not all {want_w}×{want_h}: take every picture in the camera's one mode"
    )]
    SizesDiffer { want_w: i32, want_h: i32 },
    #[error("the lens fit is poor (reprojection error {0:.2} px, over {MAX_RMS_PX} px): take the pictures again with the target flat (not bent), sharp and still")]
    PoorFit(f64),
    #[error("image processing failed: {0}")]
    OpenCv(String),
}

impl From<opencv::Error> for LensError {
    fn from(e: opencv::Error) -> Self {
        LensError::OpenCv(e.message)
    }
}

/// Corners a picture must show to count.
pub const MIN_CORNERS: usize = 12;
/// Pictures a calibration needs.
pub const MIN_VIEWS: usize = 6;
/// The reprojection error (RMS, pixels) over which a lens fit is refused. A
/// fit on a flat, sharp target is 0.1–0.5 px; a bent sheet or a blurred
/// picture shows as more.
pub const MAX_RMS_PX: f64 = 1.0;
/// Over this edge spread (a Gaussian's σ, pixels) at the markers' edges a
/// picture is too blurred for its corners to be placed well.
pub const BLURRED_PX: f64 = 2.5;

/// The printed target: the board on its paper, with its layout.
pub struct LensTarget {
    pub paper: Paper,
    pub square_mm: f64,
    /// Where the board's top-left corner lies on the paper, mm.
    pub origin_mm: [f64; 2],
    /// Per square, row-major from the top-left: black, or white with its
    /// marker's cells (black `true`), or white without a marker.
    squares: Vec<Square>,
    board: Ptr<CharucoBoard>,
    dictionary: Ptr<Dictionary>,
}

#[derive(Debug, Clone, PartialEq)]
enum Square {
    Black,
    White(Option<[[bool; CELLS]; CELLS]>),
}

impl LensTarget {
    /// The target for `paper`: 12 × 8 squares of 30 mm (A3) or 45 mm (A2).
    pub fn new(paper: Paper) -> Result<LensTarget, LensError> {
        let square_mm = match paper {
            Paper::A3 => 30.0,
            Paper::A2 => 45.0,
        };
        let dictionary = aruco::get_predefined_dictionary_i32(DICTIONARY)?;
        let mut board = CharucoBoard::create(
            SQUARES[0],
            SQUARES[1],
            square_mm as f32,
            (square_mm * MARKER_SHARE) as f32,
            &dictionary,
        )?;
        let (w, h) = (SQUARES[0] * DRAW_SQUARE_PX, SQUARES[1] * DRAW_SQUARE_PX);
        let mut drawn = Mat::default();
        board.draw(Size::new(w, h), &mut drawn, 0, 1)?;
        let dark =
            |x: i32, y: i32| -> Result<bool, LensError> { Ok(*drawn.at_2d::<u8>(y, x)? < 128) };
        let margin = (DRAW_SQUARE_PX - (DRAW_SQUARE_PX as f64 * MARKER_SHARE).round() as i32) / 2;
        let cell = (DRAW_SQUARE_PX - 2 * margin) / CELLS as i32;
        let mut squares = Vec::new();
        for row in 0..SQUARES[1] {
            for col in 0..SQUARES[0] {
                let (x0, y0) = (col * DRAW_SQUARE_PX, row * DRAW_SQUARE_PX);
                if dark(x0 + margin / 2, y0 + margin / 2)? {
                    squares.push(Square::Black);
                    continue;
                }
                let mut cells = [[false; CELLS]; CELLS];
                for (r, line) in cells.iter_mut().enumerate() {
                    for (c, v) in line.iter_mut().enumerate() {
                        *v = dark(
                            x0 + margin + c as i32 * cell + cell / 2,
                            y0 + margin + r as i32 * cell + cell / 2,
                        )?;
                    }
                }
                let any = cells.iter().flatten().any(|v| *v);
                squares.push(Square::White(any.then_some(cells)));
            }
        }
        let [pw, ph] = paper.size_mm();
        let (bw, bh) = (SQUARES[0] as f64 * square_mm, SQUARES[1] as f64 * square_mm);
        // Centred across; a little above the middle, the words below.
        let origin_mm = [(pw - bw) / 2.0, (ph - bh) / 2.0 - 8.0];
        Ok(LensTarget {
            paper,
            square_mm,
            origin_mm,
            squares,
            board,
            dictionary,
        })
    }

    pub fn marker_mm(&self) -> f64 {
        self.square_mm * MARKER_SHARE
    }

    /// The words printed under the board.
    pub fn caption(&self) -> [String; 2] {
        let [pw, ph] = self.paper.size_mm();
        [
            format!(
                "yutstation lens target: ChArUco {}x{} squares of {:.1} mm, markers {:.1} mm (OpenCV DICT_5X5_100), {} {:.0}x{:.0} mm",
                SQUARES[0],
                SQUARES[1],
                self.square_mm,
                self.marker_mm(),
                self.paper,
                pw,
                ph
            ),
            format!(
                "Print at 100 % (no 'fit to page'): each square must measure {:.1} mm and the bar 100 mm. Keep it flat (glue it to card).",
                self.square_mm
            ),
        ]
    }

    /// Black rectangles of the print (mm, from the paper's top-left: x, y,
    /// width, height): the black squares and each marker's cells, merged
    /// along rows.
    pub fn black_rects(&self) -> Vec<[f64; 4]> {
        let s = self.square_mm;
        let margin = s * (1.0 - MARKER_SHARE) / 2.0;
        let cell = s * MARKER_SHARE / CELLS as f64;
        let mut out = Vec::new();
        for (i, sq) in self.squares.iter().enumerate() {
            let (col, row) = (i % SQUARES[0] as usize, i / SQUARES[0] as usize);
            let x0 = self.origin_mm[0] + col as f64 * s;
            let y0 = self.origin_mm[1] + row as f64 * s;
            match sq {
                Square::Black => out.push([x0, y0, s, s]),
                Square::White(None) => {}
                Square::White(Some(cells)) => {
                    for (r, line) in cells.iter().enumerate() {
                        let mut c = 0;
                        while c < CELLS {
                            if !line[c] {
                                c += 1;
                                continue;
                            }
                            let start = c;
                            while c < CELLS && line[c] {
                                c += 1;
                            }
                            out.push([
                                x0 + margin + start as f64 * cell,
                                y0 + margin + r as f64 * cell,
                                (c - start) as f64 * cell,
                                cell,
                            ]);
                        }
                    }
                }
            }
        }
        out
    }

    /// Where the 100 mm scale bar lies (x, y, width, height in mm).
    fn scale_bar(&self) -> [f64; 4] {
        let [_, ph] = self.paper.size_mm();
        [self.origin_mm[0], ph - 14.0, 100.0, 3.0]
    }

    /// The whole sheet as a grey picture at `px_per_mm` (white paper, black
    /// ink; the words left out), for rendering the target in a scene.
    pub fn picture(&self, px_per_mm: f64) -> (u32, u32, Vec<u8>) {
        let [pw, ph] = self.paper.size_mm();
        let (w, h) = (
            (pw * px_per_mm).round() as usize,
            (ph * px_per_mm).round() as usize,
        );
        let mut data = vec![255u8; w * h];
        let mut rects = self.black_rects();
        rects.push(self.scale_bar());
        for [x, y, rw, rh] in rects {
            let (x0, y0) = (
                (x * px_per_mm).round() as usize,
                (y * px_per_mm).round() as usize,
            );
            let (x1, y1) = (
                (((x + rw) * px_per_mm).round() as usize).min(w),
                (((y + rh) * px_per_mm).round() as usize).min(h),
            );
            for row in data.chunks_mut(w).take(y1).skip(y0) {
                row[x0..x1].fill(0);
            }
        }
        (w as u32, h as u32, data)
    }

    /// The target as SVG at true scale (the page in millimetres).
    pub fn svg(&self) -> String {
        let [pw, ph] = self.paper.size_mm();
        let mut s = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{pw}mm\" height=\"{ph}mm\" viewBox=\"0 0 {pw} {ph}\">\n<rect x=\"0\" y=\"0\" width=\"{pw}\" height=\"{ph}\" fill=\"#fff\"/>\n<g fill=\"#000\" shape-rendering=\"crispEdges\">\n"
        );
        let mut rects = self.black_rects();
        rects.push(self.scale_bar());
        for [x, y, w, h] in rects {
            s.push_str(&format!(
                "<rect x=\"{x:.3}\" y=\"{y:.3}\" width=\"{w:.3}\" height=\"{h:.3}\"/>\n"
            ));
        }
        s.push_str("</g>\n");
        let [bx, by, _, _] = self.scale_bar();
        let [first, second] = self.caption();
        s.push_str(&format!(
            "<g font-family=\"Helvetica, Arial, sans-serif\" font-size=\"3.5\" fill=\"#000\">\n<text x=\"{:.1}\" y=\"{:.1}\">100 mm</text>\n<text x=\"{bx:.1}\" y=\"{:.1}\">{}</text>\n<text x=\"{bx:.1}\" y=\"{:.1}\">{}</text>\n</g>\n</svg>\n",
            bx + 104.0,
            by + 3.0,
            by + 8.0,
            xml_escape(&first),
            by + 12.5,
            xml_escape(&second)
        ));
        s
    }

    /// The target as a one-page PDF at true scale (vector, Helvetica).
    pub fn pdf(&self) -> Vec<u8> {
        let [pw, ph] = self.paper.size_mm();
        let pt = 72.0 / 25.4;
        let mut content = String::from("0 g\n");
        let mut rects = self.black_rects();
        rects.push(self.scale_bar());
        for [x, y, w, h] in rects {
            content.push_str(&format!(
                "{:.3} {:.3} {:.3} {:.3} re f\n",
                x * pt,
                (ph - y - h) * pt,
                w * pt,
                h * pt
            ));
        }
        let [bx, by, _, _] = self.scale_bar();
        let [first, second] = self.caption();
        let text = |x: f64, y: f64, t: &str| {
            format!(
                "BT /F1 10 Tf {:.2} {:.2} Td ({}) Tj ET\n",
                x * pt,
                (ph - y) * pt,
                pdf_escape(t)
            )
        };
        content.push_str(&text(bx + 104.0, by + 3.0, "100 mm"));
        content.push_str(&text(bx, by + 8.0, &first));
        content.push_str(&text(bx, by + 12.5, &second));
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {:.3} {:.3}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
                pw * pt,
                ph * pt
            ),
            format!(
                "<< /Length {} >>\nstream\n{content}endstream",
                content.len()
            ),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
        ];
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
        }
        let xref = out.len();
        out.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
        );
        for o in offsets {
            out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn pdf_escape(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii())
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

/// The target's corners found in one picture.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetView {
    /// Each found chessboard corner (pixels) and its id on the board.
    pub corners: Vec<[f32; 2]>,
    pub ids: Vec<i32>,
    /// The picture's size.
    pub width: i32,
    pub height: i32,
    /// How spread the markers' edges are (a Gaussian's σ, pixels).
    pub edge_spread: f64,
}

/// Find the target in a picture (BGR or grey): its markers, then the
/// chessboard corners between them, to a fraction of a pixel.
pub fn find_target(target: &LensTarget, image: &Mat) -> Result<TargetView, LensError> {
    let grey = if image.channels() == 1 {
        image.try_clone()?
    } else {
        let mut g = Mat::default();
        imgproc::cvt_color_def(image, &mut g, imgproc::COLOR_BGR2GRAY)?;
        g
    };
    let mut marker_corners = Vector::<Vector<Point2f>>::new();
    let mut marker_ids = Vector::<i32>::new();
    let params = aruco::DetectorParameters::create()?;
    let mut rejected = Vector::<Vector<Point2f>>::new();
    aruco::detect_markers(
        &grey,
        &target.dictionary,
        &mut marker_corners,
        &mut marker_ids,
        &params,
        &mut rejected,
    )?;
    if marker_ids.is_empty() {
        // A picture too blurred to find any marker is told as blurred.
        let spread = picture_edge_spread(&grey)?;
        return Err(if spread > BLURRED_PX {
            LensError::Blurred(spread)
        } else {
            LensError::NoTarget
        });
    }
    let edge_spread = marker_edge_spread(&grey, &marker_corners)?;
    if edge_spread > BLURRED_PX {
        return Err(LensError::Blurred(edge_spread));
    }
    let mut corners = Vector::<Point2f>::new();
    let mut ids = Vector::<i32>::new();
    aruco::interpolate_corners_charuco_def(
        &marker_corners,
        &marker_ids,
        &grey,
        &target.board,
        &mut corners,
        &mut ids,
    )?;
    if corners.len() < MIN_CORNERS {
        return Err(LensError::TooFewCorners(corners.len()));
    }
    Ok(TargetView {
        corners: corners.iter().map(|p| [p.x, p.y]).collect(),
        ids: ids.to_vec(),
        width: grey.cols(),
        height: grey.rows(),
        edge_spread,
    })
}

/// Sample a grey picture at a point (bilinear); `None` off the picture.
fn sample(grey: &Mat, x: f64, y: f64) -> Option<f64> {
    let (x0, y0) = (x.floor() as i32, y.floor() as i32);
    if x0 < 0 || y0 < 0 || x0 + 1 >= grey.cols() || y0 + 1 >= grey.rows() {
        return None;
    }
    let at = |xx: i32, yy: i32| grey.at_2d::<u8>(yy, xx).map(|v| *v as f64).ok();
    let (fx, fy) = (x - x0 as f64, y - y0 as f64);
    Some(
        (at(x0, y0)? * (1.0 - fx) + at(x0 + 1, y0)? * fx) * (1.0 - fy)
            + (at(x0, y0 + 1)? * (1.0 - fx) + at(x0 + 1, y0 + 1)? * fx) * fy,
    )
}

/// The width of a step along a profile sampled every pixel, as a Gaussian's
/// σ: the step's height over its steepest slope, over √(2π). `None` for a
/// step under 30 levels (no clear edge).
fn step_sigma(prof: &[f64]) -> Option<f64> {
    let n = prof.len();
    let ends = 3;
    let a = prof[..ends].iter().sum::<f64>() / ends as f64;
    let b = prof[n - ends..].iter().sum::<f64>() / ends as f64;
    let step = (b - a).abs();
    if step < 30.0 {
        return None;
    }
    let slope = prof
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .fold(0.0, f64::max);
    Some(step / (slope * (2.0 * std::f64::consts::PI).sqrt()))
}

/// The median spread of the found markers' outer edges (the black border
/// against the white square round it).
fn marker_edge_spread(grey: &Mat, markers: &Vector<Vector<Point2f>>) -> Result<f64, LensError> {
    let mut spreads = Vec::new();
    for quad in markers.iter() {
        let q: Vec<[f64; 2]> = quad.iter().map(|p| [p.x as f64, p.y as f64]).collect();
        if q.len() != 4 {
            continue;
        }
        let c = [
            q.iter().map(|p| p[0]).sum::<f64>() / 4.0,
            q.iter().map(|p| p[1]).sum::<f64>() / 4.0,
        ];
        for i in 0..4 {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            let m = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
            let side = (b[0] - a[0]).hypot(b[1] - a[1]);
            let mut n = [-(b[1] - a[1]) / side, (b[0] - a[0]) / side];
            if n[0] * (m[0] - c[0]) + n[1] * (m[1] - c[1]) < 0.0 {
                n = [-n[0], -n[1]];
            }
            // Inside the border cell to out in the square's white margin.
            let reach = (side / CELLS as f64 * 0.9).clamp(2.0, 12.0);
            let steps = (2.0 * reach).round() as i32;
            let prof: Option<Vec<f64>> = (0..=steps)
                .map(|k| {
                    let d = -reach + k as f64;
                    sample(grey, m[0] + n[0] * d, m[1] + n[1] * d)
                })
                .collect();
            if let Some(s) = prof.as_deref().and_then(step_sigma) {
                spreads.push(s);
            }
        }
    }
    if spreads.is_empty() {
        return Ok(0.0);
    }
    spreads.sort_by(f64::total_cmp);
    Ok(spreads[spreads.len() / 2])
}

/// How blurred a picture with no target found is: the median spread of its
/// strongest edges (rows sampled across, where the brightness steps most).
fn picture_edge_spread(grey: &Mat) -> Result<f64, LensError> {
    let mut spreads = Vec::new();
    let step = (grey.rows() / 40).max(1);
    for y in (0..grey.rows()).step_by(step as usize) {
        let row: Vec<f64> = (0..grey.cols())
            .map(|x| grey.at_2d::<u8>(y, x).map(|v| *v as f64))
            .collect::<Result<_, _>>()?;
        // The row's strongest step over 24 px.
        let Some((x, _)) = row
            .windows(25)
            .enumerate()
            .map(|(i, w)| (i, (w[24] - w[0]).abs()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            continue;
        };
        if let Some(s) = step_sigma(&row[x..x + 25]) {
            spreads.push(s);
        }
    }
    if spreads.len() < 5 {
        return Ok(0.0);
    }
    spreads.sort_by(f64::total_cmp);
    Ok(spreads[spreads.len() / 2])
}

/// A fitted lens and how well it fits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LensFit {
    pub model: LensModel,
    /// The reprojection error, RMS over every corner, pixels.
    pub rms_px: f64,
    pub views: usize,
    pub corners: usize,
    pub width: i32,
    pub height: i32,
}

/// A calibrated lens as `yutstation calibrate lens` writes it: the model,
/// the picture size it holds for and how well it fitted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LensRecord {
    /// The format: [`LENS_VERSION`].
    pub version: u32,
    pub width: i32,
    pub height: i32,
    pub rms_px: f64,
    pub views: usize,
    pub corners: usize,
    pub model: LensModel,
}

/// The lens file's format.
pub const LENS_VERSION: u32 = 1;

impl LensRecord {
    pub fn of(fit: &LensFit) -> LensRecord {
        LensRecord {
            version: LENS_VERSION,
            width: fit.width,
            height: fit.height,
            rms_px: fit.rms_px,
            views: fit.views,
            corners: fit.corners,
            model: fit.model,
        }
    }

    /// One line for `profile show` and the wizard.
    pub fn summary(&self) -> String {
        format!(
            "calibrated on {} pictures of the lens target ({} corners), reprojection error {:.2} px; k1 {:.4}, k2 {:.4}, focal length {:.0} px",
            self.views, self.corners, self.rms_px, self.model.k1, self.model.k2, self.model.fx
        )
    }

    pub fn to_toml(&self) -> String {
        format!(
            "# yutstation lens: written by `yutstation calibrate lens`; use it with `yutstation calibrate --lens`.\n{}",
            toml::to_string(self).expect("a lens always serialises")
        )
    }

    pub fn from_toml(text: &str) -> Result<LensRecord, String> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let v: Version =
            toml::from_str(text).map_err(|e| format!("not a lens file: {}", e.message()))?;
        if v.version != LENS_VERSION {
            return Err(format!(
                "lens format {} is not one this yutstation reads ({LENS_VERSION}): calibrate the lens again",
                v.version
            ));
        }
        toml::from_str(text).map_err(|e| format!("corrupt lens file: {}", e.message()))
    }
}

/// The share of the picture's width and height, from each edge, in which
/// some picture must show a corner of the target.
const EDGE_BAND: f64 = 0.2;

/// The first edge of the picture that no view reaches (within a fifth of the
/// picture's width or height of it),
/// as the crew is told it.
pub fn uncovered_edge(views: &[TargetView]) -> Option<&'static str> {
    let (w, h) = views
        .first()
        .map_or((1.0, 1.0), |v| (v.width as f32, v.height as f32));
    let band = EDGE_BAND as f32;
    // Each edge: whether a corner lies in its band.
    let near = |side: usize, p: &[f32; 2]| match side {
        0 => p[0] < band * w,
        1 => p[0] > (1.0 - band) * w,
        2 => p[1] < band * h,
        _ => p[1] > (1.0 - band) * h,
    };
    ["left edge", "right edge", "top edge", "bottom edge"]
        .into_iter()
        .enumerate()
        .find(|&(side, _)| {
            !views
                .iter()
                .flat_map(|v| v.corners.iter())
                .any(|p| near(side, p))
        })
        .map(|(_, side)| side)
}

/// Pictures of the target taken one by one (from a live camera, or the
/// wizard's captures): a view is kept only where it adds something, its
/// corners' middle a tenth of the picture's diagonal from every kept one's,
/// or the target much nearer or farther, or turned.
#[derive(Debug, Default)]
pub struct ViewCollector {
    pub views: Vec<TargetView>,
}

/// The middle and the spread of a view's corners.
fn centre_and_size(v: &TargetView) -> ([f64; 2], f64) {
    let n = v.corners.len().max(1) as f64;
    let c = [
        v.corners.iter().map(|p| p[0] as f64).sum::<f64>() / n,
        v.corners.iter().map(|p| p[1] as f64).sum::<f64>() / n,
    ];
    let size = (v
        .corners
        .iter()
        .map(|p| (p[0] as f64 - c[0]).powi(2) + (p[1] as f64 - c[1]).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    (c, size)
}

impl ViewCollector {
    /// Keep `view` if it adds a place or a size not seen yet; whether it was.
    pub fn offer(&mut self, view: TargetView) -> bool {
        let (c, size) = centre_and_size(&view);
        let diagonal = (view.width as f64).hypot(view.height as f64);
        let new = self.views.iter().all(|v| {
            let (c2, size2) = centre_and_size(v);
            let apart = (c[0] - c2[0]).hypot(c[1] - c2[1]) > 0.1 * diagonal;
            let resized = (size / size2.max(1e-9) - 1.0).abs() > 0.25;
            apart || resized
        });
        if new {
            self.views.push(view);
        }
        new
    }

    /// What the crew should do next, in a few words.
    pub fn hint(&self) -> String {
        if let Some(edge) = uncovered_edge(&self.views) {
            return format!("hold the target near the {edge} of the picture");
        }
        if self.views.len() < MIN_VIEWS {
            return "hold the target somewhere new, tilted a little".into();
        }
        "enough pictures: fit the lens (more, in new places, make it better)".into()
    }
}

/// Fit the lens to the target's corners in several pictures (OpenCV's
/// ChArUco calibration: focal lengths, principal point, k1, k2, p1, p2; k3
/// held at 0, as a flat target's corners cannot pin it). Refused with too few
/// pictures, with the picture's edges uncovered, or with a reprojection error
/// over [`MAX_RMS_PX`].
pub fn fit_lens(target: &LensTarget, views: &[TargetView]) -> Result<LensFit, LensError> {
    if views.len() < MIN_VIEWS {
        return Err(LensError::TooFewViews(views.len()));
    }
    let (w, h) = (views[0].width, views[0].height);
    if views.iter().any(|v| v.width != w || v.height != h) {
        return Err(LensError::SizesDiffer {
            want_w: w,
            want_h: h,
        });
    }
    let all = || views.iter().flat_map(|v| v.corners.iter());
    let (fw, fh) = (w as f32, h as f32);
    let band = EDGE_BAND as f32;
    for (side, near) in [
        (
            "left edge",
            Box::new(|p: &[f32; 2]| p[0] < band * fw) as Box<dyn Fn(&[f32; 2]) -> bool>,
        ),
        (
            "right edge",
            Box::new(|p: &[f32; 2]| p[0] > (1.0 - band) * fw),
        ),
        ("top edge", Box::new(|p: &[f32; 2]| p[1] < band * fh)),
        (
            "bottom edge",
            Box::new(|p: &[f32; 2]| p[1] > (1.0 - band) * fh),
        ),
    ] {
        if !all().any(near) {
            return Err(LensError::NotCovered(side));
        }
    }
    let corners: Vector<Vector<Point2f>> = views
        .iter()
        .map(|v| v.corners.iter().map(|p| Point2f::new(p[0], p[1])).collect())
        .collect();
    let ids: Vector<Vector<i32>> = views.iter().map(|v| Vector::from_slice(&v.ids)).collect();
    let mut camera = Mat::default();
    let mut dist = Mat::default();
    let (mut rvecs, mut tvecs) = (Vector::<Mat>::new(), Vector::<Mat>::new());
    let criteria = TermCriteria::new(
        TermCriteria_Type::COUNT as i32 + TermCriteria_Type::EPS as i32,
        200,
        1e-10,
    )?;
    let rms = aruco::calibrate_camera_charuco(
        &corners,
        &ids,
        &target.board,
        Size::new(w, h),
        &mut camera,
        &mut dist,
        &mut rvecs,
        &mut tvecs,
        opencv::calib3d::CALIB_FIX_K3,
        criteria,
    )?;
    let k = |r: i32, c: i32| camera.at_2d::<f64>(r, c).copied();
    let d = |i: i32| -> f64 { dist.at::<f64>(i).copied().unwrap_or(0.0) };
    let model = LensModel {
        fx: k(0, 0)?,
        fy: k(1, 1)?,
        cx: k(0, 2)?,
        cy: k(1, 2)?,
        k1: d(0),
        k2: d(1),
        p1: d(2),
        p2: d(3),
        k3: d(4),
    };
    if !(rms.is_finite() && rms <= MAX_RMS_PX) {
        return Err(LensError::PoorFit(rms));
    }
    Ok(LensFit {
        model,
        rms_px: rms,
        views: views.len(),
        corners: views.iter().map(|v| v.corners.len()).sum(),
        width: w,
        height: h,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_targets_fit_their_paper_with_room_for_the_words() {
        for paper in [Paper::A3, Paper::A2] {
            let t = LensTarget::new(paper).unwrap();
            let [pw, ph] = paper.size_mm();
            let [ox, oy] = t.origin_mm;
            let (bw, bh) = (12.0 * t.square_mm, 8.0 * t.square_mm);
            assert!(ox >= 10.0 && ox + bw <= pw - 10.0, "{paper}");
            assert!(oy >= 10.0 && oy + bh <= ph - 20.0, "{paper}");
            // Half the squares black, and a marker in each of the others.
            let black = t.squares.iter().filter(|s| **s == Square::Black).count();
            assert_eq!(black, 48);
            assert!(t
                .squares
                .iter()
                .all(|s| matches!(s, Square::Black | Square::White(Some(_)))));
        }
    }

    #[test]
    fn the_svg_and_the_pdf_are_at_true_scale() {
        let t = LensTarget::new(Paper::A3).unwrap();
        let svg = t.svg();
        assert!(svg.contains("width=\"420mm\" height=\"297mm\" viewBox=\"0 0 420 297\""));
        assert!(svg.contains("squares of 30.0 mm"));
        let pdf = String::from_utf8_lossy(&t.pdf()).to_string();
        assert!(pdf.starts_with("%PDF-1.4"));
        // A3 in points: 420 mm and 297 mm at 72 / 25.4.
        assert!(
            pdf.contains("/MediaBox [0 0 1190.551 841.890]"),
            "{pdf:.400}"
        );
        assert!(pdf.trim_end().ends_with("%%EOF"));
    }

    #[test]
    fn the_printed_layout_is_found_by_the_detector_flat_and_square_on() {
        // The print itself, as a picture at 2 px per mm: every inner corner
        // found where the layout puts it.
        let t = LensTarget::new(Paper::A3).unwrap();
        let (w, h, data) = t.picture(2.0);
        let img = Mat::from_slice(&data)
            .unwrap()
            .reshape(1, h as i32)
            .unwrap()
            .try_clone()
            .unwrap();
        assert_eq!(img.cols() as u32, w);
        let view = find_target(&t, &img).unwrap();
        assert_eq!(view.corners.len(), 77, "11 × 7 inner corners");
        // Each corner lies on the grid of squares.
        for p in &view.corners {
            for (v, o) in [(p[0] as f64, t.origin_mm[0]), (p[1] as f64, t.origin_mm[1])] {
                let squares = (v / 2.0 - o) / t.square_mm;
                assert!((squares - squares.round()).abs() < 0.03, "{p:?}");
            }
        }
    }

    #[test]
    fn a_picture_without_the_target_is_told_so() {
        let img = Mat::new_rows_cols_with_default(
            360,
            640,
            opencv::core::CV_8UC1,
            opencv::core::Scalar::all(120.0),
        )
        .unwrap();
        assert_eq!(
            find_target(&LensTarget::new(Paper::A3).unwrap(), &img),
            Err(LensError::NoTarget)
        );
    }

    #[test]
    fn a_lens_file_reads_back_and_an_unknown_format_is_refused() {
        let record = LensRecord {
            version: LENS_VERSION,
            width: 1280,
            height: 720,
            rms_px: 0.2,
            views: 10,
            corners: 700,
            model: LensModel {
                fx: 700.0,
                fy: 700.5,
                cx: 640.0,
                cy: 360.0,
                k1: -0.2,
                k2: 0.001,
                p1: 0.0,
                p2: 0.0,
                k3: 0.0,
            },
        };
        assert_eq!(LensRecord::from_toml(&record.to_toml()), Ok(record));
        let newer = record.to_toml().replace("version = 1", "version = 9");
        let e = LensRecord::from_toml(&newer).unwrap_err();
        assert!(e.contains("lens format 9"), "{e}");
    }

    fn view_at(centre: [f32; 2], half: f32) -> TargetView {
        let corners = (0..16)
            .map(|i| {
                let (x, y) = (
                    (i % 4) as f32 / 3.0 * 2.0 - 1.0,
                    (i / 4) as f32 / 3.0 * 2.0 - 1.0,
                );
                [centre[0] + x * half, centre[1] + y * half]
            })
            .collect();
        TargetView {
            corners,
            ids: (0..16).collect(),
            width: 1280,
            height: 720,
            edge_spread: 1.0,
        }
    }

    #[test]
    fn the_collector_keeps_new_places_and_sizes_and_says_where_to_go_next() {
        let mut c = ViewCollector::default();
        assert!(c.offer(view_at([640.0, 360.0], 150.0)));
        // The same place again adds nothing; nearer (bigger) does.
        assert!(!c.offer(view_at([650.0, 365.0], 150.0)));
        assert!(c.offer(view_at([650.0, 365.0], 250.0)));
        assert_eq!(
            c.hint(),
            "hold the target near the left edge of the picture"
        );
        for p in [
            [150.0, 360.0],
            [1130.0, 360.0],
            [640.0, 110.0],
            [640.0, 610.0],
        ] {
            assert!(c.offer(view_at(p, 100.0)));
        }
        assert_eq!(uncovered_edge(&c.views), None);
        assert!(c.hint().starts_with("enough pictures"), "{}", c.hint());
    }

    #[test]
    fn too_few_pictures_are_refused_before_fitting() {
        let t = LensTarget::new(Paper::A2).unwrap();
        let view = TargetView {
            corners: vec![[10.0, 10.0]; 20],
            ids: (0..20).collect(),
            width: 1280,
            height: 720,
            edge_spread: 1.0,
        };
        assert_eq!(fit_lens(&t, &vec![view; 3]), Err(LensError::TooFewViews(3)));
    }
}
