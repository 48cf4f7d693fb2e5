//! The HTML report in a real browser: a simulation and a comparison of a shipped ruleset are
//! written as pages and rendered by headless Chromium (Debian's `chromium`; `.ci/run` installs
//! it). The DOM Chromium parsed must hold each chart's figure with an SVG of drawn shapes, and
//! screenshots must show the charts' bar colours: the whole page, and each figure on its own.
//!
//! Without Chromium these tests are reported as ignored, with `SKIPPED: chromium not found (...)`
//! on their lines (so `cargo test` runs on a machine with only the Rust toolchain, and says what
//! it did not test), unless `TEMPO_REQUIRE_CHROMIUM=1`, which `.ci/run` sets after installing it:
//! there a missing browser fails the tests. A libtest-mimic harness (`harness = false` in
//! Cargo.toml), since libtest's `#[test]` can neither be ignored at run time nor show what a
//! passing test prints.

use libtest_mimic::{Arguments, Completion, Trial};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempo::check::compile_path;
use tempo::ir::Ruleset;
use tempo::run::scenario::{self, Scenario};
use tempo::sim::{self, compare, html, summary, Batch};

const RUNS: u64 = 200;
/// The series colours of the charts (A or the first series; B or the second).
const BLUE: [u8; 3] = [49, 110, 180];
const ORANGE: [u8; 3] = [230, 120, 20];
const SIM_CHARTS: [&str; 4] = ["chart-outcomes", "chart-length", "chart-pools", "chart-actions"];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ruleset(name: &str) -> Ruleset {
    let c = compile_path(&root().join("rulesets").join(name));
    assert!(!c.has_errors(), "{name} does not compile: {:?}", c.diagnostics);
    c.ruleset.expect("compiles")
}

fn duel() -> Scenario {
    let text = std::fs::read_to_string(root().join("examples/frontiers-duel.ron")).unwrap();
    scenario::parse(&text).expect("the scenario parses")
}

/// Why the browser tests cannot render a page here: neither `chromium` nor `chromium-browser` is
/// on PATH.
const NOT_FOUND: &str = "chromium not found (no `chromium` or `chromium-browser` on PATH; Debian: \
                         `apt-get install chromium`; CI installs it and sets TEMPO_REQUIRE_CHROMIUM=1)";

/// Chromium on PATH, or `None`.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// A test that needs Chromium: run with it; without it, reported as ignored with the reason
/// (libtest prints it on the test's line, where a passing test's own output would be captured
/// and never seen), or failed under `TEMPO_REQUIRE_CHROMIUM=1`.
fn in_chromium(name: &str, body: fn(&Path)) -> Trial {
    Trial::ignorable_test(name, move || match chromium() {
        Some(found) => {
            body(&found);
            Ok(Completion::Completed)
        }
        None if std::env::var("TEMPO_REQUIRE_CHROMIUM").as_deref() == Ok("1") => {
            Err(format!("{NOT_FOUND}, but TEMPO_REQUIRE_CHROMIUM=1: these tests must render the pages").into())
        }
        None => Ok(Completion::ignored_with(format!("SKIPPED: {NOT_FOUND}"))),
    })
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        in_chromium(
            "a_simulation_page_renders_its_charts_in_chromium",
            a_simulation_page_renders_its_charts_in_chromium,
        ),
        in_chromium(
            "a_comparison_page_renders_both_rulesets_and_the_differences_in_chromium",
            a_comparison_page_renders_both_rulesets_and_the_differences_in_chromium,
        ),
    ];
    libtest_mimic::run(&args, trials).exit();
}

/// Nothing in the page runs or fetches: no script, link, source, reference or import (the
/// only address in it is the SVG namespace, which names and does not fetch).
fn self_contained(page: &str) {
    for bad in ["<script", "<link", "<img", "<iframe", "src=", "href=", "url(", "@import"] {
        assert!(!page.contains(bad), "the page holds `{bad}`");
    }
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tempo-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs headless Chromium on a page with `args`, with its own profile, and returns its stdout.
fn browse(chromium: &Path, dir: &Path, page: &Path, args: &[&str]) -> String {
    let profile = dir.join(format!("profile-{}", args.join("-").replace(['/', '=', ','], "_")));
    let mut child = Command::new(chromium)
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // Read both pipes while waiting: a DOM larger than a pipe's buffer would block Chromium.
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = reader(Box::new(child.stdout.take().expect("piped")));
    let stderr = reader(Box::new(child.stderr.take().expect("piped")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("chromium runs") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium {args:?} did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    assert!(status.success(), "chromium {args:?} failed: {status}\n{stderr}");
    stdout
}

/// The markup of the figure with this id (as Chromium serialised it), up to its end.
fn figure_of<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom.find(&format!("<figure id=\"{id}\"")).unwrap_or_else(|| panic!("no figure `{id}` in the DOM"));
    let end = dom[at..].find("</figure>").unwrap_or_else(|| panic!("figure `{id}` does not end")) + at;
    &dom[at..end]
}

/// The DOM Chromium built from the page: each figure holds an SVG with bars, lines and text.
fn check_dom(chromium: &Path, dir: &Path, page: &Path, ids: &[&str]) {
    let dom = browse(chromium, dir, page, &["--dump-dom"]);
    assert!(dom.contains("<main>"), "chromium gave no DOM:\n{dom}");
    for id in ids {
        let f = figure_of(&dom, id);
        assert!(f.contains("<figcaption>"), "{id}: no caption");
        assert!(!f.contains("Nothing to draw"), "{id}: nothing drawn:\n{f}");
        assert!(f.contains("<svg"), "{id}: no svg");
        assert!(f.contains("<rect"), "{id}: no rect");
        assert!(f.contains("<polyline") || f.contains("<path") || f.contains("<line"), "{id}: no line");
        assert!(f.contains("<text"), "{id}: no text");
    }
}

/// A screenshot's pixels, RGB.
struct Shot {
    width: usize,
    rgb: Vec<[u8; 3]>,
}

fn screenshot(chromium: &Path, dir: &Path, page: &Path, name: &str, size: (u32, u32)) -> Shot {
    let png = dir.join(format!("{name}.png"));
    browse(
        chromium,
        dir,
        page,
        &[&format!("--screenshot={}", png.display()), &format!("--window-size={},{}", size.0, size.1)],
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("no screenshot {}: {e}", png.display()));
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().expect("the screenshot is a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("the screenshot decodes");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "a grey screenshot: {:?}", info.color_type);
    let rgb = buf[..info.buffer_size()].chunks_exact(channels).map(|p| [p[0], p[1], p[2]]).collect();
    Shot { width: info.width as usize, rgb }
}

/// Within a few steps of `colour` (the browser may blend edges). Plain comparisons: the tests
/// are not optimised, and this runs for every pixel of every screenshot.
fn near(p: [u8; 3], colour: [u8; 3]) -> bool {
    p[0].abs_diff(colour[0]) <= 3 && p[1].abs_diff(colour[1]) <= 3 && p[2].abs_diff(colour[2]) <= 3
}

impl Shot {
    /// Pixels near `colour` in rows `rows` (all: `0..height`).
    fn count_in(&self, colour: [u8; 3], rows: std::ops::Range<usize>) -> usize {
        let pixels = &self.rgb[rows.start * self.width..(rows.end * self.width).min(self.rgb.len())];
        let mut n = 0;
        for p in pixels {
            if near(*p, colour) {
                n += 1;
            }
        }
        n
    }

    fn count(&self, colour: [u8; 3]) -> usize {
        self.count_in(colour, 0..self.rgb.len() / self.width)
    }

    fn colours(&self) -> usize {
        let mut seen: Vec<[u8; 3]> = self.rgb.iter().step_by(7).copied().collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

    /// Rows among `rows` that hold at least a few pixels of `colour`.
    fn rows_with(&self, colour: [u8; 3], rows: std::ops::Range<usize>) -> usize {
        rows.filter(|&row| self.count_in(colour, row..row + 1) >= 3).count()
    }
}

/// How high each figure's band is on the page of figures (the window a figure had alone).
const BAND: usize = 1400;
const BAND_WIDTH: u32 = 1000;

/// A page that holds only the figures `ids` of `page` (with the page's style), each alone in a
/// band `BAND` pixels high that hides what overflows it, to screenshot them all at once: one
/// browser start per page, not one per figure.
fn page_of_figures(dir: &Path, page: &str, ids: &[&str]) -> PathBuf {
    let head_end = page.find("<main>").expect("the page has a main") + "<main>".len();
    let mut body = String::new();
    for (band, id) in ids.iter().enumerate() {
        let at = page.find(&format!("<figure id=\"{id}\"")).unwrap();
        let end = page[at..].find("</figure>").unwrap() + at + "</figure>".len();
        // Placed absolutely, so a band's rows are the figure's whatever margins the page's style
        // gives the body and main.
        body.push_str(&format!(
            "<div style=\"position:absolute;left:0;top:{}px;width:{BAND_WIDTH}px;height:{BAND}px;overflow:hidden\">\n{}\n</div>\n",
            band * BAND,
            &page[at..end]
        ));
    }
    let path = dir.join("figures.html");
    let html = format!("{}\n{body}</main></body></html>\n", &page[..head_end]);
    std::fs::write(&path, html).unwrap();
    path
}

/// Each figure alone in its band shows the colours of its series in more rows than a legend has.
fn check_figures(chromium: &Path, dir: &Path, page: &str, figures: &[(&str, &[[u8; 3]])]) {
    let ids: Vec<&str> = figures.iter().map(|(id, _)| *id).collect();
    let alone = page_of_figures(dir, page, &ids);
    let shot = screenshot(chromium, dir, &alone, "figures", (BAND_WIDTH, (BAND * ids.len()) as u32));
    for (band, (id, colours)) in figures.iter().enumerate() {
        for colour in *colours {
            let rows = shot.rows_with(*colour, band * BAND..(band + 1) * BAND);
            // A legend's swatch is 14 rows high: more than 20 rows means bars (or points) too.
            assert!(rows > 20, "{id}: the screenshot shows {rows} rows with the series colour {colour:?}");
        }
    }
}

fn a_simulation_page_renders_its_charts_in_chromium(chromium: &Path) {
    let (rules, s) = (ruleset("frontiers.rules"), duel());
    let layout = sim::layout(&rules, &s).expect("the scenario fits");
    let batch = Batch { seed: s.seed, runs: 0..RUNS };
    let totals = sim::simulate(&rules, &s, &layout, &batch, Some(2), &|_| {}).expect("the batch plays");
    let summary = summary::summarise("frontiers.rules", s.seed, &layout, &totals);
    assert_eq!(summary.completed, RUNS);
    let page = html::sim_page(&summary).expect("the page draws");
    self_contained(&page);

    let dir = scratch("sim");
    let path = dir.join("sim.html");
    std::fs::write(&path, &page).unwrap();
    check_dom(chromium, &dir, &path, &SIM_CHARTS);

    let shot = screenshot(chromium, &dir, &path, "sim", (1200, 3000));
    assert!(shot.colours() > 20, "the screenshot is nearly blank ({} colours)", shot.colours());
    assert!(shot.count(BLUE) > 5_000, "too few bar pixels: {}", shot.count(BLUE));
    assert!(shot.count(ORANGE) > 500, "the pools chart's second series is missing");

    let figures: Vec<(&str, &[[u8; 3]])> = SIM_CHARTS
        .iter()
        .map(|&id| (id, if id == "chart-pools" { &[BLUE, ORANGE][..] } else { &[BLUE][..] }))
        .collect();
    check_figures(chromium, &dir, &page, &figures);
    let _ = std::fs::remove_dir_all(&dir);
}

fn a_comparison_page_renders_both_rulesets_and_the_differences_in_chromium(chromium: &Path) {
    let (a, b, s) = (ruleset("frontiers.rules"), ruleset("frontiers-two-ap.rules"), duel());
    let (la, lb) = (sim::layout(&a, &s).expect("A fits"), sim::layout(&b, &s).expect("B fits"));
    let batch = Batch { seed: s.seed, runs: 0..RUNS };
    let compared = compare::compare((&a, &b), (&s, &s), (&la, &lb), &batch, Some(2), &|_| {}).expect("the batch plays");
    let c = compare::summarise(("frontiers.rules", "frontiers-two-ap.rules"), s.seed, (&la, &lb), &compared);
    assert!(c.differences.iter().any(|d| d.marked), "two AP against three should differ somewhere");
    let page = html::compare_page(&c).expect("the page draws");
    self_contained(&page);
    assert!(page.contains("<tr class=\"marked\">"));

    let dir = scratch("compare");
    let path = dir.join("compare.html");
    std::fs::write(&path, &page).unwrap();
    let mut ids = SIM_CHARTS.to_vec();
    ids.push("chart-differences");
    check_dom(chromium, &dir, &path, &ids);

    let shot = screenshot(chromium, &dir, &path, "compare", (1200, 4000));
    assert!(shot.colours() > 20, "the screenshot is nearly blank ({} colours)", shot.colours());
    assert!(shot.count(BLUE) > 5_000 && shot.count(ORANGE) > 5_000, "A's or B's bars are missing");

    // A and B in each chart; the differences as blue points with whiskers.
    let mut figures: Vec<(&str, &[[u8; 3]])> = SIM_CHARTS.iter().map(|&id| (id, &[BLUE, ORANGE][..])).collect();
    figures.push(("chart-differences", &[BLUE]));
    check_figures(chromium, &dir, &page, &figures);
    let _ = std::fs::remove_dir_all(&dir);
}
