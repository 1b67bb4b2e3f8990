//! The egui panels: settings on the right (map, search, replay, overlay), the status bar along
//! the bottom, and the screen area they cover.

use crate::cursor::CursorCell;
use crate::endpoints::{Endpoint, Endpoints, GOAL_COLOR, START_COLOR};
use crate::jump_points::JumpPointSearch;
use crate::map::{LoadedMap, MapAction, MapSource, ObstacleSettings};
use crate::replay::{Replay, ReplayCommand};
use crate::search::{SearchAgent, TraceLookup};
use crate::settings::{
    ALGORITHM_MENU, Algorithm, CostChoice, INTEGER_STRAIGHT_COST, MAX_PANEL_AGENT_SIZE,
    SearchSettings,
};
use crate::status::{self, KindOnMap, StatusLine, Tone};
use crate::terrain::{Brush, KindChoice, NAMED_TERRAINS, terrain_color};
use bevy::ecs::system::SystemParam;
use bevy::gizmos::config::GizmoConfigStore;
use bevy::prelude::*;
use bevy_astar::egui_panel::PathfindingPanel;
use bevy_astar::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

const PANEL_WIDTH: f32 = 320.0;

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<PanelLayout>()
        .add_systems(EguiPrimaryContextPass, draw_panels);
}

/// The window area the panels cover, so that map clicks and the camera keep clear of it.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct PanelLayout {
    /// Width of the settings panel on the right, in logical pixels.
    pub right: f32,
    /// Height of the status bar at the bottom.
    pub bottom: f32,
    /// Window size when the panels were laid out.
    pub window: Vec2,
    /// Whether egui holds the pointer elsewhere (a drag in progress, a menu or window open
    /// over the map).
    pub pointer_captured: bool,
}

impl PanelLayout {
    /// Whether a cursor position (logical pixels from the top left) is on a panel.
    pub fn covers(&self, position: Vec2) -> bool {
        self.pointer_captured
            || position.x >= self.window.x - self.right
            || position.y >= self.window.y - self.bottom
    }

    /// Size of the area left for the map.
    pub fn free_size(&self, window: Vec2) -> Vec2 {
        (window - Vec2::new(self.right, self.bottom)).max(Vec2::ONE)
    }

    /// Centre of the area left for the map, in logical pixels from the top left.
    pub fn free_center(&self, window: Vec2) -> Vec2 {
        self.free_size(window) / 2.0
    }
}

/// What the panels show.
#[derive(SystemParam)]
struct Shown<'w, 's> {
    nav: Res<'w, NavGrid>,
    loaded: Res<'w, LoadedMap>,
    endpoints: Res<'w, Endpoints>,
    cursor: Res<'w, CursorCell>,
    lookup: Res<'w, TraceLookup>,
    jps: Res<'w, JumpPointSearch>,
    agent: Single<'w, 's, (Option<&'static Path>, Option<&'static PathTrace>), With<SearchAgent>>,
}

/// What the panels change.
#[derive(SystemParam)]
struct Controls<'w> {
    settings: ResMut<'w, SearchSettings>,
    obstacles: ResMut<'w, ObstacleSettings>,
    brush: ResMut<'w, Brush>,
    replay: ResMut<'w, Replay>,
    gizmos: ResMut<'w, GizmoConfigStore>,
    stats_window: ResMut<'w, PathfindingPanel>,
    layout: ResMut<'w, PanelLayout>,
    map_actions: MessageWriter<'w, MapAction>,
    replay_commands: MessageWriter<'w, ReplayCommand>,
}

fn draw_panels(mut contexts: EguiContexts, shown: Shown, mut controls: Controls) -> Result {
    let ctx = contexts.ctx_mut()?;
    let mut root = egui::Ui::new(
        ctx.clone(),
        "click_to_path".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let right = egui::Panel::right("settings")
        .resizable(false)
        .exact_size(PANEL_WIDTH)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading("bevy_astar visualiser");
                map_section(ui, &shown, &mut controls);
                search_section(ui, &mut controls);
                replay_section(ui, &shown, &mut controls);
                overlay_section(ui, &mut controls);
                help_section(ui);
            });
        })
        .response
        .rect
        .width();
    let bottom = egui::Panel::bottom("status")
        .resizable(false)
        .show(&mut root, |ui| status_bar(ui, &shown, &controls))
        .response
        .rect
        .height();
    let pointer_captured = ctx.egui_is_using_pointer()
        || ctx
            .pointer_latest_pos()
            .and_then(|position| ctx.layer_id_at(position))
            .is_some_and(|layer| layer.order != egui::Order::Background);
    let window = ctx.viewport_rect().size();
    controls.layout.set_if_neq(PanelLayout {
        right,
        bottom,
        window: Vec2::new(window.x, window.y),
        pointer_captured,
    });
    Ok(())
}

fn map_section(ui: &mut egui::Ui, shown: &Shown, controls: &mut Controls) {
    egui::CollapsingHeader::new("Map")
        .default_open(true)
        .show(ui, |ui| {
            let current = &shown.loaded.source;
            let mut chosen = current.clone();
            egui::ComboBox::from_id_salt("map")
                .width(PANEL_WIDTH - 40.0)
                .selected_text(current.label())
                .show_ui(ui, |ui| {
                    for source in MapSource::MENU {
                        let label = source.label();
                        ui.selectable_value(&mut chosen, source, label);
                    }
                });
            let random = matches!(current, MapSource::Maze | MapSource::Caves);
            if chosen != *current || (random && ui.button("Generate another").clicked()) {
                controls.map_actions.write(MapAction::Load(chosen));
            }
            let grid = shown.nav.grid();
            ui.label(format!(
                "{} x {} cells, {} free",
                grid.width(),
                grid.height(),
                grid.walkable_count()
            ));
            if let Some(error) = &shown.loaded.error {
                ui.colored_label(egui::Color32::LIGHT_RED, error);
            }
            ui.add_space(4.0);
            let mut percent = controls.obstacles.density * 100.0;
            ui.add(
                egui::Slider::new(&mut percent, 0.0..=60.0)
                    .suffix(" %")
                    .text("obstacle density"),
            );
            let density = percent / 100.0;
            if controls.obstacles.density != density {
                controls.obstacles.density = density;
            }
            ui.horizontal(|ui| {
                ui.label("right click paints");
                let mut brush = *controls.brush;
                egui::ComboBox::from_id_salt("brush")
                    .selected_text(brush.name())
                    .show_ui(ui, |ui| {
                        for choice in Brush::MENU {
                            ui.selectable_value(&mut brush, choice, choice.name());
                        }
                    });
                controls.brush.set_if_neq(brush);
            });
            terrain_key(ui);
            ui.horizontal(|ui| {
                if ui.button("Scatter obstacles").clicked() {
                    controls.map_actions.write(MapAction::Scatter { density });
                }
                if ui
                    .button("Clear obstacles")
                    .on_hover_text("Back to the map as loaded: scattered and painted walls go")
                    .clicked()
                {
                    controls.map_actions.write(MapAction::ClearObstacles);
                }
            });
        });
}

fn search_section(ui: &mut egui::Ui, controls: &mut Controls) {
    let mut settings = controls.settings.clone();
    egui::CollapsingHeader::new("Search")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                for (algorithm, weighted, label) in ALGORITHM_MENU {
                    let selected =
                        settings.algorithm == algorithm && settings.is_weighted() == weighted;
                    if ui.radio(selected, label).clicked() {
                        settings.algorithm = algorithm;
                        settings.weighted = weighted;
                    }
                }
            });
            ui.add_enabled(
                settings.is_weighted(),
                egui::Slider::new(&mut settings.weight, 1.0..=5.0).text("weight"),
            );
            ui.horizontal(|ui| {
                ui.label("Movement");
                ui.radio_value(
                    &mut settings.neighborhood,
                    Neighborhood::Four,
                    "4 neighbours",
                );
                ui.radio_value(
                    &mut settings.neighborhood,
                    Neighborhood::Eight,
                    "8 neighbours",
                );
            });
            ui.add_enabled_ui(settings.neighborhood == Neighborhood::Eight, |ui| {
                egui::ComboBox::from_label("diagonals")
                    .selected_text(corner_label(settings.corners))
                    .show_ui(ui, |ui| {
                        for rule in [CornerRule::Both, CornerRule::One, CornerRule::Any] {
                            ui.selectable_value(&mut settings.corners, rule, corner_label(rule));
                        }
                    });
            });
            let jps = settings.algorithm == Algorithm::JumpPoint;
            let heuristic_chosen = settings.algorithm == Algorithm::AStar;
            ui.add_enabled_ui(heuristic_chosen, |ui| {
                let shown = match settings.algorithm {
                    Algorithm::Dijkstra => "zero (Dijkstra)".to_owned(),
                    Algorithm::JumpPoint => "octile (JPS)".to_owned(),
                    _ => heuristic_label(settings.heuristic, settings.neighborhood),
                };
                egui::ComboBox::from_label("heuristic")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        let automatic = heuristic_label(None, settings.neighborhood);
                        ui.selectable_value(&mut settings.heuristic, None, automatic);
                        for heuristic in Heuristic::ALL {
                            ui.selectable_value(
                                &mut settings.heuristic,
                                Some(heuristic),
                                heuristic.name(),
                            );
                        }
                    });
            });
            ui.horizontal(|ui| {
                ui.label("Costs");
                ui.radio_value(&mut settings.cost, CostChoice::Octile, "octile (1, √2)");
                ui.radio_value(
                    &mut settings.cost,
                    CostChoice::Integer,
                    format!("integer ({INTEGER_STRAIGHT_COST}, d)"),
                );
            });
            ui.add_enabled_ui(settings.cost == CostChoice::Integer, |ui| {
                ui.horizontal(|ui| {
                    ui.label("diagonal cost d");
                    ui.add(egui::DragValue::new(&mut settings.diagonal_cost).range(1..=40));
                });
            });
            ui.add_enabled(
                !jps,
                egui::Checkbox::new(&mut settings.smoothing, "smooth the path (line of sight)"),
            );
            optional_size(
                ui,
                &mut settings.window,
                "search window",
                "Search only a window of this many cells centred on the start",
            );
            let mut limited = settings.max_expansions.is_some();
            ui.horizontal(|ui| {
                ui.checkbox(&mut limited, "expansion limit");
                let mut max = settings.max_expansions.unwrap_or(500);
                ui.add_enabled(limited, egui::DragValue::new(&mut max).range(1..=1_000_000));
                settings.max_expansions = limited.then_some(max);
            });
            ui.add_enabled(
                !jps,
                egui::Checkbox::new(
                    &mut settings.partial_path,
                    "show the partial path when a limit stops",
                ),
            );
            ui.checkbox(
                &mut settings.closest_reachable,
                "unreachable goal: path to the closest cell",
            );
            ui.horizontal(|ui| {
                ui.label("agent size");
                ui.add(
                    egui::DragValue::new(&mut settings.agent_size)
                        .range(1..=MAX_PANEL_AGENT_SIZE)
                        .suffix(" cells"),
                );
                if settings.agent_size > 1 && jps {
                    ui.label("(JPS: A* answers)");
                }
            });
            kind_choice(ui, &mut settings.kind);
            // Always one line, so that the sections below stay where they are.
            if settings.options(Cell::new(0, 0)).is_optimal() {
                ui.colored_label(
                    egui::Color32::from_rgb(150, 150, 160),
                    "Paths found are shortest.",
                );
            } else {
                ui.colored_label(
                    egui::Color32::from_rgb(240, 190, 90),
                    "Paths may be longer than the shortest.",
                );
            }
        });
    controls.settings.set_if_neq(settings);
}

/// The agent kind's radio buttons, wrapped to the panel's width (four in a row do not fit beside
/// their label). Returns the buttons' rectangles.
fn kind_choice(ui: &mut egui::Ui, kind: &mut KindChoice) -> Vec<egui::Rect> {
    ui.horizontal_wrapped(|ui| {
        ui.label("kind");
        KindChoice::MENU
            .into_iter()
            .map(|choice| {
                ui.radio_value(kind, choice, choice.name())
                    .on_hover_text(choice.description())
                    .rect
            })
            .collect()
    })
    .inner
}

fn corner_label(rule: CornerRule) -> &'static str {
    match rule {
        CornerRule::Both => "never cut corners",
        CornerRule::One => "cut corners",
        CornerRule::Any => "squeeze between walls",
    }
}

fn heuristic_label(heuristic: Option<Heuristic>, neighborhood: Neighborhood) -> String {
    match heuristic {
        Some(heuristic) => heuristic.name().to_owned(),
        None => format!("default ({})", Heuristic::default_for(neighborhood).name()),
    }
}

/// A checkbox with a width and height for an optional size, on one line.
fn optional_size(ui: &mut egui::Ui, size: &mut Option<UVec2>, label: &str, hover: &str) {
    let mut enabled = size.is_some();
    let mut value = size.unwrap_or(UVec2::new(21, 15));
    ui.horizontal(|ui| {
        ui.checkbox(&mut enabled, label).on_hover_text(hover);
        ui.add_enabled_ui(enabled, |ui| {
            ui.add(
                egui::DragValue::new(&mut value.x)
                    .range(1..=999)
                    .prefix("w "),
            );
            ui.add(
                egui::DragValue::new(&mut value.y)
                    .range(1..=999)
                    .prefix("h "),
            );
            ui.label("cells");
        });
    });
    *size = enabled.then_some(value);
}

fn replay_section(ui: &mut egui::Ui, shown: &Shown, controls: &mut Controls) {
    let total = shown
        .agent
        .1
        .map_or(0, |trace| trace.trace.expansions.len() as u32);
    egui::CollapsingHeader::new("Replay")
        .default_open(true)
        .show(ui, |ui| {
            let replay = &mut *controls.replay;
            let commands = &mut controls.replay_commands;
            ui.add_enabled_ui(total > 0, |ui| {
                ui.horizontal(|ui| {
                    if ui.button("Restart").clicked() {
                        commands.write(ReplayCommand::Restart);
                    }
                    let playing = replay.active && replay.playing;
                    if ui.button(if playing { "Pause" } else { "Play" }).clicked() {
                        commands.write(ReplayCommand::TogglePlay);
                    }
                    if ui.button("< Step").clicked() {
                        commands.write(ReplayCommand::Step(-1));
                    }
                    if ui.button("Step >").clicked() {
                        commands.write(ReplayCommand::Step(1));
                    }
                    if ui.button("End").clicked() {
                        commands.write(ReplayCommand::Finish);
                    }
                });
                let mut step = if replay.active { replay.step } else { total };
                let scrubbed = ui.add(
                    egui::Slider::new(&mut step, 0..=total).text(format!("of {total} expansions")),
                );
                if scrubbed.changed() {
                    commands.write(ReplayCommand::Seek(step));
                }
            });
            let mut speed = replay.speed;
            ui.add(
                egui::Slider::new(&mut speed, 5.0..=20_000.0)
                    .logarithmic(true)
                    .text("expansions / s"),
            );
            if replay.speed != speed {
                replay.speed = speed;
            }
            let mut autoplay = replay.autoplay;
            ui.checkbox(&mut autoplay, "replay every new search");
            if replay.autoplay != autoplay {
                replay.autoplay = autoplay;
            }
        });
}

fn overlay_section(ui: &mut egui::Ui, controls: &mut Controls) {
    egui::CollapsingHeader::new("Overlay")
        .default_open(true)
        .show(ui, |ui| {
            let (config, colors) = controls.gizmos.config::<PathfindingGizmos>();
            let mut enabled = config.enabled;
            let mut grid = colors.draw_grid;
            ui.horizontal(|ui| {
                ui.checkbox(&mut enabled, "draw the search")
                    .on_hover_text("The plugin's gizmo overlay: closed and open sets, path");
                ui.checkbox(&mut grid, "grid lines");
            });
            legend(ui, colors);
            let mut stats = controls.stats_window.open;
            ui.checkbox(&mut stats, "plugin statistics window");
            if controls.stats_window.open != stats {
                controls.stats_window.open = stats;
            }
            let (config, colors) = controls.gizmos.config::<PathfindingGizmos>();
            if config.enabled != enabled || colors.draw_grid != grid {
                let (config, colors) = controls.gizmos.config_mut::<PathfindingGizmos>();
                config.enabled = enabled;
                colors.draw_grid = grid;
            }
        });
}

/// What the overlay's marks mean, one swatch each, in the legend's order.
pub fn overlay_legend(colors: &PathfindingGizmos) -> [(Color, &'static str); 7] {
    [
        (colors.closed_color, "closed (expanded)"),
        (colors.open_color, "open (frontier)"),
        (PathfindingGizmos::default().path_color, "path"),
        (crate::cursor::HOVER_COLOR, "under the cursor"),
        (START_COLOR, "start"),
        (GOAL_COLOR, "goal"),
        (Color::WHITE, "replay: cell being expanded, and its branch"),
    ]
}

/// The map's terrains, one swatch each in the map's colours.
pub fn terrain_legend() -> impl Iterator<Item = (Color, &'static str)> {
    NAMED_TERRAINS.into_iter().map(|(value, name)| {
        let [r, g, b, _] = terrain_color(value);
        (Color::srgb_u8(r, g, b), name)
    })
}

/// Swatches in a grid of `columns`, row by row; returns the rectangles of the swatches with
/// their labels.
fn swatch_grid(
    ui: &mut egui::Ui,
    id: &str,
    columns: usize,
    entries: impl IntoIterator<Item = (Color, &'static str)>,
) -> Vec<egui::Rect> {
    egui::Grid::new(id)
        .num_columns(columns)
        .show(ui, |ui| {
            let mut rects = Vec::new();
            for (index, (color, label)) in entries.into_iter().enumerate() {
                rects.push(ui.horizontal(|ui| swatch(ui, color, label)).inner);
                if index % columns == columns - 1 {
                    ui.end_row();
                }
            }
            rects
        })
        .inner
}

/// The colours of the map's terrains, three a row.
fn terrain_key(ui: &mut egui::Ui) -> Vec<egui::Rect> {
    swatch_grid(ui, "terrain legend", 3, terrain_legend())
}

/// The overlay's marks, two a row but the last, whose label is long.
fn legend(ui: &mut egui::Ui, colors: &PathfindingGizmos) -> Vec<egui::Rect> {
    let entries = overlay_legend(colors);
    let (paired, last) = entries.split_at(entries.len() - 1);
    let mut rects = swatch_grid(ui, "overlay legend", 2, paired.iter().copied());
    for &(color, label) in last {
        rects.push(ui.horizontal(|ui| swatch(ui, color, label)).inner);
    }
    rects
}

/// A colour swatch and its label, side by side; returns the rectangle of both. The swatch is
/// outlined, so that the dark terrains (walls, out of map) show on the dark panel.
fn swatch(ui: &mut egui::Ui, color: Color, label: &str) -> egui::Rect {
    let [r, g, b, _] = color.to_srgba().to_u8_array();
    let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
    ui.painter()
        .rect_filled(rect, 2.0, egui::Color32::from_rgb(r, g, b));
    ui.painter().rect_stroke(
        rect,
        2.0,
        egui::Stroke::new(1.0, egui::Color32::from_gray(110)),
        egui::StrokeKind::Inside,
    );
    rect.union(ui.label(label).rect)
}

fn help_section(ui: &mut egui::Ui) {
    egui::CollapsingHeader::new("Mouse and keys")
        .default_open(false)
        .show(ui, |ui| {
            for line in [
                "Left click: start, then goal",
                "Right click / drag: paint the brush's terrain",
                "Wheel: zoom · middle drag: pan · F: fit",
                "Space: play / pause the replay",
                "Left / Right: step (Shift: 10)",
                "Home: restart · End: finish",
            ] {
                ui.label(line);
            }
        });
}

fn status_bar(ui: &mut egui::Ui, shown: &Shown, controls: &Controls) {
    let (path, trace) = *shown.agent;
    let model = controls.settings.cost_model();
    let jps = controls.settings.runs_own_jump_points();
    let profile = controls.settings.kind.profile();
    let kind = KindOnMap {
        name: controls.settings.kind.name(),
        profile: &profile,
        grid: shown.nav.grid(),
    };
    let line = if jps {
        status::jps_result_line(&shown.endpoints, shown.jps.outcome.as_ref(), model, kind)
    } else {
        status::result_line(
            &shown.endpoints,
            path,
            trace.map(|trace| trace.trace.expansions.len()),
            shown.nav.cell_size().x.abs(),
            model,
            kind,
        )
    };
    ui.add_space(2.0);
    ui.label(styled(&line));
    let total = trace.map_or(0, |trace| trace.trace.expansions.len() as u32);
    let replay = &controls.replay;
    // Always three lines, so the map does not move when a replay starts.
    let text = if jps {
        status::JPS_REPLAY_LINE.to_owned()
    } else {
        status::replay_line(replay.active, replay.playing, replay.step, total)
    };
    let color = if replay.active {
        egui::Color32::from_rgb(235, 235, 200)
    } else {
        egui::Color32::from_rgb(150, 150, 160)
    };
    ui.label(egui::RichText::new(text).color(color));
    let next = match shown.endpoints.next {
        Endpoint::Start => "start",
        Endpoint::Goal => "goal",
    };
    let hover = shown.cursor.cell.map_or_else(
        || format!("Next left click places the {next}."),
        |cell| {
            let traced = trace.and_then(|trace| {
                (shown.lookup.revision == path.map_or(0, |path| path.revision))
                    .then(|| shown.lookup.index.get(&cell))
                    .flatten()
                    .and_then(|&position| trace.trace.cells.get(position))
            });
            let step = controls.replay.active.then_some(controls.replay.step);
            let value = shown.nav.grid().value(cell);
            status::cell_line(
                cell,
                value,
                trace.map(|trace| &trace.trace),
                traced,
                step,
                model,
            )
        },
    );
    ui.label(hover);
    ui.add_space(2.0);
}

fn styled(line: &StatusLine) -> egui::RichText {
    let color = match line.tone {
        Tone::Hint => egui::Color32::from_rgb(200, 200, 210),
        Tone::Busy => egui::Color32::from_rgb(160, 170, 190),
        Tone::Good => egui::Color32::from_rgb(150, 225, 150),
        Tone::Warning => egui::Color32::from_rgb(240, 190, 90),
        Tone::Error => egui::Color32::from_rgb(255, 110, 100),
    };
    egui::RichText::new(&line.text).color(color).strong()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::terrain_name;

    /// Lays `add` out as the settings panel does (a right panel of [`PANEL_WIDTH`], scrolled, in
    /// an open section) in a window of 1280 x 800; returns the area the section lays its
    /// widgets out in and the rectangles `add` returned.
    fn laid_out(
        mut add: impl FnMut(&mut egui::Ui) -> Vec<egui::Rect>,
    ) -> (egui::Rect, Vec<egui::Rect>) {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 800.0),
            )),
            ..egui::RawInput::default()
        };
        let mut shown = (egui::Rect::NOTHING, Vec::new());
        // The first pass measures (egui sizes grids and new areas then), the second lays out.
        for _ in 0..2 {
            let mut output = ctx.run_ui(input.clone(), |root| {
                egui::Panel::right("settings")
                    .resizable(false)
                    .exact_size(PANEL_WIDTH)
                    .show(root, |ui| {
                        egui::ScrollArea::vertical().show(ui, |ui| {
                            egui::CollapsingHeader::new("Section")
                                .default_open(true)
                                .show(ui, |ui| {
                                    // Where the section lays its widgets out (inside the
                                    // panel's margins), within what it shows.
                                    let area = ui.max_rect().intersect(ui.clip_rect());
                                    shown = (area, add(ui));
                                });
                        });
                    });
            });
            // Nothing is drawn: the font atlas egui uploads is dropped.
            output.textures_delta.clear();
        }
        shown
    }

    #[test]
    fn every_agent_kind_is_shown_whole_in_the_panel() {
        let mut kind = KindChoice::Walker;
        let (area, buttons) = laid_out(|ui| kind_choice(ui, &mut kind));
        assert_eq!(buttons.len(), KindChoice::MENU.len());
        for (button, choice) in buttons.iter().zip(KindChoice::MENU) {
            assert!(
                area.contains_rect(*button),
                "{}: {button:?} is cut by the panel's edge at {area:?}",
                choice.name()
            );
        }
    }

    #[test]
    fn the_legend_shows_every_terrain_in_its_map_colour_within_the_panel() {
        for brush in Brush::MENU {
            let name = terrain_name(brush.value()).expect("a painted terrain has a name");
            let [r, g, b, _] = terrain_color(brush.value());
            assert!(
                terrain_legend().any(|entry| entry == (Color::srgb_u8(r, g, b), name)),
                "{name} is not in the legend"
            );
        }
        let colors = PathfindingGizmos::default();
        let (area, swatches) = laid_out(|ui| {
            let mut swatches = terrain_key(ui);
            swatches.extend(legend(ui, &colors));
            swatches
        });
        assert_eq!(
            swatches.len(),
            terrain_legend().count() + overlay_legend(&colors).len()
        );
        for swatch in swatches {
            assert!(area.contains_rect(swatch), "{swatch:?} is cut at {area:?}");
        }
    }
}
