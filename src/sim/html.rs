//! The HTML report of `tempo sim --html` and `tempo compare --html`: one self-contained page
//! (inline style, inline SVG, no script, nothing fetched) with the summary's charts and tables.
//!
//! The charts are drawn by plotters' SVG backend; text in them is SVG `<text>`, laid out by the
//! browser, so no font is read at build or run time. Every name that comes from a ruleset or a
//! scenario is escaped: by [`escape`] in the HTML, by plotters in the SVG.
//!
//! Charts: outcome shares, encounter length, pool spent and lost per round, action uses per
//! encounter, each value with its 95% interval as a whisker; for a comparison, A and B as grouped
//! bars and a chart of the differences that are not noise. Each chart is a `<figure>` with an id
//! (`chart-outcomes`, `chart-length`, `chart-pools`, `chart-actions`, `chart-differences`); one
//! with nothing to draw holds a short note instead of an SVG.

use super::compare::{self, Comparison, Difference};
use super::stats::Estimate;
use super::summary::{self, Bar, Summary};
use plotters::prelude::*;
use std::fmt::Write as _;

/// Width of every chart, in pixels (the page scales it down on a narrow screen).
const WIDTH: u32 = 860;
const FONT: &str = "sans-serif";
/// Longest row label drawn in a chart, in characters (the tables have the whole name).
const LABEL_CHARS: usize = 40;
/// Values are clamped to this magnitude so that axis arithmetic stays finite.
const HUGE: f64 = 1e15;

const BLUE: RGBColor = RGBColor(49, 110, 180);
const ORANGE: RGBColor = RGBColor(230, 120, 20);
const INK: RGBColor = RGBColor(30, 30, 30);
const GRID: RGBColor = RGBColor(225, 225, 225);
const AXIS: RGBColor = RGBColor(150, 150, 150);

const STYLE: &str = "
body { font-family: sans-serif; color: #1e1e1e; margin: 0; background: #fafafa; }
main { max-width: 1800px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0; }
h2 { font-size: 1.2rem; margin: 1.8rem 0 0.5rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.4rem; }
p.meta { color: #555; margin: 0 0 1rem; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
figure { background: #fff; border: 1px solid #ddd; border-radius: 4px; margin: 0; padding: 0.6rem; max-width: 880px; flex: 1 1 600px; }
figcaption { font-weight: bold; margin-bottom: 0.4rem; }
figcaption span { font-weight: normal; color: #555; }
svg { max-width: 100%; height: auto; display: block; }
p.empty { color: #777; font-style: italic; margin: 1rem 0; }
p.warn { background: #fde8e8; border: 1px solid #e0a0a0; padding: 0.5rem; }
table { border-collapse: collapse; background: #fff; margin: 0.3rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tr.marked td { background: #fff4cc; font-weight: bold; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1.5rem; }
";

/// Text for HTML, in an element or an attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page for a simulation.
pub fn sim_page(s: &Summary) -> Result<String, String> {
    let title = titled(&summary::names(&[&s.ruleset, &s.scenario]), s.runs, &s.sets, &s.controls);
    let mut out = head(&title);
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        out,
        "<p class=\"meta\">Ruleset <b>{}</b>, scenario <b>{}</b>, {} encounters (seed {}), {} ran to the end. \
         Every estimate has its 95% interval (whiskers in the charts, brackets in the tables).</p>",
        escape(&s.ruleset),
        escape(&s.scenario),
        s.runs,
        s.seed,
        s.completed
    );
    changes_note(&mut out, &s.sets, &s.controls);
    failures_note(&mut out, "", s);
    out.push_str("<div class=\"charts\">\n");
    let one = |name: &str, items: Vec<(String, Estimate)>| grouped(&[(name, BLUE, items)]);

    let (labels, series) = one("share", outcome_items(s));
    let svg =
        bars_svg(&Rows { labels, series, axis: "share of completed encounters (%)", scale: 100.0, points: false })?;
    figure(
        &mut out,
        "chart-outcomes",
        "Outcome",
        "share of encounters, 95% interval",
        svg,
        "no encounter ran to the end",
    );

    let svg = histogram_svg(&[("encounters", BLUE, &s.rounds.histogram)])?;
    figure(
        &mut out,
        "chart-length",
        "Encounter length",
        "encounters by rounds played",
        svg,
        "no encounter ran to the end",
    );

    let spent = pool_items(s, |p| &p.spent_per_round, "");
    let lost = pool_items(s, |p| &p.lost_per_round, "");
    let (labels, series) = grouped(&[("spent per round", BLUE, spent), ("lost per round", ORANGE, lost)]);
    let svg = bars_svg(&Rows { labels, series, axis: "per round", scale: 1.0, points: false })?;
    figure(
        &mut out,
        "chart-pools",
        "Pool use per round",
        "spent, and left unspent and thrown away, per (who, pool), 95% interval",
        svg,
        "no pool was spent or lost",
    );

    let (labels, series) = one("uses", action_items(s));
    let svg = bars_svg(&Rows { labels, series, axis: "uses per encounter", scale: 1.0, points: false })?;
    figure(
        &mut out,
        "chart-actions",
        "Action use",
        "uses per encounter per (who, action), 95% interval",
        svg,
        "no action was used",
    );
    out.push_str("</div>\n");

    summary_tables(&mut out, s, "h2");
    if let Some(k) = &s.skill {
        skill_tables(&mut out, k);
    }
    out.push_str("</main>\n</body>\n</html>\n");
    Ok(out)
}

/// The skill report: a matrix per outcome, then the options under the strongest policies.
fn skill_tables(out: &mut String, k: &crate::sim::skill::Skill) {
    out.push_str("<h2 id=\"skill\">Skill sensitivity</h2>\n");
    let _ = writeln!(out, "<p class=\"meta\">{}</p>", escape(&crate::sim::skill::intro(k)));
    for t in crate::sim::skill::tables(k) {
        let _ = writeln!(out, "<h3>{}</h3>", escape(&t.title));
        let header: Vec<&str> = t.header.iter().map(String::as_str).collect();
        table(out, &header, &t.rows, None);
    }
}

/// `frontiers.rules, duel.ron: 1000 encounters (set: Brute.hp_max=30; control: heroes=Greedy)`,
/// the page's title and heading: two pages of different inputs never share a title.
fn titled(names: &str, runs: u64, sets: &[String], controls: &[String]) -> String {
    let changes = summary::changes(sets, controls);
    if changes.is_empty() {
        format!("{names}: {runs} encounters")
    } else {
        format!("{names}: {runs} encounters ({changes})")
    }
}

/// The `--set`s and `--control`s the batch was played under, when any was given.
fn changes_note(out: &mut String, sets: &[String], controls: &[String]) {
    let flags = |flag: &str, given: &[String]| -> Vec<String> {
        given.iter().map(|c| format!("<code>--{flag} {}</code>", escape(c))).collect()
    };
    if !sets.is_empty() {
        let _ = writeln!(out, "<p class=\"meta\">Played with {}.</p>", flags("set", sets).join(", "));
    }
    if !controls.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"meta\">Played with {} (in place of the scenario's controllers).</p>",
            flags("control", controls).join(", ")
        );
    }
}

/// The page for a comparison.
pub fn compare_page(c: &Comparison) -> Result<String, String> {
    let [la, lb] = &c.labels;
    let names = format!("{la} vs {lb}, {}", c.shared());
    let title = titled(&names, c.runs, &c.sets, &c.controls);
    let mut out = head(&title);
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} encounters each on the same seeds (seed {}); {} pairs ran to the end. \
         Every estimate has its 95% interval (whiskers in the charts, brackets in the tables).</p>",
        c.runs, c.seed, c.paired
    );
    changes_note(&mut out, &c.sets, &c.controls);
    failures_note(&mut out, &format!("{la}: "), &c.a);
    failures_note(&mut out, &format!("{lb}: "), &c.b);
    out.push_str("<div class=\"charts\">\n");
    let ab = |a: Vec<(String, Estimate)>, b: Vec<(String, Estimate)>| grouped(&[(la, BLUE, a), (lb, ORANGE, b)]);

    let (labels, series) = ab(outcome_items(&c.a), outcome_items(&c.b));
    let svg =
        bars_svg(&Rows { labels, series, axis: "share of completed encounters (%)", scale: 100.0, points: false })?;
    figure(
        &mut out,
        "chart-outcomes",
        "Outcome",
        "share of encounters, both sides, 95% interval",
        svg,
        "no encounter ran to the end",
    );

    let svg = histogram_svg(&[(la, BLUE, &c.a.rounds.histogram), (lb, ORANGE, &c.b.rounds.histogram)])?;
    figure(
        &mut out,
        "chart-length",
        "Encounter length",
        "encounters by rounds played, both sides",
        svg,
        "no encounter ran to the end",
    );

    let pools = |s: &Summary| {
        let mut items = pool_items(s, |p| &p.spent_per_round, " · spent");
        items.extend(pool_items(s, |p| &p.lost_per_round, " · lost"));
        items
    };
    let (labels, series) = ab(pools(&c.a), pools(&c.b));
    let svg = bars_svg(&Rows { labels, series, axis: "per round", scale: 1.0, points: false })?;
    figure(
        &mut out,
        "chart-pools",
        "Pool use per round",
        "spent, and left unspent and thrown away, per (who, pool), both sides, 95% interval",
        svg,
        "no pool was spent or lost",
    );

    let (labels, series) = ab(action_items(&c.a), action_items(&c.b));
    let svg = bars_svg(&Rows { labels, series, axis: "uses per encounter", scale: 1.0, points: false })?;
    figure(
        &mut out,
        "chart-actions",
        "Action use",
        "uses per encounter per (who, action), both sides, 95% interval",
        svg,
        "no action was used",
    );

    let difference = c.b_minus_a("−");
    differences_figure(&mut out, &c.differences, &difference)?;
    out.push_str("</div>\n");

    let _ = writeln!(out, "<h2>Differences {}</h2>", escape(&difference));
    let _ = writeln!(
        out,
        "<p>What {} changes, per encounter; <code>outcome/…</code> and <code>…/ever</code> are shares. \
         Marked rows (*) are not noise at 95%: for shares, the exact McNemar test gives \
         p &lt; 0.05 (the interval, which is approximate, is not used); for the rest, the interval \
         of the difference leaves out 0.</p>",
        escape(lb)
    );
    let rows = compare::difference_rows(c);
    let marked: Vec<bool> = c.differences.iter().map(|d| d.marked).collect();
    table(&mut out, &["metric", la, lb, &difference, "McNemar p", ""], &rows, Some(&marked));

    out.push_str("<div class=\"cols\">\n");
    for (label, s) in [(la, &c.a), (lb, &c.b)] {
        let _ = writeln!(out, "<section>\n<h2>{}</h2>", escape(label));
        summary_tables(&mut out, s, "h3");
        out.push_str("</section>\n");
    }
    out.push_str("</div>\n</main>\n</body>\n</html>\n");
    Ok(out)
}

pub(crate) fn head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        escape(title)
    )
}

fn failures_note(out: &mut String, label: &str, s: &Summary) {
    if s.failures.is_empty() {
        return;
    }
    let failed: u64 = s.failures.iter().map(|f| f.count).sum();
    let _ = writeln!(
        out,
        "<p class=\"warn\">{}{failed} of {} runs failed and are left out of every estimate. \
         Replay one with <code>tempo run RULES SCENARIO --seed SEED</code>.</p>",
        escape(label),
        s.runs
    );
    let t = summary::failures_table(s);
    table(out, t.header, &t.rows, None);
}

/// One chart in its figure, or the note that says there was nothing to draw.
fn figure(out: &mut String, id: &str, caption: &str, detail: &str, svg: Option<String>, empty: &str) {
    let _ = writeln!(
        out,
        "<figure id=\"{}\">\n<figcaption>{} <span>({})</span></figcaption>",
        escape(id),
        escape(caption),
        escape(detail)
    );
    match svg {
        Some(svg) => out.push_str(&svg),
        None => {
            let _ = write!(out, "<p class=\"empty\">Nothing to draw: {}.</p>", escape(empty));
        }
    }
    out.push_str("\n</figure>\n");
}

/// The marked differences with their intervals around a zero line: shares in percentage points,
/// the other counts per encounter (two scales, so two charts).
fn differences_figure(out: &mut String, differences: &[Difference], name: &str) -> Result<(), String> {
    let marked: Vec<&Difference> = differences.iter().filter(|d| d.marked).collect();
    let unmarked = differences.len() - marked.len();
    let _ = writeln!(
        out,
        "<figure id=\"chart-differences\">\n<figcaption>Differences {} \
         <span>(those that are not noise at 95%, with their intervals; right of 0: B has more)</span></figcaption>",
        escape(name)
    );
    if marked.is_empty() {
        out.push_str("<p class=\"empty\">Nothing to draw: no difference is beyond noise at 95%.</p>\n");
    }
    let (points, per_encounter) = (format!("{name} (percentage points)"), format!("{name} (per encounter)"));
    for (shares, heading, axis, scale) in [
        (true, "Shares (outcomes, conditions ever applied)", points.as_str(), 100.0),
        (false, "Per encounter (rounds, turns, pools, actions, reactions, conditions)", per_encounter.as_str(), 1.0),
    ] {
        let items: Vec<(String, Estimate)> =
            marked.iter().filter(|d| d.p_value.is_some() == shares).map(|d| (d.metric.clone(), d.difference)).collect();
        if items.is_empty() {
            continue;
        }
        let (labels, series) = grouped(&[(name, BLUE, items)]);
        if let Some(svg) = bars_svg(&Rows { labels, series, axis, scale, points: true })? {
            let _ = writeln!(out, "<h3>{}</h3>", escape(heading));
            out.push_str(&svg);
            out.push('\n');
        }
    }
    if unmarked > 0 {
        let _ = writeln!(out, "<p class=\"empty\">{unmarked} more within noise: see the table.</p>");
    }
    out.push_str("</figure>\n");
    Ok(())
}

fn outcome_items(s: &Summary) -> Vec<(String, Estimate)> {
    s.outcomes.iter().map(|o| (o.outcome.clone(), o.share)).collect()
}

fn pool_items(s: &Summary, field: impl Fn(&summary::PoolRow) -> &Estimate, suffix: &str) -> Vec<(String, Estimate)> {
    s.pools.iter().map(|p| (format!("{} · {}{suffix}", p.who, p.pool), *field(p))).collect()
}

fn action_items(s: &Summary) -> Vec<(String, Estimate)> {
    s.actions.iter().map(|a| (format!("{} · {}", a.who, a.action), a.uses)).collect()
}

/// A series' name, colour and (row, estimate) pairs.
type List<'a> = (&'a str, RGBColor, Vec<(String, Estimate)>);

/// Rows of a bar chart from named lists of (row, estimate): every row any list has, in the
/// order they first appear; a list without a row draws nothing there.
fn grouped(lists: &[List]) -> (Vec<String>, Vec<Series>) {
    let mut labels: Vec<String> = Vec::new();
    for (_, _, items) in lists {
        for (label, _) in items {
            if !labels.contains(label) {
                labels.push(label.clone());
            }
        }
    }
    let series = lists
        .iter()
        .map(|(name, color, items)| Series {
            name: (*name).to_string(),
            color: *color,
            values: labels.iter().map(|l| items.iter().find(|(k, _)| k == l).map(|(_, e)| *e)).collect(),
        })
        .collect();
    (labels, series)
}

struct Series {
    name: String,
    color: RGBColor,
    /// One per row.
    values: Vec<Option<Estimate>>,
}

/// A horizontal bar chart: a row per label, a bar (or a point) per series in each row, with the
/// 95% interval as a whisker.
struct Rows<'a> {
    labels: Vec<String>,
    series: Vec<Series>,
    axis: &'a str,
    /// Values are multiplied by this (100 for shares shown in %).
    scale: f64,
    /// A point instead of a bar from 0 (differences).
    points: bool,
}

fn finite(x: f64) -> f64 {
    if x.is_finite() {
        x.clamp(-HUGE, HUGE)
    } else {
        0.0
    }
}

/// The estimate scaled, with low ≤ value ≤ high and every number finite.
fn scaled(e: &Estimate, scale: f64) -> (f64, f64, f64) {
    let v = finite(finite(e.value) * scale);
    let lo = finite(finite(e.low) * scale);
    let hi = finite(finite(e.high) * scale);
    (lo.min(v), v, hi.max(v))
}

fn short(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(LABEL_CHARS - 1).collect();
        s.push('…');
        s
    }
}

/// A number for an axis tick or a bar's label: up to two decimals, without trailing zeros.
fn tick(x: f64) -> String {
    if x.abs() >= 1e6 {
        return format!("{x:.3e}");
    }
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A linear f64 axis whose ticks are exactly the given points: the middle of each row of a bar
/// chart, or whole numbers of rounds (plotters' own f64 axis picks its ticks itself).
struct Ticks {
    range: std::ops::Range<f64>,
    points: Vec<f64>,
}

impl Ranged for Ticks {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        plotters::coord::types::RangedCoordf64::from(self.range.clone()).map(value, limit)
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.points.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

fn draw_error<E: std::fmt::Display>(e: E) -> String {
    format!("drawing a chart: {e}")
}

/// A legend in a strip along the top: a swatch and a name per series.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    series: &[(String, RGBColor)],
) -> Result<(), String> {
    let mut x = 12;
    for (name, color) in series {
        area.draw(&Rectangle::new([(x, 6), (x + 14, 20)], color.filled())).map_err(draw_error)?;
        let name = short(name);
        area.draw(&Text::new(name.clone(), (x + 20, 7), (FONT, 15).into_font().color(&INK))).map_err(draw_error)?;
        x += 20 + 9 * i32::try_from(name.chars().count()).unwrap_or(40) + 24;
    }
    Ok(())
}

fn bars_svg(c: &Rows) -> Result<Option<String>, String> {
    let n = c.labels.len();
    let drawn = c.series.iter().any(|s| s.values.iter().any(Option::is_some));
    if n == 0 || !drawn {
        return Ok(None);
    }
    let k = c.series.len().max(1);
    let many = c.series.len() > 1;
    // Pixels per row; the whole chart grows with the rows (capped so that a huge ruleset still
    // gives a page a browser can hold).
    let band = 14 + 16 * k as u32;
    let legend_h = if many { 28 } else { 0 };
    let height = (legend_h + 70u32).saturating_add(band.saturating_mul(n.min(4000) as u32)).min(60_000);

    let (mut lo, mut hi) = (0.0_f64, 0.0_f64);
    for s in &c.series {
        for e in s.values.iter().flatten() {
            let (l, _, h) = scaled(e, c.scale);
            lo = lo.min(l);
            hi = hi.max(h);
        }
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let span = hi - lo;
    // Room on the right for the value printed beside each whisker.
    let x_range = (if lo < 0.0 { lo - 0.05 * span } else { lo })..(hi + 0.22 * span);
    let label_w = c.labels.iter().map(|l| short(l).chars().count()).max().unwrap_or(1) as u32 * 8 + 16;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let (top, area) = root.split_vertically(legend_h);
        if many {
            let names: Vec<(String, RGBColor)> = c.series.iter().map(|s| (s.name.clone(), s.color)).collect();
            legend(&top, &names)?;
        }
        let nf = n as f64;
        let keys: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&area)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(44)
            .y_label_area_size(label_w.min(WIDTH / 2))
            .build_cartesian_2d(x_range, Ticks { range: 0.0..nf, points: keys })
            .map_err(draw_error)?;
        let labels = &c.labels;
        let row_label = |v: &f64| {
            let i = (nf - v).floor();
            if i >= 0.0 {
                labels.get(i as usize).map(|l| short(l)).unwrap_or_default()
            } else {
                String::new()
            }
        };
        let x_label = |v: &f64| tick(*v);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_labels(8)
            .x_desc(c.axis)
            .x_label_formatter(&x_label)
            .y_label_formatter(&row_label)
            .label_style((FONT, 14).into_font().color(&INK))
            .axis_desc_style((FONT, 15).into_font().color(&INK))
            .axis_style(AXIS)
            .bold_line_style(GRID)
            .light_line_style(WHITE)
            .draw()
            .map_err(draw_error)?;
        if lo < 0.0 {
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(0.0, 0.0), (0.0, nf)], INK.stroke_width(1))))
                .map_err(draw_error)?;
        }
        let h = 0.8 / k as f64;
        let whisker = INK.stroke_width(2);
        for (j, s) in c.series.iter().enumerate() {
            let mut bars = Vec::new();
            let mut lines = Vec::new();
            let mut dots = Vec::new();
            let mut texts = Vec::new();
            for (i, e) in s.values.iter().enumerate().take(4000) {
                let Some(e) = e else { continue };
                let (l, v, hv) = scaled(e, c.scale);
                let top_y = (nf - i as f64) - 0.1 - j as f64 * h;
                let mid = top_y - h / 2.0;
                let cap = h * 0.25;
                if c.points {
                    dots.push(Circle::new((v, mid), 5, s.color.filled()));
                } else {
                    bars.push(Rectangle::new([(0.0, top_y - h * 0.08), (v, top_y - h * 0.92)], s.color.filled()));
                }
                lines.push(PathElement::new(vec![(l, mid), (hv, mid)], whisker));
                lines.push(PathElement::new(vec![(l, mid - cap), (l, mid + cap)], whisker));
                lines.push(PathElement::new(vec![(hv, mid - cap), (hv, mid + cap)], whisker));
                let text = if c.scale == 100.0 { format!("{}%", tick(v)) } else { tick(v) };
                texts.push(
                    EmptyElement::at((hv.max(v), mid)) + Text::new(text, (8, -7), (FONT, 13).into_font().color(&INK)),
                );
            }
            chart.draw_series(bars).map_err(draw_error)?;
            chart.draw_series(lines).map_err(draw_error)?;
            chart.draw_series(dots).map_err(draw_error)?;
            chart.draw_series(texts).map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    Ok(Some(svg))
}

/// A step of 1, 2 or 5 times a power of ten that cuts `span` into at most `most` pieces.
fn nice_step(span: u64, most: u64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            let s = step.saturating_mul(m);
            if span.div_ceil(s) <= most || s == u64::MAX {
                return s.max(1);
            }
        }
        step = step.saturating_mul(10);
    }
}

/// Encounter length: a bar per number of rounds (one per series side by side).
fn histogram_svg(series: &[(&str, RGBColor, &[Bar])]) -> Result<Option<String>, String> {
    let values = || series.iter().flat_map(|(_, _, bars)| bars.iter());
    let (Some(min), Some(max)) = (values().map(|b| b.value).min(), values().map(|b| b.value).max()) else {
        return Ok(None);
    };
    let top = values().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    let many = series.len() > 1;
    let legend_h = if many { 28 } else { 0 };
    let height = 360 + legend_h;
    // A few lengths get an empty bin on each side, so that bars look like bars, not a wall.
    let (min, max) = (u64::from(min), u64::from(max));
    let (min, max) = if max - min < 6 { (min.saturating_sub(1), max + 1) } else { (min, max) };
    let step = nice_step(max - min + 1, 16);
    let first = min.div_ceil(step) * step;
    let keys: Vec<f64> = (0..=16u64)
        .map(|i| first.saturating_add(i.saturating_mul(step)))
        .take_while(|v| *v <= max)
        .map(|v| v as f64)
        .collect();
    let bars_drawn: usize = series.iter().map(|(_, _, b)| b.len()).sum();
    let count_w = format!("{}", top as u64).len() as u32 * 9 + 30;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let (legend_area, area) = root.split_vertically(legend_h);
        if many {
            let names: Vec<(String, RGBColor)> = series.iter().map(|(n, c, _)| ((*n).to_string(), *c)).collect();
            legend(&legend_area, &names)?;
        }
        let x_range = (min as f64 - 0.5)..(max as f64 + 0.5);
        let mut chart = ChartBuilder::on(&area)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(44)
            .y_label_area_size(count_w.min(200))
            .build_cartesian_2d(Ticks { range: x_range, points: keys }, 0.0..top * 1.12)
            .map_err(draw_error)?;
        let x_label = |v: &f64| format!("{v:.0}");
        let y_label = |v: &f64| if (v - v.round()).abs() < 1e-9 { format!("{v:.0}") } else { String::new() };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_labels(6)
            .x_desc("rounds played")
            .y_desc("encounters")
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .label_style((FONT, 14).into_font().color(&INK))
            .axis_desc_style((FONT, 15).into_font().color(&INK))
            .axis_style(AXIS)
            .bold_line_style(GRID)
            .light_line_style(WHITE)
            .draw()
            .map_err(draw_error)?;
        let k = series.len().max(1) as f64;
        for (j, (_, color, bars)) in series.iter().enumerate() {
            let w = 0.84 / k;
            let rects = bars.iter().map(|b| {
                let x0 = f64::from(b.value) - 0.42 + j as f64 * w;
                Rectangle::new([(x0, 0.0), (x0 + w, b.count as f64)], color.filled())
            });
            chart.draw_series(rects).map_err(draw_error)?;
            if bars_drawn <= 24 {
                let texts = bars.iter().map(|b| {
                    let x = f64::from(b.value) - 0.42 + (j as f64 + 0.5) * w;
                    EmptyElement::at((x, b.count as f64))
                        + Text::new(
                            b.count.to_string(),
                            (0, -4),
                            (FONT, 13).into_font().color(&INK).pos(plotters::style::text_anchor::Pos::new(
                                plotters::style::text_anchor::HPos::Center,
                                plotters::style::text_anchor::VPos::Bottom,
                            )),
                        )
                });
                chart.draw_series(texts).map_err(draw_error)?;
            }
        }
        root.present().map_err(draw_error)?;
    }
    Ok(Some(svg))
}

/// An HTML table; every cell escaped. `marked` rows get the class `marked`.
pub(crate) fn table(out: &mut String, header: &[&str], rows: &[Vec<String>], marked: Option<&[bool]>) {
    out.push_str("<table>\n<thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, row) in rows.iter().enumerate() {
        let mark = marked.and_then(|m| m.get(i)).copied().unwrap_or(false);
        out.push_str(if mark { "<tr class=\"marked\">" } else { "<tr>" });
        for cell in row {
            let _ = write!(out, "<td>{}</td>", escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// The summary's tables, as `summary::to_text` gives them, under headings of level `h`.
fn summary_tables(out: &mut String, s: &Summary, h: &str) {
    for t in summary::tables(s) {
        let _ = writeln!(out, "<{h}>{}</{h}>", escape(t.title));
        table(out, t.header, &t.rows, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::summary::{ActionRow, FailureRow, OutcomeRow, PoolRow, Reactions, Rounds};

    fn e(value: f64, low: f64, high: f64) -> Estimate {
        Estimate { value, low, high }
    }

    fn empty(name: &str) -> Summary {
        let zero = e(0.0, 0.0, 0.0);
        Summary {
            format: summary::FORMAT,
            ruleset: name.into(),
            scenario: "duel.ron".into(),
            seed: 0,
            runs: 0,
            completed: 0,
            failures: vec![],
            outcomes: vec![],
            outcomes_by_first_side: vec![],
            rounds: Rounds { mean: zero, median: 0, p10: 0, p90: 0, min: 0, max: 0, histogram: vec![] },
            turns: vec![],
            pools: vec![],
            actions: vec![],
            refusals: vec![],
            reactions: Reactions {
                per_encounter: zero,
                per_round: zero,
                chains_per_encounter: zero,
                chain_lengths: vec![],
            },
            conditions: vec![],
            sets: vec![],
            controls: vec![],
            skill: None,
            notes: Vec::new(),
        }
    }

    const HOSTILE: &str = "<script>alert('x')</script> & \"q\"";

    fn full(name: &str) -> Summary {
        let mut s = empty(name);
        s.runs = 1000;
        s.completed = 990;
        s.failures.push(FailureRow {
            code: "E<1>".into(),
            count: 10,
            first_seed: 3,
            first_run: 4,
            message: HOSTILE.into(),
        });
        s.outcomes = vec![
            OutcomeRow { outcome: "heroes win".into(), count: 600, share: e(0.6, 0.57, 0.63) },
            OutcomeRow { outcome: HOSTILE.into(), count: 390, share: e(0.39, 0.36, 0.42) },
        ];
        s.rounds.histogram = vec![Bar { value: 2, count: 400 }, Bar { value: 3, count: 590 }];
        s.pools.push(PoolRow {
            who: HOSTILE.into(),
            pool: "ap".into(),
            spent: e(3.0, 2.9, 3.1),
            spent_per_round: e(1.5, 1.4, 1.6),
            spent_per_turn: e(1.5, 1.4, 1.6),
            lost: e(1.0, 0.9, 1.1),
            lost_per_round: e(0.5, 0.4, 0.6),
            overspends: e(0.0, 0.0, 0.0),
        });
        s.actions.push(ActionRow {
            who: "A".into(),
            action: HOSTILE.into(),
            kind: "action".into(),
            uses: e(2.0, 1.8, 2.2),
        });
        s
    }

    /// The markup of the figure with this id, up to its end.
    fn figure_of<'a>(page: &'a str, id: &str) -> &'a str {
        let at = page.find(&format!("<figure id=\"{id}\"")).unwrap_or_else(|| panic!("no figure {id}"));
        let end = page[at..].find("</figure>").expect("the figure ends") + at;
        &page[at..end]
    }

    const SIM_CHARTS: [&str; 4] = ["chart-outcomes", "chart-length", "chart-pools", "chart-actions"];

    #[test]
    fn escaping_covers_markup_characters() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
        assert_eq!(escape("plain · text"), "plain · text");
    }

    #[test]
    fn names_are_escaped_in_html_and_svg() {
        for page in [sim_page(&full(HOSTILE)).unwrap(), compare_page(&comparison()).unwrap()] {
            assert!(!page.contains("<script"), "a name reached the page unescaped");
            assert!(page.contains("&lt;script&gt;"));
            assert!(!page.contains("\"q\""));
        }
    }

    #[test]
    fn the_skill_report_is_a_table_per_outcome_with_names_escaped() {
        use crate::sim::summary::{Cell, OptionRow, Skill};
        let mut s = full("r");
        let outcomes = |count: u64| {
            vec![OutcomeRow { outcome: format!("{HOSTILE} left standing"), count, share: e(0.5, 0.4, 0.6) }]
        };
        let cell = |p: &str, q: &str, count| Cell {
            policies: vec![p.into(), q.into()],
            completed: 10,
            outcomes: outcomes(count),
        };
        s.skill = Some(Skill {
            sides: vec![HOSTILE.into(), "b".into()],
            policies: vec![vec!["Greedy".into()], vec!["Greedy".into(), "Random".into()]],
            runs: 10,
            cells: vec![cell("Greedy", "Greedy", 5), cell("Greedy", "Random", 5)],
            options: vec![OptionRow {
                side: HOSTILE.into(),
                action: "jab".into(),
                kind: "action".into(),
                affordable: 4,
                chosen: 0,
                share: e(0.0, 0.0, 0.49),
                verdict: "dead".into(),
            }],
        });
        let page = sim_page(&s).unwrap();
        assert!(!page.contains("<script"), "a name reached the page unescaped");
        let at = page.find("<h2 id=\"skill\">").expect("a skill section");
        let section = &page[at..];
        assert_eq!(section.matches("<table>").count(), 2, "one outcome's matrix and the options: {section}");
        assert!(section.contains("<th>Greedy</th><th>Random</th>"), "{section}");
        assert!(section.contains("<td>dead</td>"), "{section}");
    }

    #[test]
    fn an_empty_summary_draws_notes_not_charts() {
        let page = sim_page(&empty("")).unwrap();
        for id in SIM_CHARTS {
            let f = figure_of(&page, id);
            assert!(f.contains("Nothing to draw"), "{id}: {f}");
            assert!(!f.contains("<svg"), "{id}");
        }
        let c = Comparison {
            format: 1,
            scenario: "duel.ron".into(),
            scenario_b: String::new(),
            labels: ["a".into(), "b".into()],
            seed: 0,
            runs: 0,
            paired: 0,
            a: empty("a"),
            b: empty("b"),
            differences: vec![],
            sets: vec![],
            controls: vec![],
        };
        let page = compare_page(&c).unwrap();
        for id in SIM_CHARTS.iter().chain(&["chart-differences"]) {
            assert!(figure_of(&page, id).contains("Nothing to draw"), "{id}");
        }
    }

    #[test]
    fn each_chart_has_an_svg_with_shapes() {
        let page = sim_page(&full("r")).unwrap();
        assert!(page.starts_with("<!doctype html>") && page.ends_with("</html>\n"));
        assert!(page.contains("class=\"warn\""), "the failures note");
        for id in SIM_CHARTS {
            let f = figure_of(&page, id);
            assert!(f.contains("<figcaption>"), "{id}");
            assert!(f.contains("<svg") && f.contains("</svg>"), "{id}");
            assert!(f.contains("<rect") && f.contains("<text"), "{id}");
        }
        // The whiskers: a line per interval and one per cap.
        assert!(figure_of(&page, "chart-outcomes").matches("<polyline").count() >= 6);
    }

    fn comparison() -> Comparison {
        let d = |metric: &str, diff: Estimate, p_value: Option<f64>, marked| Difference {
            metric: metric.into(),
            a: 1.0,
            b: 1.0,
            difference: diff,
            p_value,
            marked,
        };
        let mut b = full("b");
        b.actions[0].action = "other".into();
        Comparison {
            format: 1,
            scenario: "duel.ron".into(),
            scenario_b: String::new(),
            labels: [HOSTILE.into(), "b.rules".into()],
            seed: 7,
            runs: 1000,
            paired: 990,
            a: full(HOSTILE),
            b,
            differences: vec![
                d("outcome/heroes win", e(0.05, 0.02, 0.08), Some(0.001), true),
                d("rounds", e(-0.3, -0.4, -0.2), None, true),
                d(HOSTILE, e(0.0, -0.1, 0.1), None, false),
            ],
            sets: vec![],
            controls: vec![],
        }
    }

    #[test]
    fn a_comparison_draws_both_and_the_differences() {
        let page = compare_page(&comparison()).unwrap();
        for id in SIM_CHARTS.iter().chain(&["chart-differences"]) {
            let f = figure_of(&page, id);
            assert!(f.contains("<svg") && f.contains("<text"), "{id}");
        }
        // Two series (A and B) in the same colours as their legend.
        let outcomes = figure_of(&page, "chart-outcomes");
        assert!(outcomes.contains("fill=\"#316EB4\"") && outcomes.contains("fill=\"#E67814\""));
        // Two marked differences on two scales, the third listed only in the table.
        let d = figure_of(&page, "chart-differences");
        assert_eq!(d.matches("<svg").count(), 2);
        assert!(d.contains("1 more within noise"));
        assert_eq!(page.matches("<tr class=\"marked\">").count(), 2);
    }

    #[test]
    fn odd_numbers_draw_without_panicking() {
        let mut s = full("r");
        s.outcomes[0].share = e(f64::NAN, f64::NEG_INFINITY, f64::INFINITY);
        s.outcomes[1].share = e(1e300, -1e300, f64::MAX);
        s.rounds.histogram =
            vec![Bar { value: 0, count: u64::MAX }, Bar { value: u32::MAX, count: 1 }, Bar { value: 7, count: 0 }];
        s.pools[0].spent_per_round = e(0.0, 0.0, 0.0);
        s.pools[0].lost_per_round = e(0.0, 0.0, 0.0);
        s.actions[0].uses = e(-5.0, 3.0, -7.0);
        let page = sim_page(&s).unwrap();
        for id in SIM_CHARTS {
            let f = figure_of(&page, id);
            assert!(f.contains("<svg"), "{id}");
            // (The tables print what the summary holds; the charts draw finite numbers only.)
            assert!(!f.contains("NaN") && !f.contains("inf"), "{id}");
        }
        s.rounds.histogram = vec![Bar { value: u32::MAX, count: u64::MAX }];
        s.actions = (0..300)
            .map(|i| ActionRow {
                who: "w".repeat(200),
                action: i.to_string(),
                kind: String::new(),
                uses: e(1.0, 0.0, 2.0),
            })
            .collect();
        sim_page(&s).unwrap();
    }
}
