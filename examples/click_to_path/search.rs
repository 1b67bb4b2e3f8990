//! The one agent whose searches the visualiser shows: its `PathRequest` follows the endpoints
//! and the settings, and every map edit searches again so the overlay always shows the search of
//! the map on screen.

use crate::VisualiserSystems;
use crate::endpoints::Endpoints;
use crate::settings::SearchSettings;
use crate::terrain::KindProfiles;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_astar::prelude::*;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<SearchSettings>()
        .init_resource::<TraceLookup>()
        .add_systems(Startup, spawn_agent)
        .add_systems(
            Update,
            (
                sync_request.in_set(VisualiserSystems::Request),
                index_trace.in_set(VisualiserSystems::Show),
            ),
        );
}

/// Marks the agent that carries the visualiser's request.
#[derive(Component)]
pub struct SearchAgent;

/// The recorded search of the current path, indexed by cell for hover read-outs.
#[derive(Resource, Debug, Default)]
pub struct TraceLookup {
    /// The [`Path::revision`] the index was built for.
    pub revision: u64,
    /// Position of each touched cell in [`SearchTrace::cells`].
    pub index: HashMap<Cell, usize>,
}

fn spawn_agent(mut commands: Commands) {
    // `PathDebug` makes the plugin record the search and draw it with its gizmo overlay.
    commands.spawn((SearchAgent, PathDebug));
}

/// Keeps the agent's request equal to what the endpoints and settings ask for; without both
/// endpoints, or with JPS selected (run by `jump_points`), there is no request. A map edit
/// marks the request changed, which searches again.
fn sync_request(
    mut commands: Commands,
    endpoints: Res<Endpoints>,
    settings: Res<SearchSettings>,
    kinds: Res<KindProfiles>,
    nav: Res<NavGrid>,
    agent: Single<(Entity, Option<&mut PathRequest>), With<SearchAgent>>,
) {
    let (entity, request) = agent.into_inner();
    let wanted = endpoints
        .pair()
        .filter(|_| !settings.runs_own_jump_points());
    match (wanted, request) {
        (Some((start, goal)), Some(mut request)) => {
            let wanted = settings.request(start, goal, kinds.id(settings.kind));
            if !request.set_if_neq(wanted) && nav.is_changed() {
                request.set_changed();
            }
        }
        (Some((start, goal)), None) => {
            commands
                .entity(entity)
                .insert(settings.request(start, goal, kinds.id(settings.kind)));
        }
        (None, Some(_)) => {
            commands
                .entity(entity)
                .remove::<(PathRequest, Path, PathTrace)>();
        }
        (None, None) => {}
    }
}

/// Whether a result of `status` comes with a trace of its own. A request refused before any
/// search ran (a blocked start or goal, a window without the start, a kind that cannot stand on
/// an endpoint) records none: the trace the agent holds is then the previous search's.
pub fn result_has_trace(status: &PathStatus) -> bool {
    !matches!(status, PathStatus::Invalid(_) | PathStatus::InvalidKind(_))
}

/// Indexes the trace of each new result. A result without a trace of its own (see
/// [`result_has_trace`]) removes the previous search's, which would otherwise stay drawn.
pub(crate) fn index_trace(
    mut commands: Commands,
    agent: Single<(Entity, Option<&Path>), With<SearchAgent>>,
    trace: Option<Single<&PathTrace, With<SearchAgent>>>,
    mut lookup: ResMut<TraceLookup>,
) {
    let (entity, path) = *agent;
    let revision = path.map_or(0, |path| path.revision);
    if lookup.revision == revision {
        return;
    }
    lookup.revision = revision;
    lookup.index.clear();
    if path.is_some_and(|path| !result_has_trace(&path.status)) {
        commands.entity(entity).remove::<PathTrace>();
        return;
    }
    if let Some(trace) = trace {
        lookup.index.extend(
            trace
                .trace
                .cells
                .iter()
                .enumerate()
                .map(|(position, traced)| (traced.cell, position)),
        );
    }
}
