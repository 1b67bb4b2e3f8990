//! Debug overlays (feature `debug`, on by default): search traces of marked agents drawn with
//! gizmos (closed set, open set, path), the map's links, plus optional grid lines, blocked
//! cells, and the sectors and entrances of the sector hierarchy. Recording
//! the traces is the pathfinding systems' work ([`PathDebug`], [`PathTrace`] and
//! [`PathDebugSettings`], re-exported here from the crate root).

pub use crate::trace::{PathDebug, PathDebugSettings, PathTrace};

use crate::engine::hierarchical::Hierarchies;
use crate::{
    CrowdAvoidance, CrowdVelocity, NavGrid, NavShape, Path, PathRequest, ProfileId, TerrainProfiles,
};
use astar_grid::Cell;
use astar_grid::TerrainProfile;
use bevy::color::palettes::css;
use bevy::gizmos::config::{GizmoConfigGroup, GizmoConfigStore};
use bevy::prelude::*;

/// Draws the searches of agents marked with [`PathDebug`] (or of every agent, see
/// [`PathfindingDebugPlugin::with_trace_all_agents`]): the closed set in blue, the open set in green and the
/// path in gold, with the [`PathfindingGizmos`] gizmo group, in [`PostUpdate`] after transform
/// propagation. Recording the traces (and dropping those nobody asks for) is the pathfinding
/// systems' work, in the schedule [`AStarPlugin::in_schedule`](crate::AStarPlugin::in_schedule)
/// chose.
///
/// Turn it off or recolour it at run time through [`GizmoConfigStore`]:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_astar::prelude::*;
/// use bevy::gizmos::config::GizmoConfigStore;
///
/// fn hide_searches(mut store: ResMut<GizmoConfigStore>) {
///     let (config, colors) = store.config_mut::<PathfindingGizmos>();
///     config.enabled = false;
///     colors.path_color = Color::WHITE;
/// }
/// # bevy::ecs::system::assert_is_system(hide_searches);
/// ```
///
/// Needs Bevy's gizmo plugin (part of `DefaultPlugins`). Only marked agents record a trace, so
/// unmarked agents cost nothing extra; the drawing systems do not run while the group is
/// disabled or no [`NavGrid`] exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathfindingDebugPlugin {
    trace_all_agents: bool,
}

impl PathfindingDebugPlugin {
    /// Records and draws the search of every agent, not only those marked with [`PathDebug`].
    #[must_use]
    pub const fn with_trace_all_agents(mut self, all: bool) -> Self {
        self.trace_all_agents = all;
        self
    }
}

impl Plugin for PathfindingDebugPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(PathDebugSettings {
            trace_all_agents: self.trace_all_agents,
        })
        .init_gizmo_group::<PathfindingGizmos>()
        .register_type::<PathfindingGizmos>()
        .add_systems(
            PostUpdate,
            (
                draw_grid,
                draw_sectors,
                draw_links,
                draw_traces,
                draw_crowds,
            )
                .chain()
                .after(TransformSystems::Propagate)
                .run_if(resource_exists::<NavGrid>.and_then(gizmos_enabled)),
        );
    }
}

/// The gizmo group of the pathfinding overlays, with their colours.
#[derive(Clone, Debug, PartialEq, Reflect, GizmoConfigGroup)]
#[reflect(Default)]
pub struct PathfindingGizmos {
    /// Cells the search expanded.
    pub closed_color: Color,
    /// Cells still on the open list.
    pub open_color: Color,
    /// The path's waypoints.
    pub path_color: Color,
    /// The footprint of an agent larger than one cell, drawn at each of its path's cells.
    pub footprint_color: Color,
    /// Whether grid lines are drawn.
    pub draw_grid: bool,
    /// The grid lines' colour.
    pub grid_color: Color,
    /// Whether a cross is drawn on every blocked cell.
    pub draw_blocked: bool,
    /// The terrain profile that decides which cells are blocked ([`ProfileId::DEFAULT`]: the
    /// cells of value 0), for maps whose walls are terrain values of a profile such as
    /// [`TerrainProfile::walker`](astar_grid::TerrainProfile::walker).
    pub blocked_profile: ProfileId,
    /// The crosses' colour.
    pub blocked_color: Color,
    /// Whether the map's links are drawn: an arc from end to end (an arrowhead at the far end
    /// of a one-way link), with a cross on it while the link is closed.
    pub draw_links: bool,
    /// Open links.
    pub link_color: Color,
    /// Closed links.
    pub closed_link_color: Color,
    /// Whether the sector hierarchy of [`PathAlgorithm::Hierarchical`](crate::PathAlgorithm)
    /// requests is drawn, once a request made one: each sector's outline (built sectors in
    /// `sector_color`, those waiting to be rebuilt in `pending_sector_color`) and a dot on
    /// each of its entrances. Off by default: a huge map has thousands of sectors.
    pub draw_sectors: bool,
    /// Built sectors.
    pub sector_color: Color,
    /// Sectors waiting to be built, searched cell by cell meanwhile.
    pub pending_sector_color: Color,
    /// Entrances and link ends, the nodes of the hierarchy.
    pub entrance_color: Color,
    /// Whether agents with [`CrowdAvoidance`] are drawn: a circle of their radius
    /// and their desired and actual velocities (half a second's travel).
    pub draw_crowds: bool,
    /// The avoiding agents' circles.
    pub crowd_radius_color: Color,
    /// Their desired velocities: towards the next waypoint at full speed.
    pub desired_velocity_color: Color,
    /// Their actual velocities.
    pub actual_velocity_color: Color,
}

impl Default for PathfindingGizmos {
    fn default() -> Self {
        Self {
            closed_color: Color::srgb(0.25, 0.45, 1.0),
            open_color: Color::srgb(0.2, 0.85, 0.3),
            path_color: css::GOLD.into(),
            footprint_color: Color::srgba(1.0, 0.84, 0.0, 0.25),
            draw_grid: false,
            grid_color: Color::srgba(1.0, 1.0, 1.0, 0.12),
            draw_blocked: false,
            blocked_profile: ProfileId::DEFAULT,
            blocked_color: Color::srgba(1.0, 0.3, 0.3, 0.6),
            draw_links: true,
            link_color: Color::srgb(0.3, 0.9, 1.0),
            closed_link_color: Color::srgb(1.0, 0.25, 0.25),
            draw_sectors: false,
            sector_color: Color::srgba(0.75, 0.5, 1.0, 0.6),
            pending_sector_color: Color::srgba(1.0, 0.45, 0.2, 0.6),
            entrance_color: Color::srgb(0.85, 0.6, 1.0),
            draw_crowds: true,
            crowd_radius_color: Color::srgba(0.9, 0.9, 1.0, 0.5),
            desired_velocity_color: Color::srgba(1.0, 0.55, 0.1, 0.8),
            actual_velocity_color: Color::srgba(0.3, 1.0, 0.6, 0.9),
        }
    }
}

/// Seconds of travel a velocity is drawn as.
const VELOCITY_DRAWN_FOR: f32 = 0.5;

/// Circles of the avoiding agents' radii, with their desired and actual velocities.
fn draw_crowds(
    nav: Res<NavGrid>,
    agents: Query<(
        &GlobalTransform,
        &CrowdAvoidance,
        &CrowdVelocity,
        Option<&PathRequest>,
    )>,
    mut gizmos: Gizmos<PathfindingGizmos>,
) {
    let overlay = gizmos.config_ext.clone();
    if !overlay.draw_crowds {
        return;
    }
    let cell = nav.cell_size().abs().min_element();
    for (transform, avoidance, velocity, request) in &agents {
        let centre = transform.translation().truncate();
        let size = request.map_or(1, |request| request.size);
        // The disc the crowd systems steer, not the radius asked for.
        let radius = avoidance.radius_in_cells(size, cell) * cell;
        gizmos.circle_2d(centre, radius, overlay.crowd_radius_color);
        let desired = centre + velocity.desired * VELOCITY_DRAWN_FOR;
        gizmos.line_2d(centre, desired, overlay.desired_velocity_color);
        let actual = centre + velocity.actual * VELOCITY_DRAWN_FOR;
        gizmos.line_2d(centre, actual, overlay.actual_velocity_color);
    }
}

fn gizmos_enabled(store: Option<Res<GizmoConfigStore>>) -> bool {
    store.is_some_and(|store| store.config::<PathfindingGizmos>().0.enabled)
}

fn draw_grid(
    nav: Res<NavGrid>,
    profiles: Option<Res<TerrainProfiles>>,
    mut gizmos: Gizmos<PathfindingGizmos>,
) {
    let size = nav.cell_size();
    let cells = UVec2::new(nav.width(), nav.height());
    if gizmos.config_ext.draw_grid {
        let color = gizmos.config_ext.grid_color;
        if nav.shape() == NavShape::Square {
            let center = nav.origin() + cells.as_vec2() * size / 2.0;
            gizmos.grid_2d(center, cells, size, color);
        } else {
            // Isometric and hexagonal cells, one outline each (cells that hold no tile of a
            // hexagonal map left out).
            let shape = nav.shape();
            for (cell, _) in nav.grid().cells() {
                if shape.tile_of_cell(cell).is_some() {
                    draw_cell(&mut gizmos, (&nav, nav.cell_center(cell)), 1.0, color);
                }
            }
        }
    }
    if gizmos.config_ext.draw_blocked {
        let color = gizmos.config_ext.blocked_color;
        let half = size.x.abs().min(size.y.abs()) * 0.35;
        let identity = TerrainProfile::identity();
        let profile = profiles
            .as_deref()
            .and_then(|profiles| profiles.get(gizmos.config_ext.blocked_profile))
            .copied()
            .unwrap_or(identity);
        for (cell, value) in nav.grid().cells() {
            if !profile.is_passable(value) {
                gizmos.cross_2d(nav.cell_center(cell), half, color);
            }
        }
    }
}

/// The outline of a cell of `nav`'s shape centred at `center`, scaled by `scale`.
fn draw_cell(
    gizmos: &mut Gizmos<PathfindingGizmos>,
    (nav, center): (&NavGrid, Vec2),
    scale: f32,
    color: Color,
) {
    let corners = nav.shape().outline();
    let size = nav.cell_size() * scale;
    let points = corners
        .iter()
        .chain(corners.first())
        .map(|&corner| center + corner * size);
    gizmos.linestrip_2d(points, color);
}

/// The sector hierarchy: each sector's outline, coloured by whether it is built, and a dot on
/// each node.
fn draw_sectors(
    nav: Res<NavGrid>,
    hierarchies: Option<Res<Hierarchies>>,
    mut gizmos: Gizmos<PathfindingGizmos>,
) {
    let overlay = gizmos.config_ext.clone();
    let drawn = hierarchies.as_deref().and_then(Hierarchies::drawn);
    let (true, Some(hierarchy)) = (overlay.draw_sectors, drawn) else {
        return;
    };
    let size = nav.cell_size();
    let dot = size.abs().min_element() * 0.2;
    for sector in 0..hierarchy.sector_count() {
        let Some((min, max)) = hierarchy.sector_bounds(sector) else {
            continue;
        };
        let (low, high) = (nav.cell_center(min), nav.cell_center(max));
        let center = (low + high) / 2.0;
        let extent = (high - low).abs() + size.abs();
        let color = if hierarchy.is_built(sector) {
            overlay.sector_color
        } else {
            overlay.pending_sector_color
        };
        gizmos.rect_2d(center, extent, color);
        for &node in hierarchy.sector_nodes(sector) {
            gizmos.circle_2d(nav.cell_center(node), dot, overlay.entrance_color);
        }
    }
}

/// Points on the arc drawn for a link, end to end.
const LINK_ARC_POINTS: usize = 12;

/// The map's links: an arc bowed to the left of the way from `from` to `to` (so that two
/// one-way links between the same cells are told apart), an arrowhead at `to` for a one-way
/// link, and a cross at the middle of a closed one.
fn draw_links(nav: Res<NavGrid>, mut gizmos: Gizmos<PathfindingGizmos>) {
    let overlay = gizmos.config_ext.clone();
    if !overlay.draw_links {
        return;
    }
    let cell = nav.cell_size().abs().min_element();
    for (_, link) in nav.grid().links().iter() {
        let (from, to) = (nav.cell_center(link.from), nav.cell_center(link.to));
        let color = if link.open {
            overlay.link_color
        } else {
            overlay.closed_link_color
        };
        let arc = link_arc(from, to, cell);
        gizmos.linestrip_2d(arc.iter().copied(), color);
        if !link.both_ways {
            let toward = (to - arc[LINK_ARC_POINTS - 2]).normalize_or_zero();
            let side = toward.perp() * cell * 0.2;
            let back = to - toward * cell * 0.35;
            gizmos.linestrip_2d([back + side, to, back - side], color);
        }
        if !link.open {
            gizmos.cross_2d(arc[LINK_ARC_POINTS / 2], cell * 0.3, color);
        }
    }
}

/// The points of the arc drawn from `from` to `to`: a quadratic curve bowed to the left by a
/// fifth of its length (at least a cell's worth of `cell / 2`).
fn link_arc(from: Vec2, to: Vec2, cell: f32) -> [Vec2; LINK_ARC_POINTS] {
    let chord = to - from;
    let bow = chord.perp().normalize_or_zero() * (chord.length() * 0.2).max(cell * 0.5);
    let control = (from + to) / 2.0 + bow;
    core::array::from_fn(|index| {
        let t = index as f32 / (LINK_ARC_POINTS - 1) as f32;
        from.lerp(control, t).lerp(control.lerp(to, t), t)
    })
}

/// What the overlay reads of an agent: its path, its trace, its request (for its size) and
/// whether it is marked for tracing.
type TracedAgent = (
    &'static Path,
    Option<&'static PathTrace>,
    Option<&'static PathRequest>,
    Has<PathDebug>,
);

fn draw_traces(
    nav: Res<NavGrid>,
    settings: Option<Res<PathDebugSettings>>,
    mut gizmos: Gizmos<PathfindingGizmos>,
    agents: Query<TracedAgent>,
) {
    let all = settings.is_some_and(|settings| settings.trace_all_agents);
    let size = nav.cell_size().abs();
    let closed_color = gizmos.config_ext.closed_color;
    let open_color = gizmos.config_ext.open_color;
    let path_color = gizmos.config_ext.path_color;
    let footprint_color = gizmos.config_ext.footprint_color;
    for (path, trace, request, marked) in &agents {
        if !(marked || all) {
            continue;
        }
        // A search of a larger agent expands footprint anchors (top-left cells): each is drawn
        // at its footprint's centre, where the path's waypoints run.
        let agent_size = request.map_or(1, |request| request.size);
        let outline =
            |gizmos: &mut Gizmos<PathfindingGizmos>, cell: Cell, scale: f32, color: Color| {
                let center = nav.footprint_center(cell, agent_size);
                draw_cell(gizmos, (&nav, center), scale, color);
            };
        if let Some(PathTrace { trace, replay_step }) = trace {
            let step = replay_step.unwrap_or(u32::MAX);
            for &cell in trace.closed_at(step) {
                outline(&mut gizmos, cell, 0.7, closed_color);
            }
            let open: Vec<Cell> = match replay_step {
                Some(step) => trace.open_at(*step).collect(),
                None => trace.open_set().collect(),
            };
            for cell in open {
                outline(&mut gizmos, cell, 0.45, open_color);
            }
        }
        if agent_size > 1 {
            let scale = f32::from(agent_size);
            // A disc of hexes reaches `size - 1` hexes and a half from its centre.
            let reach = (scale - 0.5) * size.min_element();
            for &cell in path.cells().iter() {
                let center = nav.footprint_center(cell, agent_size);
                if nav.shape().is_hex() {
                    gizmos.circle_2d(center, reach, footprint_color);
                } else {
                    // A square of `size` cells is a cell `size` times as large.
                    draw_cell(&mut gizmos, (&nav, center), scale, footprint_color);
                }
            }
        }
        gizmos.linestrip_2d(path.waypoints().iter().copied(), path_color);
    }
}

// The names before the naming rule, kept for one release.
/// The former name of [`PathfindingDebugPlugin`].
#[deprecated(note = "renamed to `PathfindingDebugPlugin` (the naming rule in ARCHITECTURE.md)")]
pub type AStarDebugPlugin = PathfindingDebugPlugin;

/// The former name of [`PathfindingGizmos`].
#[deprecated(note = "renamed to `PathfindingGizmos` (the naming rule in ARCHITECTURE.md)")]
pub type AStarGizmos = PathfindingGizmos;
