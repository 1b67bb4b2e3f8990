//! Crossing links: where a follower stops at a door, a ladder, stairs or a teleporter, the
//! messages that tell the game, and how long the crossing takes when the game does not step in.

use crate::{NavGrid, PathFollower, PathRequest};
use astar_grid::{Cell, CostModel, LinkId, Movement};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;

/// A link a [`PathFollower`](crate::PathFollower) stands at, crossing it
/// ([`PathFollower::crossing`](crate::PathFollower::crossing)).
///
/// The follower waits at the link's near end for [`LinkCrossing::remaining`] seconds (the
/// link's cost in straight steps, walked at the follower's speed), then appears at its far end
/// and walks on. A game that plays an animation instead holds it
/// ([`PathFollower::hold_crossing`](crate::PathFollower::hold_crossing)) on [`LinkReached`]
/// and releases it when the animation ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkCrossing {
    /// The link.
    pub link: LinkId,
    /// The cell the agent stands on, at the link's near end.
    pub from: Cell,
    /// The cell the agent comes out on.
    pub to: Cell,
    /// The link's cost.
    pub cost: f64,
    /// Seconds left before the agent comes out, while not held.
    pub remaining: f32,
    /// Whether the game holds the agent at the link: it stays until released.
    pub held: bool,
}

/// A [`PathFollower`](crate::PathFollower) reached a link of its path and stopped at it: both a
/// message and an entity event triggered on the agent, as [`PathFound`](crate::PathFound) is.
///
/// The agent crosses by itself after the link's cost in time; hold it to play a door or climb
/// animation first:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
///
/// fn open_the_door(reached: On<LinkReached>, mut followers: Query<&mut PathFollower>) {
///     if let Ok(mut follower) = followers.get_mut(reached.entity) {
///         follower.hold_crossing(); // released by `release_crossing` when the door is open
///     }
/// }
/// App::new().add_observer(open_the_door);
/// ```
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq)]
pub struct LinkReached {
    /// The agent.
    pub entity: Entity,
    /// The link.
    pub link: LinkId,
    /// The cell the agent stands on, at the link's near end.
    pub from: Cell,
    /// The cell the link leads to.
    pub to: Cell,
    /// The link's cost.
    pub cost: f64,
}

/// A [`PathFollower`](crate::PathFollower) came out at the far end of a link: both a message
/// and an entity event triggered on the agent.
#[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkCrossed {
    /// The agent.
    pub entity: Entity,
    /// The link.
    pub link: LinkId,
    /// The cell the agent left.
    pub from: Cell,
    /// The cell the agent came out on.
    pub to: Cell,
}

/// The links of a map as a follower sees them: which link, if any, a move from one world
/// position to the next takes, for an agent of `size` cells moving under `movement` and
/// priced by `cost`.
#[derive(Clone, Copy)]
pub(crate) struct LinkLookup<'a> {
    pub nav: &'a NavGrid,
    pub size: u8,
    pub movement: Movement,
    pub cost: CostModel,
}

impl<'a> LinkLookup<'a> {
    /// The lookup for an agent with `request` (a one-cell agent of the default movement rule
    /// without one) on `nav`.
    pub(crate) fn of(nav: &'a NavGrid, request: Option<&PathRequest>) -> Self {
        Self {
            nav,
            size: request.map_or(1, |request| request.size),
            movement: request.map_or(Movement::EIGHT, |request| request.options.movement),
            cost: request.map_or(CostModel::Octile, |request| request.options.cost),
        }
    }
}

impl LinkLookup<'_> {
    /// The crossing a follower at `speed` starts when it moves from `from` to `to` (footprint
    /// centres) along an open link, if the move takes one: its link, ends and cost, and the
    /// time it takes.
    pub(crate) fn crossing(&self, from: Vec2, to: Vec2, speed: f32) -> Option<LinkCrossing> {
        let near = self.nav.footprint_anchor(from, self.size)?;
        let far = self.nav.footprint_anchor(to, self.size)?;
        if near == far {
            return None;
        }
        let rules = (self.movement, self.cost);
        let (link, cost) = self.nav.link_taken(near, far, self.size, rules)?;
        Some(LinkCrossing {
            link,
            from: near,
            to: far,
            cost,
            remaining: self.crossing_time(cost, speed),
            held: false,
        })
    }

    /// Seconds a follower at `speed` world units a second takes to cross a link of `cost`: the
    /// time it walks as many straight steps as `cost` is worth under the cost model. No time
    /// at all for a follower that does not move.
    fn crossing_time(&self, cost: f64, speed: f32) -> f32 {
        let step = self.nav.cell_size().x.abs();
        let steps = cost / self.cost.straight();
        if speed > 0.0 && step.is_finite() && steps.is_finite() {
            (steps as f32 * step / speed).max(0.0)
        } else {
            0.0
        }
    }
}

impl PathFollower {
    /// Moves the crossing on by `delta` seconds on `nav` (`None`: a map without links);
    /// returns the crossing once the agent comes out (time is up, it is not held, and the link
    /// is still open), the follower's target then being the link's far end. A link closed or
    /// removed under the agent keeps it waiting at the near end, its time stopped, until a new
    /// path or route comes (or the link opens again).
    pub(crate) fn advance_crossing(
        &mut self,
        delta: f32,
        nav: Option<&NavGrid>,
    ) -> Option<LinkCrossing> {
        let crossing = self.crossing.as_mut()?;
        let open = nav
            .and_then(|nav| nav.grid().links().get(crossing.link))
            .is_some_and(|link| link.open);
        if crossing.held || !open {
            return None;
        }
        crossing.remaining -= delta;
        if crossing.remaining > 0.0 {
            return None;
        }
        self.crossing.take().map(|crossing| *crossing)
    }
}

/// Where the follow system announces link moves: [`LinkReached`] and [`LinkCrossed`], each
/// both a message and an entity event triggered on the agent.
#[derive(SystemParam)]
pub(crate) struct LinkAnnouncer<'w, 's> {
    reached: MessageWriter<'w, LinkReached>,
    crossed: MessageWriter<'w, LinkCrossed>,
    commands: Commands<'w, 's>,
}

impl LinkAnnouncer<'_, '_> {
    /// Announces that `entity` stopped at the link of `crossing`.
    pub(crate) fn reached(&mut self, entity: Entity, crossing: LinkCrossing) {
        let event = LinkReached {
            entity,
            link: crossing.link,
            from: crossing.from,
            to: crossing.to,
            cost: crossing.cost,
        };
        self.reached.write(event);
        self.commands.trigger(event);
    }

    /// Announces that `entity` came out of the link of `crossing`.
    pub(crate) fn crossed(&mut self, entity: Entity, crossing: LinkCrossing) {
        let event = LinkCrossed {
            entity,
            link: crossing.link,
            from: crossing.from,
            to: crossing.to,
        };
        self.crossed.write(event);
        self.commands.trigger(event);
    }
}
