//! The run worked out once from the command line, before any work starts: the inputs and the
//! source each goes to, the thread budget and the chunk size (ripgrep's flags → `HiArgs` step).

use std::{
    fs,
    path::{Path, PathBuf},
    sync::Arc,
};

use anyhow::{Context, Result, bail};

use crate::{
    pgn::venue::Venue,
    read::input::{Compression, Layout},
    {
        fingerprint::Fingerprint,
        parquet_input,
        progress::Counters,
        reader::{self, ReadEnd, ReadSettings, ReaderEnds},
        shard::{self, Shard, Share},
    },
};

/// What the command line asked for.
pub struct Options {
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    pub source: Option<String>,
    pub threads: Option<usize>,
    pub quiet: bool,
    pub chunk_bytes: usize,
    /// Games per part of a partition ([`crate::dataset::partition::PART_GAMES`]).
    pub part_games: u64,
    /// Ingest inputs even when they are up to date.
    pub force: bool,
    /// A `sha256sums.txt` (Lichess's: `<hex>  <file name>`) every input must be listed in.
    pub verify_sha256: Option<PathBuf>,
    /// Process this shard's share of the inputs (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Commit the sharded sources whose shards are all complete, and nothing else.
    pub finish: bool,
    /// The venue of every game of the inputs (`--venue`), instead of each game's tags'.
    pub venue: Option<Venue>,
}

impl Options {
    /// Ingests `inputs` into the dataset folder `out` as the command does by default: on every
    /// core, quietly (no progress bar), each input its own source.
    pub fn new(inputs: Vec<PathBuf>, out: PathBuf) -> Options {
        Options {
            inputs,
            out,
            source: None,
            threads: None,
            quiet: true,
            chunk_bytes: crate::read::chunk::CHUNK_BYTES,
            part_games: crate::dataset::partition::PART_GAMES,
            force: false,
            verify_sha256: None,
            shard: None,
            finish: false,
            venue: None,
        }
    }
}

/// What an input holds. The run asks its [`Input`] what that means (how it is read, cut into
/// shards, fingerprinted, named, checked, its size, its format's name): `Input`'s methods are the
/// only place it matches on the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// PGN text: a file or stdin, its compression found from its bytes ([`crate::read::input`]).
    Pgn,
    /// Games in Parquet ([`crate::parquet_input`]): one file, or a folder's files read as
    /// one input, which grows by new files.
    Parquet(Vec<PathBuf>),
}

impl Form {
    /// What the input at `path` holds, as every command reads it: a Parquet file (by its
    /// extension) or a folder (of Parquet files, perhaps none: the caller says what that means)
    /// is [`Form::Parquet`]; stdin (`-`) and any other file are PGN.
    pub fn of(path: &Path) -> std::io::Result<Form> {
        if path.is_dir() || parquet_input::is_parquet_file(path) {
            return parquet_input::files_of(path).map(Form::Parquet);
        }
        Ok(Form::Pgn)
    }
}

/// One input to read, and the source (partition) it goes to.
pub struct Input {
    pub path: PathBuf,
    pub source: String,
    /// The SHA-256 its bytes must have (with `--verify-sha256`).
    pub sha256: Option<String>,
    pub form: Form,
    /// The venue every game of it gets (`--venue`), recorded in its manifest entry: a run with
    /// another reads it again.
    pub venue: Option<Venue>,
}

impl Input {
    pub fn is_stdin(&self) -> bool {
        self.path.as_os_str() == "-"
    }

    /// Reads the input into chunks for the workers, on the calling (reading) thread: PGN text from
    /// its path, or a Parquet input's files after the first `kept` (already in the partition),
    /// whose row groups' keys count on from `first_group`.
    pub(crate) fn read(
        &self,
        kept: usize,
        first_group: u64,
        settings: ReadSettings,
        counters: Arc<Counters>,
        ends: ReaderEnds,
    ) -> ReadEnd {
        match &self.form {
            Form::Parquet(files) => {
                let files = files.get(kept..).unwrap_or_default();
                reader::read_parquet(files, first_group, settings.decoders, counters, ends)
            }
            Form::Pgn => reader::read_input(&self.path, settings, counters, ends),
        }
    }

    /// How the input is laid out for cutting it into shares: a Parquet input by row groups, as
    /// frames (never read whole).
    pub(crate) fn layout(&self) -> std::io::Result<Layout> {
        match &self.form {
            Form::Parquet(_) => Ok(Layout::Frames),
            Form::Pgn => Layout::of_file(&self.path),
        }
    }

    /// A shard's share of the input, laid out as [`Input::layout`] says.
    pub(crate) fn share(&self, layout: Layout, shard: Shard) -> std::io::Result<Share> {
        match &self.form {
            Form::Parquet(files) => shard::parquet_share(files, shard),
            Form::Pgn => shard::share(&self.path, layout, shard, 0),
        }
    }

    /// What identifies its content ([`Fingerprint`]); none for stdin.
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        match &self.form {
            _ if self.is_stdin() => None,
            Form::Parquet(files) => Fingerprint::of_files(files).ok(),
            Form::Pgn => Fingerprint::of(&self.path).ok(),
        }
    }

    /// Whether it is files that only grow (a month of Parquet files): a later run reads only the
    /// files added since ([`crate::freshness`]).
    pub fn grows_by_files(&self) -> bool {
        matches!(self.form, Form::Parquet(_))
    }

    /// Whether `--verify-sha256` can check it: one file's bytes, as Lichess lists them.
    pub fn has_one_digest(&self) -> bool {
        self.form == Form::Pgn
    }

    /// Whether a read error names the file and place itself (a Parquet file and row group), so
    /// that no byte offset is added to it.
    pub fn errors_name_their_place(&self) -> bool {
        matches!(self.form, Form::Parquet(_))
    }

    /// The manifest's `compression`: the format's name, or the compression its bytes showed.
    pub fn compression_name(&self, detected: Option<Compression>) -> Option<String> {
        match self.form {
            Form::Parquet(_) => Some("parquet".to_owned()),
            Form::Pgn => detected.map(|c| format!("{c:?}").to_lowercase()),
        }
    }

    /// The files a month of a Hugging Face dataset lacks, by their numbered names (none of
    /// `train-00001-of-00003.parquet` among files numbered 0 to 2): a download that stopped part
    /// way. Empty when none is missing, or the names are not numbered so.
    pub fn missing_files(&self) -> Vec<String> {
        let numbered = |file: &PathBuf| -> Option<(String, u32, u32, usize)> {
            let stem = file.file_name()?.to_str()?.strip_suffix(".parquet")?;
            let (rest, of) = stem.rsplit_once("-of-")?;
            let (prefix, n) = rest.rsplit_once('-')?;
            Some((prefix.to_owned(), n.parse().ok()?, of.parse().ok()?, of.len()))
        };
        let Form::Parquet(files) = &self.form else { return Vec::new() };
        let Some(names) = files.iter().map(numbered).collect::<Option<Vec<_>>>() else { return Vec::new() };
        let Some((prefix, _, total, width)) = names.first().cloned() else { return Vec::new() };
        if names.iter().any(|(p, _, t, w)| (p, t, w) != (&prefix, &total, &width)) {
            return Vec::new();
        }
        (0..total)
            .filter(|k| !names.iter().any(|(_, n, ..)| n == k))
            .map(|k| format!("{prefix}-{k:0width$}-of-{total:0width$}.parquet"))
            .collect()
    }

    /// Its size in bytes (its files' together), 0 where it cannot be known.
    pub fn size(&self) -> u64 {
        let size = |p: &Path| fs::metadata(p).map_or(0, |m| m.len());
        match &self.form {
            Form::Parquet(files) => files.iter().map(|f| size(f)).sum(),
            Form::Pgn => size(&self.path),
        }
    }
}

/// Threads of a run, worked out in one place.
#[derive(Copy, Clone, Debug)]
pub struct Threads {
    /// Replay threads (`--threads`, default: all cores).
    pub replay: usize,
    /// Threads that decode and survey blocks of a pzstd file or plain text (0: the input is
    /// read as a stream on the reading thread).
    pub decoders: usize,
    /// Threads that encode Parquet columns (0: the writing thread encodes).
    pub encoders: usize,
    /// Chunks between reading and writing at once: bounds memory, whatever the input's size.
    pub in_flight: usize,
}

/// Replay threads per column-encoding thread.
const REPLAY_PER_ENCODER: usize = 4;

impl Threads {
    pub fn new(replay: usize) -> Threads {
        let replay = replay.max(1);
        Threads {
            replay,
            // One thread decodes and surveys frames several times faster than a replay thread
            // reads PGN (docs/performance.md, "Figures behind the code"): one per three replay
            // threads, and at least two (to overlap with the stitching) up to four (to stay
            // ahead on small machines). With one replay thread, blocks are not worth it.
            decoders: if replay >= 2 { replay.min(4).max(replay / 3) } else { 0 },
            // With many replay threads, columns are encoded and compressed in parallel too, so
            // the one thread that writes in order does little more than append bytes (encoding
            // costs a fraction of replaying). Below that, the writing thread encodes itself: an
            // idle pool's threads spin after every batch, which cost more than the encoding.
            encoders: replay / REPLAY_PER_ENCODER,
            in_flight: 2 * replay + 2,
        }
    }
}

/// A validated run.
pub struct Plan {
    pub inputs: Vec<Input>,
    pub out: PathBuf,
    pub threads: Threads,
    pub chunk_bytes: usize,
    pub part_games: u64,
    pub quiet: bool,
    pub force: bool,
    pub shard: Option<Shard>,
    pub finish: bool,
}

impl Plan {
    pub fn new(options: Options) -> Result<Plan> {
        if options.finish && (!options.inputs.is_empty() || options.shard.is_some()) {
            bail!("--finish commits the sharded sources already in --out; give it no inputs and no --shard");
        }
        if !options.finish && options.inputs.is_empty() {
            bail!("no inputs given (give files or folders, or - for stdin)");
        }
        if options.shard.is_some() && options.verify_sha256.is_some() {
            bail!(
                "--verify-sha256 hashes each input whole while reading it, which a shard does not: check the files first (sha256sum -c), then run the shards without it"
            );
        }
        let mut inputs = inputs(&options)?;
        if options.shard.is_some()
            && let Some(stdin) = inputs.iter().find(|i| i.is_stdin())
        {
            bail!("--shard cannot split stdin ({}): give the file", stdin.path.display());
        }
        if let Some(sums) = &options.verify_sha256
            && let Some(parquet) = inputs.iter().find(|i| !i.has_one_digest())
        {
            bail!(
                "--verify-sha256 checks PGN files against {}; {} is Parquet: check its files first (sha256sum -c)",
                sums.display(),
                parquet.path.display()
            );
        }
        if let Some(sums) = &options.verify_sha256 {
            let sums = read_sha256sums(sums)?;
            for input in &mut inputs {
                let name = input.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                match sums.get(&name) {
                    Some(hex) => input.sha256 = Some(hex.clone()),
                    None if input.is_stdin() => bail!("--verify-sha256 cannot check stdin; give the file"),
                    None => bail!(
                        "--verify-sha256: {} is not listed in {}",
                        input.path.display(),
                        options.verify_sha256.as_deref().unwrap_or(Path::new("")).display()
                    ),
                }
            }
        }
        let replay = options.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        Ok(Plan {
            inputs,
            out: options.out,
            threads: Threads::new(replay),
            chunk_bytes: options.chunk_bytes,
            part_games: options.part_games.max(1),
            quiet: options.quiet,
            force: options.force,
            shard: options.shard,
            finish: options.finish,
        })
    }
}

/// The digests of a `sha256sum` output (`<hex>  <name>`, or `<hex> *<name>`), by file name.
fn read_sha256sums(path: &Path) -> Result<std::collections::HashMap<String, String>> {
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut sums = std::collections::HashMap::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let parsed = line.split_once(char::is_whitespace).and_then(|(hex, name)| {
            let name = name.trim_start().trim_start_matches('*').trim_end();
            let valid = hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) && !name.is_empty();
            let name = Path::new(name).file_name()?.to_string_lossy().into_owned();
            valid.then(|| (name, hex.to_ascii_lowercase()))
        });
        match parsed {
            Some((name, hex)) => _ = sums.insert(name, hex),
            None => bail!("{} line {}: not `<sha256 hex>  <file name>`: {line:?}", path.display(), n + 1),
        }
    }
    Ok(sums)
}

const EXTENSIONS: [&str; 5] = [".pgn", ".pgn.zst", ".pgn.bz2", ".pgn.gz", ".parquet"];

/// Expands directories and names each input's source; refuses two inputs for one source.
fn inputs(options: &Options) -> Result<Vec<Input>> {
    let mut paths = Vec::new();
    for path in &options.inputs {
        if path.is_dir() {
            let mut found = Vec::new();
            find_pgn(path, &mut found)?;
            if found.is_empty() {
                bail!("{} contains no {} files", path.display(), EXTENSIONS.join(", "));
            }
            found.sort();
            paths.extend(by_folder(found)?);
        } else {
            paths.extend(by_folder(vec![path.clone()])?);
        }
    }
    if options.source.is_some() && paths.len() != 1 {
        bail!("--source names one input's partition, but {} inputs were given; ingest them one by one", paths.len());
    }
    let mut inputs: Vec<Input> = Vec::new();
    for (path, form) in paths {
        let source = match &options.source {
            Some(name) => {
                if !valid_source(name) {
                    bail!("--source {name:?}: use letters, digits, '.', '_' and '-' only, not starting with '.'");
                }
                name.clone()
            }
            None if path.as_os_str() == "-" => bail!("reading stdin needs --source NAME to name its partition"),
            None if form != Form::Pgn => parquet_source_name(&path),
            None => source_name(&path),
        };
        if let Some(other) = inputs.iter().find(|i| i.source == source) {
            bail!(
                "{} and {} would both be source {source:?}; ingest one of them with --source",
                other.path.display(),
                path.display()
            );
        }
        inputs.push(Input { path, source, sha256: None, form, venue: options.venue });
    }
    Ok(inputs)
}

fn find_pgn(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry.with_context(|| format!("cannot list {}", dir.display()))?.path();
        if path.is_dir() {
            find_pgn(&path, found)?;
        } else {
            let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
            if EXTENSIONS.iter().any(|ext| name.ends_with(ext)) {
                found.push(path);
            }
        }
    }
    Ok(())
}

/// Each input: a PGN file, or Parquet files with the folder or file that names them. A folder's
/// Parquet files are one input (a month of the Lichess database) when they are all of its
/// `.parquet` files and it is a `month=MM` folder or holds several; otherwise each file is one.
fn by_folder(paths: Vec<PathBuf>) -> Result<Vec<(PathBuf, Form)>> {
    let mut out: Vec<(PathBuf, Form)> = Vec::new();
    let mut groups: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for path in paths {
        if !parquet_input::is_parquet_file(&path) {
            out.push((path, Form::Pgn));
            continue;
        }
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        match groups.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, files)) => files.push(path),
            None => groups.push((folder, vec![path])),
        }
    }
    for (folder, files) in groups {
        let all = !folder.as_os_str().is_empty()
            && parquet_input::files_of(&folder).is_ok_and(|all| all.iter().eq(files.iter()));
        if all && (month_folder(&folder).is_some() || files.len() > 1) {
            out.push((folder, Form::Parquet(files)));
        } else {
            out.extend(files.into_iter().map(|f| (f.clone(), Form::Parquet(vec![f]))));
        }
    }
    Ok(out)
}

/// The dataset and month of a Hive folder `…/DATASET/data/year=YYYY/month=MM` (or
/// `…/DATASET/year=YYYY/month=MM`), as Hugging Face lays out the Lichess database; in Hugging
/// Face's cache, the dataset's name ([`cached_dataset`]).
fn month_folder(folder: &Path) -> Option<(String, String, String)> {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let month = name(folder)?.strip_prefix("month=")?.to_owned();
    let year_dir = folder.parent()?;
    let year = name(year_dir)?.strip_prefix("year=")?.to_owned();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(&month, 2) || !digits(&year, 4) {
        return None;
    }
    let above = std::path::absolute(year_dir).ok()?.parent()?.to_path_buf();
    let root = match name(&above) {
        Some(d) if d == "data" => above.parent().map(Path::to_path_buf),
        _ => Some(above),
    };
    let dataset = root.and_then(|root| cached_dataset(&root).or_else(|| name(&root)));
    Some((sanitized(&dataset.unwrap_or_default()), year, month))
}

/// The name of a dataset in Hugging Face's cache, `…/datasets--OWNER--NAME/snapshots/COMMIT`
/// (where `huggingface_hub` and `datasets` download it): NAME, not the commit, so that a month
/// keeps its source when a newer snapshot holds it.
fn cached_dataset(root: &Path) -> Option<String> {
    let snapshots = root.parent()?;
    if snapshots.file_name()? != "snapshots" {
        return None;
    }
    let repo = snapshots.parent()?.file_name()?.to_str()?;
    let (_owner, name) = repo.strip_prefix("datasets--")?.split_once("--")?;
    Some(name.to_owned())
}

/// The default source of a Parquet input: `DATASET@YYYY-MM` for a month of a Hive layout
/// (`standard-chess-games@2013-01`), else `NAME@parquet` after the file (or folder). A PGN
/// file's source never holds an `@` ([`source_name`]), so the two cannot collide.
fn parquet_source_name(path: &Path) -> String {
    let folder = if path.is_dir() { Some(path) } else { path.parent() };
    if let Some((dataset, year, month)) = folder.and_then(month_folder) {
        let dataset = if dataset == "input" { "lichess".to_owned() } else { dataset };
        return format!("{dataset}@{year}-{month}");
    }
    let stem = if path.is_dir() { path.file_name() } else { path.file_stem() };
    format!("{}@parquet", sanitized(&stem.map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()))
}

fn valid_source(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'@'))
}

/// The file name without its extensions (`.pgn`, `.zst`, `.bz2`, `.gz`), other characters than
/// letters, digits, `.`, `_` and `-` replaced by `_`.
fn source_name(path: &Path) -> String {
    let mut name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let lower = name.to_lowercase();
        match [".zst", ".bz2", ".gz", ".pgn"].iter().find(|ext| lower.ends_with(*ext)) {
            Some(ext) if name.len() > ext.len() => name.truncate(name.len() - ext.len()),
            _ => break,
        }
    }
    sanitized(&name)
}

/// `name` with other characters than letters, digits, `.`, `_` and `-` replaced by `_`, and no
/// leading `.` (`input` if nothing is left).
fn sanitized(name: &str) -> String {
    let name: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
    let name = name.trim_start_matches('.');
    if name.is_empty() { "input".to_owned() } else { name.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_files_by_their_numbers() {
        let input = |names: &[&str]| Input {
            path: PathBuf::from("m"),
            source: "s".into(),
            sha256: None,
            form: Form::Parquet(names.iter().map(|n| Path::new("m").join(n)).collect()),
            venue: None,
        };
        let missing = input(&["train-00000-of-00004.parquet", "train-00002-of-00004.parquet"]).missing_files();
        assert_eq!(missing, ["train-00001-of-00004.parquet", "train-00003-of-00004.parquet"]);
        assert!(input(&["train-0-of-1.parquet"]).missing_files().is_empty());
        // Names not numbered alike say nothing.
        assert!(input(&["a.parquet"]).missing_files().is_empty());
        assert!(input(&["train-00000-of-00002.parquet", "x-00000-of-00002.parquet"]).missing_files().is_empty());
        assert!(input(&["train-00000-of-00002.parquet", "train-00001-of-00003.parquet"]).missing_files().is_empty());
    }

    #[test]
    fn source_names() {
        assert_eq!(
            source_name(Path::new("/x/lichess_db_standard_rated_2024-01.pgn.zst")),
            "lichess_db_standard_rated_2024-01"
        );
        assert_eq!(source_name(Path::new("a b.PGN")), "a_b");
        assert!(valid_source("2024-01"));
        let dir = tempfile::tempdir().unwrap();
        let month = dir.path().join("standard-chess-games/data/year=2013/month=01");
        std::fs::create_dir_all(&month).unwrap();
        assert_eq!(parquet_source_name(&month), "standard-chess-games@2013-01");
        // Hugging Face's cache: the repository's name, not the snapshot's commit.
        let cached =
            dir.path().join("hub/datasets--Lichess--standard-chess-games/snapshots/0a1b2c/data/year=2013/month=02");
        std::fs::create_dir_all(&cached).unwrap();
        assert_eq!(parquet_source_name(&cached), "standard-chess-games@2013-02");
        assert_eq!(parquet_source_name(Path::new("/x/games.parquet")), "games@parquet");
        assert!(!valid_source("../x"));
    }
}
