//! Command line: arguments parsed into a validated command, errors mapped to exit codes.

pub(crate) mod dump;
pub(crate) mod explain;
mod options;

use std::{io, path::PathBuf, process::ExitCode};

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::ingest;

#[derive(Parser)]
#[command(
    name = "threefold",
    version,
    about = "Find every repetition of a position under the FIDE Laws (Art. 9.2, 9.6) in PGN collections"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each game's events and summary as one JSON object per line.
    ///
    /// Example: threefold dump games.pgn.zst --limit 100 > games.jsonl
    Dump {
        /// PGN file (plain, .zst, .bz2 or .gz; detected from its bytes), or - for stdin (PGN only); or
        /// a .parquet file or folder of them (Lichess's Parquet: one game per row).
        file: PathBuf,
        /// Stop after this many games.
        #[arg(long)]
        limit: Option<u64>,
    },
    /// Print a readable timeline of one game's repetition events.
    ///
    /// A game is named as the dataset names it: by its key, the tables' `byte_offset` (or
    /// `frame_offset:byte_offset` when frame_offset is not 0), as `threefold report` prints it
    /// after `@`. In a dataset folder, --source names the input (through the manifest).
    ///
    /// Examples:
    ///   threefold explain karpov_miles_tilburg_1986.pgn --game 1021
    ///   threefold explain dataset --source lichess_db_standard_rated_2024-01 --game 8388620:51233
    ///   threefold explain karpov_miles_tilburg_1986.pgn --game 1021 --html km.html --svg km-boards
    #[command(verbatim_doc_comment)]
    Explain {
        /// PGN file, Parquet file or month folder of games, a dataset folder, or - for stdin.
        file: PathBuf,
        /// The game's key: BYTE or FRAME:BYTE (Parquet: ROW or ROW_GROUP:ROW); default: the first game.
        #[arg(long, value_name = "KEY", value_parser = crate::read::key::GameKey::parse)]
        game: Option<crate::read::key::GameKey>,
        /// The dataset's source the game is in (when FILE is a dataset folder of several).
        #[arg(long, value_name = "NAME")]
        source: Option<String>,
        /// Also write a self-contained HTML page to FILE (atomically): each event's position and
        /// its earlier occurrences as boards, what differs marked.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Also write every board of that page as an SVG file of its own into DIR
        /// (ply-046-event-03.svg: ply, then event number).
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
    },
    /// Turn PGN collections into a Parquet dataset of games and repetition events.
    ///
    /// Writes DIR/games/source=<name>/part-NNNNN.parquet, DIR/events/source=<name>/part-NNNNN.parquet,
    /// DIR/views.sql (DuckDB views) and DIR/_manifest.json. An input whose partition is complete
    /// and whose file is unchanged is skipped (up to date; --force ingests it anyway); a new or
    /// changed one replaces its source's partition as a whole; a killed run's rerun resumes after
    /// the last complete part; a source another run is writing is skipped. Exit status 1 when an
    /// input could not be read to its end or failed --verify-sha256 (see the manifest); 2 on a
    /// usage error or an output error (disk full, ...), which stops the run.
    ///
    /// With --shard K/N, N runs (on N machines sharing DIR, or one after another) each process
    /// a deterministic 1/N of every input and together write the dataset one run would; the
    /// last shard to finish commits each source (--finish does what a killed one left undone).
    ///
    /// Examples:
    ///   threefold ingest lichess_db_standard_rated_2024-01.pgn.zst --out dataset
    ///   threefold ingest data-samples/ --out dataset --threads 4
    ///   threefold ingest /data/lichess --out dataset --shard 2/8   (the third of eight)
    ///   threefold ingest --out dataset --finish
    ///   zstdcat x.pgn.zst | threefold ingest - --out dataset --source 2024-01
    ///   duckdb -c ".read dataset/views.sql" -c "SELECT count(*) FROM games"
    #[command(verbatim_doc_comment)]
    Ingest(options::IngestArgs),
    /// Write DIR/views.sql again for where the dataset is now (after moving or copying it).
    ///
    /// DuckDB resolves the views' paths from its working directory, so views.sql names the
    /// partitions by absolute path; a dataset moved elsewhere needs them written again.
    ///
    /// Example: threefold views /mnt/shared/dataset && duckdb -c ".read /mnt/shared/dataset/views.sql"
    Views {
        /// Dataset directory written by `threefold ingest`.
        dir: PathBuf,
        /// Print the views on stdout instead of writing DIR/views.sql (a dataset one cannot
        /// write to; the Python module's `views_sql`).
        #[arg(long)]
        print: bool,
    },
    /// Answer the research questions over a dataset: sentences, then tables (optionally an HTML
    /// page of charts), every rate with its 95% Wilson interval.
    ///
    /// Reads DIR/games and DIR/events (written by ingest) directly, in bounded memory. Rates leave
    /// out skipped variants; rating band = the venue (its own rating pool) and the lower rating
    /// of the two players, bands of 200; a game's date is UTCDate, else Date where it is a full
    /// date.
    ///
    /// Examples:
    ///   threefold report dataset
    ///   threefold report dataset --html report.html
    ///   threefold report dataset --source 'lichess*' --since 2021-01 --time-class blitz --min-elo 1800
    ///   threefold report dataset --by source --html by-source.html
    ///   threefold report dataset --by collection --collections collections.csv
    ///   threefold report dataset --by month --sort value --html by-month.html
    ///   threefold report dataset --json > figures.json
    #[command(verbatim_doc_comment)]
    Report(options::ReportArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(err) => {
            if err.chain().any(|e| e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe))
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("threefold: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode> {
    match command {
        Command::Dump { file, limit } => dump::run(&file, limit),
        Command::Explain { file, game, source, html, svg } => {
            explain::run(&file, source.as_deref(), game, html.as_deref(), svg.as_deref())
        }
        Command::Ingest(args) => ingest::run(args.into()),
        Command::Views { dir, print: true } => {
            std::io::Write::write_all(&mut std::io::stdout().lock(), crate::dataset::views_sql(&dir)?.1.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Views { dir, print: false } => {
            crate::dataset::write_views(&dir)?;
            eprintln!("threefold: wrote {}", dir.join("views.sql").display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Report(args) => {
            let dir = args.dir.clone();
            crate::report::run(&dir, &args.try_into()?)
        }
    }
}

/// An input that could not be opened or read to its end: exit status 1, as in `ingest` (2 is
/// for usage and output errors).
pub(crate) fn input_failed(err: anyhow::Error) -> ExitCode {
    eprintln!("threefold: {err:#}");
    ExitCode::from(1)
}
