//! The unattended run's key presses: `Custom("key K")` events of the `bevy_ci_testing`
//! configuration (`examples/ci/building.ron`) press a key of the example through the keyboard
//! messages a real key sends, and release it on the next frame. `mouse ...` events are the
//! shared scripted mouse's (`bevy_astar_examples::scripted_input`).

use bevy::dev_tools::ci_testing::CiTestingCustomEvent;
use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_astar_examples::scripted_input::is_mouse_command;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        press_scripted_keys.run_if(resource_exists::<Messages<CiTestingCustomEvent>>),
    );
}

/// The keys a script may press: its word, the key, and the text it types.
const KEYS: [(&str, KeyCode, &str); 8] = [
    ("d", KeyCode::KeyD, "d"),
    ("f", KeyCode::KeyF, "f"),
    ("tab", KeyCode::Tab, "\t"),
    ("a", KeyCode::KeyA, "a"),
    ("1", KeyCode::Digit1, "1"),
    ("2", KeyCode::Digit2, "2"),
    ("3", KeyCode::Digit3, "3"),
    ("4", KeyCode::Digit4, "4"),
];

/// The key named in a `key K` command, with the text it types.
fn scripted_key(command: &str) -> Option<(KeyCode, &'static str)> {
    let name = command.strip_prefix("key ")?.trim();
    KEYS.iter()
        .find(|(word, ..)| *word == name)
        .map(|&(_, key, text)| (key, text))
}

/// Presses the keys of this frame's `key K` commands and releases those of the last frame's; an
/// unknown command ends the run with an error, so that a typo in the script fails it.
fn press_scripted_keys(
    mut script: MessageReader<CiTestingCustomEvent>,
    window: Single<Entity, With<PrimaryWindow>>,
    mut keys: MessageWriter<KeyboardInput>,
    mut exit: MessageWriter<AppExit>,
    mut pressed: Local<Vec<(KeyCode, &'static str)>>,
) {
    let mut send = |(key_code, text): (KeyCode, &'static str), state| {
        let logical_key = match key_code {
            KeyCode::Tab => Key::Tab,
            _ => Key::Character(text.into()),
        };
        keys.write(KeyboardInput {
            key_code,
            logical_key,
            state,
            text: (state == ButtonState::Pressed).then(|| text.into()),
            repeat: false,
            window: *window,
        });
    };
    for key in pressed.drain(..) {
        send(key, ButtonState::Released);
    }
    for CiTestingCustomEvent(command) in script.read() {
        if is_mouse_command(command) {
            continue;
        }
        let Some(key) = scripted_key(command) else {
            error!(
                "unknown scripted command `{command}`: expected `key K` with K one of d, f, tab, a, 1-4"
            );
            exit.write(AppExit::error());
            continue;
        };
        send(key, ButtonState::Pressed);
        pressed.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_keys_are_read_and_unknown_ones_refused() {
        assert_eq!(scripted_key("key d"), Some((KeyCode::KeyD, "d")));
        assert_eq!(scripted_key("key tab"), Some((KeyCode::Tab, "\t")));
        assert_eq!(scripted_key("key 4"), Some((KeyCode::Digit4, "4")));
        assert_eq!(scripted_key("key q"), None);
        assert_eq!(scripted_key("press d"), None);
    }
}
