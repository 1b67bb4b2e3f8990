//! Arbitrary and nearly valid input to the parsers and the search API: no panics, errors that
//! point inside the text, and the typed search error that the request deserves.

pub mod common;

use astar_grid::{
    Cell, CornerRule, CostModel, Grid, Heuristic, Legend, Movement, ParseError, ParseErrorKind,
    SearchError, SearchOptions, SearchStatus, SearchWindow, Searcher, Step, Weighting, parse_map,
    parse_map_with, parse_scenario, write_map, write_scenario,
};
use common::path_check::{check_inside_window, check_path};
use proptest::prelude::*;

/// Checks that `error` names a line of `text` (or the one just after its end) and a column
/// inside that line (or just after its last character).
fn check_error_position(text: &str, error: &ParseError) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    prop_assert!(error.line >= 1 && error.column >= 1, "{:?}", error);
    prop_assert!(
        error.line <= lines.len() + 1,
        "{:?} past the end of {:?}",
        error,
        text
    );
    if let Some(line) = lines.get(error.line - 1) {
        prop_assert!(
            error.column <= line.chars().count() + 1,
            "{:?} past the end of line {:?}",
            error,
            line
        );
    }
    Ok(())
}

/// The character at the error's line and column of `text`.
fn character_at(text: &str, error: &ParseError) -> Option<char> {
    text.split('\n')
        .nth(error.line - 1)?
        .chars()
        .nth(error.column - 1)
}

/// Feeds `text` to every parser and checks errors and round trips of what parses.
fn parse_everything(text: &str) -> Result<(), TestCaseError> {
    for parsed in [parse_map(text), parse_map_with(text, &Legend::terrain())] {
        match parsed {
            Err(error) => {
                check_error_position(text, &error)?;
                if let ParseErrorKind::UnknownTerrain(character) = error.kind {
                    prop_assert_eq!(character_at(text, &error), Some(character));
                }
            }
            Ok(grid) => {
                let legend = Legend::terrain();
                let written = write_map(&grid, &legend)
                    .ok_or_else(|| TestCaseError::fail("a parsed map cannot be written"))?;
                prop_assert_eq!(parse_map_with(&written, &legend), Ok(grid));
            }
        }
    }
    match parse_scenario(text) {
        Err(error) => check_error_position(text, &error)?,
        Ok(scenario) => {
            let written = write_scenario(&scenario)
                .map_err(|error| TestCaseError::fail(format!("a parsed scenario: {error}")))?;
            let again = parse_scenario(&written)
                .map_err(|error| TestCaseError::fail(format!("rewritten scenario: {error}")))?;
            prop_assert_eq!(write_scenario(&again), Ok(written));
        }
    }
    match Grid::from_ascii(text) {
        Err(error) => check_error_position(text, &error)?,
        Ok(grid) => {
            let drawn = grid.to_ascii();
            prop_assert_eq!(Grid::from_ascii(&drawn), Ok(grid));
        }
    }
    Ok(())
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic_the_parsers(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        parse_everything(&text)?;
        if let Err(utf8_error) = std::str::from_utf8(&bytes) {
            // Placed at the first invalid byte: after the valid prefix's lines and characters.
            let error = ParseError::not_text(&bytes, &utf8_error);
            let prefix = &bytes[..utf8_error.valid_up_to()];
            let last_line = prefix.rsplit(|&byte| byte == b'\n').next().unwrap_or(prefix);
            let characters = std::str::from_utf8(last_line).map_or(0, |line| line.chars().count());
            prop_assert_eq!(error.line, 1 + prefix.iter().filter(|&&byte| byte == b'\n').count());
            prop_assert_eq!(error.column, characters + 1);
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_parsers(text in "(?s).{0,120}") {
        parse_everything(&text)?;
    }

    #[test]
    fn valid_maps_parse_and_mutated_maps_fail_cleanly(
        (text, values) in valid_map_text(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        let grid = parse_map(&text).map_err(|error| TestCaseError::fail(format!("{error} in {text:?}")))?;
        prop_assert_eq!(grid_values(&grid), values.clone());
        prop_assert_eq!(grid.height() as usize, values.len());
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated)?;
    }

    #[test]
    fn valid_scenarios_parse_and_mutated_scenarios_fail_cleanly(
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
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated)?;
    }

    #[test]
    fn valid_ascii_grids_parse_and_mutated_ones_fail_cleanly(
        (text, values) in valid_ascii_text(),
        mutations in prop::collection::vec(mutation(), 0..4),
    ) {
        let grid = Grid::from_ascii(&text).map_err(|error| TestCaseError::fail(format!("{error} in {text:?}")))?;
        prop_assert_eq!(grid_values(&grid), values);
        let mutated = mutations.iter().fold(text, |text, mutation| apply(&text, mutation));
        parse_everything(&mutated)?;
    }
}

/// A search request with anything in it: possibly empty grids, cells outside the grid, weights
/// that are NaN, below 1 or huge, zero step costs, windows that miss the start or are inverted.
#[derive(Clone, Debug)]
struct WildRequest {
    grid: Grid,
    start: Cell,
    goal: Cell,
    options: SearchOptions,
}

fn wild_weight() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![
        f64::NAN,
        f64::NEG_INFINITY,
        -1.0,
        0.0,
        0.5,
        1.0,
        1.5,
        4.0,
        1e300,
        f64::MAX,
        f64::INFINITY,
    ])
}

fn wild_request() -> impl Strategy<Value = WildRequest> {
    let grid = (0u32..6, 0u32..6).prop_flat_map(|(width, height)| {
        prop::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), any::<u8>()],
            (width * height) as usize,
        )
        .prop_map(move |values| {
            Grid::from_fn(width, height, |cell| {
                values[(cell.y * width + cell.x) as usize]
            })
        })
    });
    let cell = || {
        prop_oneof![
            (0u32..8, 0u32..8).prop_map(|(x, y)| Cell::new(x, y)),
            Just(Cell::new(u32::MAX, 0)),
            Just(Cell::new(0, u32::MAX)),
        ]
    };
    let cost = prop_oneof![
        Just(CostModel::Octile),
        (0u32..4, 0u32..4)
            .prop_map(|(straight, diagonal)| CostModel::Integer { straight, diagonal }),
        Just(CostModel::Integer {
            straight: u32::MAX,
            diagonal: u32::MAX
        }),
    ];
    let movement = prop_oneof![
        Just(Movement::FOUR),
        prop::sample::select(vec![CornerRule::Both, CornerRule::One, CornerRule::Any])
            .prop_map(Movement::eight),
    ];
    let weighting = prop_oneof![
        wild_weight().prop_map(Weighting::Static),
        wild_weight().prop_map(|epsilon| Weighting::Dynamic { epsilon }),
    ];
    let window =
        prop::option::of((cell(), cell()).prop_map(|(min, max)| SearchWindow::new(min, max)));
    let limits = (
        prop::option::of(prop_oneof![0u32..20, Just(u32::MAX)]),
        any::<bool>(),
        any::<bool>(),
    );
    (
        grid,
        cell(),
        cell(),
        movement,
        cost,
        prop::option::of(prop::sample::select(Heuristic::ALL.to_vec())),
        weighting,
        window,
        limits,
    )
        .prop_map(
            |(
                grid,
                start,
                goal,
                movement,
                cost,
                heuristic,
                weighting,
                window,
                (max_expansions, partial, trace),
            )| {
                let mut options = SearchOptions::default()
                    .with_movement(movement)
                    .with_cost(cost)
                    .with_partial_path(partial)
                    .with_trace(trace);
                options.heuristic = heuristic;
                options.weighting = weighting;
                options.max_expansions = max_expansions;
                options.window = window;
                WildRequest {
                    grid,
                    start,
                    goal,
                    options,
                }
            },
        )
}

/// Every error that fits the request, in no particular order: which one a search reports first
/// is its choice, but it must report one of these, and must run when there are none.
fn fitting_errors(request: &WildRequest) -> Vec<SearchError> {
    let WildRequest {
        grid,
        start,
        goal,
        options,
    } = request;
    let mut errors = Vec::new();
    if grid.width() == 0 || grid.height() == 0 {
        errors.push(SearchError::EmptyGrid);
    }
    let inside = |cell: Cell| cell.x < grid.width() && cell.y < grid.height();
    if !inside(*start) {
        errors.push(SearchError::StartOutOfBounds(*start));
    } else if grid.value(*start) == 0 {
        errors.push(SearchError::StartBlocked(*start));
    }
    if !inside(*goal) {
        errors.push(SearchError::GoalOutOfBounds(*goal));
    } else if grid.value(*goal) == 0 {
        errors.push(SearchError::GoalBlocked(*goal));
    }
    match options.weighting {
        Weighting::Static(weight) if !(weight.is_finite() && weight >= 1.0) => {
            errors.push(SearchError::InvalidWeight(weight));
        }
        Weighting::Dynamic { epsilon } if !(epsilon.is_finite() && epsilon >= 0.0) => {
            errors.push(SearchError::InvalidWeight(epsilon));
        }
        _ => {}
    }
    if let CostModel::Integer { straight, diagonal } = options.cost
        && (straight == 0 || diagonal == 0)
    {
        errors.push(SearchError::InvalidCostModel);
    }
    if let Some(window) = options.window {
        let contains = window.min.x <= start.x
            && start.x <= window.max.x
            && window.min.y <= start.y
            && start.y <= window.max.y;
        if !contains {
            errors.push(SearchError::StartOutsideWindow(*start));
        }
    }
    errors
}

/// Same variant and payload, with NaN weights equal to themselves.
fn same_error(a: &SearchError, b: &SearchError) -> bool {
    match (a, b) {
        (SearchError::InvalidWeight(x), SearchError::InvalidWeight(y)) => {
            x.to_bits() == y.to_bits()
        }
        _ => a == b,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any request either runs or is refused with an error that fits it; what runs returns a
    /// legal path (if any) and agrees with the same search advanced one expansion at a time.
    #[test]
    fn wild_requests_get_a_fitting_error_or_a_sound_result(request in wild_request()) {
        let WildRequest { grid, start, goal, options } = &request;
        let expected = fitting_errors(&request);
        let mut searcher = Searcher::new();
        match searcher.find_path(grid, *start, *goal, options) {
            Err(error) => {
                prop_assert!(
                    expected.iter().any(|fitting| same_error(fitting, &error)),
                    "{:?} does not fit; expected one of {:?}", error, expected
                );
                prop_assert!(searcher.begin(grid, *start, *goal, options).is_err());
            }
            Ok(result) => {
                prop_assert!(expected.is_empty(), "ran although {:?}", expected);
                prop_assert_eq!(result.trace.is_some(), options.trace);
                if let Some(path) = &result.path {
                    let end = if result.status == SearchStatus::Found {
                        *goal
                    } else {
                        path.end().ok_or_else(|| TestCaseError::fail("empty path"))?
                    };
                    check_path(grid, path, *start, end, options.movement, options.cost)
                        .map_err(TestCaseError::fail)?;
                    if let Some(window) = options.window {
                        check_inside_window(path, window).map_err(TestCaseError::fail)?;
                    }
                }
                let mut search = searcher.begin(grid, *start, *goal, options).expect("accepted before");
                let stepped = loop {
                    match search.advance(1) {
                        Step::Pending(more) => search = more,
                        Step::Done(done) => break done,
                    }
                };
                prop_assert_eq!(stepped, result);
            }
        }
    }
}

/// A header or version value that is not a number is reported where it stands, even when the
/// same letters also occur earlier on the line (in the key word itself).
#[test]
fn header_errors_point_at_the_offending_value() {
    let cases = [
        (parse_map("type octile\nheight he\nwidth 2\nmap\n"), (2, 8)),
        (parse_map("type octile\nheight 2\nwidth dt\nmap\n"), (3, 7)),
    ];
    for (parsed, position) in cases {
        let error = parsed.expect_err("invalid header");
        assert_eq!((error.line, error.column), position, "{error}");
    }
    for (text, position) in [("version v\n", (1, 9)), ("version on\n", (1, 9))] {
        let error = parse_scenario(text).expect_err("unsupported version");
        assert_eq!((error.line, error.column), position, "{error}");
    }
}

/// Indented ASCII rows (as in source code) report unknown characters at their column in the
/// text, not in the row with its indentation removed.
#[test]
fn ascii_errors_count_columns_in_the_text() {
    let text = "..\n   .x\n";
    let error = Grid::from_ascii(text).expect_err("unknown character");
    assert_eq!(error.kind, ParseErrorKind::UnknownTerrain('x'));
    assert_eq!(character_at(text, &error), Some('x'), "{error}");
}
