//! Reading inputs, in layers (each module uses only the ones above it in this list):
//! - [`key`]: how a game's place in its input is named, whoever reads it ([`key::GameKey`]);
//! - [`line`]: the line model that finds game starts;
//! - [`chunk`]: [`chunk::Splitter`], which cuts a stream into chunks of whole games on one thread;
//! - [`survey`]: game starts in one block of text, read from every state the line model may be
//!   in at its start;
//! - [`pzstd`]: whether a file is pzstd's series of frames, where they are, one frame decoded;
//! - [`frames`]: a pzstd file's frames decoded (and surveyed) on many threads;
//! - [`blocks`]: surveyed blocks stitched back together into the chunks the `Splitter` makes;
//! - [`input`]: a file or stdin opened, its compression detected, and the way to read it chosen.

pub mod blocks;
pub mod chunk;
pub mod frames;
pub mod input;
pub mod key;
pub mod line;
pub mod pzstd;
pub mod survey;

#[cfg(test)]
mod tests {
    /// The read path's modules in layer order, as the crate doc lists them.
    const LAYERS: [&str; 8] = ["key", "line", "chunk", "survey", "pzstd", "frames", "blocks", "input"];

    /// Each module of the read path uses only the modules of the layers before it (no cycle).
    #[test]
    fn read_modules_use_only_lower_layers() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/read");
        for (layer, name) in LAYERS.iter().enumerate() {
            let text = std::fs::read_to_string(dir.join(format!("{name}.rs"))).unwrap();
            let code: String =
                text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            for (other_layer, other) in LAYERS.iter().enumerate().filter(|&(i, _)| i >= layer) {
                let uses = [format!("read::{other}::"), format!("read::{other},"), format!("    {other}::")];
                let found = other_layer != layer && uses.iter().any(|u| code.contains(u.as_str()));
                assert!(!found, "src/read/{name}.rs uses {other}, a module of its own layer or above");
            }
        }
    }
}
