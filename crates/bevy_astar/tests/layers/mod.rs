//! The layering check shared by `tests/layers.rs`: a lexer, a parser of modules, `use` items
//! and paths, the resolution of paths through re-exports, and the rule of the layer tables.

pub mod check;
pub mod lexer;
pub mod parse;
pub mod tree;
