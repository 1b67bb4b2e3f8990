//! A* over a [`Grid`](crate::Grid): the reusable [`Searcher`], its options and its results.

mod astar;
mod bucket_queue;
mod open_list;
mod options;
mod result;
mod searcher;
mod trace;

pub use astar::{ActiveSearch, Step};
pub use options::{SearchOptions, SearchWindow};
pub use result::{Limit, Path, ReachedPath, SearchResult, SearchStats, SearchStatus};
pub use searcher::Searcher;
pub use trace::{SearchTrace, TracedCell};

pub(crate) use astar::validate_options;
pub(crate) use open_list::{OpenEntry, OpenList};
