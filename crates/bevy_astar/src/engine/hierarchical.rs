//! The hierarchical engine: a search over the navigation grid's sector hierarchy
//! ([`Hierarchy`]), for huge maps, where it can honour the request (no weight, window, limit,
//! partial or closest-reachable path, or trace; agents of the default kind). Other requests
//! run A*, and [`Path::algorithm`](crate::Path::algorithm) says which ran. It records no
//! trace. Requests it can honour join their goal's batch, as A* requests do: until the
//! hierarchy has been built whole, one search from the goal answers them all; after, the
//! goal's sector field does ([`super::sector_field`]).
//!
//! The hierarchy is kept per movement rule and cost model that requests ask for, from the
//! first such request on: map changes mark the sectors they touch at once (those are searched
//! cell by cell), and the sectors waiting are built in the background, a slice at a time. The
//! built hierarchy is published at once (goals' sector fields need every sector built); the
//! landmarks that guide the searches are measured after, in a task of their own, once the map
//! has not changed for [`QUIET_FRAMES`] runs (on a huge map they take a few hundred
//! milliseconds of a core, which towers placed every half second would otherwise spend again
//! and again), and published unless the map changed meanwhile.

use super::{EngineAnswer, SearchEngine, SearchJob, astar};
use crate::background::{BackgroundTask, Placement, drop_in_background, slice_point};
use crate::{NavChange, NavChanged, NavGrid, PathAlgorithm, SearchThread};
use astar_grid::{
    Algorithm, Cell, CostModel, Grid, Hierarchy, HierarchyOptions, HierarchySearcher, Movement,
    SearchError, SearchOptions, SearchResult, Searcher,
};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Sectors built between two slice points of a background build.
const SECTORS_PER_SLICE: usize = 4;

/// While more than one sector in this many waits to be built, requests run A*: a search
/// through many sectors cell by cell is slower than A* itself.
const MOSTLY_BUILT: usize = 10;

/// Runs of [`build_hierarchies`] without a map change before the landmarks are measured again.
const QUIET_FRAMES: u64 = 60;

std::thread_local! {
    /// The hierarchical searcher of this thread: it grows to the hierarchy it searches and is
    /// then reused.
    pub(super) static SEARCHER: RefCell<HierarchySearcher> = RefCell::new(HierarchySearcher::new());
}

/// The hierarchies of the navigation grid, one per movement rule and cost model.
#[derive(Resource, Default)]
pub(crate) struct Hierarchies {
    entries: HashMap<(Movement, CostModel), HierarchyEntry>,
    /// Runs of [`Hierarchies::advance`] so far.
    runs: u64,
}

/// One hierarchy, the grid it belongs to, and its build in the background.
struct HierarchyEntry {
    /// The hierarchy as searches read it: every sector built is current with the grid.
    hierarchy: Arc<Hierarchy>,
    /// The [`NavGrid::id`] of its grid.
    grid_id: u64,
    /// The build running, on a copy of the hierarchy and a snapshot of the grid.
    build: Option<BackgroundTask<Hierarchy>>,
    /// The landmarks being measured on a copy of the built hierarchy: published if the
    /// hierarchy keeps the copy's revision meanwhile (every mark changes it).
    landmarks: Option<BackgroundTask<Hierarchy>>,
    /// Whether a map change marked the hierarchy since the last run of
    /// [`Hierarchies::advance`].
    marked: bool,
    /// The last run of [`Hierarchies::advance`] that found the hierarchy marked; `None` while
    /// no change ever marked it.
    last_marked: Option<u64>,
    /// Whether a build has landed: sectors waiting since were marked by map changes.
    built_once: bool,
    /// The [`Hierarchy::revision`] whose landmarks were last measured, whether or not they
    /// could be (a sector with too many nodes, or a single sector, has none): not tried again
    /// for the same revision.
    landmarks_tried: Option<u64>,
    /// Sectors the running build has built so far.
    built_so_far: Arc<AtomicUsize>,
    /// The cells changed since the running build's snapshot: its sectors built over them are
    /// marked again when it lands.
    changed_during_build: Vec<Cell>,
}

impl Hierarchies {
    /// The engine for a hierarchical request with `options` on `nav` now: the hierarchy of its
    /// movement rule and cost model, made (with no sector built yet) on the first request.
    pub(crate) fn engine_for(&mut self, nav: &NavGrid, options: &SearchOptions) -> SearchEngine {
        match self.prepare(nav, options) {
            Some(hierarchy) => SearchEngine::Hierarchical(Some(hierarchy)),
            None => SearchEngine::AStar,
        }
    }

    /// The hierarchy goals' sector fields are made over for hierarchical requests with
    /// `options` on `nav`: once it has been built whole, even while sectors that map changes
    /// marked wait to be built again (a field's batch builds those on a copy of its own first);
    /// `None` before, and for options beyond it.
    pub(crate) fn for_fields(
        &mut self,
        nav: &NavGrid,
        options: &SearchOptions,
    ) -> Option<Arc<Hierarchy>> {
        let _ = self.prepare(nav, options);
        self.entries
            .get(&(options.movement, options.cost))
            .filter(|entry| {
                entry.built_once && Algorithm::Hierarchical.check_options(options).is_ok()
            })
            .map(|entry| Arc::clone(&entry.hierarchy))
    }

    /// The hierarchy first cells are found over for hierarchical requests with `options` on
    /// `nav`: once it has been built whole ([`Hierarchies::for_fields`]) and while no more than
    /// one sector in [`MOSTLY_BUILT`] waits to be built again ([`Hierarchies::engine_for`]).
    pub(crate) fn for_first_cells(
        &mut self,
        nav: &NavGrid,
        options: &SearchOptions,
    ) -> Option<Arc<Hierarchy>> {
        let hierarchy = self.prepare(nav, options)?;
        let entry = self.entries.get(&(options.movement, options.cost))?;
        entry.built_once.then_some(hierarchy)
    }

    /// The hierarchy of `options`' movement rule and cost model, made (with no sector built
    /// yet) on the first request and marked with the edits made since the last published
    /// version; `None` when the options are beyond it, or while more than one sector in
    /// [`MOSTLY_BUILT`] waits.
    fn prepare(&mut self, nav: &NavGrid, options: &SearchOptions) -> Option<Arc<Hierarchy>> {
        if Algorithm::Hierarchical.check_options(options).is_err() {
            return None;
        }
        let key = (options.movement, options.cost);
        let fresh = self
            .entries
            .get(&key)
            .is_none_or(|entry| entry.grid_id != nav.id());
        if fresh {
            let cut = HierarchyOptions::default()
                .with_movement(options.movement)
                .with_cost(options.cost);
            let hierarchy = Hierarchy::new(nav.grid(), cut).ok()?;
            let entry = HierarchyEntry {
                hierarchy: Arc::new(hierarchy),
                grid_id: nav.id(),
                build: None,
                landmarks: None,
                marked: false,
                last_marked: None,
                built_once: false,
                landmarks_tried: None,
                built_so_far: Arc::default(),
                changed_during_build: Vec::new(),
            };
            self.entries.insert(key, entry);
        }
        let entry = self.entries.get_mut(&key)?;
        // Edits made since the last published version count too.
        entry.mark(&nav.pending_changes());
        let hierarchy = &entry.hierarchy;
        (hierarchy.pending() * MOSTLY_BUILT <= hierarchy.sector_count())
            .then(|| Arc::clone(hierarchy))
    }

    /// Marks the sectors a published map change touches, in every hierarchy of its grid; a
    /// change of the whole map drops them (the next request makes a new one).
    fn record(&mut self, change: &NavChange, grid_id: u64) {
        if change.is_whole_map() {
            self.entries.clear();
            return;
        }
        for entry in self.entries.values_mut() {
            if entry.grid_id == grid_id {
                entry.mark(change);
            }
        }
    }

    /// Collects finished builds and landmarks, and starts a build for each hierarchy with
    /// sectors waiting, or its landmarks once every sector is built.
    fn advance(&mut self, nav: &NavGrid, placement: Placement<'_>) {
        self.runs += 1;
        self.entries.retain(|_, entry| entry.grid_id == nav.id());
        for entry in self.entries.values_mut() {
            entry.land(placement.thread);
            if core::mem::take(&mut entry.marked) {
                entry.last_marked = Some(self.runs);
            }
            let quiet = entry
                .last_marked
                .is_none_or(|run| self.runs - run >= QUIET_FRAMES);
            if entry.build.is_none() && entry.hierarchy.pending() > 0 {
                entry.start_build(nav, placement);
            } else if entry.build.is_none()
                && entry.landmarks.is_none()
                && !entry.hierarchy.has_landmarks()
                && entry.landmarks_tried != Some(entry.hierarchy.revision())
                && quiet
            {
                let source = Arc::clone(&entry.hierarchy);
                let grid = nav.snapshot();
                let task = BackgroundTask::spawn(
                    async move {
                        // Copied here, off the frame: a huge map's hierarchy holds thousands
                        // of sectors.
                        let mut copy = Arc::unwrap_or_clone(source);
                        // The grid's size cannot differ: it is the hierarchy's own snapshot.
                        let _ = copy.prepare_landmarks(&grid);
                        copy
                    },
                    placement,
                );
                entry.landmarks = Some(task);
            }
        }
    }

    /// The sectors of every hierarchy held, and of those the sectors not built yet (less
    /// those a running build has built).
    fn sector_counts(&self) -> (usize, usize) {
        self.entries
            .values()
            .fold((0, 0), |(sectors, waiting), entry| {
                let pending = entry.hierarchy.pending();
                let built = if entry.build.is_some() {
                    entry.built_so_far.load(Ordering::Relaxed)
                } else {
                    0
                };
                (
                    sectors + entry.hierarchy.sector_count(),
                    waiting + pending.saturating_sub(built),
                )
            })
    }

    /// The hierarchy the debug overlay draws: that of the default movement rule and cost
    /// model, else any.
    #[cfg(feature = "debug")]
    pub(crate) fn drawn(&self) -> Option<&Hierarchy> {
        let defaults = SearchOptions::default();
        self.hierarchy(defaults.movement, defaults.cost)
            .or_else(|| {
                self.entries
                    .values()
                    .next()
                    .map(|entry| entry.hierarchy.as_ref())
            })
    }

    /// The hierarchy searches of `movement` and `cost` read now, if one was made.
    #[cfg(any(feature = "debug", test))]
    pub(crate) fn hierarchy(&self, movement: Movement, cost: CostModel) -> Option<&Hierarchy> {
        self.entries
            .get(&(movement, cost))
            .map(|entry| entry.hierarchy.as_ref())
    }
}

impl HierarchyEntry {
    /// Publishes a finished build (with the cells changed meanwhile marked on it), and
    /// finished landmarks when the map has not changed since they started. The hierarchy
    /// replaced is let go of in the background ([`drop_in_background`] on `thread`'s pools):
    /// the last reference frees thousands of sectors on a huge map.
    fn land(&mut self, thread: SearchThread) {
        if let Some(task) = self.build.as_mut()
            && let Some(mut built) = task.check_ready()
        {
            built.cells_changed(self.changed_during_build.drain(..));
            self.replace_hierarchy(built, thread);
            self.build = None;
            self.built_once = true;
        }
        if let Some(task) = self.landmarks.as_mut()
            && let Some(guided) = task.check_ready()
        {
            if guided.revision() == self.hierarchy.revision() {
                self.landmarks_tried = Some(guided.revision());
                self.replace_hierarchy(guided, thread);
            }
            self.landmarks = None;
        }
    }

    /// Makes `hierarchy` the one searches read, letting go of the one it replaces in the
    /// background.
    fn replace_hierarchy(&mut self, hierarchy: Hierarchy, thread: SearchThread) {
        let replaced = core::mem::replace(&mut self.hierarchy, Arc::new(hierarchy));
        drop_in_background(replaced, thread);
    }

    /// Starts building the sectors waiting, on a copy of the hierarchy (made by the build,
    /// off the frame) and a snapshot of `nav`'s grid.
    fn start_build(&mut self, nav: &NavGrid, placement: Placement<'_>) {
        let source = Arc::clone(&self.hierarchy);
        let grid = nav.snapshot();
        self.changed_during_build.clear();
        self.built_so_far = Arc::default();
        let built_so_far = Arc::clone(&self.built_so_far);
        self.build = Some(BackgroundTask::spawn(
            async move {
                let mut copy = Arc::unwrap_or_clone(source);
                build_waiting(&mut copy, &grid, |built| {
                    built_so_far.fetch_add(built, Ordering::Relaxed);
                    true
                })
                .await;
                copy
            },
            placement,
        ));
    }

    /// Marks the sectors `change` touches: its cells and the ends of its links.
    fn mark(&mut self, change: &NavChange) {
        let cells: Vec<Cell> = change
            .cells()
            .map(|changed| changed.cell)
            .chain(change.link_ends())
            .collect();
        if cells.is_empty() {
            return;
        }
        if self.build.is_some() {
            // Marked again when the build lands, even where the hierarchy waits already.
            self.changed_during_build.extend_from_slice(&cells);
        }
        if !self.hierarchy.already_marked(cells.iter().copied()) {
            self.marked = true;
            Arc::make_mut(&mut self.hierarchy).cells_changed(cells);
        }
    }
}

/// Marks the sectors this frame's [`NavChanged`] messages touch.
pub(crate) fn record_hierarchy_changes(
    mut changes: MessageReader<NavChanged>,
    mut hierarchies: ResMut<Hierarchies>,
    nav: Option<Res<NavGrid>>,
) {
    let Some(nav) = nav else {
        return;
    };
    for message in changes.read() {
        hierarchies.record(&message.change, nav.id());
    }
}

/// Whether any hierarchy is kept ([`build_hierarchies`]'s run condition): until a request asks
/// for one, there is nothing to build.
pub(crate) fn hierarchies_kept(hierarchies: Res<Hierarchies>) -> bool {
    !hierarchies.entries.is_empty()
}

/// Lands finished builds of the hierarchies, starts builds of the sectors waiting, and counts
/// the sectors in [`PathfindingStats`](crate::PathfindingStats). Runs only while a hierarchy is
/// kept ([`hierarchies_kept`]).
pub(crate) fn build_hierarchies(
    mut hierarchies: ResMut<Hierarchies>,
    nav: Option<Res<NavGrid>>,
    settings: Res<crate::PathfindingSettings>,
    work: Res<crate::background::MainThreadWork>,
    mut stats: ResMut<crate::PathfindingStats>,
) {
    let Some(nav) = nav else {
        return;
    };
    let placement = Placement {
        thread: settings.search_thread,
        queue: &work,
    };
    hierarchies.advance(&nav, placement);
    (stats.hierarchy_sectors, stats.hierarchy_sectors_waiting) = hierarchies.sector_counts();
}

/// Builds `hierarchy`'s sectors waiting from `grid`, [`SECTORS_PER_SLICE`] between two slice
/// points; after each slice, `proceed` is told how many it built and says whether to go on.
/// Returns whether every sector waiting was built (not when `proceed` stopped it, nor for a
/// grid of another size).
pub(super) async fn build_waiting(
    hierarchy: &mut Hierarchy,
    grid: &Grid,
    mut proceed: impl FnMut(usize) -> bool,
) -> bool {
    while hierarchy.pending() > 0 {
        let Ok(built) = hierarchy.build_sectors(grid, SECTORS_PER_SLICE) else {
            return false;
        };
        if !proceed(built) {
            return false;
        }
        slice_point().await;
    }
    true
}

/// The hierarchical path of `job` over `hierarchy` (a hierarchy of `grid`), searched by this
/// thread's searcher.
pub(super) fn search_hierarchy(
    grid: &Grid,
    hierarchy: &Hierarchy,
    job: &SearchJob,
) -> Result<SearchResult, SearchError> {
    SEARCHER.with_borrow_mut(|hierarchical| {
        hierarchical.find_path(grid, hierarchy, job.start, job.goal)
    })
}

/// Runs `job` over `hierarchy` (a hierarchy of `grid`), or by A* on `grid` when its options
/// are beyond the hierarchy or the hierarchy cannot answer; `None` when a fallback A* was
/// cancelled.
pub(super) async fn run(
    searcher: &mut Searcher,
    grid: &Grid,
    hierarchy: &Arc<Hierarchy>,
    job: &SearchJob,
    cancelled: &AtomicBool,
) -> Option<EngineAnswer> {
    let cut = hierarchy.options();
    let fits = Algorithm::Hierarchical.check_options(&job.options).is_ok()
        && (cut.movement, cut.cost) == (job.options.movement, job.options.cost);
    let answer = fits
        .then(|| search_hierarchy(grid, hierarchy, job))
        .filter(Result::is_ok);
    match answer {
        Some(result) => Some(EngineAnswer {
            result,
            algorithm: PathAlgorithm::Hierarchical,
            cacheable: true,
        }),
        None => astar::run(searcher, grid, job, cancelled)
            .await
            .map(EngineAnswer::astar),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::background::MainThreadWork;

    fn placement(work: &MainThreadWork) -> Placement<'_> {
        Placement {
            thread: SearchThread::MainThread,
            queue: work,
        }
    }

    /// Runs the builds until none is left, landing each.
    fn settle(hierarchies: &mut Hierarchies, nav: &NavGrid, work: &MainThreadWork) {
        for _ in 0..10_000 {
            hierarchies.advance(nav, placement(work));
            let busy = hierarchies.entries.values().any(|entry| {
                entry.build.is_some()
                    || entry.landmarks.is_some()
                    || entry.hierarchy.pending() > 0
                    || entry.landmarks_tried != Some(entry.hierarchy.revision())
            });
            if !busy {
                return;
            }
            work.run(core::time::Duration::MAX);
        }
        panic!("the builds never settled");
    }

    #[test]
    fn edits_during_a_build_are_marked_again_and_the_hierarchy_ends_as_built_fresh() {
        let mut nav = NavGrid::new(Grid::new(96, 64));
        nav.fill_rect(Cell::new(40, 0), Cell::new(43, 50), 0);
        let work = MainThreadWork::default();
        let mut hierarchies = Hierarchies::default();
        let options = SearchOptions::default();
        // Nothing built yet: A* answers, and the hierarchy is made.
        assert_eq!(hierarchies.engine_for(&nav, &options), SearchEngine::AStar);
        // A build starts; an edit is published while it runs.
        hierarchies.advance(&nav, placement(&work));
        nav.block(Cell::new(10, 10)).expect("inside");
        nav.fill_rect(Cell::new(60, 30), Cell::new(70, 31), 0);
        let change = Arc::new(nav.take_changes());
        hierarchies.record(&change, nav.id());
        settle(&mut hierarchies, &nav, &work);
        let cut = HierarchyOptions::default();
        let fresh = Hierarchy::build(nav.grid(), cut).expect("valid");
        assert!(
            hierarchies.hierarchy(cut.movement, cut.cost) == Some(&fresh),
            "the hierarchy differs from one built fresh"
        );
        assert!(matches!(
            hierarchies.engine_for(&nav, &options),
            SearchEngine::Hierarchical(Some(_))
        ));
        // Pending edits are marked when a request reads the hierarchy.
        nav.block(Cell::new(80, 60)).expect("inside");
        let _ = hierarchies.engine_for(&nav, &options);
        let marked = hierarchies
            .hierarchy(cut.movement, cut.cost)
            .map(Hierarchy::pending);
        assert!(marked > Some(0));
        // Built again, with its landmarks.
        settle(&mut hierarchies, &nav, &work);
        let guided = hierarchies
            .hierarchy(cut.movement, cut.cost)
            .map(Hierarchy::has_landmarks);
        assert_eq!(guided, Some(true));
    }

    #[test]
    fn a_built_hierarchy_is_published_before_its_landmarks_which_an_edit_meanwhile_drops() {
        let mut grid = Grid::new(128, 128);
        grid.fill_rect(Cell::new(60, 0), Cell::new(63, 100), 0);
        let mut nav = NavGrid::new(grid);
        let work = MainThreadWork::default();
        let mut hierarchies = Hierarchies::default();
        let options = SearchOptions::default();
        let cut = HierarchyOptions::default();
        let _ = hierarchies.engine_for(&nav, &options);
        hierarchies.advance(&nav, placement(&work));
        work.run(core::time::Duration::MAX);
        // The build lands: every sector built, searched and shared at once; the landmarks
        // start.
        hierarchies.advance(&nav, placement(&work));
        let built = hierarchies.hierarchy(cut.movement, cut.cost).expect("made");
        assert_eq!(built.pending(), 0);
        assert!(!built.has_landmarks());
        assert!(matches!(
            hierarchies.engine_for(&nav, &options),
            SearchEngine::Hierarchical(Some(_))
        ));
        // An edit while they are measured: they are dropped when they land, and measured again
        // once the sectors it marked are built again.
        nav.block(Cell::new(10, 10)).expect("inside");
        let change = Arc::new(nav.take_changes());
        hierarchies.record(&change, nav.id());
        let marked = hierarchies.for_fields(&nav, &options).expect("built once");
        assert!(marked.pending() > 0);
        work.run(core::time::Duration::MAX);
        hierarchies.advance(&nav, placement(&work));
        let marked = hierarchies.hierarchy(cut.movement, cut.cost).expect("made");
        assert!(!marked.has_landmarks());
        assert!(marked.pending() > 0);
        // The sectors are built again at once; the landmarks wait for the map to be quiet.
        for _ in 0..3 {
            hierarchies.advance(&nav, placement(&work));
            work.run(core::time::Duration::MAX);
        }
        hierarchies.advance(&nav, placement(&work));
        let entry = hierarchies.entries.values().next().expect("made");
        assert_eq!(entry.hierarchy.pending(), 0);
        assert!(entry.landmarks.is_none() && !entry.hierarchy.has_landmarks());
        settle(&mut hierarchies, &nav, &work);
        let rebuilt = hierarchies.for_fields(&nav, &options).expect("built once");
        assert_eq!(rebuilt.pending(), 0);
        let guided = hierarchies.hierarchy(cut.movement, cut.cost).expect("made");
        assert!(guided.has_landmarks());
        assert!(*guided == Hierarchy::build(nav.grid(), cut).expect("valid"));
    }

    #[test]
    fn landmarks_that_cannot_be_measured_are_not_tried_again_for_the_same_hierarchy() {
        // One sector: no landmarks can be picked.
        let nav = NavGrid::new(Grid::new(64, 64));
        let work = MainThreadWork::default();
        let mut hierarchies = Hierarchies::default();
        let _ = hierarchies.engine_for(&nav, &SearchOptions::default());
        settle(&mut hierarchies, &nav, &work);
        for _ in 0..2 * QUIET_FRAMES {
            hierarchies.advance(&nav, placement(&work));
            let entry = hierarchies.entries.values().next().expect("made");
            assert!(entry.landmarks.is_none() && entry.build.is_none());
            assert!(!entry.hierarchy.has_landmarks());
        }
    }

    #[test]
    fn the_sectors_waiting_count_down_as_the_build_goes() {
        let nav = NavGrid::new(Grid::new(256, 256));
        let work = MainThreadWork::default();
        let mut hierarchies = Hierarchies::default();
        assert_eq!(hierarchies.sector_counts(), (0, 0));
        let _ = hierarchies.engine_for(&nav, &SearchOptions::default());
        assert_eq!(hierarchies.sector_counts(), (16, 16));
        hierarchies.advance(&nav, placement(&work));
        // One slice of the build, on the main thread with no time left.
        work.run(core::time::Duration::ZERO);
        assert_eq!(hierarchies.sector_counts(), (16, 16 - SECTORS_PER_SLICE));
        settle(&mut hierarchies, &nav, &work);
        assert_eq!(hierarchies.sector_counts(), (16, 0));
    }

    #[test]
    fn options_beyond_the_hierarchy_run_a_star() {
        let nav = NavGrid::new(Grid::new(16, 16));
        let mut hierarchies = Hierarchies::default();
        let weighted = SearchOptions::default().with_weight(2.0);
        assert_eq!(hierarchies.engine_for(&nav, &weighted), SearchEngine::AStar);
        assert!(hierarchies.entries.is_empty());
    }
}
