//! The line model: where `pgn-reader` starts a game, read line by line ([`Lines`], after the
//! reader's rules: tag lines, `;` comments, `%` escape lines, `\r\n` endings, a byte-order mark
//! at the stream's start). A file of its own because four other modules use it: the
//! [`crate::read::chunk::Splitter`] and the [`crate::read::blocks::Stitcher`] cut a stream with
//! it, a [`crate::read::survey::Survey`] reads a block from each of its [`CANDIDATES`] states, and
//! a shard and `locate` find where a reader may start inside an input with [`sure_start`].

use memchr::{memchr, memchr2, memchr3, memrchr2};

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// What the reader is doing at the start of a line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Between games: the next content starts a game.
    Between,
    /// In a tag section: more `[` lines are more tags of the same game.
    Tags,
    /// In movetext.
    Movetext,
}

/// Line-by-line model of where `pgn-reader` starts games.
#[derive(Clone, Debug)]
pub(crate) struct Lines {
    state: State,
    in_comment: bool,
    /// Name of the first tag of the current tag section (truncated), and its length.
    first_tag: [u8; 16],
    first_tag_len: usize,
    /// A blank line followed the last tag line.
    blank_after_tag: bool,
    /// The tag section began before the text read so far, so its first tag is not known (a
    /// survey of a block from a guessed state, [`crate::read::blocks`]).
    first_tag_unknown: bool,
    /// A line was met whose reading depends on that unknown tag: this model is out of use.
    undecided: bool,
    /// The next line is the stream's first: `pgn-reader` skips a byte-order mark at its start
    /// (and at no other line's start: there a mark is movetext).
    first_line: bool,
}

/// The states a line start can be in, as far as the rest of the text can tell: [`Lines`]
/// from any of them, given the same lines, agree once they are in the same one. In a tag
/// section, its first tag decides whether a tag line after a blank line starts a game; the
/// standard's first tag, `Event`, is a state of its own, any other is not known in advance.
pub(crate) const CANDIDATES: usize = 7;

/// The first game start in `block` (a line start) that every reading agrees on, whatever state
/// the text before the block left the line model in, but one: inside a `{}` comment (text without
/// braces could be a comment's for any length, so that reading never agrees). A reader that starts
/// at the block (a shard) and one that comes from the input's start then see a game begin there,
/// and the latter checks it (a comment left open across the block's start would be an error, not
/// a wrong split). The readings from each candidate state go line by line (a line one of them
/// cannot decide is read both ways) until they are all in one state. `None` if they never are
/// within the block's whole lines.
pub fn sure_start(block: &[u8]) -> Option<usize> {
    let mut at = memchr(b'\n', block)? + 1;
    let mut runs: Vec<Lines> = (0..CANDIDATES).map(Lines::guess).filter(|l| !l.in_comment()).collect();
    let mut next: Vec<Lines> = Vec::new();
    while let Some(n) = memchr(b'\n', &block[at..]) {
        let line = &block[at..at + n];
        next.clear();
        let mut started = true;
        for run in &runs {
            let mut read = run.clone();
            started &= read.line(line);
            if read.undecided() {
                next.extend(run.fork(line));
            } else {
                next.push(read);
            }
        }
        if runs.len() == 1 && started {
            return Some(at);
        }
        runs.clear();
        for run in next.drain(..) {
            if !runs.iter().any(|r| r.same_as(&run)) {
                runs.push(run);
            }
        }
        at += n + 1;
    }
    None
}

/// The first tag a tag section is guessed to have.
const EVENT: &[u8] = b"Event";

/// The name of the tag on a line starting with `[`.
fn tag_name(l: &[u8]) -> &[u8] {
    let rest = &l[1..];
    let end = rest.iter().position(|&b| matches!(b, b' ' | b'"' | b']' | b'\t')).unwrap_or(rest.len());
    &rest[..end.min(16)]
}

impl Lines {
    /// A model at the start of a line inside a stream, where a game starts (a shard or a resumed
    /// run starts there): between games, and not the stream's first line.
    pub(crate) fn inside() -> Lines {
        Lines { first_line: false, ..Lines::new() }
    }

    pub(crate) fn new() -> Lines {
        Lines {
            state: State::Between,
            in_comment: false,
            first_tag: [0; 16],
            first_tag_len: 0,
            blank_after_tag: false,
            first_tag_unknown: false,
            undecided: false,
            first_line: true,
        }
    }

    /// Which of the [`CANDIDATES`] this model is in. The other fields matter only in a tag
    /// section (the first tag) and are set anew when one begins.
    pub(crate) fn candidate(&self) -> usize {
        match self.state {
            State::Between => 0,
            State::Movetext => 1 + usize::from(self.in_comment),
            State::Tags => {
                let event = !self.first_tag_unknown && &self.first_tag[..self.first_tag_len] == EVENT;
                3 + usize::from(self.blank_after_tag) + 2 * usize::from(event)
            }
        }
    }

    /// A model in candidate state `i` at a line start whose past is unknown.
    pub(crate) fn guess(i: usize) -> Lines {
        let mut lines = Lines::new();
        lines.first_line = false;
        match i {
            0 => {}
            1 | 2 => {
                lines.state = State::Movetext;
                lines.in_comment = i == 2;
            }
            _ => {
                lines.state = State::Tags;
                lines.blank_after_tag = i.is_multiple_of(2);
                lines.first_tag_unknown = i < 5;
                lines.first_tag[..EVENT.len()].copy_from_slice(EVENT);
                lines.first_tag_len = if i < 5 { 0 } else { EVENT.len() };
            }
        }
        lines
    }

    /// Whether this model reads every text that follows as `other` does.
    pub(crate) fn same_as(&self, other: &Lines) -> bool {
        self.candidate() == other.candidate()
            && (self.state != State::Tags
                || (self.first_tag_unknown == other.first_tag_unknown
                    && self.first_tag[..self.first_tag_len] == other.first_tag[..other.first_tag_len]))
    }

    pub(crate) fn undecided(&self) -> bool {
        self.undecided
    }

    /// The two ways a line this model cannot decide may be read (it needs the section's first
    /// tag, which it does not know): as the first tag of a new game, or as one more tag.
    fn fork(&self, line: &[u8]) -> [Lines; 2] {
        let lead = line.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r')).count();
        let name = tag_name(&line[lead..]);
        let mut new = self.clone();
        new.first_tag_unknown = false;
        new.first_tag[..name.len()].copy_from_slice(name);
        new.first_tag_len = name.len();
        let mut more = self.clone();
        more.blank_after_tag = false;
        new.line(line);
        more.line(line);
        [new, more]
    }

    /// Inside a `{}` comment: no line without a `}` changes this model.
    pub(crate) fn in_comment(&self) -> bool {
        self.in_comment
    }

    /// This model, surveyed from a guessed state, after text that followed `before`: the
    /// first tag the survey could not know is `before`'s.
    pub(crate) fn following(mut self, before: &Lines) -> Lines {
        if self.first_tag_unknown {
            self.first_tag = before.first_tag;
            self.first_tag_len = before.first_tag_len;
            self.first_tag_unknown = before.first_tag_unknown;
        }
        self
    }

    /// Reads every line of `text`, which ends with a line break (or is empty); pushes `base`
    /// plus the offset of each game start.
    pub(crate) fn scan(&mut self, text: &[u8], base: usize, starts: &mut Vec<usize>) {
        let mut at = 0;
        while !self.undecided
            && let Some((len, game)) = self.next_line(&text[at..], 0)
        {
            if game {
                starts.push(base + at);
            }
            at += len;
        }
    }

    /// Reads the first line of `text` if it is whole: its length with the line break, and
    /// whether a game starts on it. `text[..known]` is known to hold no line break (a long line
    /// searched before, across reads): it is searched only once.
    ///
    /// Most lines are movetext without comments or tags that continue a tag section: one pass
    /// finds their end, and they change nothing (the reader's state only changes at a blank
    /// line, a line starting with `[` or `%`, or a comment).
    #[inline(always)]
    pub(crate) fn next_line(&mut self, text: &[u8], known: usize) -> Option<(usize, bool)> {
        if known == 0 {
            if let Some(found) = self.continued_tag_line(text) {
                return Some((found + 1, false));
            }
            if self.plain_movetext_next(text.first().copied())
                && let Some(found) = memchr3(b'\n', b'{', b';', text)
                && text[found] == b'\n'
            {
                return Some((found + 1, false));
            }
        }
        let end = known + memchr(b'\n', &text[known..])?;
        Some((end + 1, self.line(&text[..end])))
    }

    /// Whether a line starting with `first` is plain movetext for [`Self::line`]: in movetext,
    /// outside a comment, starting with none of the bytes that may start a game, a blank line
    /// or an escape line. Such a line changes nothing unless it opens a comment.
    fn plain_movetext_next(&self, first: Option<u8>) -> bool {
        self.state == State::Movetext
            && !self.in_comment
            && first.is_some_and(|b| !matches!(b, b'[' | b'%' | b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Whether `text` (from a line start) opens with a tag line that [`Self::line`] would take
    /// as just one more tag of the current tag section, `[Name "value"]` with no escape and an
    /// optional `\r`, and if so where its `\n` is. Such a line changes nothing: one pass over
    /// its bytes replaces a line search and two searches per tag (most lines of a game are
    /// tags). The first tag of a section, or one after a blank line, takes the general path.
    fn continued_tag_line(&self, text: &[u8]) -> Option<usize> {
        if self.state != State::Tags || self.blank_after_tag || self.in_comment || text.first() != Some(&b'[') {
            return None;
        }
        // The name, up to the value's opening quote (the reader's tag ends at a `]` first).
        let name = &text[1..];
        let q = memchr3(b'"', b']', b'\n', name)?;
        if name[q] != b'"' {
            return None;
        }
        let value = &name[q + 1..];
        let v = memchr3(b'"', b'\\', b'\n', value)?;
        if value[v] != b'"' {
            return None;
        }
        let nl = match value[v + 1..] {
            [b']', b'\n', ..] => 1,
            [b']', b'\r', b'\n', ..] => 2,
            _ => return None,
        };
        Some(1 + q + 1 + v + 1 + nl)
    }

    /// Takes one line (without its `\n`); returns whether a game starts at its first byte.
    pub(crate) fn line(&mut self, line: &[u8]) -> bool {
        if self.in_comment {
            if let Some(end) = memchr(b'}', line) {
                self.in_comment = false;
                self.movetext(&line[end + 1..]);
            }
            return false;
        }
        let mut l = line;
        // The stream's first line is always read here (the shortcuts of `next_line` take lines
        // in a tag section or in movetext only).
        if std::mem::take(&mut self.first_line) {
            l = l.strip_prefix(BOM).unwrap_or(l);
        }
        if self.state != State::Movetext {
            // Between games and after tags the reader skips all whitespace; in movetext only a
            // line break directly followed by `[` or another line break ends the game.
            let lead = l.iter().take_while(|b| matches!(b, b' ' | b'\t' | b'\r')).count();
            if lead < l.len() {
                l = &l[lead..];
            }
        }
        let blank = l.is_empty() || l == b"\r";
        let space_only = l.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
        match self.state {
            State::Movetext if blank => {
                self.state = State::Between;
                false
            }
            State::Tags if space_only => {
                self.blank_after_tag = true;
                false
            }
            _ if space_only || l[0] == b'%' => false,
            State::Between => {
                self.game(l);
                true
            }
            State::Movetext if l[0] == b'[' => {
                self.game(l);
                true
            }
            // pgn-reader reads tags on across blank lines, which would merge games that have tags
            // but no moves; a section that starts again with its first tag after a blank line is
            // a new game (a blank line inside one game's tags, as ChessBase writes, is not).
            State::Tags if l[0] == b'[' && self.blank_after_tag && self.first_tag_unknown => {
                self.undecided = true;
                false
            }
            State::Tags
                if l[0] == b'[' && self.blank_after_tag && tag_name(l) == &self.first_tag[..self.first_tag_len] =>
            {
                self.game(l);
                true
            }
            State::Tags if l[0] == b'[' => {
                self.tags(l);
                false
            }
            State::Movetext | State::Tags => {
                self.state = State::Movetext;
                self.movetext(l);
                false
            }
        }
    }

    fn game(&mut self, l: &[u8]) {
        if l[0] == b'[' {
            let name = tag_name(l);
            self.first_tag[..name.len()].copy_from_slice(name);
            self.first_tag_len = name.len();
            self.first_tag_unknown = false;
            self.tags(l);
        } else {
            self.state = State::Movetext;
            self.movetext(l);
        }
    }

    fn tags(&mut self, l: &[u8]) {
        self.state = State::Tags;
        self.blank_after_tag = false;
        if let Some(rest) = tags_end(l) {
            self.state = State::Movetext;
            self.movetext(&l[rest..]);
        }
    }

    /// Follows `{}` comments and `;` comments through movetext that starts outside a comment.
    fn movetext(&mut self, l: &[u8]) {
        self.in_comment = ends_in_comment(l);
    }
}

/// Whether movetext `l`, starting outside a comment, ends inside a `{}` comment. Comments do not
/// nest (a `{` inside one is text, a `}` outside one is skipped), so without a `;` the line ends
/// inside a comment exactly when its last brace is `{`: one search from the end, where a
/// Lichess line with a clock comment after every move would take two searches per move.
fn ends_in_comment(l: &[u8]) -> bool {
    if memchr(b';', l).is_none() {
        return memrchr2(b'{', b'}', l).is_some_and(|i| l[i] == b'{');
    }
    ends_in_comment_by_walk(l)
}

/// [`ends_in_comment`] by walking comment to comment, for lines with a `;` (which comments out
/// the rest of the line, braces included, unless it stands in a `{}` comment).
fn ends_in_comment_by_walk(mut l: &[u8]) -> bool {
    loop {
        let Some(i) = memchr2(b'{', b';', l) else { return false };
        if l[i] == b';' {
            return false;
        }
        match memchr(b'}', &l[i + 1..]) {
            Some(end) => l = &l[i + 1 + end + 1..],
            None => return true,
        }
    }
}

/// Where movetext starts on a line that starts with tags (as `pgn-reader` reads tags), or `None`
/// when the tags take the whole line.
fn tags_end(l: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        if i >= l.len() {
            return None;
        }
        if l[i] != b'[' {
            return Some(i);
        }
        i += 1;
        let d = memchr2(b'"', b']', &l[i..])?;
        if l[i + d] == b'"' {
            let mut j = i + d + 1;
            loop {
                let e = memchr2(b'\\', b'"', &l[j..])?;
                if l[j + e] == b'"' {
                    i = j + e + 1;
                    break;
                }
                j = (j + e + 2).min(l.len());
            }
        } else {
            i += d + 1;
        }
        while i < l.len() && matches!(l[i], b' ' | b'\t' | b'\r') {
            i += 1;
        }
        if i < l.len() && l[i] == b']' {
            i += 1;
            while i < l.len() && matches!(l[i], b' ' | b'\t' | b'\r') {
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(text: &str) -> Vec<usize> {
        let mut lines = Lines::new();
        text.split('\n').enumerate().filter(|(_, l)| lines.line(l.as_bytes())).map(|(i, _)| i).collect()
    }

    #[test]
    fn games_start_after_movetext() {
        let pgn = "[Event \"a\"]\n\n1. e4 e5 1-0\n[Event \"b\"]\n[Site \"x\"]\n\n1. d4 { [%clk 1]\n[Event \"no\"] }\n*\n\n1. c4 *";
        assert_eq!(starts(pgn), vec![0, 3, 10]);
    }

    #[test]
    fn leading_whitespace_outside_movetext() {
        assert_eq!(starts("  [V \"a\"]\n\n1. e4 *\n\n  [V \"b\"]\n  [W \"c\"]\n1. d4\n  [X \"no\"]"), vec![0, 4]);
    }

    /// `pgn-reader` skips a byte-order mark only at the stream's first byte: on a later line
    /// (or after whitespace) the mark is movetext, and after a blank line a game of its own.
    #[test]
    fn a_byte_order_mark_is_skipped_at_the_start_of_the_stream_only() {
        assert_eq!(starts("\u{feff}[Event \"a\"]\n\n1. e4 *\n\n\u{feff}[Event \"b\"]\n\n1. d4 *"), vec![0, 4, 6]);
        assert_eq!(starts("\n\u{feff}[Event \"a\"]\n[Site \"b\"]\n\n1. e4 *"), vec![1, 2]);
        assert_eq!(starts("\u{feff}\n\u{feff}[Event \"a\"]\n[Site \"b\"]"), vec![1, 2]);
        assert_eq!(starts("\u{feff}\n  [Event \"a\"]\n[Site \"b\"]"), vec![1]);
    }

    #[test]
    fn header_only_games_are_games() {
        assert_eq!(starts("[Event \"a\"]\n\n[Event \"b\"]\n\n1. e4 *"), vec![0, 2]);
        // ChessBase writes a blank line inside a game's tags
        assert_eq!(
            starts("[Event \"a\"]\n[Site \"b\"]\n\n[Date \"c\"]\n\n1. e4 *\n\n[Event \"d\"]\n1. d4 *"),
            vec![0, 7]
        );
    }

    #[test]
    fn tags_and_moves_on_one_line() {
        assert_eq!(starts("[Event \"a\"] 1. e4 {x\n[y] } *\n[Event \"b\"] *"), vec![0, 2]);
        assert_eq!(tags_end(b"[A \"x\\\"y\"] [B \"z\"]  1. e4"), Some(20));
    }

    /// Every string of up to `max_len` bytes over `alphabet`, shortest first.
    fn strings_over(alphabet: &[u8], max_len: u32) -> impl Iterator<Item = Vec<u8>> + '_ {
        let k = alphabet.len();
        (0..=max_len)
            .flat_map(move |len| (0..k.pow(len)).map(move |n| (0..len).map(|i| alphabet[n / k.pow(i) % k]).collect()))
    }

    /// The one-search rule for the comment state at a line's end agrees with walking comment
    /// to comment: on every string of up to 8 bytes over `{`, `}`, `;`, `x` and on every line
    /// of the corpus's plain PGN files.
    #[test]
    fn last_brace_rule_agrees_with_walking_comments() {
        let mut checked = 0;
        for s in strings_over(b"{};x", 8) {
            assert_eq!(ends_in_comment(&s), ends_in_comment_by_walk(&s), "{:?}", String::from_utf8_lossy(&s));
            checked += 1;
        }
        let tmp = tempfile::tempdir().unwrap();
        let (mut open, mut lines) = (0, 0);
        for path in crate::testdata::splitter_files(
            &["edge", "otb", "lichess", "variants"],
            "the last-brace rule on the corpus's lines",
            tmp.path(),
        ) {
            for l in std::fs::read(&path).unwrap().split(|&b| b == b'\n') {
                assert_eq!(
                    ends_in_comment(l),
                    ends_in_comment_by_walk(l),
                    "{}: {:?}",
                    path.display(),
                    String::from_utf8_lossy(l)
                );
                open += usize::from(ends_in_comment(l));
                lines += 1;
            }
        }
        assert!(checked > 80_000 && lines > 50_000 && open > 100, "{checked} strings, {lines} lines, {open} open");
    }

    /// A line the tag-line shortcut passes over is one `Lines::line` reads as tags only, in a
    /// tag section: on every string of up to 7 bytes after a `[` over the bytes that matter.
    #[test]
    fn continued_tag_lines_are_tags_only() {
        let mut taken = 0;
        for rest in strings_over(b"[\"]\\\r\n x", 7) {
            let text = [&b"["[..], &rest].concat();
            let mut lines = Lines::new();
            assert!(lines.line(b"[Event \"a\"]"));
            let Some(nl) = lines.continued_tag_line(&text) else { continue };
            assert_eq!(text[nl], b'\n');
            let line = &text[..nl];
            assert_eq!(tags_end(line), None, "{:?}", String::from_utf8_lossy(line));
            assert!(!lines.line(line));
            assert!(lines.state == State::Tags && !lines.blank_after_tag && !lines.in_comment);
            taken += 1;
        }
        assert!(taken > 1000, "{taken}");
    }
}
