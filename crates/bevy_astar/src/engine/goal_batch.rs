//! The goal batch engine: requests for one goal gathered during dispatch (over up to
//! [`MOST_FRAMES_HELD`] more frames while earlier stages still send agents), so that a crowd
//! heading for the same place is answered by one Dijkstra grown from the goal ([`GoalPaths`], a
//! slice of cells at a time) instead of one search per agent. It honours only
//! requests whose own search would be optimal and unlimited ([`GoalBatches::accepts`]); smaller
//! groups than [`PathfindingSettings::goal_batch_min`](crate::PathfindingSettings) fall back to
//! their own engines. It records no trace (traced requests never join a batch), and stops when
//! nobody waits for its answers any more.

use super::flow_field::{FieldKey, field_result};
use super::{SearchEngine, SearchJob, SearchOutcome, outcome_of};
use crate::PathAlgorithm;
use crate::background::{OUTCOMES_PER_SLICE, slice_point};
use crate::cache::RequestKey;
use crate::in_flight::{SearchMember, Subscriber};
use crate::outcome::RetiredOutcomes;
use astar_grid::{Cell, FlowField, GoalPaths, Grid, SearchError, SearchOptions};
use bevy::platform::collections::HashMap;
use bevy::platform::time::Instant;
use bevy::prelude::Resource;
use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A request waiting in a batch: its key and the agents asking for it, what to search, and the
/// engine that answers it should it be searched alone.
pub(crate) struct BatchMember {
    pub waiting: SearchMember,
    pub job: SearchJob,
    pub alone: SearchEngine,
    /// The grid of the job's agent kind when it was queued (the same for the whole group).
    pub grid: Arc<Grid>,
}

/// The first request of `members` when every one is hierarchical (of the default agent kind),
/// so that the goal's sector field may answer them all.
pub(crate) fn hierarchical_job(members: &[BatchMember]) -> Option<SearchJob> {
    let hierarchical = members
        .iter()
        .all(|member| matches!(member.alone, SearchEngine::Hierarchical(_)));
    members
        .first()
        .filter(|_| hierarchical)
        .map(|member| member.job)
}

/// Frames a gathered group may be held back, at most, while the stages before Dispatch still
/// have agents to send (a change's agents checked or queued over several frames): one Dijkstra
/// then answers the whole crowd the change cut, instead of one per frame.
pub(crate) const MOST_FRAMES_HELD: u32 = 3;

/// Batchable requests, grouped by goal, movement rule and cost model, in the order their first
/// request was gathered: this frame's, and those of groups held back from earlier frames, which
/// stay in place (their members are not gathered again each frame they are held).
#[derive(Resource, Default)]
pub(crate) struct GoalBatches {
    groups: Vec<BatchGroup>,
    /// The group gathering each goal's requests, by group id.
    group_of: HashMap<FieldKey, u64>,
    /// Each gathered request's group id and place in it. An entry whose group was taken out
    /// is stale: it counts only while its group is among `groups`. The whole map is cleared
    /// whenever no group is left, and rebuilt when stale entries pile up.
    member_of: HashMap<RequestKey, (u64, usize)>,
    next_group: u64,
    /// Emptied member lists kept for the next groups: a tower's crowd fills a list of
    /// thousands, and growing a fresh one every frame costs more than gathering.
    spare: Vec<Vec<BatchMember>>,
}

/// Emptied member lists [`GoalBatches`] keeps, at most.
const SPARE_LISTS: usize = 4;

/// Stale entries of [`GoalBatches`]'s member index tolerated beyond four per live member,
/// before the index is rebuilt from the live groups.
const STALE_MEMBERS_KEPT: usize = 4_096;

/// The requests gathered for one goal.
pub(crate) struct BatchGroup {
    id: u64,
    pub members: Vec<BatchMember>,
    /// Frames it has been held back so far.
    pub frames_held: u32,
}

impl BatchGroup {
    /// The field (and shared tree) that answers the group's goal.
    pub(crate) fn key(&self) -> Option<FieldKey> {
        self.members
            .first()
            .map(|member| FieldKey::of_job(&member.job))
    }

    /// How many agents wait for the group's answer.
    pub(crate) fn agents(&self) -> usize {
        self.members
            .iter()
            .map(|member| member.waiting.subscribers.len())
            .sum()
    }
}

impl GoalBatches {
    /// Whether a request may be answered by a search from its goal: the answer must be the one
    /// its own search would give, an optimal path or none, so A* and jump point requests with
    /// optimal options, no expansion limit, partial path or closest reachable cell, and no
    /// trace.
    pub(crate) fn accepts(job: &SearchJob) -> bool {
        Self::accepts_options(job.algorithm, &job.options)
    }

    /// [`GoalBatches::accepts`], for a request's `algorithm` and `options`.
    pub(crate) fn accepts_options(algorithm: PathAlgorithm, options: &SearchOptions) -> bool {
        matches!(algorithm, PathAlgorithm::AStar | PathAlgorithm::JumpPoint)
            && options.is_optimal()
            && options.max_expansions.is_none()
            && !options.partial_path
            && !options.closest_reachable
            && !options.trace
    }

    /// Adds `subscriber`'s request; returns false when an identical request was already
    /// gathered (the agent then shares its answer).
    pub(crate) fn add(
        &mut self,
        key: RequestKey,
        job: SearchJob,
        alone: SearchEngine,
        grid: Arc<Grid>,
        subscriber: Subscriber,
    ) -> bool {
        if let Some(&(id, member)) = self.member_of.get(&key)
            && let Some(gathered) = self
                .groups
                .iter_mut()
                .find(|group| group.id == id)
                .and_then(|group| group.members.get_mut(member))
        {
            gathered.waiting.subscribers.push(subscriber);
            return false;
        }
        let field = FieldKey::of_job(&job);
        let open = self
            .group_of
            .get(&field)
            .and_then(|&id| self.groups.iter().position(|group| group.id == id));
        let index = open.unwrap_or_else(|| {
            self.next_group += 1;
            self.group_of.insert(field, self.next_group);
            self.groups.push(BatchGroup {
                id: self.next_group,
                members: self.spare.pop().unwrap_or_default(),
                frames_held: 0,
            });
            self.groups.len() - 1
        });
        let group = &mut self.groups[index];
        self.member_of.insert(key, (group.id, group.members.len()));
        group.members.push(BatchMember {
            waiting: SearchMember {
                key,
                subscribers: vec![subscriber],
            },
            job,
            alone,
            grid,
        });
        true
    }

    /// Takes out, oldest first, every group that `hold` does not hold back for another frame;
    /// the groups held stay in place, one more frame held.
    pub(crate) fn take_groups(
        &mut self,
        mut hold: impl FnMut(&BatchGroup) -> bool,
    ) -> Vec<BatchGroup> {
        let (held, taken): (Vec<BatchGroup>, Vec<BatchGroup>) =
            self.groups.drain(..).partition(|group| hold(group));
        self.groups = held;
        for group in &mut self.groups {
            group.frames_held += 1;
        }
        for group in &taken {
            if let Some(first) = group.members.first() {
                self.group_of.remove(&FieldKey::of_job(&first.job));
            }
        }
        if self.groups.is_empty() {
            self.group_of.clear();
            self.member_of.clear();
        } else if self.member_of.len() > 4 * self.len() + STALE_MEMBERS_KEPT {
            // Some group has been held every frame for a while: the stale entries are dropped.
            self.member_of.clear();
            for group in &self.groups {
                for (place, member) in group.members.iter().enumerate() {
                    self.member_of.insert(member.waiting.key, (group.id, place));
                }
            }
        }
        taken
    }

    /// The groups gathered so far.
    pub(crate) fn groups(&self) -> impl Iterator<Item = &BatchGroup> {
        self.groups.iter()
    }

    /// The groups gathered so far, to take agents out of in place (a member whose agents
    /// were all taken stays, empty, so that the places the index keeps stay right).
    pub(crate) fn groups_mut(&mut self) -> impl Iterator<Item = &mut BatchGroup> {
        self.groups.iter_mut()
    }

    /// Keeps the list `members` (emptied) for a later group.
    pub(crate) fn recycle(&mut self, mut members: Vec<BatchMember>) {
        if self.spare.len() < SPARE_LISTS && members.capacity() > 0 {
            members.clear();
            self.spare.push(members);
        }
    }

    /// Requests gathered (each counted once, however many agents share it).
    pub(crate) fn len(&self) -> usize {
        self.groups.iter().map(|group| group.members.len()).sum()
    }
}

/// A goal batch's Dijkstra, kept once its batch is answered so that the goal's later requests
/// on the same grid resume it instead of searching again.
pub(crate) type KeptSearch = GoalPaths<Arc<Grid>>;

/// Where a goal batch leaves its Dijkstra when it is done.
pub(crate) type KeptSlot = Arc<Mutex<Option<KeptSearch>>>;

/// Goals whose Dijkstras are kept, at most.
const MOST_KEPT_SEARCHES: usize = 4;

/// The Dijkstras of recent goal batches, one per goal (with its movement rule, cost model and
/// agent kind), the least recently used dropped beyond [`MOST_KEPT_SEARCHES`]. A tower's crowd
/// can reach Dispatch over more frames than a group may be held; its later groups then resume
/// the first group's Dijkstra rather than each growing its own over the whole map.
#[derive(Resource, Default)]
pub(crate) struct KeptGoalSearches {
    slots: RecentSlots<KeptSlot>,
}

/// One slot per goal for what its searches leave, the least recently used goal's slot dropped
/// beyond a number of goals.
#[derive(Default)]
pub(crate) struct RecentSlots<T> {
    slots: HashMap<FieldKey, (T, u64)>,
    uses: u64,
}

impl<T: Default + Send + Sync + 'static> RecentSlots<T> {
    /// The slot of `key`, made now when it has none; when `most` goals have slots already, the
    /// least recently used goal's slot is dropped first, to `retired`.
    pub(crate) fn slot(&mut self, key: FieldKey, most: usize, retired: &mut RetiredOutcomes) -> &T {
        self.slot_sparing(key, most, retired, |_| false)
    }

    /// As [`RecentSlots::slot`], but a slot `spared` says is in use is never dropped: with
    /// every slot in use, the goals with slots may outnumber `most`.
    pub(crate) fn slot_sparing(
        &mut self,
        key: FieldKey,
        most: usize,
        retired: &mut RetiredOutcomes,
        spared: impl Fn(&T) -> bool,
    ) -> &T {
        self.uses += 1;
        if !self.slots.contains_key(&key) && self.slots.len() >= most {
            let oldest = self
                .slots
                .iter()
                .filter(|(_, (slot, _))| !spared(slot))
                .min_by_key(|(_, (_, used))| *used)
                .map(|(&key, _)| key);
            if let Some((slot, _)) = oldest.and_then(|oldest| self.slots.remove(&oldest)) {
                retired.retire_search(slot);
            }
        }
        let (slot, used) = self.slots.entry(key).or_default();
        *used = self.uses;
        slot
    }

    /// The slot of `key`, if it has one.
    pub(crate) fn get(&self, key: &FieldKey) -> Option<&T> {
        self.slots.get(key).map(|(slot, _)| slot)
    }

    /// Every goal's slot.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&FieldKey, &T)> {
        self.slots.iter().map(|(key, (slot, _))| (key, slot))
    }

    /// How many goals have slots.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }
}

impl KeptGoalSearches {
    /// Whether a batch for `field` is running: it holds the goal's slot until it leaves its
    /// Dijkstra there.
    pub(crate) fn is_running(&self, field: &FieldKey) -> bool {
        self.slots
            .get(field)
            .is_some_and(|slot| Arc::strong_count(slot) > 1)
    }

    /// The slot where the batch for `field` leaves its Dijkstra, with the Dijkstra kept there
    /// if it ran on `grid` (taken out for the batch to resume; `None` for another grid, or when
    /// the goal's last batch is still running). The least recently used goal's slot, dropped
    /// to make room, goes to `retired`.
    pub(crate) fn take_for(
        &mut self,
        field: FieldKey,
        grid: &Arc<Grid>,
        retired: &mut RetiredOutcomes,
    ) -> (KeptSlot, Option<KeptSearch>) {
        let slot = self.slots.slot(field, MOST_KEPT_SEARCHES, retired);
        let kept = slot.try_lock().ok().and_then(|mut kept| {
            kept.take_if(|search| core::ptr::eq(search.grid(), Arc::as_ptr(grid)))
        });
        (Arc::clone(slot), kept)
    }
}

/// What a goal batch's Dijkstra gives its jobs: the search, once every valid start is settled,
/// with the place of the batch's first start among the starts it holds; `None` when no job
/// had valid endpoints (nothing was searched); or the error every job's own search would give.
type SettledStarts = Result<Option<(KeptSearch, usize)>, SearchError>;

/// Answers `jobs`, which share their goal, movement rule and cost model, with one Dijkstra from
/// the goal ([`GoalPaths`]); one outcome per job, in order. `kept` is the goal's Dijkstra
/// kept from an earlier batch on the same `grid`, resumed for these jobs' starts; the Dijkstra
/// is left in `slot` at the end. A job whose start or goal is invalid gets the error its own
/// search would give. `None` when `cancelled` was set before it began or while it ran (checked
/// every [`FlowField::PROCEED_INTERVAL`] cells, where it may also yield, on the main thread once
/// the frame's time is spent).
pub(crate) async fn run_goal_batch(
    grid: &Arc<Grid>,
    jobs: &[SearchJob],
    cancelled: &AtomicBool,
    (slot, kept): (KeptSlot, Option<KeptSearch>),
) -> Option<Vec<SearchOutcome>> {
    if cancelled.load(Ordering::Relaxed) {
        return None;
    }
    let began = Instant::now();
    let first = jobs.first()?;
    let checked: Vec<Result<(), SearchError>> = jobs
        .iter()
        .map(|job| grid.check_endpoints(job.start, job.goal))
        .collect();
    let starts = valid_starts(jobs, &checked);
    let search = if starts.is_empty() {
        Ok(None)
    } else {
        settle_starts(grid, first, &starts, cancelled, kept).await?
    };
    let mut outcomes = read_outcomes(grid, jobs, checked, &search).await;
    let duration = began.elapsed();
    for outcome in &mut outcomes {
        outcome.duration = duration;
    }
    if let (Ok(Some((search, _))), Ok(mut kept)) = (search, slot.lock()) {
        *kept = Some(search);
    }
    Some(outcomes)
}

/// The starts of the jobs whose endpoints passed their check (`checked`, in the jobs' order),
/// in order.
fn valid_starts(jobs: &[SearchJob], checked: &[Result<(), SearchError>]) -> Vec<Cell> {
    jobs.iter()
        .zip(checked)
        .filter(|(_, check)| check.is_ok())
        .map(|(job, _)| job.start)
        .collect()
}

/// Grows the goal's Dijkstra until every one of `starts` is settled: `kept`, resumed for them,
/// or a new one from `first`'s goal under its movement rule and cost model. `None` when
/// `cancelled` was set meanwhile (checked every [`FlowField::PROCEED_INTERVAL`] cells, where it
/// may yield).
async fn settle_starts(
    grid: &Arc<Grid>,
    first: &SearchJob,
    starts: &[Cell],
    cancelled: &AtomicBool,
    kept: Option<KeptSearch>,
) -> Option<SettledStarts> {
    let options = first.options;
    let begun = match kept {
        Some(mut kept) => {
            let added = kept.add_starts(starts);
            Ok((kept, added.start))
        }
        None => GoalPaths::new(
            Arc::clone(grid),
            starts,
            first.goal,
            options.movement,
            options.cost,
        )
        .map(|search| (search, 0)),
    };
    // The goal passed `check_endpoints`, so the only error left is an invalid cost model,
    // which every job's own search would refuse in the same way.
    let Ok((mut search, first_start)) = begun else {
        return Some(Err(SearchError::InvalidCostModel));
    };
    while !search.advance(FlowField::PROCEED_INTERVAL) {
        if cancelled.load(Ordering::Relaxed) {
            return None; // nobody wants the answers any more
        }
        slice_point().await;
    }
    Some(Ok(Some((search, first_start))))
}

/// One outcome per job, in order: the error of its endpoints' check (`checked`) or of the
/// search, else the path `search` settled for its start (the search holds the valid jobs'
/// starts in order, from the batch's first start on). Reading a large batch's paths and
/// smoothing them takes milliseconds too: it yields every [`OUTCOMES_PER_SLICE`] outcomes.
async fn read_outcomes(
    grid: &Arc<Grid>,
    jobs: &[SearchJob],
    checked: Vec<Result<(), SearchError>>,
    search: &SettledStarts,
) -> Vec<SearchOutcome> {
    let mut outcomes = Vec::with_capacity(jobs.len());
    let mut next_start = 0;
    for (number, (job, check)) in jobs.iter().zip(checked).enumerate() {
        let result = match search {
            Ok(search) => check.map(|()| {
                let path = search
                    .as_ref()
                    .and_then(|(search, first_start)| search.settled(first_start + next_start));
                next_start += 1;
                field_result(path)
            }),
            Err(error) => Err(*error),
        };
        outcomes.push(outcome_of(job, grid, result, PathAlgorithm::FlowField));
        if (number + 1).is_multiple_of(OUTCOMES_PER_SLICE) {
            slice_point().await;
        }
    }
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PathRequest;
    use crate::kinds::KindKey;
    use astar_grid::SearchOptions;
    use bevy::prelude::Entity;

    /// Gathers agent `index`'s request from `start` to the shared goal; returns whether it
    /// opened a new member (false: it shares an identical gathered request).
    fn gather(batches: &mut GoalBatches, grid: &Arc<Grid>, start: Cell, index: u32) -> bool {
        gather_for(batches, grid, (start, Cell::new(7, 7)), index)
    }

    /// [`gather`] with the goal given.
    fn gather_for(
        batches: &mut GoalBatches,
        grid: &Arc<Grid>,
        (start, goal): (Cell, Cell),
        index: u32,
    ) -> bool {
        let request = PathRequest::new(start, goal);
        let job = SearchJob {
            start,
            goal: request.goal,
            options: request.options,
            smoothing: false,
            algorithm: PathAlgorithm::AStar,
            kind: KindKey::DEFAULT,
        };
        let subscriber = Subscriber {
            entity: Entity::from_raw_u32(index + 1).expect("a valid index"),
            sequence: u64::from(index),
        };
        let key = RequestKey::new(&request, &request.options);
        batches.add(key, job, SearchEngine::AStar, Arc::clone(grid), subscriber)
    }

    #[test]
    fn a_held_group_keeps_gathering_and_a_taken_one_is_forgotten() {
        let grid = Arc::new(Grid::new(8, 8));
        let mut batches = GoalBatches::default();
        assert!(gather(&mut batches, &grid, Cell::new(0, 0), 0));
        assert!(gather(&mut batches, &grid, Cell::new(1, 0), 1));
        // Held: the group stays, and an identical request joins its member.
        assert!(batches.take_groups(|_| true).is_empty());
        assert!(!gather(&mut batches, &grid, Cell::new(0, 0), 2));
        assert!(gather(&mut batches, &grid, Cell::new(2, 0), 3));
        assert_eq!(batches.len(), 3);
        let taken = batches.take_groups(|_| false);
        assert_eq!(taken.len(), 1);
        let group = &taken[0];
        assert_eq!(group.frames_held, 1);
        let subscribers: Vec<usize> = group
            .members
            .iter()
            .map(|member| member.waiting.subscribers.len())
            .collect();
        assert_eq!(subscribers, [2, 1, 1]);
        // Taken: the same requests open a new group.
        assert_eq!(batches.len(), 0);
        assert!(gather(&mut batches, &grid, Cell::new(0, 0), 4));
        let taken = batches.take_groups(|_| false);
        assert_eq!(taken.len(), 1);
        assert_eq!((taken[0].members.len(), taken[0].frames_held), (1, 0));
    }

    #[test]
    fn the_member_index_stays_bounded_while_a_group_is_always_held() {
        let grid = Arc::new(Grid::new(128, 128));
        let mut batches = GoalBatches::default();
        let held_goal = Cell::new(0, 0);
        assert!(gather_for(
            &mut batches,
            &grid,
            (Cell::new(5, 5), held_goal),
            0
        ));
        let mut index = 1;
        for frame in 0..100 {
            for offset in 0..100 {
                let start = Cell::new(frame, offset + 10);
                assert!(gather_for(
                    &mut batches,
                    &grid,
                    (start, Cell::new(127, 127)),
                    index
                ));
                index += 1;
            }
            let taken = batches.take_groups(|group| {
                group
                    .members
                    .first()
                    .is_some_and(|member| member.job.goal == held_goal)
            });
            assert_eq!(taken.len(), 1);
            assert!(batches.member_of.len() <= 4 * batches.len() + STALE_MEMBERS_KEPT + 100);
        }
        // The held group's member is still found.
        assert!(!gather_for(
            &mut batches,
            &grid,
            (Cell::new(5, 5), held_goal),
            index
        ));
        assert_eq!(batches.len(), 1);
    }

    #[test]
    fn the_least_recently_used_goal_s_search_is_retired_to_make_room() {
        let grid = Arc::new(Grid::new(8, 8));
        let mut kept = KeptGoalSearches::default();
        let mut retired = RetiredOutcomes::default();
        let field = |x| {
            FieldKey::of_job(&SearchJob {
                start: Cell::new(0, 0),
                goal: Cell::new(x, 7),
                options: SearchOptions::default(),
                smoothing: false,
                algorithm: PathAlgorithm::AStar,
                kind: KindKey::DEFAULT,
            })
        };
        let slots: Vec<KeptSlot> = (0..MOST_KEPT_SEARCHES as u32)
            .map(|x| kept.take_for(field(x), &grid, &mut retired).0)
            .collect();
        assert!(retired.is_empty());
        // The first goal again: the most recently used now, so the second is the one to go.
        kept.take_for(field(0), &grid, &mut retired);
        kept.take_for(field(7), &grid, &mut retired);
        let (_, _, searches) = retired.take();
        assert_eq!(searches.len(), 1);
        // The retired search is the second goal's: once it is dropped, only this test holds
        // that slot, while the kept goals' slots are held by `kept` too.
        drop(searches);
        let holders: Vec<usize> = slots.iter().map(Arc::strong_count).collect();
        assert_eq!(holders, [2, 1, 2, 2]);
        assert_eq!(kept.slots.len(), MOST_KEPT_SEARCHES);
    }
}
