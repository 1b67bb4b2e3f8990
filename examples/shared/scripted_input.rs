//! Scripted mouse input: `Custom("mouse ...")` events of a `bevy_ci_testing` configuration move
//! the cursor over a grid cell and press, release or click a mouse button there.
//!
//! | Command                         | Effect                                                   |
//! |---------------------------------|----------------------------------------------------------|
//! | `mouse move X Y`                | puts the cursor over the centre of cell (X, Y)           |
//! | `mouse press BUTTON X Y`        | moves there and presses `left`, `right` or `middle`      |
//! | `mouse release BUTTON`          | releases the button                                      |
//! | `mouse click BUTTON X Y`        | moves there, presses, and releases on the next frame     |
//!
//! Cells are [`NavGrid`] cells; the first 2D camera maps their centres to the window. The input
//! arrives as [`CursorMoved`] and [`MouseButtonInput`] messages (and the window's cursor
//! position), exactly as from a mouse, so `ButtonInput<MouseButton>`, egui and the examples'
//! own systems see no difference. A malformed `mouse` command ends the app with an error, so a
//! typo in a configuration fails its run.

use bevy::dev_tools::ci_testing::CiTestingCustomEvent;
use bevy::ecs::system::SystemParam;
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::window::{CursorMoved, PrimaryWindow};
use bevy_astar::NavGrid;
use bevy_astar::astar_grid::Cell;
use core::fmt;

/// Performs the `mouse ...` commands of the `bevy_ci_testing` configuration.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScriptedInputPlugin;

impl Plugin for ScriptedInputPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            perform_mouse_commands.run_if(resource_exists::<Messages<CiTestingCustomEvent>>),
        );
    }
}

/// One scripted mouse action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MouseCommand {
    /// Put the cursor over a cell.
    Move(Cell),
    /// Move over a cell and press a button.
    Press(MouseButton, Cell),
    /// Release a button where the cursor is.
    Release(MouseButton),
    /// Move over a cell, press a button, and release it on the next frame.
    Click(MouseButton, Cell),
}

/// Why a `mouse` command could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MouseCommandError {
    /// The command as written.
    pub command: String,
}

impl fmt::Display for MouseCommandError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "cannot read `{}`: expected `mouse move X Y`, `mouse press|click left|right|middle X Y` \
             or `mouse release left|right|middle`",
            self.command
        )
    }
}

impl core::error::Error for MouseCommandError {}

/// Whether a custom event is a `mouse` command (handled by [`ScriptedInputPlugin`]); examples
/// that read other custom events skip these.
#[must_use]
pub fn is_mouse_command(command: &str) -> bool {
    command.split_whitespace().next() == Some("mouse")
}

impl MouseCommand {
    /// Reads a `mouse ...` command.
    ///
    /// # Errors
    /// [`MouseCommandError`] when the text is not one of the commands of the module's table.
    pub fn parse(command: &str) -> Result<Self, MouseCommandError> {
        let error = || MouseCommandError {
            command: command.to_owned(),
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        let cell = |x: &str, y: &str| match (x.parse(), y.parse()) {
            (Ok(x), Ok(y)) => Ok(Cell::new(x, y)),
            _ => Err(error()),
        };
        let button = |name: &str| match name {
            "left" => Ok(MouseButton::Left),
            "right" => Ok(MouseButton::Right),
            "middle" => Ok(MouseButton::Middle),
            _ => Err(error()),
        };
        match words.as_slice() {
            ["mouse", "move", x, y] => Ok(Self::Move(cell(x, y)?)),
            ["mouse", "press", name, x, y] => Ok(Self::Press(button(name)?, cell(x, y)?)),
            ["mouse", "release", name] => Ok(Self::Release(button(name)?)),
            ["mouse", "click", name, x, y] => Ok(Self::Click(button(name)?, cell(x, y)?)),
            _ => Err(error()),
        }
    }
}

/// Where cells appear in the window: through the first 2D camera.
#[derive(SystemParam)]
struct CellsOnScreen<'w, 's> {
    cameras: Query<'w, 's, (&'static Camera, &'static GlobalTransform), With<Camera2d>>,
    nav: Option<Res<'w, NavGrid>>,
}

impl CellsOnScreen<'_, '_> {
    /// The window position (logical pixels) of the centre of `cell`.
    fn position(&self, cell: Cell) -> Option<Vec2> {
        let nav = self.nav.as_deref()?;
        let (camera, transform) = self.cameras.iter().next()?;
        let world = nav.cell_center(cell).extend(0.0);
        camera.world_to_viewport(transform, world).ok()
    }
}

/// Turns this frame's `mouse` commands into cursor and button messages; releases the buttons
/// clicked on the previous frame.
fn perform_mouse_commands(
    mut commands: MessageReader<CiTestingCustomEvent>,
    mut window: Single<(Entity, &mut Window), With<PrimaryWindow>>,
    cells: CellsOnScreen,
    mut cursor: MessageWriter<CursorMoved>,
    mut buttons: MessageWriter<MouseButtonInput>,
    mut exit: MessageWriter<AppExit>,
    mut clicked_last_frame: Local<Vec<MouseButton>>,
) {
    let (window_entity, window) = &mut *window;
    let window_entity = *window_entity;
    let mut send_button = |button, state| {
        buttons.write(MouseButtonInput {
            button,
            state,
            window: window_entity,
        });
    };
    for button in clicked_last_frame.drain(..) {
        send_button(button, ButtonState::Released);
    }
    for CiTestingCustomEvent(text) in commands.read() {
        if !is_mouse_command(text) {
            continue;
        }
        let command = match MouseCommand::parse(text) {
            Ok(command) => command,
            Err(error) => {
                error!("{error}");
                exit.write(AppExit::error());
                continue;
            }
        };
        let target = match command {
            MouseCommand::Move(cell)
            | MouseCommand::Press(_, cell)
            | MouseCommand::Click(_, cell) => Some(cell),
            MouseCommand::Release(_) => None,
        };
        if let Some(cell) = target {
            let Some(position) = cells.position(cell) else {
                error!("`{text}`: cell {cell} is not on screen (no map or no 2D camera)");
                exit.write(AppExit::error());
                continue;
            };
            let delta = window.cursor_position().map(|old| position - old);
            window.set_cursor_position(Some(position));
            cursor.write(CursorMoved {
                window: window_entity,
                position,
                delta,
            });
        }
        match command {
            MouseCommand::Move(_) => {}
            MouseCommand::Press(button, _) => send_button(button, ButtonState::Pressed),
            MouseCommand::Release(button) => send_button(button, ButtonState::Released),
            MouseCommand::Click(button, _) => {
                send_button(button, ButtonState::Pressed);
                clicked_last_frame.push(button);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse() {
        assert_eq!(
            MouseCommand::parse("mouse click left 3 4"),
            Ok(MouseCommand::Click(MouseButton::Left, Cell::new(3, 4)))
        );
        assert_eq!(
            MouseCommand::parse("  mouse   release right "),
            Ok(MouseCommand::Release(MouseButton::Right))
        );
        assert_eq!(
            MouseCommand::parse("mouse move 0 12"),
            Ok(MouseCommand::Move(Cell::new(0, 12)))
        );
    }

    #[test]
    fn malformed_commands_are_refused() {
        for text in [
            "mouse",
            "mouse click left 3",
            "mouse click up 3 4",
            "mouse press left -1 4",
            "mouse move 1 2 3",
            "mouse hover 1 2",
        ] {
            assert!(MouseCommand::parse(text).is_err(), "{text}");
        }
        assert!(is_mouse_command("mouse move 1 2"));
        assert!(!is_mouse_command("map arena"));
    }
}
