//! `pathbench scen` checks each optimal length within the rounding of the digits its scenario
//! file prints, or within relative 1e-4, whichever is looser: a file that rounds to 2 decimals
//! reports no false mismatches, and a wrong length is still one.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn arena_map() -> PathBuf {
    workspace_root().join("assets/maps/dao/arena.map")
}

/// `arena.map.scen` with every length rounded to 2 decimals under a `version 1.0` header, as the
/// older Moving AI sets print them.
fn two_decimal_scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/arena-2-decimals.map.scen")
}

/// What `pathbench scen MAP SCEN` printed: its exit code, its text and its closing JSON line.
struct Run {
    code: Option<i32>,
    stdout: String,
    summary: Value,
}

fn scen(map: &Path, scenario: &Path) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_pathbench"))
        .arg("scen")
        .arg(map)
        .arg(scenario)
        .output()
        .expect("pathbench runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let last = stdout.lines().last().unwrap_or_default();
    let summary = serde_json::from_str(last).unwrap_or_else(|error| {
        panic!(
            "no JSON summary ({error}) in {stdout:?}, stderr {:?}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    Run {
        code: output.status.code(),
        stdout,
        summary,
    }
}

/// The optimal lengths of a scenario file's rows, in order.
fn lengths(text: &str) -> Vec<f64> {
    text.lines()
        .skip(1)
        .filter_map(|line| line.split('\t').nth(8))
        .map(|length| length.parse().expect("a number"))
        .collect()
}

#[test]
fn a_file_rounded_to_two_decimals_has_no_mismatches() {
    let run = scen(&arena_map(), &two_decimal_scenario());
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(run.summary["mismatches"], 0, "{}", run.stdout);
    assert_eq!(run.summary["queries"], 160);
    // Half a unit in the second decimal is looser than 1e-4 of a length below 50.
    let text = std::fs::read_to_string(two_decimal_scenario()).expect("the fixture is readable");
    let short = lengths(&text)
        .iter()
        .filter(|&&length| length < 50.0)
        .count();
    assert!(short > 0 && short < 160);
    assert_eq!(run.summary["file_decimals"], 2);
    assert_eq!(run.summary["checked_at_file_precision"], short);
    assert_eq!(run.summary["checked_at_relative"], 160 - short);
}

#[test]
fn a_wrong_length_in_a_two_decimal_file_is_still_a_mismatch() {
    let text = std::fs::read_to_string(two_decimal_scenario()).expect("the fixture is readable");
    let mut rows: Vec<String> = text.lines().map(str::to_owned).collect();
    // One length checked at the file's precision (below 50), one at relative 1e-4 (above),
    // each 0.02 longer than printed: more than either tolerance.
    let all = lengths(&text);
    let short = all
        .iter()
        .position(|&length| length > 10.0)
        .expect("a short query");
    let long = all
        .iter()
        .position(|&length| length > 55.0)
        .expect("a long query");
    for index in [short, long] {
        let row = &mut rows[index + 1];
        let (fields, length) = row.rsplit_once('\t').expect("tab-separated");
        let wrong = length.parse::<f64>().expect("a number") + 0.02;
        *row = format!("{fields}\t{wrong:.2}");
    }
    let path = std::env::temp_dir().join(format!(
        "pathbench-wrong-length-{}.map.scen",
        std::process::id()
    ));
    std::fs::write(&path, rows.join("\n") + "\n").expect("the temporary file is writable");
    let run = scen(&arena_map(), &path);
    let _ = std::fs::remove_file(&path);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_eq!(run.summary["mismatches"], 2, "{}", run.stdout);
}

/// The bundled `version 1` files print six significant digits: relative 1e-4 is the looser
/// tolerance for every one of their lengths.
#[test]
fn six_significant_digits_are_checked_at_relative_tolerance() {
    let scenario = workspace_root().join("assets/maps/dao/arena.map.scen");
    let run = scen(&arena_map(), &scenario);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(run.summary["mismatches"], 0);
    assert_eq!(run.summary["file_decimals"], 5);
    assert_eq!(run.summary["checked_at_file_precision"], 0);
    assert_eq!(run.summary["checked_at_relative"], 160);
}
