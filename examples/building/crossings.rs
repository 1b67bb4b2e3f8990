//! What the agents do at links: a teleporter holds an agent while it charges (the game holds
//! the crossing, then releases it), every link tints the agent in the link's colour with a word
//! under it, and the status lines tell who walks, who crosses what and who has no path.

use crate::BuildingSystems;
use crate::agents::Agent;
use crate::layout::{Building, LinkKind};
use bevy::prelude::*;
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Update, charge_teleporters.in_set(BuildingSystems::Input))
        .add_systems(Update, show_crossings.in_set(BuildingSystems::Show))
        .add_observer(hold_at_teleporters)
        .add_observer(log_link_reached)
        .add_observer(count_link_crossings);
}

/// Seconds a teleporter charges before it sends the agent held on it.
const TELEPORTER_CHARGE: f32 = 0.6;

/// What an agent does at a link, under it while it crosses one.
#[derive(Component)]
pub struct CrossingLabel;

/// An agent held on a teleporter while it charges: seconds left.
#[derive(Component)]
struct Charging(f32);

/// An agent that reaches a teleporter is held there until it has charged.
fn hold_at_teleporters(
    reached: On<LinkReached>,
    building: Res<Building>,
    mut commands: Commands,
    mut followers: Query<&mut PathFollower>,
) {
    if building.kind_of(reached.link) != Some(LinkKind::Teleporter) {
        return;
    }
    if let Ok(mut follower) = followers.get_mut(reached.entity)
        && follower.hold_crossing()
    {
        commands
            .entity(reached.entity)
            .insert(Charging(TELEPORTER_CHARGE));
    }
}

/// Counts down the charging teleporters and releases their agents; an agent sent elsewhere
/// meanwhile (a new path lets go of the link) stops charging.
fn charge_teleporters(
    time: Res<Time>,
    mut commands: Commands,
    mut agents: Query<(Entity, &mut Charging, &mut PathFollower)>,
) {
    for (entity, mut charging, mut follower) in &mut agents {
        if follower.crossing().is_none() {
            commands.entity(entity).remove::<Charging>();
            continue;
        }
        charging.0 -= time.delta_secs();
        if charging.0 <= 0.0 {
            follower.release_crossing();
            commands.entity(entity).remove::<Charging>();
        }
    }
}

/// Tints an agent standing at a link in the link's colour, and says under it what it is doing
/// there.
fn show_crossings(
    building: Res<Building>,
    mut agents: Query<(&Agent, &PathFollower, &mut Sprite, &Children)>,
    mut labels: Query<(&mut Text2d, &mut TextColor), With<CrossingLabel>>,
) {
    for (agent, follower, mut sprite, children) in &mut agents {
        let kind = follower
            .crossing()
            .and_then(|crossing| building.kind_of(crossing.link));
        let (color, text) = match kind {
            Some(kind) => (agent.color.mix(&kind.color(), 0.6), kind.crossing_verb()),
            None => (agent.color, ""),
        };
        if sprite.color != color {
            sprite.color = color;
        }
        let mut labels = labels.iter_many_mut(children);
        while let Some((mut label, mut label_color)) = labels.fetch_next() {
            if label.0 != text {
                text.clone_into(&mut label.0);
                label_color.0 = kind.map_or(Color::WHITE, |kind| kind.color().lighter(0.2));
            }
        }
    }
}

/// What an agent is doing, for the status lines.
pub fn agent_status(
    nav: &NavGrid,
    building: &Building,
    (path, request): (&Path, &PathRequest),
    follower: &PathFollower,
) -> String {
    if let Some(crossing) = follower.crossing() {
        let kind = building
            .kind_of(crossing.link)
            .map_or("link", LinkKind::name);
        return if crossing.held {
            format!("held at the {kind} while it charges")
        } else {
            format!(
                "crossing the {kind}: {:.1} s left",
                crossing.remaining.max(0.0)
            )
        };
    }
    match path.status {
        PathStatus::Found if follower.is_finished() => "at its goal".to_owned(),
        PathStatus::Found => match next_link(nav, building, (path, request), follower) {
            Some(kind) => format!("walking, next link: {}", kind.name()),
            None => "walking".to_owned(),
        },
        PathStatus::Queued | PathStatus::Searching | PathStatus::WaitingForMap => {
            "searching".to_owned()
        }
        PathStatus::NoPath => "no path to its goal (waits for a door to open)".to_owned(),
        PathStatus::InvalidKind(_) => "its footprint does not fit at that goal".to_owned(),
        PathStatus::Cancelled => "idle".to_owned(),
        PathStatus::LimitReached(_) | PathStatus::Invalid(_) => path
            .status
            .failure()
            .map_or_else(|| "idle".to_owned(), |failure| failure.to_string()),
    }
}

/// The kind of the next link on the agent's path, from the step it walks now on.
fn next_link(
    nav: &NavGrid,
    building: &Building,
    (path, request): (&Path, &PathRequest),
    follower: &PathFollower,
) -> Option<LinkKind> {
    // The follower walks from waypoint `next - 1` to `next`; waypoints are the path's cells.
    let walking_from = follower.next_waypoint().saturating_sub(1);
    path.link_steps(nav, request)
        .into_iter()
        .find(|&(index, _)| index >= walking_from)
        .and_then(|(_, link)| building.kind_of(link))
}

/// Logs each link an agent stops at.
fn log_link_reached(reached: On<LinkReached>, building: Res<Building>, agents: Query<&Agent>) {
    let Ok(agent) = agents.get(reached.entity) else {
        return;
    };
    let kind = building
        .kind_of(reached.link)
        .map_or("link", LinkKind::name);
    info!(
        "{} stops at the {kind} ({} to {}, cost {})",
        agent.name, reached.from, reached.to, reached.cost
    );
}

/// Counts the links each agent came out of.
fn count_link_crossings(crossed: On<LinkCrossed>, mut agents: Query<&mut Agent>) {
    if let Ok(mut agent) = agents.get_mut(crossed.entity) {
        agent.crossings += 1;
    }
}
