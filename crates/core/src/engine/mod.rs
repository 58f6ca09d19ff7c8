//! The rules: where a game starts ([`start`]), its moves played with `shakmaty` by one
//! [`replay`] loop for every kind of game, over the [`rules`] of [`standard`] chess (where
//! [`san`] finds most moves without a move list) or of a Lichess [`variant`],
//! how often each position occurred in the window that can still recur ([`tracker`], by its
//! exact FIDE [`identity`]; [`checks`] notes which moves of a long one gave check), and the records that come
//! out: [`event`]s and a [`summary`] (with the [`ending`] the tags record, its claims and automatic endings read by the [`laws`] in force), with the [`clocks`] and evaluations the comments gave (whose words [`vocabulary`] spells).

pub(crate) mod checks;
pub mod clocks;
pub(crate) mod ending;
pub mod event;
pub mod fingerprint;
pub mod identity;
pub mod laws;
pub mod replay;
pub(crate) mod rules;
pub mod san;
pub(crate) mod standard;
pub mod start;
pub mod summary;
pub(crate) mod tracker;
pub mod variant;
pub mod vocabulary;
