//! The directions links lead in, written from the documented rules: a link leads from its
//! `from` to its `to`, and back when it leads both ways.

use astar_grid::{Cell, Link};

/// The directions of the `links` that `keep` accepts, as `(from, to, cost)`.
pub fn directions<'a>(
    links: impl IntoIterator<Item = &'a Link>,
    keep: impl Fn(&Link) -> bool,
) -> Vec<(Cell, Cell, f64)> {
    let mut directions = Vec::new();
    for link in links.into_iter().filter(|link| keep(link)) {
        directions.push((link.from, link.to, link.cost));
        if link.both_ways {
            directions.push((link.to, link.from, link.cost));
        }
    }
    directions
}
