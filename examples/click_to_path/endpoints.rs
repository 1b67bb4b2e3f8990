//! The start and goal: a left click places the start, the next one the goal, and so on; both
//! are drawn as discs.

use crate::VisualiserSystems;
use crate::cursor::CursorCell;
use crate::map::CELL_SIZE;
use crate::settings::SearchSettings;
use bevy::prelude::*;
use bevy_astar::prelude::*;

const START_COLOR: Color = Color::srgb(0.95, 0.25, 0.7);
const GOAL_COLOR: Color = Color::srgb(0.95, 0.2, 0.15);

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<Endpoints>()
        .add_systems(Startup, spawn_markers)
        .add_systems(
            Update,
            (
                place_endpoints.in_set(VisualiserSystems::Edit),
                move_markers.in_set(VisualiserSystems::Show),
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

fn spawn_markers(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let disc = meshes.add(Circle::new(CELL_SIZE * 0.42));
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
    mut markers: Query<(&Marker, &mut Transform, &mut Visibility)>,
) {
    if !(endpoints.is_changed() || nav.is_changed()) {
        return;
    }
    for (Marker(endpoint), mut transform, mut visibility) in &mut markers {
        let cell = match endpoint {
            Endpoint::Start => endpoints.start,
            Endpoint::Goal => endpoints.goal,
        };
        *visibility = match cell {
            Some(cell) => {
                transform.translation = nav.cell_center(cell).extend(transform.translation.z);
                Visibility::Inherited
            }
            None => Visibility::Hidden,
        };
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
