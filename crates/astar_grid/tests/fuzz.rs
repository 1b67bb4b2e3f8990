//! The bodies of the fuzz targets (`fuzz/bodies/`) run on stable, with a fixed seed and a
//! bounded number of cases so that the run is short and the same every time: arbitrary bytes,
//! nearly valid map, scenario and ASCII texts with a few edits, headers that claim hostile
//! sizes, and search requests built field by field.

#[path = "common/random_grid.rs"]
pub mod random_grid;

#[path = "../fuzz/bodies/parse_map.rs"]
pub mod parse_map_body;
#[path = "../fuzz/bodies/parse_scenario.rs"]
pub mod parse_scenario_body;
#[path = "../fuzz/bodies/search.rs"]
pub mod search_body;
#[path = "../fuzz/bodies/text_checks.rs"]
pub mod text_checks;

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Heuristic, JpsOptions, Movement, SearchOptions,
    SearchWindow, Weighting, parse_map, parse_scenario,
};
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, RngSeed};
use search_body::SearchCase;

/// A fixed seed and `cases` cases: the same inputs on every run.
fn fixed(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(0x00a5_7a12_f022),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Feeds `text` to both parser bodies.
fn parse_everything(text: &str) {
    parse_map_body::run_text(text);
    parse_scenario_body::run_text(text);
}

/// The inputs of past defects stay cases of the bodies: zero dimensions with a huge other one,
/// a scenario row outside its map, a map name with a space, a map type other than octile.
#[test]
fn inputs_of_past_defects_keep_the_parsers_to_their_rules() {
    for text in [
        "type octile\nheight 99999999\nwidth 0\nmap\n",
        "type octile\nheight 0\nwidth 99999999\nmap\n",
        "type octile\nheight 4294967295\nwidth 4294967295\nmap\n",
        "version 1\n0 m.map 8 8 8 1 2 2 1\n",
        "version 1\n0\tm.map\t8\t8\t1\t1\t2\t4000000000\t1\n",
        "version 1\n0\tmaps/my map.map\t8\t8\t1\t1\t2\t2\t1\n",
        "type tile\nheight 1\nwidth 1\nmap\n.\n",
    ] {
        parse_everything(text);
    }
    search_body::check(&SearchCase {
        grid: Grid::new(0, 5),
        start: Cell::new(0, 0),
        goal: Cell::new(u32::MAX, 4),
        options: SearchOptions::default(),
        jps: JpsOptions::default(),
        budget: 1,
        goals: vec![Cell::new(0, 0)],
    });
}

/// A small map in Moving AI form, with the grid values it stands for.
fn valid_map_text() -> impl Strategy<Value = (String, Vec<Vec<u8>>)> {
    (0usize..6, 0usize..6, any::<bool>(), any::<bool>()).prop_flat_map(
        |(width, height, crlf, final_newline)| {
            prop::collection::vec(
                prop::collection::vec(prop::sample::select(&b".G@OTSW"[..]), width),
                height,
            )
            .prop_map(move |rows| {
                let newline = if crlf { "\r\n" } else { "\n" };
                let mut lines = vec![
                    "type octile".to_owned(),
                    format!("height {height}"),
                    format!("width {width}"),
                    "map".to_owned(),
                ];
                lines.extend(
                    rows.iter()
                        .map(|row| row.iter().map(|&byte| char::from(byte)).collect()),
                );
                let mut text = lines.join(newline);
                // Without a final line ending, a last row of width 0 would be no row at all.
                if final_newline || width == 0 {
                    text.push_str(newline);
                }
                let values = rows
                    .iter()
                    .map(|row| {
                        row.iter()
                            .map(|&byte| u8::from(matches!(byte, b'.' | b'G' | b'S')))
                            .collect()
                    })
                    .collect();
                (text, values)
            })
        },
    )
}

/// One edit to a text.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(prop::sample::Index),
    Insert(prop::sample::Index, char),
    Replace(prop::sample::Index, char),
    DuplicateLine(prop::sample::Index),
    DeleteLine(prop::sample::Index),
    /// Replaces the first run of digits with another number-like token.
    Renumber(&'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let characters = prop::sample::select(vec![
        '.', '@', 'G', 'S', '#', 'x', ' ', '\t', '\n', '\r', '0', '9', '-', 'é', '\u{3000}', '\0',
    ]);
    let tokens = prop::sample::select(vec![
        "0",
        "1",
        "7",
        "",
        "x",
        "-1",
        "1e3",
        "1.5",
        "NaN",
        "inf",
        "99999",
        "4294967295",
        "4294967296",
        "18446744073709551616",
    ]);
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Mutation::Delete),
        (any::<prop::sample::Index>(), characters.clone())
            .prop_map(|(at, character)| Mutation::Insert(at, character)),
        (any::<prop::sample::Index>(), characters)
            .prop_map(|(at, character)| Mutation::Replace(at, character)),
        any::<prop::sample::Index>().prop_map(Mutation::DuplicateLine),
        any::<prop::sample::Index>().prop_map(Mutation::DeleteLine),
        tokens.prop_map(Mutation::Renumber),
    ]
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let mut characters: Vec<char> = text.chars().collect();
    let mut lines: Vec<&str> = text.split('\n').collect();
    match mutation {
        Mutation::Delete(at) if !characters.is_empty() => {
            characters.remove(at.index(characters.len()));
        }
        Mutation::Insert(at, character) => {
            characters.insert(at.index(characters.len() + 1), *character);
        }
        Mutation::Replace(at, character) if !characters.is_empty() => {
            let at = at.index(characters.len());
            characters[at] = *character;
        }
        Mutation::DuplicateLine(at) => {
            let at = at.index(lines.len());
            lines.insert(at, lines[at]);
            return lines.join("\n");
        }
        Mutation::DeleteLine(at) => {
            lines.remove(at.index(lines.len()));
            return lines.join("\n");
        }
        Mutation::Renumber(token) => {
            let Some(first) = text.find(|character: char| character.is_ascii_digit()) else {
                return text.to_owned();
            };
            let length = text[first..]
                .find(|character: char| !character.is_ascii_digit())
                .unwrap_or(text.len() - first);
            return format!("{}{token}{}", &text[..first], &text[first + length..]);
        }
        Mutation::Delete(_) | Mutation::Replace(..) => {}
    }
    characters.into_iter().collect()
}

/// A small scenario in Moving AI form, its fields separated by tabs (map names may then hold
/// spaces) or by spaces, each start and goal inside the map its row states.
fn valid_scenario_text() -> impl Strategy<Value = String> {
    let size = || 1u32..300;
    let row = (
        0u32..20,
        (size(), size()),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        prop_oneof![Just(-1.0), 0.0..500.0f64],
        prop::sample::select(vec!["\t", " ", "  ", " \t", "\t "]),
        "[a-z/]{1,6}( ?[a-z/]{1,5})\\.map",
    )
        .prop_map(
            |(bucket, (width, height), start, goal, length, separator, map)| {
                let (width_index, height_index) = (width as usize, height as usize);
                let map = if separator.contains('\t') {
                    map
                } else {
                    map.replace(' ', "_")
                };
                [
                    bucket.to_string(),
                    map,
                    width.to_string(),
                    height.to_string(),
                    start.0.index(width_index).to_string(),
                    start.1.index(height_index).to_string(),
                    goal.0.index(width_index).to_string(),
                    goal.1.index(height_index).to_string(),
                    format!("{length:.5}"),
                ]
                .join(separator)
            },
        );
    (
        prop::sample::select(vec!["version 1", "version 1.0"]),
        prop::collection::vec(row, 0..5),
    )
        .prop_map(|(version, rows)| {
            let mut text = format!("{version}\n");
            for row in rows {
                text.push_str(&row);
                text.push('\n');
            }
            text
        })
}

/// A small ASCII grid, indented as in source code, with the values it stands for.
fn valid_ascii_text() -> impl Strategy<Value = (String, Vec<Vec<u8>>)> {
    (1usize..6, 1usize..6).prop_flat_map(|(width, height)| {
        prop::collection::vec(
            prop::collection::vec(prop::sample::select(&b".#@123456789"[..]), width),
            height,
        )
        .prop_map(|rows| {
            let text = rows
                .iter()
                .map(|row| format!("    {}", String::from_utf8_lossy(row)))
                .collect::<Vec<_>>()
                .join("\n");
            let values = rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|&byte| match byte {
                            b'.' => 1,
                            b'#' | b'@' => 0,
                            digit => digit - b'0',
                        })
                        .collect()
                })
                .collect();
            (text, values)
        })
    })
}

fn grid_values(grid: &Grid) -> Vec<Vec<u8>> {
    (0..grid.height())
        .map(|y| {
            (0..grid.width())
                .map(|x| grid.value(Cell::new(x, y)))
                .collect()
        })
        .collect()
}

/// Headers claiming sizes from none to far more than a grid may hold, with a few rows or none.
fn hostile_map_text() -> impl Strategy<Value = String> {
    let huge = || {
        prop::sample::select(vec![
            99_999_999,
            2_147_483_000,
            1 << 31,
            u64::from(u32::MAX),
            u64::from(u32::MAX) + 1,
            65_536,
        ])
    };
    let dimensions = prop_oneof![
        (Just(0u64), huge()),
        (huge(), Just(0u64)),
        (huge(), huge()),
        (0u64..3, huge()),
        (huge(), 0u64..3),
        (0u64..3, 0u64..3),
    ];
    (
        dimensions,
        any::<bool>(),
        prop::collection::vec("[.@]{0,3}", 0..4),
    )
        .prop_map(|((height, width), width_first, rows)| {
            let (first, second) = if width_first {
                (format!("width {width}"), format!("height {height}"))
            } else {
                (format!("height {height}"), format!("width {width}"))
            };
            let mut text = format!("type octile\n{first}\n{second}\nmap\n");
            for row in rows {
                text.push_str(&row);
                text.push('\n');
            }
            text
        })
}

proptest! {
    #![proptest_config(fixed(1024))]

    #[test]
    fn arbitrary_bytes_keep_the_parsers_to_their_rules(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        parse_map_body::run(&bytes);
        parse_scenario_body::run(&bytes);
    }

    #[test]
    fn arbitrary_text_keeps_the_parsers_to_their_rules(text in "(?s).{0,120}") {
        parse_everything(&text);
    }

    #[test]
    fn valid_maps_parse_and_edited_maps_fail_cleanly(
        (text, values) in valid_map_text(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        let grid = parse_map(&text).map_err(|error| TestCaseError::fail(format!("{error} in {text:?}")))?;
        prop_assert_eq!(grid_values(&grid), values.clone());
        prop_assert_eq!(grid.height() as usize, values.len());
        parse_everything(&text);
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated);
    }

    #[test]
    fn valid_scenarios_parse_and_edited_scenarios_fail_cleanly(
        text in valid_scenario_text(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        let scenario = parse_scenario(&text).map_err(|error| TestCaseError::fail(format!("{error} in {text:?}")))?;
        prop_assert_eq!(scenario.queries.len(), text.lines().count() - 1);
        for (query, line) in scenario.queries.iter().zip(text.lines().skip(1)) {
            let separator = if line.contains('\t') { '\t' } else { ' ' };
            let fields: Vec<&str> = line.split(separator).map(|field| field.trim_matches(' ')).filter(|field| !field.is_empty()).collect();
            prop_assert_eq!(query.bucket.to_string(), fields[0]);
            prop_assert_eq!(&query.map, fields[1]);
            prop_assert_eq!(query.goal.y.to_string(), fields[7]);
            prop_assert_eq!(Some(query.optimal_length), fields[8].parse::<f64>().ok());
        }
        parse_everything(&text);
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated);
    }

    #[test]
    fn valid_ascii_grids_parse_and_edited_ones_fail_cleanly(
        (text, values) in valid_ascii_text(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        let grid = Grid::from_ascii(&text).map_err(|error| TestCaseError::fail(format!("{error} in {text:?}")))?;
        prop_assert_eq!(grid_values(&grid), values);
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated);
    }

    #[test]
    fn hostile_map_headers_fail_cleanly_or_read_small_grids(
        text in hostile_map_text(),
        mutations in prop::collection::vec(mutation(), 0..2),
    ) {
        parse_everything(&text);
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated);
    }
}

/// A coordinate for a side of `size` cells: mostly inside, sometimes just or far outside.
fn coordinate(size: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        60 => 0..size.max(1),
        1 => Just(size),
        1 => Just(u32::MAX),
    ]
}

fn cell_in(width: u32, height: u32) -> impl Strategy<Value = Cell> {
    (coordinate(width), coordinate(height)).prop_map(|(x, y)| Cell::new(x, y))
}

/// Cost models of every kind: octile, straight and diagonal from 1 to 1000 (the diagonal
/// cheaper than, equal to or dearer than two straight steps), sometimes a zero cost or the
/// largest.
fn cost_model() -> impl Strategy<Value = CostModel> {
    prop_oneof![
        4 => Just(CostModel::Octile),
        2 => Just(CostModel::INTEGER_10_14),
        4 => (1u32..=1000, 1u32..=1000)
            .prop_map(|(straight, diagonal)| CostModel::Integer { straight, diagonal }),
        4 => (1u32..4, 1u32..8)
            .prop_map(|(straight, diagonal)| CostModel::Integer { straight, diagonal }),
        1 => (0u32..2, 0u32..2)
            .prop_map(|(straight, diagonal)| CostModel::Integer { straight, diagonal }),
        1 => Just(CostModel::Integer { straight: u32::MAX, diagonal: u32::MAX }),
    ]
}

/// Cost models jump point search takes: a diagonal from one to two straight steps.
fn jps_cost_model() -> impl Strategy<Value = CostModel> {
    prop_oneof![
        Just(CostModel::Octile),
        Just(CostModel::INTEGER_10_14),
        (1u32..=100, 0u32..=100).prop_map(|(straight, extra)| CostModel::Integer {
            straight,
            diagonal: straight + extra * straight / 100,
        }),
    ]
}

fn weight() -> impl Strategy<Value = f64> {
    prop_oneof![
        12 => Just(1.0),
        6 => 1.0..8.0f64,
        1 => prop::sample::select(vec![f64::NAN, f64::NEG_INFINITY, -1.0, 0.0, 0.5, 1e300, f64::INFINITY]),
    ]
}

fn limit() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![
        3 => Just(None),
        2 => (0u32..30).prop_map(Some),
        1 => Just(Some(u32::MAX)),
    ]
}

/// Options of every kind; a quarter of them those that jump point search also takes.
fn search_options(width: u32, height: u32) -> impl Strategy<Value = SearchOptions> {
    let movement = prop_oneof![
        Just(Movement::FOUR),
        prop::sample::select(vec![CornerRule::Both, CornerRule::One, CornerRule::Any])
            .prop_map(Movement::eight),
    ];
    let weighting = prop_oneof![
        3 => weight().prop_map(Weighting::Static),
        1 => weight().prop_map(|weight| Weighting::Dynamic { epsilon: weight - 1.0 }),
    ];
    let window = prop_oneof![
        3 => Just(None),
        1 => (cell_in(width, height), cell_in(width, height))
            .prop_map(|(min, max)| Some(SearchWindow::new(min, max))),
    ];
    let general = (
        movement,
        cost_model(),
        prop::option::of(prop::sample::select(Heuristic::ALL.to_vec())),
        weighting,
        limit(),
        window,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(random_grid::options_from);
    let jump_point = (jps_cost_model(), limit()).prop_map(|(cost, max_expansions)| {
        let mut options = SearchOptions::default().with_cost(cost);
        options.max_expansions = max_expansions;
        options
    });
    (prop_oneof![3 => general, 1 => jump_point], any::<bool>())
        .prop_map(|(options, closest)| options.with_closest_reachable(closest))
}

/// A search request: a grid of up to 7x7 cells (or none), mostly walkable, with terrain costs
/// or not; endpoints and goals mostly inside; any options.
fn search_case() -> impl Strategy<Value = SearchCase> {
    let side = || prop_oneof![1 => Just(0u32), 12 => 1u32..8];
    (side(), side(), any::<bool>()).prop_flat_map(|(width, height, terrain)| {
        let value = if terrain {
            prop_oneof![1 => Just(0u8), 6 => Just(1u8), 2 => 2u8..=255].boxed()
        } else {
            prop_oneof![1 => Just(0u8), 6 => Just(1u8)].boxed()
        };
        let values = prop::collection::vec(value, (width * height) as usize);
        let jps = (
            prop_oneof![jps_cost_model(), cost_model()],
            any::<bool>(),
            limit(),
            any::<bool>(),
        )
            .prop_map(
                |(cost, full_path, max_expansions, closest_reachable)| JpsOptions {
                    cost,
                    full_path,
                    max_expansions,
                    closest_reachable,
                },
            );
        (
            values,
            cell_in(width, height),
            cell_in(width, height),
            search_options(width, height),
            jps,
            1u32..20,
            prop::collection::vec(cell_in(width, height), 0..3),
        )
            .prop_map(move |(values, start, goal, options, jps, budget, goals)| {
                SearchCase {
                    grid: Grid::from_fn(width, height, |cell| {
                        values[(cell.y * width + cell.x) as usize]
                    }),
                    start,
                    goal,
                    options,
                    jps,
                    budget,
                    goals,
                }
            })
    })
}

proptest! {
    #![proptest_config(fixed(4096))]

    #[test]
    fn search_requests_get_a_fitting_error_or_a_legal_answer(case in search_case()) {
        search_body::check(&case);
    }

    #[test]
    fn arbitrary_bytes_make_search_requests_that_keep_the_rules(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        search_body::run(&bytes);
    }
}
