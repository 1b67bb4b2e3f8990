//! `pathbench scen` and `suite` with `--size`, `--profile` and `--sizes`: runs on the shipped
//! maps and on a small map with swamp, water and trees, with no mismatch against the eroded-map
//! reference, and clear errors, never a panic, for sizes and profiles it does not know.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shipped dao maps: arena and den312d, 480 queries in all.
fn dao_maps() -> PathBuf {
    workspace_root().join("assets/maps/dao")
}

/// What one run of `pathbench` printed: its exit code, its output and its closing JSON line
/// (`Null` when there is none).
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    summary: Value,
}

fn pathbench(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_pathbench"))
        .args(args)
        .output()
        .expect("pathbench runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let summary = stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or(Value::Null);
    Run {
        code: output.status.code(),
        stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        summary,
    }
}

fn count(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("not a count: {value}"))
}

/// A suite run of the dao maps for one agent kind: no mismatch, every query run or set apart.
fn assert_clean_suite(run: &Run) {
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let summary = &run.summary;
    assert_eq!(summary["mismatches"], 0, "{}", run.stdout);
    assert_eq!(summary["queries"], 480);
    let (ran, apart) = (count(&summary["run"]), count(&summary["not_fitting"]));
    assert_eq!(ran + apart, 480, "{}", run.stdout);
    assert!(ran > 100 && apart > 0, "{}", run.stdout);
    assert_eq!(
        count(&summary["checked_at_relative"]) + count(&summary["unreachable"]),
        ran
    );
}

#[test]
fn a_size_two_suite_has_no_mismatch() {
    let dir = dao_maps();
    let run = pathbench(&["suite", dir.to_str().expect("a UTF-8 path"), "--size", "2"]);
    assert_clean_suite(&run);
    assert_eq!(run.summary["kind"], "identity 2");
    // Clearance is one byte per cell; the derived grid adds a grid's bytes.
    assert_eq!(run.summary["clearance_bytes_per_cell"], 1.0);
    let agent_grid = run.summary["agent_grid_bytes_per_cell"]
        .as_f64()
        .expect("a figure");
    assert!(agent_grid > 2.0 && agent_grid < 3.0, "{agent_grid}");
}

#[test]
fn size_three_with_jump_points_and_a_profile_has_no_mismatch() {
    let dir = dao_maps();
    let dir = dir.to_str().expect("a UTF-8 path");
    let jps = pathbench(&["suite", dir, "--size", "3", "--algo", "jps"]);
    assert_clean_suite(&jps);
    assert!(jps.summary["astar_expansions_mean"].as_f64().is_some());
    let flyer = pathbench(&["suite", dir, "--size", "2", "--profile", "flyer"]);
    assert_clean_suite(&flyer);
    // Flyers cross the trees a walker of the same size goes round: more queries fit.
    let walker = pathbench(&["suite", dir, "--size", "2", "--profile", "walker"]);
    assert_clean_suite(&walker);
    assert!(
        count(&flyer.summary["not_fitting"]) < count(&walker.summary["not_fitting"]),
        "{}{}",
        flyer.stdout,
        walker.stdout
    );
}

#[test]
fn side_by_side_runs_every_kind_on_the_same_queries() {
    let dir = dao_maps();
    let run = pathbench(&[
        "suite",
        dir.to_str().expect("a UTF-8 path"),
        "--sizes",
        "3,2",
    ]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(run.summary["mismatches"], 0, "{}", run.stdout);
    let lanes = run.summary["lanes"].as_array().expect("one entry per kind");
    let labels: Vec<&str> = lanes
        .iter()
        .map(|lane| lane["agent"].as_str().expect("a label"))
        .collect();
    assert_eq!(labels, ["plain", "walker 1", "walker 3", "walker 2"]);
    let run_of = |at: usize| count(&lanes[at]["run"]);
    assert_eq!((run_of(0), run_of(1)), (480, 480));
    // A 3x3 footprint fits only where a 2x2 one does.
    assert!(run_of(2) < run_of(3) && run_of(3) < 480, "{}", run.stdout);
    for lane in lanes {
        assert_eq!(lane["mismatches"], 0, "{lane}");
        assert_eq!(count(&lane["run"]) + count(&lane["not_fitting"]), 480);
        // The plain reading finds every Moving AI query: the ratios cover each kind's paths.
        let found = count(&lane["run"]) - count(&lane["unreachable"]);
        assert_eq!(count(&lane["common_queries"]), found, "{lane}");
    }
    assert_eq!(lanes[0]["astar_median_ratio"], 1.0);
}

#[test]
fn bad_sizes_and_profiles_are_refused_without_a_panic() {
    let arena = workspace_root().join("assets/maps/dao/arena.map");
    let arena = arena.to_str().expect("a UTF-8 path");
    let scenario = format!("{arena}.scen");
    let dir = dao_maps();
    let dir = dir.to_str().expect("a UTF-8 path");
    for (args, said) in [
        (
            vec!["scen", arena, &scenario, "--size", "0"],
            "agent size 0 is not in 1..=8",
        ),
        (
            vec!["scen", arena, &scenario, "--size", "9"],
            "agent size 9 is not in 1..=8",
        ),
        (
            vec!["suite", dir, "--size", "1000"],
            "agent size 1000 is not in 1..=8",
        ),
        (
            vec!["suite", dir, "--size", "big"],
            "`big` is not an agent size",
        ),
        (
            vec!["scen", arena, &scenario, "--profile", "swimmer"],
            "[possible values: walker, flyer, heavy, boat]",
        ),
        (
            vec!["suite", dir, "--sizes", "2,0"],
            "agent size 0 is not in 1..=8",
        ),
        (
            vec!["suite", dir, "--sizes", "2", "--size", "2"],
            "cannot be used with",
        ),
        (
            vec!["suite", dir, "--sizes", "2", "--algo", "jps"],
            "cannot be used with",
        ),
    ] {
        let run = pathbench(&args);
        assert_eq!(run.code, Some(2), "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
}

/// A directory of its own under the temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("pathbench-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).expect("the temporary directory is writable");
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A river (W) with a swamp (S) above it and trees (T) below, ground round it.
const RIVER: [&str; 7] = [
    "............",
    "..SSSS......",
    "WWWWWWWWW...",
    "WWWWWWWWW...",
    "WWWWWWWWW...",
    "..TT........",
    "............",
];

/// Writes `RIVER` as `river.map` with a scenario of every pair of `cells`, and returns the
/// scenario's path. The scenario's lengths are left at 0: under a profile they do not apply.
fn write_river(dir: &Path, cells: &[(usize, usize)]) -> PathBuf {
    let (width, height) = (RIVER[0].len(), RIVER.len());
    let map = format!(
        "type octile\nheight {height}\nwidth {width}\nmap\n{}\n",
        RIVER.join("\n")
    );
    std::fs::write(dir.join("river.map"), map).expect("the map is writable");
    let mut scen = String::from("version 1\n");
    for &(sx, sy) in cells {
        for &(gx, gy) in cells {
            scen.push_str(&format!(
                "0\triver.map\t{width}\t{height}\t{sx}\t{sy}\t{gx}\t{gy}\t0\n"
            ));
        }
    }
    let path = dir.join("river.map.scen");
    std::fs::write(&path, scen).expect("the scenario is writable");
    path
}

#[test]
fn terrain_profiles_run_on_swamp_water_and_trees() {
    let dir = TempDir::new("river");
    let cells = [
        (0, 0),
        (3, 1),
        (0, 2),
        (4, 3),
        (7, 4),
        (0, 6),
        (11, 6),
        (2, 5),
    ];
    write_river(&dir.0, &cells);
    let dir_text = dir.0.to_str().expect("a UTF-8 path");
    // Boats start and end on water only: every other pair is set apart.
    let on_water = |&(x, y): &(usize, usize)| RIVER[y].as_bytes()[x] == b'W';
    let water = cells.iter().filter(|cell| on_water(cell)).count();
    let boat = pathbench(&["suite", dir_text, "--profile", "boat"]);
    assert_eq!(boat.code, Some(0), "{}{}", boat.stdout, boat.stderr);
    assert_eq!(boat.summary["mismatches"], 0);
    assert_eq!(
        count(&boat.summary["run"]),
        (water * water) as u64,
        "{}",
        boat.stdout
    );
    for profile in ["walker", "flyer", "heavy"] {
        for size in ["1", "2", "3"] {
            for algo in ["astar", "dijkstra", "flow"] {
                let run = pathbench(&[
                    "suite",
                    dir_text,
                    "--profile",
                    profile,
                    "--size",
                    size,
                    "--algo",
                    algo,
                ]);
                assert_eq!(
                    run.code,
                    Some(0),
                    "{profile} {size} {algo}: {}{}",
                    run.stdout,
                    run.stderr
                );
                assert_eq!(run.summary["mismatches"], 0, "{}", run.stdout);
            }
        }
    }
    // Water and trees keep walkers' endpoints off them, not flyers'.
    let walker = pathbench(&["suite", dir_text, "--profile", "walker"]);
    let flyer = pathbench(&["suite", dir_text, "--profile", "flyer"]);
    assert_eq!((walker.code, flyer.code), (Some(0), Some(0)));
    assert_eq!(count(&flyer.summary["not_fitting"]), 0, "{}", flyer.stdout);
    assert!(
        count(&walker.summary["not_fitting"]) > 0,
        "{}",
        walker.stdout
    );
    // Swamp costs heavy units 5: jump point search, which needs uniform costs, is refused.
    let heavy_jps = pathbench(&["suite", dir_text, "--profile", "heavy", "--algo", "jps"]);
    assert_eq!(heavy_jps.code, Some(2), "{}", heavy_jps.stdout);
    assert!(
        !heavy_jps.stderr.contains("panicked"),
        "{}",
        heavy_jps.stderr
    );
}

#[test]
fn an_agent_larger_than_the_map_is_refused_with_the_map_named() {
    let dir = TempDir::new("tiny");
    let map = dir.0.join("tiny.map");
    std::fs::write(&map, "type octile\nheight 3\nwidth 3\nmap\n...\n...\n...\n")
        .expect("the map is writable");
    let scen = dir.0.join("tiny.map.scen");
    std::fs::write(&scen, "version 1\n0\ttiny.map\t3\t3\t0\t0\t2\t2\t2.82843\n")
        .expect("the scenario is writable");
    let run = pathbench(&[
        "scen",
        map.to_str().expect("a UTF-8 path"),
        scen.to_str().expect("a UTF-8 path"),
        "--size",
        "4",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(run.stderr.contains("tiny.map"), "{}", run.stderr);
    assert!(
        run.stderr.contains("does not fit on a 3x3 map"),
        "{}",
        run.stderr
    );
    // Size 3 fills the map: one anchor, the query from it to itself only.
    let run = pathbench(&[
        "scen",
        map.to_str().expect("a UTF-8 path"),
        scen.to_str().expect("a UTF-8 path"),
        "--size",
        "3",
    ]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(
        (
            count(&run.summary["run"]),
            count(&run.summary["not_fitting"])
        ),
        (0, 1)
    );
}
