//! `yutstation simulate`: a look's empty mat, teach pictures, throws and their
//! truth written as pictures, for inspection and for the command-line tests.

use crate::{to_mat, write_image};
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use yut_sim::{self, Look, HELD_OUT_LOOK_BASE};

#[derive(Args)]
pub struct SimulateArgs {
    /// Look seed (held-out looks start at 1000000).
    #[arg(long, default_value_t = HELD_OUT_LOOK_BASE)]
    look: u64,
    #[arg(long, default_value_t = 8)]
    throws: usize,
    /// Also write a frame sequence of this many throws into OUT/sequence.
    #[arg(long, default_value_t = 0)]
    sequence: usize,
    #[arg(long, default_value_t = 1280)]
    width: u32,
    #[arg(long, default_value_t = 720)]
    height: u32,
    #[arg(long)]
    out: PathBuf,
    /// Draw the look from the wider world (`Look::world`, as `eval --world`
    /// does), to see a look its figures name.
    #[arg(long)]
    world: bool,
}

/// `yutstation simulate`.
pub fn run(a: SimulateArgs) -> Result<()> {
    let look = if a.world {
        Look::world(a.look, a.width, a.height)
    } else {
        Look::random(a.look, a.width, a.height)
    };
    std::fs::create_dir_all(a.out.join("throws"))?;
    let save = |name: &str, scene: &yut_sim::Scene| -> Result<()> {
        write_image(&a.out.join(name), &to_mat(&yut_sim::render(&look, scene))?)
    };
    save("empty.png", &yut_sim::empty_scene(&look))?;
    for w in ["front", "back", "marked"] {
        save(&format!("teach_{w}.png"), &yut_sim::teach_scene(&look, w))?;
    }
    let shape = match look.mat_shape {
        yut_sim::MatShape::Circle => "circle",
        yut_sim::MatShape::Square => "square",
    };
    std::fs::write(
        a.out.join("mat.json"),
        serde_json::json!({"shape": shape, "size_cm": look.mat_size_cm}).to_string(),
    )?;
    let mut truth = String::new();
    for k in 0..a.throws {
        let (scene, t) = yut_sim::numbered_throw(&look, k as u64);
        let name = format!("throws/{:04}.png", k + 1);
        save(&name, &scene)?;
        let mut v = serde_json::to_value(&t)?;
        v["image"] = serde_json::Value::String(name);
        truth.push_str(&serde_json::to_string(&v)?);
        truth.push('\n');
    }
    std::fs::write(a.out.join("truth.jsonl"), truth)?;
    if a.sequence > 0 {
        std::fs::create_dir_all(a.out.join("sequence"))?;
        let seq = yut_sim::throw_sequence(&look, a.look, a.sequence, 30, 12);
        for (i, f) in seq.frames.iter().enumerate() {
            save(&format!("sequence/{i:05}.png"), &f.scene)?;
        }
    }
    println!(
        "wrote look {} ({}) to {}",
        a.look,
        look.mat_arg(),
        a.out.display()
    );
    Ok(())
}
