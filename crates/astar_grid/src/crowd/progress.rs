//! Knots: agents that make no progress for a while wait their turn in a queue, and the last of
//! a knot of agents pressing on each other steps out of the others' way.
//!
//! ORCA keeps agents off each other's velocities, not off each other's places: a knot of agents
//! pressing on each other (at a door, each pinned on a corner, or four crossing at one point
//! slowly) stands still for ever, since none may press into a neighbour that does not move.
//! These rules break such knots. They are measured in time and in a distance the caller
//! chooses: [`Crowd::step`](super::Crowd::step) measures how far each agent got along its
//! preferred velocity, a path follower how much closer it came to its waypoint.
//!
//! An agent whose patience ([`ProgressSettings::stuck_after`]) runs out without progress is
//! *held up* ([`AgentProgress::judge_held_up`]): it queues ([`HeldUp::Queueing`]) when an
//! agent just ahead of it wants to go its way ([`moves_in_a_queue`]), and is
//! [`HeldUp::Stuck`] otherwise. Either way, when it yields to every agent within a body length
//! that wants to move ([`way_aside`]: each has a higher [`CrowdAgent::priority`], or the same
//! one and is ahead of it, [`is_ahead`]), it steps out of their way at [`ASIDE_SPEED`] of its
//! top speed for [`GIVE_WAY_SHARE`] of its patience. The order is strict, so the last of a knot
//! yields. Agents behind it that stand waiting (slower than [`STANDING_SPEED`] of their top
//! speed) do not hold it back: two agents wedged side by side in front of a gap, each on its
//! own corner (an arch), have the queue waiting behind them, and the one behind of the two
//! must still step aside for the other.

use super::{CrowdAgent, Neighbour, NeighbourGrid, Vector};

/// The share of its top speed at which an agent stepping aside moves
/// ([`AgentProgress::aside_velocity`]).
pub const ASIDE_SPEED: f32 = 0.25;

/// The share of its top speed below which an agent behind a held-up one counts as standing
/// and waiting ([`way_aside`]): it does not keep the held-up agent from yielding. Without this
/// rule two agents wedged side by side in the mouth of a gap one agent wide, with a queue
/// behind them, stood for ever: neither was the last of the knot.
pub const STANDING_SPEED: f32 = 0.25;

/// The share of [`ProgressSettings::stuck_after`] for which an agent steps aside
/// ([`way_aside`]) before it goes on.
pub const GIVE_WAY_SHARE: f32 = 1.0 / 3.0;

/// The most agents near an agent that the knot rules look at.
pub(super) const KNOT_NEIGHBOURS: usize = 6;

/// How many times the time an agent stuck again and again steps aside doubles
/// ([`AgentProgress::judge_held_up`]): at most eight times [`GIVE_WAY_SHARE`] of its patience.
pub const MAX_GIVE_WAY_DOUBLINGS: u32 = 3;

/// When an agent counts as held up: it has not made [`ProgressSettings::stuck_distance`] of
/// progress for [`ProgressSettings::stuck_after`] seconds.
///
/// ```
/// use astar_grid::crowd::ProgressSettings;
///
/// let settings = ProgressSettings::default();
/// assert_eq!((settings.stuck_after, settings.stuck_distance), (3.0, 0.25));
/// // Patience without end turns the knot rules off.
/// let off = ProgressSettings { stuck_after: f32::INFINITY, ..settings };
/// # let _ = off;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProgressSettings {
    /// Seconds an agent may go without progress before it is held up; it then steps aside for
    /// [`GIVE_WAY_SHARE`] of this when it is the last of a knot. Infinite (or NaN) for never.
    /// Default 3.
    pub stuck_after: f32,
    /// The progress, in cells, that counts. Default 0.25.
    pub stuck_distance: f32,
}

impl Default for ProgressSettings {
    fn default() -> Self {
        Self {
            stuck_after: 3.0,
            stuck_distance: 0.25,
        }
    }
}

/// What an agent held up does ([`AgentProgress::judge_held_up`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldUp {
    /// Agents just ahead of it want to go its way: it waits its turn.
    Queueing,
    /// Nobody ahead goes its way (a dead end, a knot, agents coming the other way): a path
    /// follower may search again from where it stands.
    Stuck,
}

/// The state of one agent under the knot rules: how long it has gone without progress, and
/// whether it is stepping aside.
///
/// ```
/// use astar_grid::crowd::{AgentProgress, ProgressSettings};
///
/// let settings = ProgressSettings::default();
/// let mut progress = AgentProgress::default();
/// // 2.5 s without progress: patience lasts.
/// assert!(!progress.wait(2.5, settings.stuck_after));
/// // Progress sets the clock back.
/// progress.restart();
/// assert!(!progress.wait(2.5, settings.stuck_after));
/// // Another second: held up, and the clock starts again.
/// assert!(progress.wait(1.0, settings.stuck_after));
/// assert_eq!(progress.waited(), 0.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AgentProgress {
    /// Seconds since the last progress.
    waited: f32,
    /// Seconds left for which the agent steps aside.
    giving_way: f32,
    /// The way it steps meanwhile, a unit vector.
    aside: Vector,
    /// How many times in a row it was held up [`HeldUp::Stuck`], with no progress since.
    stuck_in_a_row: u32,
}

impl AgentProgress {
    /// Seconds since the agent last made progress (or was last held up).
    #[must_use]
    pub fn waited(&self) -> f32 {
        self.waited
    }

    /// The agent made progress: its clock starts again, and it counts as never held up
    /// (stepping aside goes on).
    pub fn restart(&mut self) {
        self.waited = 0.0;
        self.stuck_in_a_row = 0;
    }

    /// Counts `time_step` more seconds without progress; true, starting the clock again, when
    /// they add up to `patience` seconds or more (never for a NaN patience).
    pub fn wait(&mut self, time_step: f32, patience: f32) -> bool {
        self.waited += time_step;
        if self
            .waited
            .partial_cmp(&patience)
            .is_none_or(core::cmp::Ordering::is_lt)
        {
            return false;
        }
        self.waited = 0.0;
        true
    }

    /// Whether the agent is stepping aside.
    #[must_use]
    pub fn is_giving_way(&self) -> bool {
        self.giving_way > 0.0
    }

    /// The velocity at which an agent of top speed `max_speed` steps aside, `None` when it
    /// does not: [`ASIDE_SPEED`] of its top speed, away from the agents it gives way to.
    #[must_use]
    pub fn aside_velocity(&self, max_speed: f32) -> Option<Vector> {
        self.is_giving_way()
            .then(|| self.aside * (max_speed * ASIDE_SPEED))
    }

    /// Makes the agent step out of the way along `way` (a unit vector) for `seconds`, at
    /// [`ASIDE_SPEED`] of its top speed: an agent that has arrived steps off the way of one
    /// held up beside it ([`RouteCrowd`](super::RouteCrowd)).
    ///
    /// ```
    /// use astar_grid::crowd::{AgentProgress, Vector};
    ///
    /// let mut progress = AgentProgress::default();
    /// progress.step_aside(Vector::new(0.0, 1.0), 1.0);
    /// assert_eq!(progress.aside_velocity(2.0), Some(Vector::new(0.0, 0.5)));
    /// assert!(progress.count_down(1.0));
    /// assert!(!progress.is_giving_way());
    /// ```
    pub fn step_aside(&mut self, way: Vector, seconds: f32) {
        self.giving_way = seconds.max(0.0);
        self.aside = way;
    }

    /// Counts `time_step` seconds of stepping aside; false, changing nothing, when the agent
    /// is not stepping aside. An agent stepping aside is not judged on its progress meanwhile.
    pub fn count_down(&mut self, time_step: f32) -> bool {
        if !self.is_giving_way() {
            return false;
        }
        self.giving_way = (self.giving_way - time_step).max(0.0);
        true
    }

    /// Judges agent `index` of `agents`, whose patience just ran out ([`AgentProgress::wait`]):
    /// it queues when `may_queue` and an agent just ahead wants to go its way
    /// ([`moves_in_a_queue`]), and is stuck otherwise; either way, when it yields to every
    /// agent within a body length that wants to move ([`way_aside`]), it steps aside for
    /// [`GIVE_WAY_SHARE`] of `settings.stuck_after`. `neighbours` was rebuilt from `agents`
    /// (their positions may have moved a step since); `found` is scratch memory.
    ///
    /// ```
    /// use astar_grid::crowd::{AgentProgress, CrowdAgent, HeldUp, NeighbourGrid, ProgressSettings, Vector};
    ///
    /// // Two agents heading east, one right behind the other.
    /// let mut agents = [
    ///     CrowdAgent::new(Vector::new(5.0, 5.0), 0.45, 2.0),
    ///     CrowdAgent::new(Vector::new(4.1, 5.0), 0.45, 2.0),
    /// ];
    /// for agent in &mut agents {
    ///     agent.preferred_velocity = Vector::new(2.0, 0.0);
    /// }
    /// let mut neighbours = NeighbourGrid::new();
    /// neighbours.rebuild(&agents, 1.5);
    /// let settings = ProgressSettings::default();
    /// let mut behind = AgentProgress::default();
    /// let held = behind.judge_held_up((&agents, &neighbours), 1, true, &settings, &mut Vec::new());
    /// assert_eq!(held, HeldUp::Queueing);
    /// // It yields to the one ahead, so it backs away a second.
    /// assert_eq!(behind.aside_velocity(2.0), Some(Vector::new(-0.5, 0.0)));
    /// let mut ahead = AgentProgress::default();
    /// let held = ahead.judge_held_up((&agents, &neighbours), 0, true, &settings, &mut Vec::new());
    /// assert_eq!((held, ahead.is_giving_way()), (HeldUp::Stuck, false));
    /// ```
    ///
    /// # Panics
    /// When `index` is not an index of `agents`, or `neighbours` holds indices beyond it.
    pub fn judge_held_up(
        &mut self,
        (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
        index: usize,
        may_queue: bool,
        settings: &ProgressSettings,
        found: &mut Vec<Neighbour>,
    ) -> HeldUp {
        find_nearby((agents, neighbours), index, found);
        let held = if may_queue && queue_among(agents, index, found) {
            HeldUp::Queueing
        } else {
            HeldUp::Stuck
        };
        self.stuck_in_a_row = match held {
            HeldUp::Stuck => self.stuck_in_a_row.saturating_add(1),
            HeldUp::Queueing => 0,
        };
        let mut way = aside_among(agents, index, found, Order::Ahead);
        if way.is_none() && self.stuck_in_a_row > 1 {
            // Stuck again and not the last by who is ahead: the knot may be a ring (four
            // agents crossing at one point are each ahead of the next), so it yields by a
            // strict order with no rings, priority and then index.
            way = aside_among(agents, index, found, Order::Rank);
        }
        if let Some(way) = way {
            // Each time in a row it is stuck, it stands aside twice as long (at most
            // MAX_GIVE_WAY_DOUBLINGS times): a knot that closes again after a short step gets a
            // longer one.
            let doublings = self
                .stuck_in_a_row
                .saturating_sub(1)
                .min(MAX_GIVE_WAY_DOUBLINGS);
            let share = GIVE_WAY_SHARE * (1_u32 << doublings) as f32;
            self.giving_way = settings.stuck_after * share;
            self.aside = way;
        }
        held
    }
}

/// Whether an agent of `agents` ahead of agent `index` (within a body length) wants to go the
/// same way: the agent is in a queue, moving or not, rather than at a dead end or face to face
/// with agents coming the other way. `found` is scratch memory.
///
/// Of two agents going the same way, exactly one is ahead of the other ([`is_ahead`]). Two
/// agents side by side at a door one agent wide, each pressing on its own corner, would
/// otherwise each wait for the other for ever in a queue; this way the one behind waits and
/// the one ahead is stuck.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, NeighbourGrid, Vector, moves_in_a_queue};
///
/// let mut agents = [
///     CrowdAgent::new(Vector::new(5.0, 5.0), 0.45, 2.0),
///     CrowdAgent::new(Vector::new(4.1, 5.0), 0.45, 2.0),
/// ];
/// for agent in &mut agents {
///     agent.preferred_velocity = Vector::new(2.0, 0.0);
/// }
/// let mut neighbours = NeighbourGrid::new();
/// neighbours.rebuild(&agents, 1.5);
/// let mut found = Vec::new();
/// assert!(moves_in_a_queue((&agents, &neighbours), 1, &mut found));
/// assert!(!moves_in_a_queue((&agents, &neighbours), 0, &mut found));
/// ```
///
/// # Panics
/// When `index` is not an index of `agents`, or `neighbours` holds indices beyond it.
pub fn moves_in_a_queue(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) -> bool {
    find_nearby((agents, neighbours), index, found);
    queue_among(agents, index, found)
}

/// Whether one of `found` (agents near agent `index`) is ahead of it and wants to go its way.
fn queue_among(agents: &[CrowdAgent], index: usize, found: &[Neighbour]) -> bool {
    let heading = agents[index].preferred_velocity.normalize_or_zero();
    found.iter().any(|neighbour| {
        let other = &agents[neighbour.index];
        let same_way = other.preferred_velocity.dot(heading) > 0.0;
        same_way && is_ahead((agents, index), neighbour.index)
    })
}

/// Finds into `found` the agents within a body length of agent `index` of `agents` (six at
/// most, nearest first): those it queues behind or steps aside for.
fn find_nearby(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) {
    let agent = &agents[index];
    let reach = 3.0 * agent.radius + 0.5;
    neighbours.nearest(agent.position, Some(index), reach, KNOT_NEIGHBOURS, found);
}

/// Whether agent `other` of `agents` is ahead of agent `index`: further along the sum of
/// their headings (their preferred velocities as unit vectors), or of the lower index on a
/// tie. Of any two agents, exactly one is ahead.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, Vector, is_ahead};
///
/// let mut agents = [
///     CrowdAgent::new(Vector::new(4.0, 5.0), 0.45, 2.0),
///     CrowdAgent::new(Vector::new(5.0, 5.0), 0.45, 2.0),
/// ];
/// agents[0].preferred_velocity = Vector::new(2.0, 0.0);
/// agents[1].preferred_velocity = Vector::new(0.0, 2.0);
/// assert!(is_ahead((&agents, 0), 1));
/// assert!(!is_ahead((&agents, 1), 0));
/// ```
///
/// # Panics
/// When `index` or `other` is not an index of `agents`.
#[must_use]
pub fn is_ahead((agents, index): (&[CrowdAgent], usize), other: usize) -> bool {
    let (agent, neighbour) = (&agents[index], &agents[other]);
    let headings = agent.preferred_velocity.normalize_or_zero()
        + neighbour.preferred_velocity.normalize_or_zero();
    let along = (neighbour.position - agent.position).dot(headings);
    along > 0.0 || (along == 0.0 && other < index)
}

/// The way agent `index` of `agents` stands aside when it makes no progress: a unit vector
/// away from the agents within a body length that want to move (an agent that prefers to
/// stand still is not in anyone's way), if it yields to all of them: each has a higher
/// [`CrowdAgent::priority`], or the same one and is ahead of it ([`is_ahead`]). A neighbour it
/// does not yield to but that moves slower than [`STANDING_SPEED`] of its own top speed waits
/// behind it, and is left out. `None` otherwise, or with nobody near. Where they stand all
/// round it, it backs away the way it came. `found` is scratch memory.
///
/// ```
/// use astar_grid::crowd::{CrowdAgent, NeighbourGrid, Vector, way_aside};
///
/// // Pressing west, with an agent of a higher priority just above it.
/// let mut agents = [
///     CrowdAgent::new(Vector::new(5.0, 5.0), 0.45, 3.0),
///     CrowdAgent::new(Vector::new(5.0, 5.9), 0.45, 3.0),
/// ];
/// agents[0].preferred_velocity = Vector::new(-3.0, 0.0);
/// agents[1].preferred_velocity = Vector::new(-3.0, 0.5);
/// agents[1].priority = 1;
/// let mut neighbours = NeighbourGrid::new();
/// neighbours.rebuild(&agents, 1.5);
/// let mut found = Vec::new();
/// assert_eq!(way_aside((&agents, &neighbours), 0, &mut found), Some(Vector::new(0.0, -1.0)));
/// assert_eq!(way_aside((&agents, &neighbours), 1, &mut found), None);
/// ```
///
/// # Panics
/// When `index` is not an index of `agents`, or `neighbours` holds indices beyond it.
pub fn way_aside(
    (agents, neighbours): (&[CrowdAgent], &NeighbourGrid),
    index: usize,
    found: &mut Vec<Neighbour>,
) -> Option<Vector> {
    find_nearby((agents, neighbours), index, found);
    aside_among(agents, index, found, Order::Ahead)
}

/// Of two agents of one priority, which one the other yields to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// The one ahead ([`is_ahead`]): the last of a queue yields, but agents crossing each
    /// other's ways may be each ahead of the next in a ring.
    Ahead,
    /// The one of the lower index: a strict order with no rings.
    Rank,
}

/// The way aside of agent `index` from `found`, the agents near it ([`way_aside`]), yielding
/// to agents of its own priority by `order`.
fn aside_among(
    agents: &[CrowdAgent],
    index: usize,
    found: &[Neighbour],
    order: Order,
) -> Option<Vector> {
    let agent = &agents[index];
    let mut away = Vector::ZERO;
    let mut anyone = false;
    for neighbour in found {
        let other = &agents[neighbour.index];
        if other.preferred_velocity == Vector::ZERO {
            continue;
        }
        let first = match order {
            Order::Ahead => is_ahead((agents, index), neighbour.index),
            Order::Rank => neighbour.index < index,
        };
        let yields = other.priority > agent.priority || (other.priority == agent.priority && first);
        if !yields {
            if other.velocity.length() < STANDING_SPEED * other.max_speed {
                // It waits behind: stepping aside does not press on it.
                continue;
            }
            return None;
        }
        anyone = true;
        away += (agent.position - other.position).normalize_or_zero();
    }
    // Away from them, or back the way it came where they stand all round it.
    let away = away.normalize_or_zero();
    let back = -agent.preferred_velocity.normalize_or_zero();
    anyone.then_some(if away == Vector::ZERO { back } else { away })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-cell agent at `position` that prefers `velocity` (cells a second; top speed 3).
    fn walker(position: Vector, velocity: Vector) -> CrowdAgent {
        let mut agent = CrowdAgent::new(position, 0.45, 3.0);
        agent.preferred_velocity = velocity;
        agent
    }

    #[test]
    fn of_two_agents_side_by_side_at_a_door_exactly_one_waits_for_the_other() {
        // Both head west for a door at (15.5, 3.5), each pressing on its own corner of it.
        let door = Vector::new(15.5, 3.5);
        let pair = [Vector::new(16.45, 3.93), Vector::new(16.45, 3.03)];
        let mut agents: Vec<CrowdAgent> = pair
            .iter()
            .map(|&position| walker(position, (door - position).normalize_or_zero() * 3.0))
            .collect();
        fn waiting(agents: &[CrowdAgent]) -> [bool; 2] {
            let mut neighbours = NeighbourGrid::new();
            neighbours.rebuild(agents, 1.5);
            let mut found = Vec::new();
            [0, 1].map(|index| moves_in_a_queue((agents, &neighbours), index, &mut found))
        }
        let queued = waiting(&agents);
        assert_eq!(queued.iter().filter(|&&queued| queued).count(), 1);
        // The same, mirrored so that each stands where the other stood.
        agents.swap(0, 1);
        let swapped = waiting(&agents);
        assert_eq!(swapped, [queued[1], queued[0]]);
        // Exactly abreast, heading the same way: the lower index is ahead.
        for (agent, y) in agents.iter_mut().zip([4.0, 3.0]) {
            agent.position = Vector::new(16.5, y);
            agent.preferred_velocity = Vector::new(-3.0, 0.0);
        }
        assert_eq!(waiting(&agents), [false, true]);
        // One behind the other, the one behind waits.
        agents[1].position = Vector::new(17.5, 4.0);
        assert_eq!(waiting(&agents), [false, true]);
    }

    #[test]
    fn the_lowest_priority_of_a_knot_steps_away_from_the_others() {
        let agent = |(x, y), (vx, vy), priority| {
            let mut agent = walker(Vector::new(x, y), Vector::new(vx, vy));
            agent.priority = priority;
            agent
        };
        let aside = |agents: &[CrowdAgent]| {
            let mut neighbours = NeighbourGrid::new();
            neighbours.rebuild(agents, 1.5);
            way_aside((agents, &neighbours), 0, &mut Vec::new())
        };
        let stuck = agent((5.0, 5.0), (-3.0, 0.0), 1);
        let above = agent((5.0, 5.9), (-3.0, 0.5), 2);
        let facing = agent((4.1, 5.0), (3.0, 0.0), 3);
        let standing = agent((5.0, 4.1), (0.0, 0.0), 0);
        let far = agent((9.0, 5.0), (-3.0, 0.0), 0);
        // Away from the one above: down; an agent standing still or far off changes nothing.
        let way = aside(&[stuck, above]).expect("steps aside");
        assert!((way - Vector::new(0.0, -1.0)).length() < 1e-5, "{way:?}");
        assert_eq!(aside(&[stuck, above, standing, far]), Some(way));
        // Away from both, whichever way they go.
        let both = aside(&[stuck, above, facing]).expect("steps aside");
        let expected = Vector::new(1.0, -1.0).normalize_or_zero();
        assert!((both - expected).length() < 1e-5, "{both:?}");
        // One of lower or equal priority near: it is not the one to step aside.
        assert_eq!(aside(&[above, stuck]), None);
        assert_eq!(aside(&[stuck, agent((5.0, 5.9), (-3.0, 0.0), 1)]), None);
        // Of one priority, it yields to one ahead of it, and the one ahead does not yield.
        let ahead = agent((4.2, 5.0), (-3.0, 0.0), 1);
        assert_eq!(aside(&[stuck, ahead]), Some(Vector::new(1.0, 0.0)));
        assert_eq!(aside(&[ahead, stuck]), None);
        // Alone, it has nobody to step aside for.
        assert_eq!(aside(&[stuck, standing]), None);
        // Between two, it backs away the way it came.
        let below = agent((5.0, 4.1), (-3.0, -0.5), 2);
        assert_eq!(aside(&[stuck, above, below]), Some(Vector::new(1.0, 0.0)));
    }

    /// Seconds `progress` steps aside, counted down in steps of 0.01 s.
    fn seconds_aside(progress: &mut AgentProgress) -> f32 {
        let mut stepped = 0.0;
        while progress.count_down(0.01) {
            stepped += 0.01;
        }
        stepped
    }

    /// Two walkers heading west on one line, 0.8 cells apart (the first is behind the second),
    /// and their neighbour grid.
    fn walking_west_in_line() -> ([CrowdAgent; 2], NeighbourGrid) {
        let agents = [
            walker(Vector::new(5.0, 5.0), Vector::new(-3.0, 0.0)),
            walker(Vector::new(4.2, 5.0), Vector::new(-3.0, 0.0)),
        ];
        let mut neighbours = NeighbourGrid::new();
        neighbours.rebuild(&agents, 1.5);
        (agents, neighbours)
    }

    #[test]
    fn an_agent_held_up_steps_aside_for_a_share_of_its_patience_then_goes_on() {
        let (agents, neighbours) = walking_west_in_line();
        let settings = ProgressSettings::default();
        let judged = (&agents[..], &neighbours);
        // The one ahead may not queue (a blind agent): it is stuck, and does not step aside.
        let mut ahead = AgentProgress::default();
        let held = ahead.judge_held_up(judged, 1, false, &settings, &mut Vec::new());
        assert_eq!((held, ahead.is_giving_way()), (HeldUp::Stuck, false));
        // The one behind steps aside, backwards, at a quarter of its speed.
        let mut behind = AgentProgress::default();
        let held = behind.judge_held_up(judged, 0, false, &settings, &mut Vec::new());
        assert_eq!(held, HeldUp::Stuck);
        assert_eq!(behind.aside_velocity(3.0), Some(Vector::new(0.75, 0.0)));
        // For a third of its patience, then it is judged again.
        let expected = settings.stuck_after * GIVE_WAY_SHARE;
        assert!((seconds_aside(&mut behind) - expected).abs() < 0.02);
        assert_eq!(behind.aside_velocity(3.0), None);
    }

    #[test]
    fn an_agent_stuck_again_and_again_steps_aside_longer_each_time() {
        let (agents, neighbours) = walking_west_in_line();
        let settings = ProgressSettings::default();
        let base = settings.stuck_after * GIVE_WAY_SHARE;
        let mut behind = AgentProgress::default();
        let mut times = Vec::new();
        for _ in 0..6 {
            behind.judge_held_up((&agents, &neighbours), 0, false, &settings, &mut Vec::new());
            times.push((seconds_aside(&mut behind) / base).round());
        }
        assert_eq!(times, [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]);
        // Progress starts it over; so does a queue.
        behind.restart();
        behind.judge_held_up((&agents, &neighbours), 0, false, &settings, &mut Vec::new());
        assert_eq!((seconds_aside(&mut behind) / base).round(), 1.0);
        behind.judge_held_up((&agents, &neighbours), 0, true, &settings, &mut Vec::new());
        behind.judge_held_up((&agents, &neighbours), 0, false, &settings, &mut Vec::new());
        assert_eq!((seconds_aside(&mut behind) / base).round(), 1.0);
    }

    #[test]
    fn in_a_ring_of_agents_each_ahead_of_the_next_the_last_by_index_yields_when_stuck_again() {
        // Four agents crossing at (5, 5), slightly turned so that each is ahead of the next,
        // each still pressing on at half its speed (standing, each would yield to the one
        // ahead of it: see the next test).
        let ring = [
            ((4.4, 5.01), (3.0, 0.0)),
            ((5.01, 5.6), (0.0, -3.0)),
            ((5.6, 4.99), (-3.0, 0.0)),
            ((4.99, 4.4), (0.0, 3.0)),
        ];
        let agents: Vec<CrowdAgent> = ring
            .iter()
            .map(|&((x, y), (vx, vy))| {
                let mut agent = walker(Vector::new(x, y), Vector::new(vx, vy));
                agent.velocity = agent.preferred_velocity * 0.5;
                agent
            })
            .collect();
        let mut neighbours = NeighbourGrid::new();
        neighbours.rebuild(&agents, 1.5);
        // Nobody is behind everyone near it: by who is ahead, nobody yields.
        let mut found = Vec::new();
        assert!((0..4).all(|index| way_aside((&agents, &neighbours), index, &mut found).is_none()));
        let settings = ProgressSettings::default();
        let mut progress = [AgentProgress::default(); 4];
        for round in 0..2 {
            for (index, progress) in progress.iter_mut().enumerate() {
                let held = progress.judge_held_up(
                    (&agents, &neighbours),
                    index,
                    true,
                    &settings,
                    &mut found,
                );
                assert_eq!(held, HeldUp::Stuck);
            }
            let giving_way = progress.map(|progress| progress.is_giving_way());
            // Stuck a second time, the one of the highest index yields.
            let expected = [false, false, false, round == 1];
            assert_eq!(giving_way, expected, "round {round}");
        }
    }

    #[test]
    fn of_two_agents_wedged_in_front_of_a_gap_with_a_queue_behind_the_one_behind_steps_aside() {
        // A gap one cell wide at x = 5, rows 4 to 5; two agents of radius 0.35 each on a
        // corner, touching, and a third standing behind the lower one.
        let gap = Vector::new(5.5, 4.5);
        let standing = [
            Vector::new(4.70, 4.17),
            Vector::new(4.67, 4.87),
            Vector::new(4.55, 5.57),
        ];
        let agents: Vec<CrowdAgent> = standing
            .iter()
            .map(|&position| {
                let mut agent = walker(position, (gap - position).normalize_or_zero() * 3.0);
                agent.radius = 0.35;
                agent
            })
            .collect();
        let mut neighbours = NeighbourGrid::new();
        neighbours.rebuild(&agents, 1.5);
        let mut found = Vec::new();
        let ways: Vec<Option<Vector>> = (0..3)
            .map(|index| way_aside((&agents, &neighbours), index, &mut found))
            .collect();
        // The first is ahead of both: it goes on. The second yields to it, though the third
        // stands behind it; the third yields to the second.
        assert_eq!(ways[0], None);
        let aside = ways[1].expect("the one behind in the wedge steps aside");
        assert!(aside.dot(agents[1].position - agents[0].position) > 0.0);
        assert!(ways[2].is_some());
        // Were the third pressing on rather than standing, the second would hold its place.
        let mut pressing = agents.clone();
        pressing[2].velocity = pressing[2].preferred_velocity * 0.5;
        assert_eq!(way_aside((&pressing, &neighbours), 1, &mut found), None);
    }

    #[test]
    fn patience_that_is_not_a_number_never_runs_out() {
        let mut progress = AgentProgress::default();
        for _ in 0..100 {
            assert!(!progress.wait(1.0, f32::NAN));
            assert!(!progress.wait(1.0, f32::INFINITY));
        }
        assert!(progress.wait(1.0, 0.0));
    }
}
