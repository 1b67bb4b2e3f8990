//! The start and goal: a left click places the start, the next one the goal, and so on; both
//! are drawn as discs over the agent's footprint, centred where its path starts and ends (an
//! agent larger than one cell also gets the footprint's outline).

use crate::VisualiserSystems;
use crate::cursor::CursorCell;
use crate::jump_points::JumpPointSearch;
use crate::map::CELL_SIZE;
use crate::search::SearchAgent;
use crate::settings::{MAX_PANEL_AGENT_SIZE, SearchSettings};
use crate::status::{cell_in_the_way, jps_refusal_status};
use bevy::prelude::*;
use bevy_astar::prelude::*;

/// The start marker's colour.
pub const START_COLOR: Color = Color::srgb(0.95, 0.25, 0.7);
/// The goal marker's colour.
pub const GOAL_COLOR: Color = Color::srgb(0.95, 0.2, 0.15);
/// The mark on the cell in the way of a refused request.
const REFUSAL_COLOR: Color = Color::srgb(1.0, 0.15, 0.1);
/// The marker disc's radius, in cells of the footprint's side.
const MARKER_RADIUS: f32 = 0.42;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Endpoints>()
        // Created after the plugin's overlay group, so drawn over the search it draws.
        .init_gizmo_group::<MarkerGizmos>()
        .add_systems(Startup, spawn_markers)
        .add_systems(
            Update,
            (
                place_endpoints.in_set(VisualiserSystems::Edit),
                (move_markers, outline_markers, mark_cell_in_the_way)
                    .in_set(VisualiserSystems::Show),
            ),
        );
}

/// Which endpoint the next left click places.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Endpoint {
    /// The start.
    #[default]
    Start,
    /// The goal.
    Goal,
}

/// The start and goal cells, once placed.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Endpoints {
    /// Where the search starts.
    pub start: Option<Cell>,
    /// Where it should end.
    pub goal: Option<Cell>,
    /// What the next left click places.
    pub next: Endpoint,
}

impl Endpoints {
    /// Places the endpoint the next click is for, and moves on to the other one.
    pub fn place(&mut self, cell: Cell) {
        match self.next {
            Endpoint::Start => {
                self.start = Some(cell);
                self.next = Endpoint::Goal;
            }
            Endpoint::Goal => {
                self.goal = Some(cell);
                self.next = Endpoint::Start;
            }
        }
    }

    /// Both cells, when both are placed.
    pub fn pair(&self) -> Option<(Cell, Cell)> {
        self.start.zip(self.goal)
    }

    /// Whether `cell` is the start or the goal.
    pub fn contains(&self, cell: Cell) -> bool {
        self.start == Some(cell) || self.goal == Some(cell)
    }

    /// The placed endpoints.
    pub fn cells(&self) -> impl Iterator<Item = Cell> {
        self.start.into_iter().chain(self.goal)
    }
}

#[derive(Component)]
struct Marker(Endpoint);

/// The gizmos of the markers and of the cell in the way: drawn over the plugin's overlay, since
/// gizmo groups are drawn in the order they were created.
#[derive(Default, Reflect, GizmoConfigGroup)]
struct MarkerGizmos;

/// Where an endpoint's marker stands and its scale: on the footprint of an agent of `size`
/// cells anchored at `cell`, centred where the agent's path starts or ends (the plugin's
/// waypoints are footprint centres), and as wide as the footprint.
pub fn marker_placement(nav: &NavGrid, cell: Cell, size: u8) -> (Vec2, f32) {
    let size = size.max(1);
    (nav.footprint_center(cell, size), f32::from(size))
}

/// The agent size the markers show: the size its request carries.
fn marker_size(settings: &SearchSettings) -> u8 {
    settings.agent_size.clamp(1, MAX_PANEL_AGENT_SIZE)
}

fn spawn_markers(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let disc = meshes.add(Circle::new(CELL_SIZE * MARKER_RADIUS));
    for (endpoint, color) in [(Endpoint::Start, START_COLOR), (Endpoint::Goal, GOAL_COLOR)] {
        commands.spawn((
            Marker(endpoint),
            Mesh2d(disc.clone()),
            MeshMaterial2d(materials.add(color)),
            Transform::from_xyz(0.0, 0.0, 2.0),
            Visibility::Hidden,
        ));
    }
}

/// Left click on a cell the agent's kind may enter places the next endpoint; clicks on other
/// cells are ignored.
fn place_endpoints(
    buttons: Res<ButtonInput<MouseButton>>,
    cursor: Res<CursorCell>,
    nav: Res<NavGrid>,
    settings: Res<SearchSettings>,
    mut endpoints: ResMut<Endpoints>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    if let Some(cell) = cursor.cell
        && nav.grid().contains(cell)
        && settings.kind.profile().is_passable(nav.grid().value(cell))
    {
        endpoints.place(cell);
    }
}

fn move_markers(
    endpoints: Res<Endpoints>,
    nav: Res<NavGrid>,
    settings: Res<SearchSettings>,
    mut markers: Query<(&Marker, &mut Transform, &mut Visibility)>,
) {
    if !(endpoints.is_changed() || nav.is_changed() || settings.is_changed()) {
        return;
    }
    let size = marker_size(&settings);
    for (Marker(endpoint), mut transform, mut visibility) in &mut markers {
        let cell = match endpoint {
            Endpoint::Start => endpoints.start,
            Endpoint::Goal => endpoints.goal,
        };
        *visibility = match cell {
            Some(cell) => {
                let (centre, scale) = marker_placement(&nav, cell, size);
                transform.translation = centre.extend(transform.translation.z);
                transform.scale = Vec3::new(scale, scale, 1.0);
                Visibility::Inherited
            }
            None => Visibility::Hidden,
        };
    }
}

/// A white cross in a red square on the cell that keeps the last request from being searched
/// (the status bar says why), over the markers.
fn mark_cell_in_the_way(
    agent: Single<Option<&Path>, With<SearchAgent>>,
    jps: Res<JumpPointSearch>,
    settings: Res<SearchSettings>,
    nav: Res<NavGrid>,
    mut gizmos: Gizmos<MarkerGizmos>,
) {
    let status = if settings.runs_own_jump_points() {
        jps.outcome.as_ref().and_then(jps_refusal_status)
    } else {
        agent.map(|path| path.status)
    };
    if let Some(cell) = status.as_ref().and_then(cell_in_the_way) {
        let size = nav.cell_size().abs();
        let centre = nav.cell_center(cell);
        gizmos.rect_2d(centre, size, REFUSAL_COLOR);
        let corner = size * 0.4;
        gizmos.line_2d(centre - corner, centre + corner, Color::WHITE);
        let other = Vec2::new(corner.x, -corner.y);
        gizmos.line_2d(centre - other, centre + other, Color::WHITE);
    }
}

/// The markers' outlines, drawn over the search overlay (which covers the discs): a ring on each
/// disc, and the footprint's square for an agent larger than one cell.
fn outline_markers(
    endpoints: Res<Endpoints>,
    nav: Res<NavGrid>,
    settings: Res<SearchSettings>,
    mut gizmos: Gizmos<MarkerGizmos>,
) {
    let size = marker_size(&settings);
    let cell = nav.cell_size().abs();
    for (anchor, color) in [(endpoints.start, START_COLOR), (endpoints.goal, GOAL_COLOR)] {
        let Some(anchor) = anchor else {
            continue;
        };
        let (centre, scale) = marker_placement(&nav, anchor, size);
        // Just outside the disc, so that it shows where the disc is covered.
        gizmos.circle_2d(centre, CELL_SIZE * (MARKER_RADIUS * scale + 0.1), color);
        if size > 1 {
            gizmos.rect_2d(centre, cell * scale, color);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clicks_alternate_between_start_and_goal() {
        let mut endpoints = Endpoints::default();
        endpoints.place(Cell::new(1, 1));
        assert_eq!(endpoints.pair(), None);
        endpoints.place(Cell::new(5, 5));
        assert_eq!(endpoints.pair(), Some((Cell::new(1, 1), Cell::new(5, 5))));
        endpoints.place(Cell::new(2, 2));
        assert_eq!(endpoints.pair(), Some((Cell::new(2, 2), Cell::new(5, 5))));
        assert_eq!(endpoints.next, Endpoint::Goal);
    }
}
