//! One link's change between two map versions, and what it does to the paths that took it.

use astar_grid::{Cell, Link, LinkId};

/// One link's change between two map versions: a link added, removed, opened, closed, or
/// given a new cost, direction, terrain or largest footprint ([`NavGrid::add_link`] and
/// friends).
///
/// [`NavGrid::add_link`]: crate::NavGrid::add_link
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavLinkChange {
    /// The link.
    pub id: LinkId,
    /// The link before the change; `None` when it was added.
    pub before: Option<Link>,
    /// The link after the change; `None` when it was removed.
    pub after: Option<Link>,
}

// Link costs are finite ([`astar_grid::Grid::add_link`] refuses others), so equality is total.
impl Eq for NavLinkChange {}

impl NavLinkChange {
    /// Whether a path that took the link before may not take it as it did: the link was
    /// removed or closed, leads fewer ways, costs more, or changed whom it lets through.
    ///
    /// ```
    /// use bevy_astar::NavLinkChange;
    /// use bevy_astar::astar_grid::{Cell, Link, LinkId};
    ///
    /// let door = Link::new(Cell::new(0, 0), Cell::new(4, 0), 1.0);
    /// let closed = NavLinkChange { id: LinkId(0), before: Some(door), after: Some(door.with_open(false)) };
    /// assert!(closed.worsens() && !closed.improves());
    /// let opened = NavLinkChange { id: LinkId(0), before: Some(door.with_open(false)), after: Some(door) };
    /// assert!(opened.improves() && !opened.worsens());
    /// ```
    #[must_use]
    pub fn worsens(&self) -> bool {
        match (self.before, self.after) {
            (Some(before), _) if !before.open => false,
            (Some(_), None) => true,
            (Some(before), Some(after)) => {
                !after.open
                    || after.cost > before.cost
                    || narrows(&before, &after)
                    || after.terrain != before.terrain
            }
            (None, _) => false,
        }
    }

    /// Whether the change may make some path shorter or join cells that were apart: the link
    /// was added or opened, leads more ways, costs less, or changed whom it lets through.
    #[must_use]
    pub fn improves(&self) -> bool {
        match (self.before, self.after) {
            (_, None) => false,
            (_, Some(after)) if !after.open => false,
            (None, Some(_)) => true,
            (Some(before), Some(after)) => {
                !before.open
                    || after.cost < before.cost
                    || narrows(&after, &before)
                    || after.terrain != before.terrain
            }
        }
    }

    /// Whether a path that stepped from `from` to `to` along the link, as it was, can no
    /// longer take that step at all (a cost that rose leaves the step possible).
    #[must_use]
    pub fn cuts_step(&self, from: Cell, to: Cell) -> bool {
        let Some(before) = self
            .before
            .filter(|before| before.open && before.leads(from, to))
        else {
            return false;
        };
        self.after.is_none_or(|after| {
            !after.open
                || !after.leads(from, to)
                || after.max_size < before.max_size
                || after.terrain != before.terrain
        })
    }

    /// Whether the link, as it was, was open and led from `from` to `to`.
    #[must_use]
    pub fn led(&self, from: Cell, to: Cell) -> bool {
        self.before
            .is_some_and(|before| before.open && before.leads(from, to))
    }

    /// The cells at the link's ends, before and after the change.
    pub fn ends(&self) -> impl Iterator<Item = Cell> + '_ {
        self.before
            .iter()
            .chain(self.after.iter())
            .flat_map(|link| [link.from, link.to])
    }
}

/// Whether `after` lets through less than `before`: it lost a direction, moved an end, or
/// takes smaller footprints only.
fn narrows(before: &Link, after: &Link) -> bool {
    (before.both_ways && !after.both_ways)
        || (before.from, before.to) != (after.from, after.to)
        || after.max_size < before.max_size
}
