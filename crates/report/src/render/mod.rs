//! The report shown: [`text`] for the terminal, [`html`] for one self-contained page with
//! [`svg`] charts. Both show the rows of [`crate::figures`], never a number of their own.

pub(crate) mod html;
pub mod svg;
pub(crate) mod text;

// What the renderings show, under the names their modules use.
use crate::figures::{answers, chart, many};
use threefold_count::model;
