//! The sector field engine: hierarchical requests for one goal answered together by one
//! [`SectorFlowField`] over the goal's hierarchy, which measures only the sectors the agents
//! cross, each once for all of them. The field is kept for the goal's later requests while the
//! hierarchy stays as it is, and shared by the batches that run at once, so an agent from a
//! sector already measured reads its path off it. Paths are those of the hierarchy: legal and
//! near optimal, with [`PathAlgorithm::Hierarchical`]. Sectors that map changes marked and
//! that still wait to be built in the background are built first, on a copy of the hierarchy
//! that the field keeps, so that a tower's crowd is answered at once. Where no field can be
//! made, each request searches the hierarchy on its own. It records no trace.
//!
//! An agent answered off the goal's field is given a route on it, not a path of its own: the
//! batch measures the sectors ahead of every measured cell, then publishes a view of the field
//! ([`SectorFieldView`]) to the goal's [`SharedTree`], which followers read as they walk. After
//! a map change, one renewal of the field ([`renew_routes`]) republishes it for every agent on
//! it, instead of a search per agent cut.

use super::flow_field::{FieldKey, FlowFields, field_result};
use super::goal_batch::RecentSlots;
use super::hierarchical::{build_waiting, search_hierarchy};
use super::{SearchJob, SearchOutcome, outcome_of};
use crate::background::{BackgroundTask, MainThreadWork, Placement, slice_point};
use crate::engine::hierarchical::Hierarchies;
use crate::goal_tree::{ChangedCells, PublishedTree, RouteTree, SharedRoute, SharedTree};
use crate::map::AgentLayers;
use crate::map::CellGeometry;
use crate::outcome::RetiredOutcomes;
use crate::{NavChange, NavVersion, PathAlgorithm, PathStatus, SearchThread};
use crate::{NavChanged, NavGrid, PathfindingSettings, PathfindingStats, TerrainProfiles};
use astar_grid::{Cell, Grid, Hierarchy, SectorFieldView, SectorFlowField};
use bevy::ecs::system::SystemParam;
use bevy::platform::collections::HashMap;
use bevy::platform::time::Instant;
use bevy::prelude::{MessageReader, Res, ResMut, Resource};
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

/// Goals whose sector fields are kept, at most.
const MOST_KEPT_FIELDS: usize = 4;

/// Paths a batch reads off its field between two slice points (and two locks of the field):
/// a walk through sectors not measured yet floods each of them.
const PATHS_PER_SLICE: usize = 4;

/// Goals whose requests are counted, at most: past this many, the counts start again.
const MOST_GOALS_COUNTED: usize = 4_096;

/// [`SharedField::revision`] while it holds no field.
const NO_FIELD: u64 = u64::MAX;

/// A goal's sector field, shared by the batches that read it, those running at once too: each
/// locks it for a few paths at a time, so that a sector one batch measured serves the others.
pub(crate) struct SharedField {
    /// The [`Hierarchy::revision`] of the hierarchy the batches were given when the field held
    /// was made, or [`NO_FIELD`]; read without the lock.
    revision: AtomicU64,
    kept: Mutex<Option<KeptField>>,
    /// The views of the field published to the agents given routes on it.
    routes: Arc<SharedTree>,
    /// The map changes since the view published last: the next view of a newer grid names
    /// them to the agents on it, and a view patched for a newer grid needs them.
    changes: Mutex<NotedChanges>,
    /// Whether a renewal of the field for the agents on it runs ([`renew_routes`]).
    renewing: AtomicBool,
    /// Whether the renewal running is yet to publish the view before patched for its grid
    /// ([`publish_patched_view`]): the goal's requests on that grid wait for it, to be given
    /// routes on it, rather than start a batch that would wait for the whole renewal.
    patching: AtomicBool,
    /// The grid the last renewal was started for, weakly: each grid is renewed for once.
    renewed_for: Mutex<Weak<Grid>>,
}

/// The map changes noted for a goal's field since the view published last.
#[derive(Default)]
struct NotedChanges {
    /// Each change noted, with the map version it made: the cells changed and the ends of the
    /// links changed.
    noted: Vec<(NavVersion, Vec<Cell>, Vec<Cell>)>,
    /// The newest map version a change not noted made (no agent held a route then, or it
    /// changed the whole map): the cells changed up to it are not all known.
    unknown_up_to: Option<NavVersion>,
}

impl NotedChanges {
    /// Takes the changes up to `version`, for a view of that version: their cells, and the
    /// ends of their links. The later ones stay.
    fn take_up_to(&mut self, version: NavVersion) -> (Vec<Cell>, Vec<Cell>) {
        let (mut cells, mut ends) = (Vec::new(), Vec::new());
        self.noted.retain_mut(|(made, changed, changed_ends)| {
            if *made > version {
                return true;
            }
            cells.append(changed);
            ends.append(changed_ends);
            false
        });
        if self.unknown_up_to.is_some_and(|unknown| unknown <= version) {
            self.unknown_up_to = None;
        }
        (cells, ends)
    }

    /// Every cell changed after map version `from` up to `to`, for a view of `from` patched
    /// for `to`; `None` where a change between was not noted, or changed a link.
    fn cells_between(&self, from: NavVersion, to: NavVersion) -> Option<Vec<Cell>> {
        if self.unknown_up_to.is_some_and(|unknown| unknown > from) {
            return None;
        }
        let between = self
            .noted
            .iter()
            .filter(|(made, ..)| *made > from && *made <= to);
        let mut cells = Vec::new();
        for (_, changed, ends) in between {
            if !ends.is_empty() {
                return None;
            }
            cells.extend_from_slice(changed);
        }
        Some(cells)
    }
}

/// A goal's field, for one revision of the hierarchy (and, where sectors of it waited, one grid).
struct KeptField {
    /// The [`Hierarchy::revision`] of the hierarchy the batches were given.
    revision: u64,
    /// Where that hierarchy had sectors waiting: a copy with them built on the grid given, and
    /// that grid, weakly (its address names it while the weak reference keeps the allocation;
    /// a strong one would make the next edit copy the whole grid). The field answers for that
    /// grid only.
    copy: Option<(Arc<Hierarchy>, Weak<Grid>)>,
    /// The field; `None` where none could be made (the batches then search the hierarchy).
    field: Option<SectorFlowField>,
    /// The map version of the grid the batch that made it was given: of two fields of one
    /// revision (edits in sectors already waiting leave the revision as it is), the one of
    /// the later grid is kept.
    map_version: NavVersion,
}

impl KeptField {
    /// Whether it answers for `hierarchy` on `grid`.
    fn fits(&self, hierarchy: &Hierarchy, grid: &Arc<Grid>) -> bool {
        self.revision == hierarchy.revision()
            && self
                .copy
                .as_ref()
                .is_none_or(|(_, built_on)| core::ptr::eq(built_on.as_ptr(), Arc::as_ptr(grid)))
    }
}

impl Default for SharedField {
    fn default() -> Self {
        Self {
            revision: AtomicU64::new(NO_FIELD),
            kept: Mutex::new(None),
            routes: Arc::default(),
            changes: Mutex::default(),
            renewing: AtomicBool::new(false),
            patching: AtomicBool::new(false),
            renewed_for: Mutex::default(),
        }
    }
}

impl SharedField {
    /// Whether an agent holds a route on the field.
    pub(crate) fn has_routes(&self) -> bool {
        Arc::strong_count(&self.routes) > 1
    }

    /// Notes a map change, which made map version `version`, for the next view of a newer
    /// grid, while agents hold routes on the field; without, notes only that a change was not
    /// noted.
    pub(crate) fn note_change(&self, version: NavVersion, change: &NavChange) {
        let mut changes = self.changes.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.has_routes() || change.is_whole_map() {
            changes.unknown_up_to = Some(version);
            changes.noted.clear();
            return;
        }
        let cells = change.cells().map(|changed| changed.cell).collect();
        changes
            .noted
            .push((version, cells, change.link_ends().collect()));
    }

    /// Whether it holds a field made for `hierarchy` as it is.
    fn answers_for(&self, hierarchy: &Hierarchy) -> bool {
        self.revision.load(Ordering::Acquire) == hierarchy.revision()
    }

    /// Whether it holds a field (or found none could be made) for `hierarchy` on `grid`; false
    /// while another batch holds it.
    fn fits(&self, hierarchy: &Hierarchy, grid: &Arc<Grid>) -> bool {
        self.kept
            .try_lock()
            .is_ok_and(|kept| kept.as_ref().is_some_and(|kept| kept.fits(hierarchy, grid)))
    }
}

/// The sector fields of recent goals, one per goal (with its movement rule, cost model and
/// agent kind), the least recently used dropped beyond [`MOST_KEPT_FIELDS`], and how many
/// hierarchical requests each goal has had.
#[derive(Resource, Default)]
pub(crate) struct KeptSectorFields {
    slots: RecentSlots<Arc<SharedField>>,
    asked: HashMap<FieldKey, usize>,
    /// The renewals of fields for the agents on them that run ([`renew_sector_routes`]).
    renewals: Vec<BackgroundTask<Renewal>>,
}

impl KeptSectorFields {
    /// Counts `requests` more hierarchical requests for `key`'s goal; returns how many it has
    /// had so far. A goal that creeps stream to one or two a frame earns its field this way,
    /// as a crowd asking at once does.
    pub(crate) fn count_requests(&mut self, key: FieldKey, requests: usize) -> usize {
        if self.asked.len() >= MOST_GOALS_COUNTED && !self.asked.contains_key(&key) {
            self.asked.clear();
        }
        let asked = self.asked.entry(key).or_default();
        *asked = asked.saturating_add(requests);
        *asked
    }

    /// The routes on `key`'s goal's field, where it has one.
    pub(crate) fn routes_for(&self, key: &FieldKey) -> Option<Arc<SharedTree>> {
        self.slots.get(key).map(|shared| Arc::clone(&shared.routes))
    }

    /// Whether `key`'s goal's routes are being renewed for `grid` and the view before, patched
    /// for `grid`, is about to be published: its requests on `grid` are then given routes on it
    /// a frame or two later, where a batch started now would wait for the whole renewal.
    pub(crate) fn awaits_patch(&self, key: &FieldKey, grid: &Arc<Grid>) -> bool {
        self.slots.get(key).is_some_and(|shared| {
            shared.patching.load(Ordering::Acquire)
                && core::ptr::eq(
                    shared
                        .renewed_for
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .as_ptr(),
                    Arc::as_ptr(grid),
                )
        })
    }

    /// Whether `key`'s goal has a field kept over `hierarchy` as it is, so that reading a path
    /// off it costs little.
    pub(crate) fn holds(&self, key: &FieldKey, hierarchy: &Hierarchy) -> bool {
        self.slots
            .get(key)
            .is_some_and(|shared| shared.answers_for(hierarchy))
    }

    /// The field of `key`'s goal, shared with the batches that read it. The least recently
    /// used goal's field on which no agent holds a route, dropped to make room, goes to
    /// `retired`.
    pub(crate) fn field_for(
        &mut self,
        key: FieldKey,
        retired: &mut RetiredOutcomes,
    ) -> Arc<SharedField> {
        // A field agents hold routes on, or a batch or renewal holds, is kept: its routes
        // would not be renewed after map changes once let go of.
        let spared =
            |shared: &Arc<SharedField>| Arc::strong_count(shared) > 1 || shared.has_routes();
        let slot = self
            .slots
            .slot_sparing(key, MOST_KEPT_FIELDS, retired, spared);
        Arc::clone(slot)
    }
}

/// What publishing a view of a goal's field to the agents on it needs of the frame a batch or
/// renewal started in.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoutePublishing {
    /// Where the cells lie in the world.
    pub geometry: CellGeometry,
    /// The size of the agents' footprint.
    pub size: u8,
    /// The map version of the grid the field is measured on.
    pub map_version: NavVersion,
}

/// Answers `jobs`, which share their goal, movement rule and cost model, off the goal's sector
/// field over `hierarchy` (a hierarchy of `grid`): the one `shared` holds when it was made for
/// this hierarchy (and, where sectors of it wait, this grid), else a new one left there for
/// later batches (unless `shared` holds a field of a newer hierarchy, which this batch leaves
/// alone). Where sectors wait, the batch first builds them on a copy of the hierarchy, a few
/// per slice. One outcome per job, in order:
/// - a job the shared field reaches the goal from gets a route on the goal's routes, and the
///   batch then publishes a view of the field there (with `publishing`);
/// - a job whose start or goal is invalid gets the error its own search would give;
/// - a job read off the batch's own field gets that path, and one the field does not answer
///   (no field could be made, or it finds no way) searches the hierarchy.
///
/// `None` when `cancelled` was set before it began or while it ran (checked between paths,
/// where it may also yield, on the main thread once the frame's time is spent).
pub(crate) async fn run_sector_field_batch(
    grid: &Arc<Grid>,
    hierarchy: &Arc<Hierarchy>,
    jobs: &[SearchJob],
    cancelled: &AtomicBool,
    (shared, publishing): (Arc<SharedField>, RoutePublishing),
) -> Option<Vec<SearchOutcome>> {
    let began = Instant::now();
    let mut copy = None;
    if hierarchy.pending() > 0 && !shared.fits(hierarchy, grid) {
        copy = built_copy(grid, hierarchy, cancelled).await?;
    }
    let mut own = None;
    let mut outcomes = Vec::with_capacity(jobs.len());
    let mut routed = false;
    for chunk in jobs.chunks(PATHS_PER_SLICE) {
        if cancelled.load(Ordering::Relaxed) {
            return None; // nobody wants the answers any more
        }
        let fields = (&*shared, &mut own, publishing.map_version);
        routed |= read_chunk((grid, hierarchy, &copy), fields, chunk, &mut outcomes);
        slice_point().await;
    }
    if routed {
        // A new version, of a newer grid, is announced by the renewal that follows.
        publish_routes((grid, hierarchy), &shared, publishing).await;
    }
    let duration = began.elapsed();
    for outcome in &mut outcomes {
        outcome.duration = duration;
    }
    Some(outcomes)
}

/// A copy of `hierarchy` with its sectors waiting built on `grid`, a few per slice (`None`
/// inside when they cannot be built); `None` when `cancelled` was set meanwhile.
async fn built_copy(
    grid: &Grid,
    hierarchy: &Hierarchy,
    cancelled: &AtomicBool,
) -> Option<Option<Arc<Hierarchy>>> {
    let mut copy = Hierarchy::clone(hierarchy);
    let built = build_waiting(&mut copy, grid, |_| !cancelled.load(Ordering::Relaxed)).await;
    if cancelled.load(Ordering::Relaxed) {
        return None;
    }
    Some(built.then(|| Arc::new(copy)))
}

/// Reads `chunk`'s outcomes into `outcomes`, off the field `shared` holds (made there first when
/// it holds none, or one for an older hierarchy or another grid: [`current_field`]), or off a
/// field of the batch's own (`own`) when `shared` holds one for a newer hierarchy. `copy` is
/// the hierarchy with its sectors waiting built, where some wait. Returns whether it gave a
/// route on the shared field's routes.
fn read_chunk(
    (grid, hierarchy, copy): (&Arc<Grid>, &Hierarchy, &Option<Arc<Hierarchy>>),
    (shared, own, map_version): (&SharedField, &mut Option<KeptField>, NavVersion),
    chunk: &[SearchJob],
    outcomes: &mut Vec<SearchOutcome>,
) -> bool {
    let Some(goal) = chunk.first().map(|job| job.goal) else {
        return false;
    };
    let mut held = shared.kept.lock().unwrap_or_else(PoisonError::into_inner);
    let current = (goal, map_version, own);
    let (kept, on_shared) = current_field((grid, hierarchy, copy), shared, &mut held, current);
    let routes = on_shared.then_some(&shared.routes);
    let mut routed = false;
    let mut kept = kept;
    for job in chunk {
        let outcome = answer(grid, hierarchy, kept.as_deref_mut(), (job, routes));
        routed |= outcome.route.is_some();
        outcomes.push(outcome);
    }
    routed
}

/// The field to read for `hierarchy` on `grid` (of version `map_version`): the one `held` (the
/// shared field's) holds when it fits, else a field made (or renewed from the one held) and
/// left there; or the batch's `own`, when `held` holds a field of a newer hierarchy or grid, or
/// when sectors wait and no `copy` with them built was made. With whether it is the shared
/// one.
fn current_field<'a>(
    (grid, hierarchy, copy): (&Arc<Grid>, &Hierarchy, &Option<Arc<Hierarchy>>),
    shared: &SharedField,
    held: &'a mut Option<KeptField>,
    (goal, map_version, own): (Cell, NavVersion, &'a mut Option<KeptField>),
) -> (Option<&'a mut KeptField>, bool) {
    let fits = held.as_ref().is_some_and(|kept| kept.fits(hierarchy, grid));
    let newer = held.as_ref().is_some_and(|kept| {
        kept.revision > hierarchy.revision()
            || kept.revision == hierarchy.revision() && kept.map_version > map_version
    });
    let made_for = (goal, map_version);
    // Sectors wait, but the batch built no copy: it had found a field that fitted, replaced
    // meanwhile. A field made now could not answer; it must not replace the one held.
    let cannot_make = hierarchy.pending() > 0 && copy.is_none();
    if fits {
        (held.as_mut(), true)
    } else if newer || cannot_make {
        let made = own.get_or_insert_with(|| made_field((grid, hierarchy, copy), made_for, None));
        (Some(made), false)
    } else {
        let earlier = held.take().and_then(|kept| kept.field);
        let made = made_field((grid, hierarchy, copy), made_for, earlier);
        let revision = made.field.as_ref().map_or(NO_FIELD, |_| made.revision);
        shared.revision.store(revision, Ordering::Release);
        (Some(held.insert(made)), true)
    }
}

/// The field towards `goal` for `hierarchy` on `grid`: over the hierarchy itself when no sector
/// of it waits, else over `copy`, the hierarchy with those sectors built on `grid`. It renews
/// `earlier`, the goal's field for an older hierarchy, where there is one
/// ([`SectorFlowField::renewed`]): the sectors a change left alike are not flooded again.
/// `map_version` is the version of `grid`.
fn made_field(
    (grid, hierarchy, copy): (&Arc<Grid>, &Hierarchy, &Option<Arc<Hierarchy>>),
    (goal, map_version): (Cell, NavVersion),
    earlier: Option<SectorFlowField>,
) -> KeptField {
    let copy = (hierarchy.pending() > 0)
        .then(|| {
            copy.as_ref()
                .map(|copy| (Arc::clone(copy), Arc::downgrade(grid)))
        })
        .flatten();
    let over = copy.as_ref().map_or(hierarchy, |(copy, _)| copy.as_ref());
    let field = if hierarchy.pending() > 0 && copy.is_none() {
        None
    } else {
        match earlier.filter(|earlier| earlier.goal() == goal) {
            Some(earlier) => earlier.renewed(over, grid).ok(),
            None => SectorFlowField::new(over, grid, goal).ok(),
        }
    };
    KeptField {
        revision: hierarchy.revision(),
        copy,
        field,
        map_version,
    }
}

/// Sectors a publication measures ahead between two slice points (and two locks of the field).
const SECTORS_AHEAD_PER_SLICE: usize = 16;

/// What [`publish_routes`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Publication {
    /// A new version, of another grid than the last.
    New,
    /// A version that answers alike where the last answered, of the same grid.
    Alike,
    /// Nothing: the field held is for a newer hierarchy or grid, whose publication serves.
    Superseded,
    /// Nothing: no field could be made for this hierarchy and grid.
    Failed,
}

/// Publishes a view of the field `shared` holds, once it has measured the sectors ahead of
/// every measured cell (a few per slice), to the agents on the goal's routes; nothing when it
/// holds no field for `hierarchy` on `grid` (a newer one replaced it meanwhile: its own
/// publication serves). A view of another grid than the last is a new version, which names the
/// cells changed since ([`SharedField::note_change`]; not known for agents larger than a cell,
/// whose grid widens each change); one of the same grid answers alike where the last answered
/// (or the last was patched for that grid, [`publish_patched_view`], whose walks are as legal),
/// and replaces it without a new version ([`SharedTree::publish_alike`]).
async fn publish_routes(
    (grid, hierarchy): (&Arc<Grid>, &Hierarchy),
    shared: &SharedField,
    publishing: RoutePublishing,
) -> Publication {
    loop {
        if let Some(done) = publish_step((grid, hierarchy), shared, publishing) {
            return done;
        }
        slice_point().await;
    }
}

/// One slice of [`publish_routes`]: measures up to [`SECTORS_AHEAD_PER_SLICE`] sectors ahead,
/// then, with none left, publishes; `None` while sectors are left.
fn publish_step(
    (grid, hierarchy): (&Arc<Grid>, &Hierarchy),
    shared: &SharedField,
    publishing: RoutePublishing,
) -> Option<Publication> {
    let mut held = shared.kept.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(kept) = held.as_mut().filter(|kept| kept.fits(hierarchy, grid)) else {
        return Some(Publication::Superseded);
    };
    let over = kept
        .copy
        .as_ref()
        .map_or(hierarchy, |(copy, _)| copy.as_ref());
    let Some(field) = kept.field.as_mut() else {
        return Some(Publication::Failed);
    };
    let Ok(measured) = field.measure_ahead(over, grid, SECTORS_AHEAD_PER_SLICE) else {
        return Some(Publication::Failed);
    };
    if measured == SECTORS_AHEAD_PER_SLICE {
        return None;
    }
    Some(match field.view(over) {
        Ok(view) => publish_view(shared, (view, grid), publishing),
        Err(_) => Publication::Failed,
    })
}

/// Publishes `view`, of `grid`, to the agents on the goal's routes ([`publish_routes`]).
fn publish_view(
    shared: &SharedField,
    (view, grid): (SectorFieldView, &Arc<Grid>),
    publishing: RoutePublishing,
) -> Publication {
    let same_grid = shared
        .routes
        .current()
        .is_some_and(|published| Arc::ptr_eq(&published.grid, grid));
    let changed = (!same_grid).then(|| {
        let mut changes = shared
            .changes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (cells, ends) = changes.take_up_to(publishing.map_version);
        ChangedCells::of(&cells, &ends).filter(|_| publishing.size == 1)
    });
    let published = PublishedTree {
        tree: RouteTree::Sectors(Arc::new(view)),
        grid: Arc::clone(grid),
        map_version: publishing.map_version,
        geometry: publishing.geometry,
        size: publishing.size,
        complete: true,
        changed: changed.flatten(),
        crowd: None,
    };
    if same_grid {
        // More sectors measured, those measured before alike, or the renewed field after the
        // view before patched for this grid, whose walks were as legal: the agents read on.
        shared.routes.publish_alike(published);
        Publication::Alike
    } else {
        shared.routes.publish(published);
        Publication::New
    }
}

/// Renews the goal's field that `shared` holds over `hierarchy` on `grid` (the goal's hierarchy
/// and its kind's grid after map changes) and publishes a view of it to the agents on the
/// goal's routes ([`publish_routes`]), which measures first the sectors the field before had
/// measured and those ahead of them. Where sectors wait, they are first built on a copy of the
/// hierarchy, a few per slice. Where no field can be made, the routes are withdrawn: their
/// agents, stopped, search again. Leaves `shared` free for the next renewal when done. Returns
/// the goal's routes when it published a new version of them (or withdrew them).
async fn renew_routes(
    (grid, hierarchy): (Arc<Grid>, Arc<Hierarchy>),
    (goal, patch): (Cell, Patch),
    shared: Arc<SharedField>,
    publishing: RoutePublishing,
) -> Renewal {
    let patched = match patch {
        Patch::Published => true,
        Patch::First => publish_patched_view(&grid, &shared, publishing),
        Patch::None => false,
    };
    shared.patching.store(false, Ordering::Release);
    let never = AtomicBool::new(false);
    let mut copy = None;
    if hierarchy.pending() > 0 {
        copy = built_copy(&grid, &hierarchy, &never).await.flatten();
    }
    let on_shared = {
        let mut held = shared.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let mut own = None;
        let current = (&grid, &*hierarchy, &copy);
        let made_for = (goal, publishing.map_version, &mut own);
        current_field(current, &shared, &mut held, made_for).1
    };
    let publication = if on_shared {
        publish_routes((&grid, &hierarchy), &shared, publishing).await
    } else {
        Publication::Superseded
    };
    if publication == Publication::Failed {
        shared.routes.withdraw();
    }
    shared.renewing.store(false, Ordering::Release);
    let updated = (patched || matches!(publication, Publication::New | Publication::Failed))
        .then(|| Arc::clone(&shared.routes));
    Renewal { updated, patched }
}

/// Whether a renewal ([`renew_routes`]) publishes the view before patched for its grid first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Patch {
    /// It was published as the renewal started, on the main thread.
    Published,
    /// The renewal publishes it first.
    First,
    /// It cannot be patched ([`publish_patched_view`] would not publish).
    None,
}

/// What a renewal of a goal's field for the agents on it did ([`renew_routes`]).
pub(crate) struct Renewal {
    /// The goal's routes, when it published a new version of them (or withdrew them).
    updated: Option<Arc<SharedTree>>,
    /// Whether it published the view before patched first.
    patched: bool,
}

/// Publishes at once the view published last, of an older grid than `grid`, patched for
/// `grid` ([`SectorFieldView::patched`]): the sectors around the cells changed since are
/// flooded again, so that every agent on the goal's routes walks legally on `grid` while the
/// renewal measures the goal's field anew. The renewed field's view, of the same grid, then
/// replaces it without a new version: the agents' runs read off the patched view are as legal,
/// and each reads the renewed view where its run ends. Nothing where the view cannot be patched: where a
/// change since was not noted or changed a link, and for a view patched already. Returns
/// whether it published.
fn publish_patched_view(
    grid: &Arc<Grid>,
    shared: &SharedField,
    publishing: RoutePublishing,
) -> bool {
    let Some(published) = shared.routes.current() else {
        return false;
    };
    let RouteTree::Sectors(view) = &published.tree else {
        return false;
    };
    if Arc::ptr_eq(&published.grid, grid) || published.map_version >= publishing.map_version {
        return false;
    }
    let changes = shared
        .changes
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let Some(cells) = changes.cells_between(published.map_version, publishing.map_version) else {
        return false;
    };
    drop(changes);
    let Some(patched) = view.patched((&published.grid, grid), &cells) else {
        return false;
    };
    // Named by this version: the renewed field's view, of the same grid, replaces it alike.
    let _ = shared
        .changes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take_up_to(publishing.map_version);
    shared.routes.publish(PublishedTree {
        tree: RouteTree::Sectors(Arc::new(patched)),
        grid: Arc::clone(grid),
        map_version: publishing.map_version,
        geometry: publishing.geometry,
        size: publishing.size,
        complete: true,
        changed: ChangedCells::of(&cells, &[]),
        crowd: None,
    });
    true
}

/// What [`renew_sector_routes`] reads besides the fields: the map and its version, the
/// hierarchies, the agent kinds' grids, and where background work runs.
#[derive(SystemParam)]
pub(crate) struct RouteUpkeep<'w> {
    nav: Option<Res<'w, NavGrid>>,
    version: Res<'w, NavVersion>,
    settings: Res<'w, PathfindingSettings>,
    work: Res<'w, MainThreadWork>,
    hierarchies: ResMut<'w, Hierarchies>,
    layers: ResMut<'w, AgentLayers>,
    profiles: Res<'w, TerrainProfiles>,
    stats: ResMut<'w, PathfindingStats>,
    trees: ResMut<'w, FlowFields>,
}

/// Starts renewing in the background ([`renew_routes`]) each goal's sector field whose agents
/// hold routes on a view of a grid their kind's grid is no longer, one renewal per goal at a
/// time; lets go of the renewals that finished, counting them, and hands the routes they
/// updated to [`announce_route_changes`](super::flow_field::announce_route_changes).
pub(crate) fn renew_sector_routes(mut fields: ResMut<KeptSectorFields>, mut upkeep: RouteUpkeep) {
    let KeptSectorFields {
        slots, renewals, ..
    } = &mut *fields;
    renewals.retain_mut(|renewal| {
        let Some(renewed) = renewal.check_ready() else {
            return true;
        };
        upkeep.stats.sector_routes_renewed += u64::from(renewed.updated.is_some());
        upkeep.stats.sector_routes_patched += u64::from(renewed.patched);
        upkeep.trees.note_updated(renewed.updated);
        false
    });
    let Some(nav) = upkeep.nav.as_deref() else {
        return;
    };
    for (key, shared) in slots.iter() {
        if !shared.has_routes() || shared.renewing.load(Ordering::Acquire) {
            continue;
        }
        let Some(published) = shared.routes.current() else {
            continue;
        };
        let Ok(grid) = upkeep.layers.grid_for(key.kind(), nav, &upkeep.profiles) else {
            continue;
        };
        let grid = grid.snapshot;
        let mut renewed_for = shared
            .renewed_for
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if Arc::ptr_eq(&published.grid, &grid) || core::ptr::eq(renewed_for.as_ptr(), &*grid) {
            continue;
        }
        let Some(hierarchy) = upkeep.hierarchies.for_fields(nav, &key.options()) else {
            continue;
        };
        // The changes noted name every cell changed since the view only for the default
        // kind's grid, and only up to this version: edits not published yet are not noted.
        let patchable = key.kind().is_default() && !nav.has_pending_changes();
        shared.renewing.store(true, Ordering::Release);
        *renewed_for = Arc::downgrade(&grid);
        drop(renewed_for);
        let publishing = RoutePublishing {
            geometry: nav.geometry(),
            size: key.kind().size,
            map_version: *upkeep.version,
        };
        let renewal = (grid, hierarchy, publishing);
        let place = (upkeep.settings.search_thread, &*upkeep.work);
        renewals.push(start_renewal(renewal, (*key, shared), patchable, place));
    }
}

/// Starts renewing `shared`, `key`'s goal's field, on `grid` over `hierarchy`
/// ([`renew_routes`]). Where the work runs on the main thread, the view before is patched for
/// `grid` at once, so that the goal's requests this frame are given routes on it; elsewhere the
/// renewal patches it first, and those requests wait for it ([`SharedField::patching`]).
fn start_renewal(
    (grid, hierarchy, publishing): (Arc<Grid>, Arc<Hierarchy>, RoutePublishing),
    (key, shared): (FieldKey, &Arc<SharedField>),
    patchable: bool,
    (thread, queue): (SearchThread, &MainThreadWork),
) -> BackgroundTask<Renewal> {
    let patch = match (patchable, thread.is_pool()) {
        (false, _) => Patch::None,
        (true, true) => Patch::First,
        (true, false) if publish_patched_view(&grid, shared, publishing) => Patch::Published,
        (true, false) => Patch::None,
    };
    shared
        .patching
        .store(patch == Patch::First, Ordering::Release);
    let renewal = renew_routes(
        (grid, hierarchy),
        (key.goal(), patch),
        Arc::clone(shared),
        publishing,
    );
    BackgroundTask::spawn(renewal, Placement { thread, queue })
}

/// Notes this frame's map changes on the goals' fields whose agents hold routes
/// ([`SharedField::note_change`]).
pub(crate) fn note_sector_route_changes(
    mut changes: MessageReader<NavChanged>,
    fields: Res<KeptSectorFields>,
) {
    for message in changes.read() {
        for (_, shared) in fields.slots.iter() {
            shared.note_change(message.version, &message.change);
        }
    }
}

/// `job`'s outcome: a route on `routes` where `kept`'s field (the shared one's, when `routes`
/// is given) reaches the goal from its start; else its path read off the field, or searched
/// over `hierarchy` where the field does not answer (there is none, or it finds no way, which
/// a search then confirms); the error of the job's endpoints when they are invalid.
fn answer(
    grid: &Grid,
    hierarchy: &Hierarchy,
    kept: Option<&mut KeptField>,
    (job, routes): (&SearchJob, Option<&Arc<SharedTree>>),
) -> SearchOutcome {
    if let Err(error) = grid.check_endpoints(job.start, job.goal) {
        return outcome_of(job, grid, Err(error), PathAlgorithm::Hierarchical);
    }
    let read = kept.and_then(|kept| {
        let over = kept
            .copy
            .as_ref()
            .map_or(hierarchy, |(copy, _)| copy.as_ref());
        let field = kept.field.as_mut()?;
        if routes.is_some() {
            let cost = field.cost_at(over, grid, job.start).ok()?;
            return cost.map(|_| FieldRead::Reached);
        }
        field
            .path_from(over, grid, job.start)
            .ok()?
            .map(FieldRead::Walked)
    });
    let result = match (read, routes) {
        (Some(FieldRead::Reached), Some(routes)) => return route_outcome(job, routes),
        (Some(FieldRead::Walked(path)), _) => Ok(field_result(Some(path))),
        _ => search_hierarchy(grid, hierarchy, job),
    };
    outcome_of(job, grid, result, PathAlgorithm::Hierarchical)
}

/// What a field read for a job gave.
enum FieldRead {
    /// The field reaches the goal from the start (its sector is measured).
    Reached,
    /// The walk off the field.
    Walked(astar_grid::Path),
}

/// A found outcome for `job` that holds no path but a route on the goal's `routes`.
fn route_outcome(job: &SearchJob, routes: &Arc<SharedTree>) -> SearchOutcome {
    let mut outcome =
        SearchOutcome::without_path(job, PathStatus::Found, PathAlgorithm::Hierarchical);
    // A route follows the goal's routes as they are published, not one answer.
    outcome.cacheable = false;
    outcome.route = Some(SharedRoute {
        tree: Arc::clone(routes),
        start: job.start,
        smoothing: job.smoothing,
        movement: job.options.movement,
    });
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NavCellChange;
    use astar_grid::{Hierarchy, HierarchyOptions};

    const GOAL: Cell = Cell::new(62, 8);
    const START: Cell = Cell::new(1, 8);

    fn version(number: u64) -> NavVersion {
        (0..number).fold(NavVersion::default(), |version, _| version.next())
    }

    fn publishing(map_version: NavVersion) -> RoutePublishing {
        RoutePublishing {
            geometry: CellGeometry::default(),
            size: 1,
            map_version,
        }
    }

    /// The view of `GOAL`'s field over `grid`, measured ahead of `START`.
    fn view_of(grid: &Grid) -> SectorFieldView {
        let options = HierarchyOptions::default().with_sector_size(8);
        let hierarchy = Hierarchy::build(grid, options).expect("valid options");
        let mut field = SectorFlowField::new(&hierarchy, grid, GOAL).expect("built");
        field.cost_at(&hierarchy, grid, START).expect("current");
        while field.measure_ahead(&hierarchy, grid, 8).expect("current") == 8 {}
        field.view(&hierarchy).expect("current")
    }

    /// A shared field whose routes an agent holds (the returned tree), with the view of an
    /// open 64 x 16 grid published for map version 1.
    fn published_open_grid() -> (Arc<SharedField>, Arc<SharedTree>, Arc<Grid>) {
        let shared = Arc::new(SharedField::default());
        let held = Arc::clone(&shared.routes);
        let grid = Arc::new(Grid::new(64, 16));
        publish_view(&shared, (view_of(&grid), &grid), publishing(version(1)));
        (shared, held, grid)
    }

    /// `grid` with a wall across the way from `START` to `GOAL`, a gap at its top, and the
    /// change that made it.
    fn walled(grid: &Grid) -> (Arc<Grid>, NavChange) {
        let mut walled = grid.clone();
        let cells: Vec<NavCellChange> = (0..=12)
            .map(|y| NavCellChange {
                cell: Cell::new(30, y),
                before: 1,
                after: 0,
            })
            .collect();
        for change in &cells {
            walled.set_cost(change.cell, 0).expect("inside");
        }
        (Arc::new(walled), NavChange::from_cells(cells))
    }

    fn current_view(routes: &SharedTree) -> Arc<SectorFieldView> {
        match &routes.current().expect("published").tree {
            RouteTree::Sectors(view) => Arc::clone(view),
            RouteTree::Goal(_) => panic!("a goal tree"),
        }
    }

    #[test]
    fn the_view_is_patched_for_the_changes_noted_then_replaced_alike_by_the_field_s_view() {
        let (shared, held, grid) = published_open_grid();
        let (walled, change) = walled(&grid);
        assert!(current_view(&held).path_from(&walled, START).is_none());
        shared.note_change(version(2), &change);
        let generation = held.generation();
        assert!(publish_patched_view(
            &walled,
            &shared,
            publishing(version(2))
        ));
        assert_eq!(held.generation(), generation + 1);
        let patched = current_view(&held);
        assert!(patched.is_patched());
        let current = held.current().expect("published");
        assert!(Arc::ptr_eq(&current.grid, &walled));
        assert!(current.changed.is_some(), "names the wall");
        let walk = patched.path_from(&walled, START).expect("round the wall");
        assert_eq!(walk.cells.last(), Some(&GOAL));
        // Not patched again for the same grid.
        assert!(!publish_patched_view(
            &walled,
            &shared,
            publishing(version(2))
        ));
        // The changes it named are taken.
        {
            let changes = shared.changes.lock().expect("not poisoned");
            assert!(changes.noted.is_empty() && changes.unknown_up_to.is_none());
        }
        // The renewed field's view, of the same grid, replaces it alike: the agents read on.
        let renewed = publish_view(&shared, (view_of(&walled), &walled), publishing(version(2)));
        assert_eq!(renewed, Publication::Alike);
        assert_eq!(held.generation(), generation + 1);
        assert!(!current_view(&held).is_patched());
    }

    #[test]
    fn no_patched_view_where_a_change_since_the_view_was_not_noted() {
        let (shared, held, grid) = published_open_grid();
        let (walled, change) = walled(&grid);
        // Noted while nobody held a route: the cells are not known.
        drop(held);
        shared.note_change(version(2), &change);
        let held = Arc::clone(&shared.routes);
        let generation = held.generation();
        assert!(!publish_patched_view(
            &walled,
            &shared,
            publishing(version(2))
        ));
        assert_eq!(held.generation(), generation);
        // A later change noted does not make up for it, but a view of version 2 would.
        shared.note_change(version(3), &NavChange::default());
        assert!(!publish_patched_view(
            &walled,
            &shared,
            publishing(version(3))
        ));
        let mut changes = shared.changes.lock().expect("not poisoned");
        assert_eq!(
            changes.cells_between(version(2), version(3)),
            Some(Vec::new())
        );
        // A link changed between: refused too.
        changes
            .noted
            .push((version(4), Vec::new(), vec![Cell::new(1, 1)]));
        assert_eq!(changes.cells_between(version(2), version(4)), None);
        // Taking the changes up to version 3 keeps the later one.
        let _ = changes.take_up_to(version(3));
        assert_eq!(changes.noted.len(), 1);
        assert!(changes.unknown_up_to.is_none());
    }
}
