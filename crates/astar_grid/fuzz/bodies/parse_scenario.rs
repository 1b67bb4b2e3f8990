//! Body of the `parse_scenario` fuzz target, run on stable by `tests/fuzz.rs` too: any bytes
//! given to `parse_scenario` give queries inside the maps they state, which `write_scenario`
//! writes and `parse_scenario` reads back the same; or an error that points inside the text.

use crate::text_checks::{check_error_position, text_of};
use astar_grid::{ScenarioQuery, parse_scenario, write_scenario};

/// Feeds `data` to the scenario reader; panics when it or the writer breaks a rule.
pub fn run(data: &[u8]) {
    run_text(&text_of(data));
}

/// [`run`] for input that is already text.
pub fn run_text(text: &str) {
    let scenario = match parse_scenario(text) {
        Err(error) => return check_error_position(text, &error),
        Ok(scenario) => scenario,
    };
    let rows = text
        .split('\n')
        .skip(1)
        .filter(|line| !line.trim().is_empty());
    assert_eq!(scenario.queries.len(), rows.count());
    for query in &scenario.queries {
        assert!(!query.map.is_empty(), "{query:?}");
        assert!(
            query.start.x < query.map_width && query.goal.x < query.map_width,
            "{query:?}"
        );
        assert!(
            query.start.y < query.map_height && query.goal.y < query.map_height,
            "{query:?}"
        );
        assert!(query.optimal_length.is_finite(), "{query:?}");
    }
    let written = write_scenario(&scenario).expect("what was read can be written");
    let again = parse_scenario(&written).expect("what was written can be read");
    assert_eq!(again.queries.len(), scenario.queries.len());
    for (read, reread) in scenario.queries.iter().zip(&again.queries) {
        check_same_query(read, reread);
    }
    assert_eq!(
        write_scenario(&again).as_ref(),
        Ok(&written),
        "writing is not stable"
    );
}

/// Two queries agree in every field, lengths within the 8 decimals they are written with.
fn check_same_query(read: &ScenarioQuery, reread: &ScenarioQuery) {
    let rounded = ScenarioQuery {
        optimal_length: read.optimal_length,
        ..reread.clone()
    };
    assert_eq!(&rounded, read);
    let difference = (read.optimal_length - reread.optimal_length).abs();
    assert!(
        difference <= 5e-9 + f64::EPSILON * read.optimal_length.abs(),
        "{read:?} reads back as {reread:?}"
    );
}
