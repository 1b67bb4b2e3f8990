//! A small Rust lexer for the layering check: identifiers, `::` and punctuation with their line
//! numbers, with comments, string, character and number literals and lifetimes left out.

/// What a token is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier or keyword (raw identifiers without their `r#`).
    Ident(String),
    /// The path separator `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
    /// A string, character or number literal, or a lifetime: nothing a path is made of.
    Literal,
}

/// A token and the line (from 1) it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Its line, counted from 1.
    pub line: usize,
}

impl Token {
    /// Whether the token is the identifier or keyword `word`.
    pub fn is_ident(&self, word: &str) -> bool {
        matches!(&self.kind, TokenKind::Ident(name) if name == word)
    }

    /// Whether the token is the punctuation character `punct`.
    pub fn is_punct(&self, punct: char) -> bool {
        self.kind == TokenKind::Punct(punct)
    }

    /// The identifier, if the token is one.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokenKind::Ident(name) => Some(name),
            _ => None,
        }
    }
}

/// Splits `source` into tokens. Unterminated comments and literals end the input quietly:
/// the compiler, not this check, reports malformed code.
pub fn tokenize(source: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: source.chars().collect(),
        at: 0,
        line: 1,
        tokens: Vec::new(),
    };
    lexer.run();
    lexer.tokens
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: usize,
    tokens: Vec<Token>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Moves on by one character, counting lines.
    fn bump(&mut self) -> Option<char> {
        let next = self.peek(0)?;
        self.at += 1;
        if next == '\n' {
            self.line += 1;
        }
        Some(next)
    }

    fn push(&mut self, kind: TokenKind, line: usize) {
        self.tokens.push(Token { kind, line });
    }

    fn run(&mut self) {
        while let Some(next) = self.peek(0) {
            let line = self.line;
            match next {
                '/' if self.peek(1) == Some('/') => self.skip_line(),
                '/' if self.peek(1) == Some('*') => self.skip_block_comment(),
                '"' => {
                    self.bump();
                    self.skip_quoted('"');
                    self.push(TokenKind::Literal, line);
                }
                '\'' => self.char_or_lifetime(line),
                ':' if self.peek(1) == Some(':') => {
                    self.at += 2;
                    self.push(TokenKind::PathSep, line);
                }
                c if c.is_ascii_digit() => {
                    self.take_word();
                    self.push(TokenKind::Literal, line);
                }
                c if is_ident_start(c) => self.word(line),
                c if c.is_whitespace() => {
                    self.bump();
                }
                c => {
                    self.bump();
                    self.push(TokenKind::Punct(c), line);
                }
            }
        }
    }

    fn skip_line(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    /// Skips a block comment, nested ones included.
    fn skip_block_comment(&mut self) {
        self.at += 2;
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (Some('/'), Some('*')) => {
                    self.at += 2;
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.at += 2;
                    depth -= 1;
                }
                (Some(_), _) => {
                    self.bump();
                }
                (None, _) => return,
            }
        }
    }

    /// Skips the rest of a literal closed by `close`, with backslash escapes.
    fn skip_quoted(&mut self, close: char) {
        while let Some(next) = self.bump() {
            if next == '\\' {
                self.bump();
            } else if next == close {
                return;
            }
        }
    }

    /// `'x'`, `'\n'` and `'\u{..}'` are characters; `'a` and `'static` are lifetimes.
    fn char_or_lifetime(&mut self, line: usize) {
        self.bump();
        if self.peek(0) == Some('\\') || self.peek(1) == Some('\'') {
            self.skip_quoted('\'');
        } else {
            self.take_word();
        }
        self.push(TokenKind::Literal, line);
    }

    fn take_word(&mut self) -> String {
        let mut word = String::new();
        while let Some(next) = self.peek(0).filter(|&c| is_ident_continue(c)) {
            word.push(next);
            self.at += 1;
        }
        word
    }

    /// An identifier, or the prefix of a literal: `b"..."`, `r#"..."#`, `b'x'`, `c"..."`.
    fn word(&mut self, line: usize) {
        let word = self.take_word();
        let next = self.peek(0);
        let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
        if raw_prefix && (next == Some('"') || next == Some('#') && self.raw_string_ahead()) {
            self.skip_raw_string();
            self.push(TokenKind::Literal, line);
        } else if word == "r" && next == Some('#') {
            self.at += 1;
            let name = self.take_word();
            self.push(TokenKind::Ident(name), line);
        } else if matches!(word.as_str(), "b" | "c") && next == Some('"') {
            self.bump();
            self.skip_quoted('"');
            self.push(TokenKind::Literal, line);
        } else if word == "b" && next == Some('\'') {
            self.bump();
            self.skip_quoted('\'');
            self.push(TokenKind::Literal, line);
        } else {
            self.push(TokenKind::Ident(word), line);
        }
    }

    /// Whether the `#`s ahead open a raw string (`r#"`), not a raw identifier (`r#type`).
    fn raw_string_ahead(&self) -> bool {
        let mut ahead = 0;
        while self.peek(ahead) == Some('#') {
            ahead += 1;
        }
        self.peek(ahead) == Some('"')
    }

    /// Skips `#...#"..."#...#` from its first `#` or quote.
    fn skip_raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.at += 1;
        }
        self.bump();
        while let Some(next) = self.bump() {
            if next == '"' && (0..hashes).all(|index| self.peek(index) == Some('#')) {
                self.at += hashes;
                return;
            }
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}
