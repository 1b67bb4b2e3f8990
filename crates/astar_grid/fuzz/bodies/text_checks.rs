//! Checks shared by the parser fuzz bodies (which find them at `crate::text_checks`): where an
//! error points, and the error for bytes that are not UTF-8.

use astar_grid::ParseError;

/// The lines of `text` as the parsers number them (split at `\n`, without a final `\r`).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
}

/// Checks that `error` names a line of `text` (or the one just after its end) and a column
/// inside that line (or just after its last character).
pub fn check_error_position(text: &str, error: &ParseError) {
    assert!(error.line >= 1 && error.column >= 1, "{error:?}");
    let line_count = lines(text).count();
    assert!(
        error.line <= line_count + 1,
        "{error:?} past the end of {text:?}"
    );
    if let Some(line) = lines(text).nth(error.line - 1) {
        assert!(
            error.column <= line.chars().count() + 1,
            "{error:?} past the end of line {line:?}"
        );
    }
}

/// The character at the error's line and column of `text`.
pub fn character_at(text: &str, error: &ParseError) -> Option<char> {
    lines(text)
        .nth(error.line - 1)?
        .chars()
        .nth(error.column - 1)
}

/// Decodes `data` as text; for bytes that are not UTF-8, checks that [`ParseError::not_text`]
/// points just past the valid prefix (its lines and the characters of its last line), and
/// returns the text with the invalid bytes replaced, for the parsers to read all the same.
pub fn text_of(data: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Err(utf8_error) = std::str::from_utf8(data) {
        let error = ParseError::not_text(data, &utf8_error);
        let prefix = &data[..utf8_error.valid_up_to()];
        let last_line = prefix
            .rsplit(|&byte| byte == b'\n')
            .next()
            .unwrap_or(prefix);
        let characters = std::str::from_utf8(last_line).map_or(0, |line| line.chars().count());
        let newlines = prefix.iter().filter(|&&byte| byte == b'\n').count();
        assert_eq!(
            (error.line, error.column),
            (newlines + 1, characters + 1),
            "{error:?}"
        );
    }
    String::from_utf8_lossy(data)
}
