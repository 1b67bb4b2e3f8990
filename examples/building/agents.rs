//! The agents: three walkers of one cell and a 2x2 boss, sent by clicks on the floor shown,
//! each tinted and labelled while it crosses a link.

use crate::crossings::CrossingLabel;
use crate::hud::FloorCamera;
use crate::layout::{Building, CELL};
use crate::{BuildingSystems, ShownFloor};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar::prelude::*;
use std::collections::{HashSet, VecDeque};

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Selection>()
        .add_systems(Startup, spawn_agents)
        .add_systems(
            Update,
            (choose_agents, send_on_click)
                .chain()
                .in_set(BuildingSystems::Input),
        )
        .add_systems(
            Update,
            show_agents_of_shown_floor.in_set(BuildingSystems::Show),
        );
}

/// An agent as the example starts it.
struct AgentSpec {
    name: &'static str,
    color: Color,
    /// The side of its square footprint, in cells.
    size: u8,
    /// Its first footprint anchor, on the ground floor.
    start: FloorCell,
    cells_per_second: f32,
}

const AGENTS: [AgentSpec; 4] = [
    AgentSpec {
        name: "Ann",
        color: Color::srgb(0.3, 0.75, 1.0),
        size: 1,
        start: FloorCell::new(0, 2, 2),
        cells_per_second: 5.0,
    },
    AgentSpec {
        name: "Bo",
        color: Color::srgb(0.4, 0.95, 0.45),
        size: 1,
        start: FloorCell::new(0, 4, 2),
        cells_per_second: 5.0,
    },
    AgentSpec {
        name: "Cy",
        color: Color::srgb(1.0, 0.95, 0.95),
        size: 1,
        start: FloorCell::new(0, 3, 10),
        cells_per_second: 5.0,
    },
    AgentSpec {
        name: "Boss",
        color: Color::srgb(1.0, 0.35, 0.3),
        size: 2,
        start: FloorCell::new(0, 6, 4),
        cells_per_second: 3.5,
    },
];

/// Where the agents head when the example starts: the west wing of the upper floor, by the
/// door, the stairs and the teleporters.
const FIRST_GOAL: FloorCell = FloorCell::new(1, 5, 8);

/// How far from the clicked cell, in steps, the goals of a group are spread.
const SPREAD_STEPS: u32 = 4;

/// One of the example's agents.
#[derive(Component, Debug)]
pub struct Agent {
    /// Its place in the list, from 0; key `number + 1` selects it.
    pub number: usize,
    /// The name over it and in the status lines.
    pub name: &'static str,
    /// Its sprite's colour, and its path's.
    pub color: Color,
    /// The links it came out of.
    pub crossings: u32,
}

/// The agent a click sends: one by its number, or all of them.
#[derive(Resource, Default, Debug)]
pub struct Selection(pub Option<usize>);

fn spawn_agents(mut commands: Commands, nav: Res<NavGrid>, building: Res<Building>) {
    let sizes: Vec<u8> = AGENTS.iter().map(|spec| spec.size).collect();
    let goals = building
        .cell(FIRST_GOAL)
        .and_then(|goal| spread_goals(&nav, goal, &sizes));
    for (number, spec) in AGENTS.iter().enumerate() {
        let Some(start) = building.cell(spec.start) else {
            continue;
        };
        let goal = goals.as_ref().map_or(start, |goals| goals[number]);
        let side = CELL * f32::from(spec.size) * 0.8;
        let depth = 5.0 + number as f32 * 0.1;
        commands
            .spawn((
                Agent {
                    number,
                    name: spec.name,
                    color: spec.color,
                    crossings: 0,
                },
                // A new goal is searched from where the agent stands, not from its first start.
                PathRequest::new(start, goal)
                    .with_size(spec.size)
                    .with_start_at_agent(true),
                PathFollower::new(spec.cells_per_second * CELL),
                Sprite::from_color(spec.color, Vec2::splat(side)),
                Transform::from_translation(nav.footprint_center(start, spec.size).extend(depth)),
            ))
            .with_children(|agent| {
                agent.spawn((
                    Text2d::new(spec.name),
                    TextFont::from_font_size(13.0),
                    Transform::from_xyz(0.0, side / 2.0 + 9.0, 1.0),
                ));
                agent.spawn((
                    CrossingLabel,
                    Text2d::default(),
                    TextFont::from_font_size(13.0),
                    Transform::from_xyz(0.0, -side / 2.0 - 9.0, 1.0),
                ));
            });
    }
}

/// Goal anchors for agents of `sizes` near `clicked`, one each in that order, where each
/// footprint fits without overlapping the others: the nearest cells a walk of at most
/// [`SPREAD_STEPS`] reaches from `clicked` (so in the same room, on the same floor), the
/// largest agents served first. `None` when `clicked` is a wall.
pub fn spread_goals(nav: &NavGrid, clicked: Cell, sizes: &[u8]) -> Option<Vec<Cell>> {
    if !nav.is_walkable(clicked) {
        return None;
    }
    let near = cells_within_steps(nav, clicked, SPREAD_STEPS);
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&index| core::cmp::Reverse(sizes[index]));
    let mut goals = vec![clicked; sizes.len()];
    let mut taken: Vec<(Cell, u8)> = Vec::new();
    for index in order {
        let size = sizes[index];
        let free = near.iter().copied().find(|&anchor| {
            footprint(anchor, size).all(|cell| nav.is_walkable(cell))
                && taken
                    .iter()
                    .all(|&(other, side)| !overlap(anchor, size, other, side))
        });
        if let Some(anchor) = free {
            goals[index] = anchor;
            taken.push((anchor, size));
        }
    }
    Some(goals)
}

/// The walkable cells at most `steps` four-way steps from `from`, nearest first.
fn cells_within_steps(nav: &NavGrid, from: Cell, steps: u32) -> Vec<Cell> {
    let mut seen = HashSet::from([from]);
    let mut queue = VecDeque::from([(from, 0)]);
    let mut cells = Vec::new();
    while let Some((cell, distance)) = queue.pop_front() {
        cells.push(cell);
        if distance == steps {
            continue;
        }
        let neighbours = [
            cell.x.checked_sub(1).map(|x| Cell::new(x, cell.y)),
            Some(Cell::new(cell.x + 1, cell.y)),
            cell.y.checked_sub(1).map(|y| Cell::new(cell.x, y)),
            Some(Cell::new(cell.x, cell.y + 1)),
        ];
        for next in neighbours.into_iter().flatten() {
            if nav.is_walkable(next) && seen.insert(next) {
                queue.push_back((next, distance + 1));
            }
        }
    }
    cells
}

/// The cells of the footprint of `size` anchored at `anchor`.
fn footprint(anchor: Cell, size: u8) -> impl Iterator<Item = Cell> {
    let side = u32::from(size);
    (0..side).flat_map(move |dy| (0..side).map(move |dx| Cell::new(anchor.x + dx, anchor.y + dy)))
}

/// Whether two footprints share a cell.
fn overlap(a: Cell, a_size: u8, b: Cell, b_size: u8) -> bool {
    let apart = |a: u32, a_side: u8, b: u32, b_side: u8| {
        a + u32::from(a_side) <= b || b + u32::from(b_side) <= a
    };
    !(apart(a.x, a_size, b.x, b_size) || apart(a.y, a_size, b.y, b_size))
}

/// Keys 1 to 4 select one agent, A all of them.
fn choose_agents(
    keys: Res<ButtonInput<KeyCode>>,
    agents: Query<&Agent>,
    mut selection: ResMut<Selection>,
) {
    const DIGITS: [KeyCode; 4] = [
        KeyCode::Digit1,
        KeyCode::Digit2,
        KeyCode::Digit3,
        KeyCode::Digit4,
    ];
    if keys.just_pressed(KeyCode::KeyA) {
        selection.0 = None;
    }
    for (number, key) in DIGITS.into_iter().enumerate() {
        if keys.just_pressed(key) && agents.iter().any(|agent| agent.number == number) {
            selection.0 = Some(number);
        }
    }
}

/// A left click on a free cell of the floor shown makes it the goal of the selected agents
/// (spread round it, so that a group does not stand on one cell).
fn send_on_click(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform), With<FloorCamera>>,
    (nav, building, shown): (Res<NavGrid>, Res<Building>, Res<ShownFloor>),
    selection: Res<Selection>,
    mut agents: Query<(&Agent, &mut PathRequest)>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    let (camera, transform) = *camera;
    let Some(cell) = window
        .cursor_position()
        .and_then(|position| camera.viewport_to_world_2d(transform, position).ok())
        .and_then(|world| nav.world_to_cell(world))
        .filter(|&cell| building.floor_of(cell) == Some(shown.0))
    else {
        return;
    };
    let mut chosen: Vec<_> = agents
        .iter_mut()
        .filter(|(agent, _)| selection.0.is_none_or(|number| number == agent.number))
        .collect();
    chosen.sort_by_key(|(agent, _)| agent.number);
    let sizes: Vec<u8> = chosen.iter().map(|(_, request)| request.size).collect();
    let Some(goals) = spread_goals(&nav, cell, &sizes) else {
        return;
    };
    for ((_, mut request), goal) in chosen.into_iter().zip(goals) {
        if request.goal != goal {
            request.goal = goal;
        }
    }
}

/// Hides the agents that stand on the floor not shown.
fn show_agents_of_shown_floor(
    shown: Res<ShownFloor>,
    nav: Res<NavGrid>,
    building: Res<Building>,
    mut agents: Query<(&PathRequest, &Transform, &mut Visibility), With<Agent>>,
) {
    for (request, transform, mut visibility) in &mut agents {
        let floor = nav
            .footprint_anchor(transform.translation.truncate(), request.size)
            .and_then(|anchor| building.floor_of(anchor));
        let wanted = if floor == Some(shown.0) {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        };
        visibility.set_if_neq(wanted);
    }
}
