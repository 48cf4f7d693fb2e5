//! The HTML page of `tempo sweep --html`: self-contained like `sim`'s. One range: each outcome's
//! share against the value, with its 95% interval as a band (`chart-sweep`); two ranges: a heat
//! map of the first outcome's share over the grid (`chart-grid`). Then the table of points.

use super::super::html::{escape, head, table};
use super::super::summary;
use super::report::{self, Sweep};
use plotters::prelude::*;
use std::fmt::Write as _;

const WIDTH: u32 = 860;
const HEIGHT: u32 = 480;
const FONT: &str = "sans-serif";
const INK: RGBColor = RGBColor(30, 30, 30);
const GRID: RGBColor = RGBColor(225, 225, 225);
const AXIS: RGBColor = RGBColor(150, 150, 150);
/// One colour per outcome, in order (repeated past the last).
const COLORS: [RGBColor; 5] = [
    RGBColor(49, 110, 180),
    RGBColor(230, 120, 20),
    RGBColor(60, 150, 80),
    RGBColor(180, 60, 60),
    RGBColor(130, 90, 170),
];

fn draw_error<E: std::fmt::Display>(e: E) -> String {
    format!("drawing a chart: {e}")
}

/// The page for a sweep.
pub fn page(s: &Sweep) -> Result<String, String> {
    let title = format!("{}, {}: sweep of {}", s.ruleset, s.scenario, s.ranges.join(" by "));
    let mut out = head(&title);
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} points, {} encounters each on the same seeds (seed {}). Shares with their 95% \
         interval.</p>",
        s.points.len(),
        s.runs,
        s.seed
    );
    for (what, given) in [("--set", &s.sets), ("--control", &s.controls)] {
        if !given.is_empty() {
            let list: Vec<String> = given.iter().map(|g| format!("<code>{what} {}</code>", escape(g))).collect();
            let _ = writeln!(out, "<p class=\"meta\">Every point played with {}.</p>", list.join(", "));
        }
    }
    let svg = match s.parameters.len() {
        1 => line_svg(s)?,
        _ => grid_svg(s)?,
    };
    let (id, caption) = if s.parameters.len() == 1 {
        ("chart-sweep", "Outcome shares against the value, 95% interval as a band")
    } else {
        ("chart-grid", "The first outcome's share over the grid")
    };
    let _ = writeln!(out, "<figure id=\"{id}\">\n<figcaption>{}</figcaption>", escape(caption));
    match svg {
        Some(svg) => out.push_str(&svg),
        None => out.push_str("<p class=\"empty\">Nothing to draw: no point ran to the end.</p>"),
    }
    out.push_str("\n</figure>\n");
    if let Some(t) = &s.target {
        let mut said = String::new();
        report::target_text(&mut said, s, t);
        let _ = writeln!(out, "<p id=\"target\"><b>{}</b></p>", escape(said.trim()).replace('\n', "<br>"));
    }
    out.push_str("<h2>Points</h2>\n");
    let text_rows = rows(s);
    let header: Vec<&str> = text_rows.0.iter().map(String::as_str).collect();
    table(&mut out, &header, &text_rows.1, None);
    out.push_str("</main>\n</body>\n</html>\n");
    Ok(out)
}

fn outcomes(s: &Sweep) -> Vec<String> {
    report::seen_outcomes(s)
}

fn rows(s: &Sweep) -> (Vec<String>, Vec<Vec<String>>) {
    let names = outcomes(s);
    let mut header = s.parameters.clone();
    header.extend(names.iter().cloned());
    header.push("rounds".into());
    let rows = s
        .points
        .iter()
        .map(|p| {
            let mut row: Vec<String> =
                s.parameters.iter().map(|n| p.set.get(n).map(i64::to_string).unwrap_or_default()).collect();
            for n in &names {
                let share = p.summary.outcomes.iter().find(|o| &o.outcome == n).map(|o| &o.share);
                row.push(share.map(summary::show_share).unwrap_or_default());
            }
            row.push(summary::show(&p.summary.rounds.mean));
            row
        })
        .collect();
    (header, rows)
}

/// A point of a line: (value, low, share, high), the share in %.
type At = (f64, f64, f64, f64);

/// The share of `outcome` at each point.
fn series(s: &Sweep, outcome: &str) -> Vec<At> {
    let name = s.parameters.first().cloned().unwrap_or_default();
    s.points
        .iter()
        .filter(|p| p.summary.completed > 0)
        .filter_map(|p| {
            let x = *p.set.get(&name)? as f64;
            let o = p.summary.outcomes.iter().find(|o| o.outcome == outcome)?;
            Some((x, o.share.low * 100.0, o.share.value * 100.0, o.share.high * 100.0))
        })
        .collect()
}

fn line_svg(s: &Sweep) -> Result<Option<String>, String> {
    let names = outcomes(s);
    let all: Vec<(String, Vec<At>)> = names.iter().map(|n| (n.clone(), series(s, n))).collect();
    let xs: Vec<f64> = all.iter().flat_map(|(_, v)| v.iter().map(|p| p.0)).collect();
    let (Some(lo), Some(hi)) = (xs.iter().copied().reduce(f64::min), xs.iter().copied().reduce(f64::max)) else {
        return Ok(None);
    };
    let pad = if hi > lo { (hi - lo) * 0.03 } else { 0.5 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d((lo - pad)..(hi + pad), 0.0..100.0)
            .map_err(draw_error)?;
        let x_desc = s.parameters.first().cloned().unwrap_or_default();
        // The values swept are whole numbers: no tick between two of them.
        let whole = |v: &f64| if v.fract() == 0.0 { format!("{v:.0}") } else { String::new() };
        chart
            .configure_mesh()
            .x_label_formatter(&whole)
            .x_desc(x_desc)
            .y_desc("share of completed encounters (%)")
            .label_style((FONT, 14).into_font().color(&INK))
            .axis_desc_style((FONT, 15).into_font().color(&INK))
            .axis_style(AXIS)
            .bold_line_style(GRID)
            .light_line_style(WHITE)
            .draw()
            .map_err(draw_error)?;
        for (i, (name, pts)) in all.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let mut band: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.3)).collect();
            band.extend(pts.iter().rev().map(|p| (p.0, p.1)));
            chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.2).filled()))).map_err(draw_error)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    pts.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>(),
                    color.stroke_width(2),
                )))
                .map_err(draw_error)?
                .label(name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
            chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.2), 4, color.filled()))).map_err(draw_error)?;
        }
        if let Some(t) = &s.target {
            let y = t.share * 100.0;
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(lo - pad, y), (hi + pad, y)], INK.stroke_width(1))))
                .map_err(draw_error)?
                .label(format!("target {}%", summary::num(y)))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], INK.stroke_width(1)));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(AXIS)
            .label_font((FONT, 14).into_font().color(&INK))
            .draw()
            .map_err(draw_error)?;
        root.present().map_err(draw_error)?;
    }
    Ok(Some(svg))
}

/// A heat map of the first outcome's share: rows the first range, columns the second.
fn grid_svg(s: &Sweep) -> Result<Option<String>, String> {
    let Some(outcome) = outcomes(s).into_iter().next() else { return Ok(None) };
    let (Some(rn), Some(cn)) = (s.parameters.first(), s.parameters.get(1)) else { return Ok(None) };
    let mut rows: Vec<i64> = s.points.iter().filter_map(|p| p.set.get(rn).copied()).collect();
    let mut cols: Vec<i64> = s.points.iter().filter_map(|p| p.set.get(cn).copied()).collect();
    rows.dedup();
    cols.sort_unstable();
    cols.dedup();
    let (nr, nc) = (rows.len().min(200), cols.len().min(200));
    if nr == 0 || nc == 0 {
        return Ok(None);
    }
    let cell = ((WIDTH - 120) / nc as u32).clamp(4, 90);
    let height = (cell * nr as u32 + 110).min(20_000);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let (x0, y0) = (100i32, 40i32);
        let c = i32::try_from(cell).unwrap_or(4);
        let title = format!("{outcome}: share (%) by {rn} (rows) and {cn} (columns)");
        root.draw(&Text::new(title, (10, 10), (FONT, 15).into_font().color(&INK))).map_err(draw_error)?;
        for p in &s.points {
            let (Some(r), Some(col)) = (p.set.get(rn), p.set.get(cn)) else { continue };
            let (Some(i), Some(j)) = (rows.iter().position(|x| x == r), cols.iter().position(|x| x == col)) else {
                continue;
            };
            if i >= nr || j >= nc {
                continue;
            }
            let Some(o) = p.summary.outcomes.iter().find(|o| o.outcome == outcome) else { continue };
            let v = o.share.value.clamp(0.0, 1.0);
            // White at 0, the first colour at 1.
            let mix = |a: u8| (255.0 - (255.0 - f64::from(a)) * v).round() as u8;
            let base = COLORS[0];
            let fill = RGBColor(mix(base.0), mix(base.1), mix(base.2));
            let (x, y) = (x0 + c * j as i32, y0 + c * i as i32);
            root.draw(&Rectangle::new([(x, y), (x + c, y + c)], fill.filled())).map_err(draw_error)?;
            if cell >= 36 {
                let ink = if v > 0.6 { WHITE } else { INK };
                let text = summary::num(v * 100.0);
                root.draw(&Text::new(text, (x + 4, y + c / 2 - 6), (FONT, 12).into_font().color(&ink)))
                    .map_err(draw_error)?;
            }
        }
        for (i, r) in rows.iter().take(nr).enumerate() {
            let y = y0 + c * i as i32 + c / 2 - 7;
            root.draw(&Text::new(r.to_string(), (x0 - 50, y), (FONT, 13).into_font().color(&INK)))
                .map_err(draw_error)?;
        }
        for (j, col) in cols.iter().take(nc).enumerate() {
            let x = x0 + c * j as i32 + 2;
            let y = y0 + c * nr as i32 + 6;
            root.draw(&Text::new(col.to_string(), (x, y), (FONT, 13).into_font().color(&INK))).map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    Ok(Some(svg))
}
