//! What one run of `pathbench agents` records: per-frame spans from timestamp systems ordered
//! around the library's systems, what each tower placement cut and how many frames re-pathing
//! took, and the run's counters.

use astar_grid::Cell;
use bevy::ecs::entity::Entity;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::ResMut;
use std::time::{Duration, Instant};

/// Number of timestamps a frame can hold.
pub const MARKS: usize = 6;

/// The timestamps taken during the current frame by [`stamp`] systems, by mark.
#[derive(Resource, Default)]
pub struct FrameStamps([Option<Instant>; MARKS]);

impl FrameStamps {
    /// Forgets the previous frame's timestamps.
    pub fn clear(&mut self) {
        self.0 = [None; MARKS];
    }

    /// The time from mark `from` to mark `to` of this frame.
    ///
    /// # Errors
    /// When either mark was not taken this frame (a stamp system did not run).
    pub fn between(&self, from: usize, to: usize) -> Result<Duration, String> {
        match (
            self.0.get(from).copied().flatten(),
            self.0.get(to).copied().flatten(),
        ) {
            (Some(from), Some(to)) => Ok(to.saturating_duration_since(from)),
            _ => Err(format!("timestamp {from} or {to} was not taken this frame")),
        }
    }
}

/// A system that takes timestamp `MARK`; ordered before and after a library's system sets, the
/// differences are the main-thread time of those sets, including the executor's work between
/// them and the deferred commands applied before the next timestamp.
pub fn stamp<const MARK: usize>(mut stamps: ResMut<FrameStamps>) {
    if let Some(slot) = stamps.0.get_mut(MARK) {
        *slot = Some(Instant::now());
    }
}

/// Per-frame durations of one named span.
#[derive(Clone, Debug, Default)]
pub struct SpanSeries {
    /// What the span covers.
    pub name: &'static str,
    /// One duration per measured frame.
    pub frames: Vec<Duration>,
}

impl SpanSeries {
    /// An empty series called `name`.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            frames: Vec::new(),
        }
    }
}

/// What one tower placement did.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// The tower cell.
    pub tower: Cell,
    /// Agents walking a path whose cells still ahead of them include the tower.
    pub cut: usize,
    /// Agents the library (or, for a library that does not track map changes, the game code)
    /// set searching again because of the tower.
    pub searched: usize,
    /// Agents standing on the tower cell, removed and started again at a spawn.
    pub crushed: usize,
    /// Frames from the placement (its frame counts as 1) until every cut agent had a new path
    /// that avoids every blocked cell; `None` when it cut nothing or the run ended first.
    pub frames_to_repath: Option<u64>,
    /// Cut agents that left before getting a new path (reached the goal on the old one, or a
    /// later tower crushed them); not waited for.
    pub left: usize,
    /// Cut agents whose search failed.
    pub failed: usize,
    /// Main-thread time of the map edit (outside the per-frame span).
    pub edit_time: Duration,
    /// Main-thread time of the game code that reacts to the placement (finding cut agents and
    /// asking for new paths where the library needs it; outside the per-frame span).
    pub reaction_time: Duration,
    /// Agents whose path the library checked against the change on the main thread, from the
    /// placement to the next (`None` where the library does not count them).
    pub checked: Option<u64>,
}

/// How a watched agent stands a frame after a placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repath {
    /// Still on the path the tower cut, or waiting for its search.
    Waiting,
    /// Its cells ahead avoid every blocked cell and cost what an optimal path from where it
    /// stands costs on the map as it is now (for a library that only says its new path avoids
    /// the towers: has one).
    Done,
    /// Its search failed.
    Failed,
    /// Started a new walk (reached the goal, or was crushed) before getting a new path.
    Left,
}

/// A cut agent and what identifies the path it had when the tower went down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watched {
    /// The agent.
    pub entity: Entity,
    /// Its walk number then.
    pub life: u32,
    /// Its path's revision then (0 where the library has none).
    pub revision: u64,
}

/// Placements whose cut agents are not all re-pathed yet.
#[derive(Default)]
pub struct RepathWatch {
    open: Vec<(usize, u64, Vec<Watched>)>,
}

impl RepathWatch {
    /// Starts watching the agents cut by `placement`, made just before frame `frame`.
    pub fn watch(&mut self, placement: usize, frame: u64, agents: Vec<Watched>) {
        if !agents.is_empty() {
            self.open.push((placement, frame, agents));
        }
    }

    /// After frame `frame`: asks `status` about every watched agent, drops those settled, and
    /// writes the frame count of every placement whose agents are all settled.
    pub fn update(
        &mut self,
        frame: u64,
        placements: &mut [Placement],
        mut status: impl FnMut(&Watched) -> Repath,
    ) {
        self.open.retain_mut(|(index, placed, agents)| {
            let Some(placement) = placements.get_mut(*index) else {
                return false;
            };
            agents.retain(|agent| match status(agent) {
                Repath::Waiting => true,
                Repath::Done => false,
                Repath::Failed => {
                    placement.failed += 1;
                    false
                }
                Repath::Left => {
                    placement.left += 1;
                    false
                }
            });
            if agents.is_empty() {
                placement.frames_to_repath = Some(frame + 1 - *placed);
            }
            !agents.is_empty()
        });
    }

    /// Placements still waiting for some of their agents.
    pub fn unfinished(&self) -> usize {
        self.open.len()
    }
}

/// Everything one library's run recorded.
#[derive(Clone, Debug, Default)]
pub struct RunRecord {
    /// The library.
    pub library: &'static str,
    /// How it searches, in a few words.
    pub search: String,
    /// Frames of warm-up before the measurement (until every agent had its first path).
    pub warmup_frames: u64,
    /// Main-thread time of the library's systems per measured frame.
    pub plugin: SpanSeries,
    /// The same time split by system set, where the library exposes its sets.
    pub plugin_sets: Vec<SpanSeries>,
    /// Main-thread time per measured frame of game code the library's model needs and that
    /// runs outside the measured span.
    pub game: SpanSeries,
    /// Agents waiting for a new path after each measured frame (queued or being searched).
    pub waiting: Vec<usize>,
    /// The tower placements, in order.
    pub placements: Vec<Placement>,
    /// Placements whose cut agents were not all re-pathed when the run ended.
    pub unfinished_placements: usize,
    /// Searches run during the measurement (local repairs included).
    pub searches: u64,
    /// Of those, cut paths repaired with a local detour (`None` where the library has none).
    pub repairs: Option<u64>,
    /// Requests answered from a result cache, and requests looked up in it (`None` without a
    /// cache).
    pub cache: Option<(u64, u64)>,
    /// Mean time of one search on the library's search threads (`None` when searches run inside
    /// the measured systems).
    pub background_search_time: Option<Duration>,
    /// Walks that reached the goal.
    pub arrivals: u64,
    /// Searches that failed (agents then start again at a spawn).
    pub failures: u64,
    /// Wall-clock time of the measured frames.
    pub wall_time: Duration,
    /// CPU time of the whole process over the measured frames, every thread included, less the
    /// time the benchmark spent checking the agents' new paths for the re-path watch (`None`
    /// where the platform does not tell).
    pub cpu_time: Option<Duration>,
    /// What the crowd meter saw (`--crowd` runs only).
    pub crowd: Option<super::crowd_meter::CrowdFigures>,
    /// How the library shared its goals' trees: routes given during the measured frames, trees
    /// held at the end (`None` where the library has no such sharing).
    pub sharing: Option<Sharing>,
}

/// How a library shares one tree of shortest paths per goal among its agents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sharing {
    /// Fewest agents asking for a goal that make it shared (`shared_goal_min_agents`; 0: off).
    pub min_agents: usize,
    /// Requests given a route on a shared tree.
    pub routes: u64,
    /// Trees held.
    pub trees: usize,
    /// Memory of the fields and trees held, in thousandths of a byte per map cell and field.
    pub milli_bytes_per_cell: u64,
    /// Goals' sector routes renewed after map changes, and of those, the renewals that first
    /// published the view before patched for the change.
    pub sector_routes: (u64, u64),
}

/// A library's running counters, read after the warm-up and at the end of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Searches run so far (local repairs included).
    pub searches: u64,
    /// Of those, cut paths repaired with a local detour (`None` where the library has none).
    pub repairs: Option<u64>,
    /// Requests answered from a result cache and requests looked up in it (`None` without a
    /// cache).
    pub cache: Option<(u64, u64)>,
    /// Searches finished on the library's search threads and their total time (`None` when
    /// searches run inside the measured systems).
    pub background: Option<(u64, Duration)>,
    /// Its sharing of goal trees so far: routes given in all, trees held now (`None` where the
    /// library has none).
    pub sharing: Option<Sharing>,
}

impl Counters {
    /// Writes into `record` what happened between `before` and `self`.
    pub fn write_since(&self, before: &Self, record: &mut RunRecord) {
        record.searches = self.searches - before.searches;
        record.repairs = self
            .repairs
            .zip(before.repairs)
            .map(|(after, before)| after - before);
        record.cache =
            self.cache
                .zip(before.cache)
                .map(|((hits, lookups), (hits_before, lookups_before))| {
                    (hits - hits_before, lookups - lookups_before)
                });
        record.background_search_time = self.background.zip(before.background).and_then(
            |((finished, time), (finished_before, time_before))| {
                let finished = u32::try_from(finished - finished_before).ok()?;
                (finished > 0).then(|| (time - time_before) / finished)
            },
        );
        record.sharing = self
            .sharing
            .zip(before.sharing)
            .map(|(after, before)| Sharing {
                routes: after.routes - before.routes,
                sector_routes: (
                    after.sector_routes.0 - before.sector_routes.0,
                    after.sector_routes.1 - before.sector_routes.1,
                ),
                ..after
            });
    }
}

/// Median, 99th percentile and maximum of some durations, in milliseconds (nearest rank).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (all zero when there are none).
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut sorted: Vec<f64> = values.into_iter().collect();
        if sorted.is_empty() {
            return Self::default();
        }
        sorted.sort_by(f64::total_cmp);
        let rank = |fraction: f64| {
            let index = (fraction * sorted.len() as f64).ceil() as usize;
            sorted[index.clamp(1, sorted.len()) - 1]
        };
        Self {
            median: rank(0.5),
            p99: rank(0.99),
            max: sorted[sorted.len() - 1],
        }
    }

    /// The spread of durations, in milliseconds.
    pub fn of_durations(durations: &[Duration]) -> Self {
        Self::of(
            durations
                .iter()
                .map(|duration| duration.as_secs_f64() * 1e3),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement() -> Placement {
        Placement {
            tower: Cell::new(1, 1),
            cut: 3,
            searched: 3,
            crushed: 0,
            frames_to_repath: None,
            left: 0,
            failed: 0,
            edit_time: Duration::ZERO,
            reaction_time: Duration::ZERO,
            checked: None,
        }
    }

    #[test]
    fn counters_give_the_differences_of_the_measured_frames() {
        let before = Counters {
            searches: 10,
            repairs: Some(2),
            cache: Some((5, 9)),
            background: Some((8, Duration::from_millis(40))),
            sharing: Some(Sharing {
                min_agents: 32,
                routes: 100,
                trees: 2,
                milli_bytes_per_cell: 5_100,
                sector_routes: (4, 3),
            }),
        };
        let after = Counters {
            searches: 25,
            repairs: Some(3),
            cache: Some((9, 20)),
            background: Some((13, Duration::from_millis(90))),
            sharing: Some(Sharing {
                min_agents: 32,
                routes: 130,
                trees: 3,
                milli_bytes_per_cell: 5_200,
                sector_routes: (9, 7),
            }),
        };
        let mut record = RunRecord::default();
        after.write_since(&before, &mut record);
        assert_eq!(record.searches, 15);
        assert_eq!(record.repairs, Some(1));
        assert_eq!(record.cache, Some((4, 11)));
        assert_eq!(
            record.background_search_time,
            Some(Duration::from_millis(10))
        );
        // Routes given during the measurement; trees held at its end.
        assert_eq!(
            record.sharing,
            Some(Sharing {
                min_agents: 32,
                routes: 30,
                trees: 3,
                milli_bytes_per_cell: 5_200,
                sector_routes: (5, 4),
            })
        );
        let plain = Counters {
            searches: 4,
            ..Counters::default()
        };
        plain.write_since(&Counters::default(), &mut record);
        assert_eq!(record.searches, 4);
        assert_eq!(
            (
                record.repairs,
                record.cache,
                record.background_search_time,
                record.sharing
            ),
            (None, None, None, None)
        );
    }

    #[test]
    fn spread_uses_nearest_ranks() {
        let spread = Spread::of((1..=200).map(f64::from));
        assert_eq!(spread.median, 100.0);
        assert_eq!(spread.p99, 198.0);
        assert_eq!(spread.max, 200.0);
        assert_eq!(Spread::of([4.0]).p99, 4.0);
        assert_eq!(Spread::of([]), Spread::default());
        let three = Spread::of([3.0, 1.0, 2.0]);
        assert_eq!((three.median, three.p99, three.max), (2.0, 3.0, 3.0));
    }

    #[test]
    fn a_placement_finishes_when_its_last_agent_settles() {
        let agents: Vec<Watched> = (0..3)
            .map(|index| Watched {
                entity: Entity::from_raw_u32(index + 1).unwrap(),
                life: 0,
                revision: 0,
            })
            .collect();
        let mut placements = vec![placement()];
        let mut watch = RepathWatch::default();
        watch.watch(0, 10, agents.clone());
        watch.watch(0, 10, Vec::new());
        // Frame 10 (the placement's own): one done, one leaves.
        watch.update(10, &mut placements, |agent| {
            match agent.entity.index_u32() {
                1 => Repath::Done,
                2 => Repath::Left,
                _ => Repath::Waiting,
            }
        });
        assert_eq!(placements[0].frames_to_repath, None);
        assert_eq!(watch.unfinished(), 1);
        // Frame 12: the last one's search failed.
        watch.update(12, &mut placements, |_| Repath::Failed);
        assert_eq!(placements[0].frames_to_repath, Some(3));
        assert_eq!((placements[0].left, placements[0].failed), (1, 1));
        assert_eq!(watch.unfinished(), 0);
    }
}
