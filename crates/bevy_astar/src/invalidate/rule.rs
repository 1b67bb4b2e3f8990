//! The invalidation rule: whether a map change may have made a result wrong, for a path's
//! cells and the corners of its diagonal steps, for failed requests, and for an agent's current
//! path (and whether that path is to be repaired).

use crate::kinds::KindError;
use crate::map::{NavChange, PathFootprint};
use crate::outcome::SearchOutcome;
use crate::request::PathRequestState;
use crate::{InvalidationPolicy, Path, PathStatus};
use astar_grid::SearchError;
use astar_grid::agent::AgentError;

impl SearchOutcome {
    /// Whether `change` may have made this outcome wrong, so that it must be searched again. A
    /// found path is wrong once a change touches one of its cells or blocks a corner cell of one
    /// of its diagonal steps ([`NavChange::touches_path`]): a path is only as legal as its
    /// worst step.
    pub(crate) fn affected_by(&self, change: &NavChange, policy: InvalidationPolicy) -> bool {
        if change.is_whole_map() {
            return true;
        }
        match self.status {
            PathStatus::Found => {
                self.footprint.may_be_touched_by(change)
                    && change.touches_path_of(&self.cells, self.options.movement, &self.footprint)
                    || (policy == InvalidationPolicy::TouchedOrOpened && change.improves_any())
            }
            // With the closest reachable cell asked for, the path there is held to the same
            // rule as a found path.
            PathStatus::NoPath => {
                change.opens_any()
                    || !self.cells.is_empty()
                        && (change.touches_path(&self.cells, self.options.movement)
                            || policy == InvalidationPolicy::TouchedOrOpened
                                && change.improves_any())
            }
            PathStatus::Invalid(
                SearchError::StartBlocked(cell) | SearchError::GoalBlocked(cell),
            ) => change.touches(cell),
            // The footprint fits there again once the kind's derived cell changes.
            PathStatus::InvalidKind(KindError::Agent(AgentError::FootprintDoesNotFit {
                cell,
                ..
            })) => change.touches(cell),
            // Bounds, option, size and profile errors change only with a new grid or new
            // profiles (a whole-map change).
            PathStatus::Invalid(_) | PathStatus::InvalidKind(_) => false,
            // Nobody asks for it any more.
            PathStatus::Cancelled => false,
            // Where a limit stops depends on every cell it looked at.
            PathStatus::LimitReached(_)
            | PathStatus::Queued
            | PathStatus::Searching
            | PathStatus::WaitingForMap => !change.is_empty(),
        }
    }
}

/// Whether the footprint of a found path (`None` for any other outcome) shows that `change`
/// cannot affect it under `policy`, without reading the outcome: the footprint stands beside
/// the agent's or the cache entry's other data, the outcome behind a pointer.
pub(crate) fn ruled_out_by_footprint(
    found_footprint: Option<PathFootprint>,
    change: &NavChange,
    policy: InvalidationPolicy,
) -> bool {
    policy == InvalidationPolicy::TouchedCells
        && found_footprint.is_some_and(|footprint| !footprint.may_be_touched_by(change))
}

/// Whether `change` affects the agent's current path (`None`: it does not), and if so whether
/// the path is to be repaired: `repair` is on and the change cut a found path, blocking one of
/// its cells or a corner its diagonal steps may not cut (a path that could get cheaper because
/// cells opened is searched again).
///
/// A found path that the agent's `path` still shows is read there, beside the agent's other
/// data, rather than through its outcome.
pub(crate) fn affected_agent(
    (path, state): (&Path, &PathRequestState),
    change: &NavChange,
    policy: InvalidationPolicy,
    repair: bool,
) -> Option<bool> {
    if state.queued.is_some() {
        return None;
    }
    let found_footprint = state.found.map(|found| found.footprint);
    if ruled_out_by_footprint(found_footprint, change, policy) {
        return None;
    }
    let shown = state
        .found
        .and_then(|found| Some((found.shown_in(path)?, found.movement, found.footprint)))
        .filter(|_| policy == InvalidationPolicy::TouchedCells && !change.is_whole_map());
    if let Some((cells, movement, footprint)) = shown {
        // What `SearchOutcome::affected_by` decides for a found path under this policy, the
        // footprint checked above.
        return change
            .touches_path_of(cells, movement, &footprint)
            .then(|| repair && change.cuts_path(cells, movement));
    }
    let applied = state.applied.as_ref()?;
    if !applied.affected_by(change, policy) {
        return None;
    }
    Some(
        repair
            && applied.status == PathStatus::Found
            && change.cuts_path(&applied.cells, applied.options.movement),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::NavCellChange;
    use astar_grid::{Cell, CornerRule, Movement};
    use std::sync::Arc;

    #[test]
    fn a_path_to_the_closest_cell_is_held_to_the_rule_of_found_paths() {
        use crate::outcome::SearchJob;
        use crate::{PathAlgorithm, PathStatus};
        use astar_grid::SearchOptions;
        let job = SearchJob {
            start: Cell::new(0, 0),
            goal: Cell::new(5, 0),
            options: SearchOptions::default().with_closest_reachable(true),
            smoothing: false,
            algorithm: PathAlgorithm::AStar,
            kind: crate::kinds::KindKey::DEFAULT,
        };
        let empty = SearchOutcome::without_path(&job, PathStatus::NoPath, PathAlgorithm::AStar);
        let mut closest = empty.clone();
        closest.cells = (0..3).map(|x| Cell::new(x, 0)).collect();
        let cost = |x, y, before, after| {
            NavChange::from_cells([NavCellChange {
                cell: Cell::new(x, y),
                before,
                after,
            }])
        };
        let (on_path, cheaper_beside, dearer_beside) =
            (cost(1, 0, 1, 3), cost(1, 1, 3, 1), cost(1, 1, 1, 3));
        for policy in [
            InvalidationPolicy::TouchedCells,
            InvalidationPolicy::TouchedOrOpened,
        ] {
            assert!(closest.affected_by(&on_path, policy));
            assert!(!empty.affected_by(&on_path, policy));
            assert!(!closest.affected_by(&dearer_beside, policy));
        }
        assert!(closest.affected_by(&cheaper_beside, InvalidationPolicy::TouchedOrOpened));
        assert!(!closest.affected_by(&cheaper_beside, InvalidationPolicy::TouchedCells));
        assert!(!empty.affected_by(&cheaper_beside, InvalidationPolicy::TouchedOrOpened));
    }

    fn blocked(x: u32, y: u32) -> NavCellChange {
        NavCellChange {
            cell: Cell::new(x, y),
            before: 1,
            after: 0,
        }
    }

    #[test]
    fn rectangles_are_ruled_out_only_outside_the_changed_cells_bounds() {
        let change = NavChange::from_cells([blocked(4, 4), blocked(6, 5)]);
        let may_touch = |min: (u32, u32), max: (u32, u32)| {
            change.may_touch_rect(Cell::from(min), Cell::from(max))
        };
        assert!(may_touch((0, 0), (4, 4))); // shares the corner cell
        assert!(may_touch((6, 5), (9, 9)));
        assert!(may_touch((5, 0), (5, 9))); // crosses between the two cells
        assert!(!may_touch((0, 0), (3, 9)));
        assert!(!may_touch((7, 0), (9, 9)));
        assert!(!may_touch((0, 6), (9, 9)));
        assert!(!NavChange::default().may_touch_rect(Cell::new(0, 0), Cell::new(9, 9)));
        assert!(NavChange::whole_map().may_touch_rect(Cell::new(0, 0), Cell::new(0, 0)));
    }

    #[test]
    fn a_changed_link_touches_rectangles_at_its_ends_not_between_them() {
        let door = astar_grid::Link::new(Cell::new(2, 2), Cell::new(40, 30), 1.0);
        let closed = crate::NavLinkChange {
            id: astar_grid::LinkId(0),
            before: Some(door),
            after: Some(door.with_open(false)),
        };
        let change = NavChange::from_cells([blocked(10, 10)]).with_links([closed]);
        let may_touch = |min: (u32, u32), max: (u32, u32)| {
            change.may_touch_rect(Cell::from(min), Cell::from(max))
        };
        assert_eq!(change.bounds(), Some((Cell::new(2, 2), Cell::new(40, 30))));
        assert!(may_touch((0, 0), (2, 2))); // the near end
        assert!(may_touch((39, 29), (45, 35))); // the far end
        assert!(may_touch((9, 9), (11, 11))); // the changed cell
        assert!(!may_touch((20, 15), (25, 20))); // between the ends, on no changed cell
        let path = [(1, 2), (2, 2), (40, 30), (41, 30)].map(Cell::from);
        assert!(change.touches_path(&path, Movement::EIGHT));
        assert!(change.cuts_path(&path, Movement::EIGHT));
        let beside = [(1, 2), (2, 2), (3, 3)].map(Cell::from);
        assert!(!change.touches_path(&beside, Movement::EIGHT));
        assert!(!change.cuts_path(&beside, Movement::EIGHT));
        assert!(!change.improves_any() && !change.opens_any());
    }

    #[test]
    fn paths_are_touched_at_their_cells_and_at_the_corners_of_their_diagonals() {
        let path = [(0, 0), (1, 1), (2, 1), (3, 2)].map(Cell::from);
        let corners = [(1, 0), (0, 1), (3, 1), (2, 2)];
        let far = [(5, 5), (6, 6), (7, 7), (8, 8), (9, 9)];
        let opened = |x, y| NavCellChange {
            cell: Cell::new(x, y),
            before: 0,
            after: 1,
        };
        // Small changes take the scan, larger ones (more than four cells) the lookup.
        for padding in [&far[..0], &far[..]] {
            let with = |extra: NavCellChange| {
                NavChange::from_cells(padding.iter().map(|&(x, y)| blocked(x, y)).chain([extra]))
            };
            for (x, y) in corners {
                let change = with(blocked(x, y));
                assert!(change.touches_path(&path, Movement::EIGHT), "{x}, {y}");
                assert!(change.touches_path(&path, Movement::eight(CornerRule::One)));
                assert!(!change.touches_path(&path, Movement::eight(CornerRule::Any)));
                assert!(change.cuts_path(&path, Movement::EIGHT));
                assert!(!change.touches_any(&path));
                // A corner that opens leaves every step legal.
                assert!(!with(opened(x, y)).touches_path(&path, Movement::EIGHT));
            }
            // (3, 0) is beside the path but no corner of a step.
            assert!(!with(blocked(3, 0)).touches_path(&path, Movement::EIGHT));
            assert!(!with(blocked(3, 0)).cuts_path(&path, Movement::EIGHT));
            let on_path = with(blocked(2, 1));
            assert!(on_path.touches_path(&path, Movement::eight(CornerRule::Any)));
            assert!(on_path.cuts_path(&path, Movement::eight(CornerRule::Any)));
            // A cost change on the path touches it but does not cut it.
            let dearer = with(NavCellChange {
                cell: Cell::new(1, 1),
                before: 1,
                after: 5,
            });
            assert!(dearer.touches_path(&path, Movement::EIGHT));
            assert!(!dearer.cuts_path(&path, Movement::EIGHT));
        }
    }

    #[test]
    fn an_agent_s_path_is_read_where_it_shows_the_outcome_and_through_the_outcome_otherwise() {
        let found = Arc::new(SearchOutcome::found_along(
            (0..4).map(|x| Cell::new(x, 0)).collect(),
        ));
        let mut state = PathRequestState::default();
        assert!(state.set_applied(Some(Arc::clone(&found))).is_none());
        let mut path = Path::with_cells(Arc::clone(&found.cells), [], 0.0);
        let on_path = NavChange::from_cells([blocked(2, 0)]);
        let beside = NavChange::from_cells([blocked(2, 2)]);
        let policy = InvalidationPolicy::TouchedCells;
        let affected = |path: &Path, change: &NavChange, repair| {
            affected_agent((path, &state), change, policy, repair)
        };
        assert_eq!(affected(&path, &on_path, false), Some(false));
        assert_eq!(affected(&path, &on_path, true), Some(true));
        assert_eq!(affected(&path, &beside, true), None);
        // The same cells in another allocation, and other cells: the outcome decides.
        path = Path::with_cells(found.cells.to_vec(), [], 0.0);
        assert_eq!(affected(&path, &on_path, true), Some(true));
        path = Path::with_cells([(2, 2), (3, 3)].map(Cell::from), [], 0.0);
        assert_eq!(affected(&path, &on_path, true), Some(true));
        assert_eq!(affected(&path, &beside, true), None);
    }
}
