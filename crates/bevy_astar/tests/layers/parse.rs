//! Reads one source file's tokens into its modules (the file's own and the inline ones): the
//! child modules it declares, the names it defines, its `use` items and the other paths its
//! code names.

use super::lexer::{Token, TokenKind};
use std::collections::BTreeSet;

/// One leaf of a `use` tree: `use a::{b::C as D, e::*}` has two.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UseItem {
    /// The path as written, from its first segment (`crate`, `self`, `super`, a name in scope,
    /// or `::` for a leading `::`); for a glob, the path of the module whose names it brings.
    pub path: Vec<String>,
    /// The name it binds in the module (its last segment, or the name after `as`); none for a
    /// glob and for `as _`.
    pub binding: Option<String>,
    /// Whether it is a glob (`path::*`).
    pub glob: bool,
    /// The line of its last segment.
    pub line: usize,
}

/// A path of two segments or more named in code outside `use` items: `crate::queue::set(..)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathRef {
    /// Its segments, up to the first one that is not an identifier (generics end it).
    pub path: Vec<String>,
    /// The line of its first segment.
    pub line: usize,
}

/// A child module declared in a module: `mod name;` or `mod name { .. }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleDecl {
    /// The child's name.
    pub name: String,
    /// Whether the declaration is marked `#[cfg(test)]` (the child is then left unchecked).
    pub cfg_test: bool,
}

/// What one module's source holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleSource {
    /// The module's path in its crate, empty for the crate root.
    pub path: Vec<String>,
    /// The child modules it declares.
    pub children: Vec<ModuleDecl>,
    /// The names it defines at its top level (types, functions, constants, macros, ...).
    pub items: BTreeSet<String>,
    /// Its `use` items, those in function bodies included.
    pub uses: Vec<UseItem>,
    /// The other paths its code names.
    pub refs: Vec<PathRef>,
}

/// Keywords that define a named item at a module's top level.
const ITEM_KEYWORDS: [&str; 8] = [
    "struct", "enum", "fn", "trait", "type", "const", "static", "union",
];

/// Parses the tokens of the file of module `path` into that module and the inline modules in
/// it, the file's module first. Inline modules marked `#[cfg(test)]` are declared but their
/// contents are skipped.
pub fn parse_file(tokens: &[Token], path: &[String]) -> Vec<ModuleSource> {
    let mut parser = Parser {
        tokens,
        at: 0,
        depth: 0,
        modules: vec![ModuleSource {
            path: path.to_vec(),
            ..ModuleSource::default()
        }],
        open: vec![OpenModule {
            index: 0,
            body_depth: 0,
        }],
        cfg_test: false,
    };
    parser.run();
    parser.modules
}

/// A module whose body the parser is in: where its source goes and the brace depth of its body.
struct OpenModule {
    index: usize,
    body_depth: usize,
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    depth: usize,
    modules: Vec<ModuleSource>,
    open: Vec<OpenModule>,
    /// Whether the attributes just read include `#[cfg(test)]`.
    cfg_test: bool,
}

impl<'a> Parser<'a> {
    fn token(&self, ahead: usize) -> Option<&Token> {
        self.tokens.get(self.at + ahead)
    }

    fn current(&self) -> (usize, usize) {
        self.open
            .last()
            .map_or((0, 0), |open| (open.index, open.body_depth))
    }

    fn run(&mut self) {
        while let Some(token) = self.token(0).cloned() {
            let keeps_attributes = token.is_punct('#') || token.is_ident("pub");
            if token.is_punct('#') {
                self.attribute();
            } else if token.is_ident("pub") {
                self.visibility();
            } else if token.is_ident("mod") {
                self.module_declaration();
            } else if token.is_ident("use") && !self.token(1).is_some_and(|t| t.is_punct('<')) {
                self.use_declaration();
            } else if token.is_punct('{') {
                self.depth += 1;
                self.at += 1;
            } else if token.is_punct('}') {
                self.close_brace();
            } else if token.ident().is_some() {
                self.item_or_path(&token);
            } else {
                self.at += 1;
            }
            if !keeps_attributes {
                self.cfg_test = false;
            }
        }
    }

    /// Skips past the group that opens at the current token, returning the tokens inside it.
    fn group(&mut self, open: char, close: char) -> &'a [Token] {
        let tokens = self.tokens;
        let start = self.at + 1;
        let mut level = 0;
        while let Some(token) = tokens.get(self.at) {
            self.at += 1;
            if token.is_punct(open) {
                level += 1;
            } else if token.is_punct(close) {
                level -= 1;
                if level == 0 {
                    return &tokens[start..self.at - 1];
                }
            }
        }
        &tokens[start.min(tokens.len())..]
    }

    /// `#[..]` or `#![..]`; notes `#[cfg(test)]` and keeps the paths inside
    /// (`#[require(crate::a::B)]`).
    fn attribute(&mut self) {
        self.at += 1;
        if self.token(0).is_some_and(|t| t.is_punct('!')) {
            self.at += 1;
        }
        if !self.token(0).is_some_and(|t| t.is_punct('[')) {
            return;
        }
        let inside = self.group('[', ']');
        let cfg_test = [
            TokenKind::Ident("cfg".into()),
            TokenKind::Punct('('),
            TokenKind::Ident("test".into()),
            TokenKind::Punct(')'),
        ];
        if inside.iter().map(|t| &t.kind).eq(cfg_test.iter()) {
            self.cfg_test = true;
        }
        let (index, _) = self.current();
        let mut at = 0;
        while let Some(token) = inside.get(at) {
            if token.ident().is_none() {
                at += 1;
                continue;
            }
            let path = path_segments(inside, &mut at);
            if path.len() >= 2 {
                self.modules[index].refs.push(PathRef {
                    path,
                    line: token.line,
                });
            }
        }
    }

    /// `pub` and its restriction (`pub(crate)`, `pub(in crate::a)`), which names no import.
    fn visibility(&mut self) {
        self.at += 1;
        if self.token(0).is_some_and(|t| t.is_punct('(')) {
            self.group('(', ')');
        }
    }

    fn module_declaration(&mut self) {
        let Some(name) = self.token(1).and_then(Token::ident).map(str::to_owned) else {
            self.at += 1;
            return;
        };
        let cfg_test = self.cfg_test;
        let (index, _) = self.current();
        self.modules[index].children.push(ModuleDecl {
            name: name.clone(),
            cfg_test,
        });
        self.at += 2;
        if !self.token(0).is_some_and(|t| t.is_punct('{')) {
            return;
        }
        if cfg_test {
            self.group('{', '}');
            return;
        }
        let mut path = self.modules[index].path.clone();
        path.push(name);
        self.modules.push(ModuleSource {
            path,
            ..ModuleSource::default()
        });
        self.at += 1;
        self.depth += 1;
        self.open.push(OpenModule {
            index: self.modules.len() - 1,
            body_depth: self.depth,
        });
    }

    fn close_brace(&mut self) {
        self.at += 1;
        if self.open.len() > 1 && self.current().1 == self.depth {
            self.open.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    fn use_declaration(&mut self) {
        self.at += 1;
        let mut items = Vec::new();
        parse_use_tree(self.tokens, &mut self.at, &[], &mut items);
        while self.token(0).is_some_and(|t| !t.is_punct(';')) {
            self.at += 1;
        }
        self.at += 1;
        let (index, _) = self.current();
        self.modules[index].uses.extend(items);
    }

    /// An item's name after its keyword at the module's top level, or the head of a path.
    fn item_or_path(&mut self, token: &Token) {
        let (index, body_depth) = self.current();
        let keyword = token.ident().unwrap_or_default();
        let next_name = self.token(1).and_then(Token::ident).map(str::to_owned);
        if self.depth == body_depth && ITEM_KEYWORDS.contains(&keyword) {
            self.modules[index].items.extend(next_name);
            self.at += 1;
            return;
        }
        if keyword == "macro_rules" && self.token(1).is_some_and(|t| t.is_punct('!')) {
            let name = self.token(2).and_then(Token::ident).map(str::to_owned);
            self.modules[index].items.extend(name);
            self.at += 1;
            return;
        }
        let after_dollar = self.at > 0 && self.tokens[self.at - 1].is_punct('$');
        let path = path_segments(self.tokens, &mut self.at);
        if path.len() >= 2 && !after_dollar {
            self.modules[index].refs.push(PathRef {
                path,
                line: token.line,
            });
        }
    }
}

/// Reads `a::b::c` from the identifier at `at`, leaving `at` after it.
fn path_segments(tokens: &[Token], at: &mut usize) -> Vec<String> {
    let mut path = Vec::new();
    while let Some(name) = tokens.get(*at).and_then(Token::ident) {
        path.push(name.to_owned());
        *at += 1;
        let more = tokens
            .get(*at)
            .is_some_and(|t| t.kind == TokenKind::PathSep)
            && tokens.get(*at + 1).and_then(Token::ident).is_some();
        if !more {
            break;
        }
        *at += 1;
    }
    path
}

/// Reads one use tree from `at` (a path, a glob or a `{..}` group under `prefix`) into `items`.
fn parse_use_tree(tokens: &[Token], at: &mut usize, prefix: &[String], items: &mut Vec<UseItem>) {
    let mut path = prefix.to_vec();
    if tokens
        .get(*at)
        .is_some_and(|t| t.kind == TokenKind::PathSep)
    {
        path.push("::".to_owned());
        *at += 1;
    }
    loop {
        let Some(token) = tokens.get(*at) else { return };
        if token.is_punct('{') {
            *at += 1;
            use_group(tokens, at, &path, items);
            return;
        }
        if token.is_punct('*') {
            *at += 1;
            items.push(UseItem {
                path,
                binding: None,
                glob: true,
                line: token.line,
            });
            return;
        }
        let Some(name) = token.ident() else { return };
        path.push(name.to_owned());
        *at += 1;
        if tokens
            .get(*at)
            .is_some_and(|t| t.kind == TokenKind::PathSep)
        {
            *at += 1;
        } else {
            items.push(use_leaf(tokens, at, path, token.line));
            return;
        }
    }
}

/// The trees of a `{..}` group, from after its `{` to after its `}`.
fn use_group(tokens: &[Token], at: &mut usize, prefix: &[String], items: &mut Vec<UseItem>) {
    while let Some(token) = tokens.get(*at) {
        if token.is_punct('}') {
            *at += 1;
            return;
        }
        if token.is_punct(',') {
            *at += 1;
            continue;
        }
        let before = *at;
        parse_use_tree(tokens, at, prefix, items);
        if *at == before {
            *at += 1;
        }
    }
}

/// The leaf `path` ends, with its `as` rename if any; `a::{self}` binds `a`.
fn use_leaf(tokens: &[Token], at: &mut usize, mut path: Vec<String>, line: usize) -> UseItem {
    if path.last().is_some_and(|last| last == "self") && path.len() > 1 {
        path.pop();
    }
    let mut binding = path.last().cloned();
    if tokens.get(*at).is_some_and(|t| t.is_ident("as")) {
        let alias = tokens.get(*at + 1).and_then(Token::ident);
        binding = alias.filter(|&alias| alias != "_").map(str::to_owned);
        *at += 2;
    }
    UseItem {
        path,
        binding,
        glob: false,
        line,
    }
}
