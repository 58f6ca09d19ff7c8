//! Replaying a piece of a Parquet input's rows on a worker: the rows' text and tags
//! ([`crate::parquet_input`], written by the reader's threads) read as a chunk of PGN
//! is, but for the tags taken from the columns ([`GameVisitor::read_rows`]), and each game given
//! the key of its row. A row is always one game: a row whose text holds no game
//! (no tags, no movetext) or more than one, or whose movetext is null, is a game with an
//! `invalid_pgn` error.

use std::ops::ControlFlow;

use anyhow::Result;

use super::{Replayed, RowCounts, parquet_input::Rendered, reader::Work};
use crate::{
    dataset::schema::BatchBuilder,
    engine::{
        replay::Analysis,
        start::{ErrorKind, GameError},
    },
    pgn::{Game, GameVisitor},
    read::{chunk::Chunk, key::GameKey},
};

/// `game` stopped before its first move by `why`, its tags kept.
fn unreadable(game: &mut Game, why: &str) {
    let error = GameError { kind: ErrorKind::InvalidPgn, ply: 0, token: why.to_owned() };
    game.analysis = Some(Analysis::failed(error));
}

/// The game of each row whose text `chunk` holds (as `rendered` places the rows in it), in row
/// order: the row's first game, or a game with an `invalid_pgn` error for a row whose text holds
/// none or more than one, or whose movetext is null.
pub fn row_games(visitor: &mut GameVisitor, chunk: &Chunk, rendered: &Rendered) -> Vec<Game> {
    // The games of each row's text, in row order.
    let mut games: Vec<(usize, Game)> = Vec::with_capacity(rendered.starts.len());
    let _ = visitor.read_rows(
        chunk,
        |row, tags| rendered.tags_of(row, tags),
        |row, game| {
            games.push((row, game));
            ControlFlow::Continue(())
        },
    );
    let mut games = games.into_iter().peekable();
    let mut out = Vec::with_capacity(rendered.starts.len());
    for row in 0..rendered.starts.len() {
        let mut game = match games.next_if(|(r, _)| *r == row) {
            Some((_, game)) => game,
            None => {
                let mut game = Game::empty();
                unreadable(&mut game, "the row has no tags and no movetext");
                game
            }
        };
        let mut extra = 0;
        while games.next_if(|(r, _)| *r == row).is_some() {
            extra += 1;
        }
        if rendered.null_movetext[row] {
            unreadable(&mut game, "movetext is null");
        } else if extra > 0 {
            unreadable(&mut game, &format!("the movetext holds {extra} more game(s) (a line that starts with a tag)"));
        }
        out.push(game);
    }
    out
}

/// Replays the rows of `work`'s piece, whose text the chunk holds.
pub(super) fn replay_piece(work: &Work, source: &str, visitor: &mut GameVisitor) -> Result<Replayed> {
    let piece = work.piece.as_ref().expect("a Parquet piece");
    let (group, first, rendered) = (piece.frame_offset, piece.rows.start, &piece.rendered);
    let mut batch = BatchBuilder::with_capacity(rendered.starts.len());
    let mut tally = RowCounts::default();
    for (row, game) in row_games(visitor, &work.chunk, rendered).into_iter().enumerate() {
        tally.add_game(&game);
        batch.append(GameKey { frame_offset: group, byte_offset: first + row as u64 }, game);
    }
    let (games, events) = batch.finish(source, |game| visitor.recycle(game))?;
    Ok(Replayed { seq: work.chunk.seq, last: work.last, bytes: work.bytes, games, events, tally })
}
