//! SVG line plots of the figures, drawn with plotters' SVG backend only: text goes into the SVG
//! as `<text>` elements and the viewer picks the font, so no system font library is needed.
//! One shared legend sits to the right of the panels, so it never hides a line.

use std::error::Error;
use std::path::Path;

use plotters::coord::ranged1d::ValueFormatter;
use plotters::element::{DashedPathElement, DynElement, IntoDynElement};
use plotters::prelude::*;

use cuckoo_nest_bench::stats::Spread;

/// A colour, carried by each contender's definition so a filter has one colour in every plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    fn plotters(self) -> RGBColor {
        RGBColor(self.0, self.1, self.2)
    }
}

/// One line: a filter's points, each a median with its spread over the rounds (drawn as an
/// error bar from min to max). Missing points (an operation the filter cannot do) are gaps.
pub struct Series {
    pub name: String,
    pub color: Rgb,
    pub points: Vec<(f64, Spread)>,
    /// A reference line (a bound, the machine's own rate) rather than a filter: drawn dashed and
    /// over the filters' lines, so a filter lying on it hides neither.
    pub reference: bool,
}

pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Ticks on the x axis (the measured x values, whole numbers).
    pub x_ticks: Vec<f64>,
}

/// Draws `panels` side by side (two per row) into one SVG file.
pub fn draw(path: &Path, title: &str, panels: &[Panel]) -> Result<(), Box<dyn Error>> {
    let (cols, rows) = (panels.len().min(2), panels.len().div_ceil(2));
    let (panel_w, panel_h, legend_w) = (560u32, 400u32, 340u32);
    let size = (panel_w * cols as u32 + legend_w, panel_h * rows as u32 + 50);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (plots, legend) = root.split_horizontally(panel_w * cols as u32);
    let areas = plots.split_evenly((rows, cols));

    let entries = legend_entries(panels);
    // One y scale for every panel of a file, so panels side by side read alike: a log axis for
    // all of them when one line in any panel is 8 times above the lowest (a machine reference,
    // say), so the others are not squashed into the bottom.
    let log = panels.iter().any(|p| {
        let (low, high) = y_range(p);
        low.is_finite() && high / low > 8.0
    });
    for (area, panel) in areas.iter().zip(panels) {
        // An integer axis (in hundredths, so that error bars can stand a little apart), with
        // ticks exactly at the measured x values (plotters would pick round numbers).
        let ticks: Vec<i32> = panel.x_ticks.iter().map(|&x| x_coord(x)).collect();
        let lo = ticks.iter().copied().min().unwrap_or(0);
        let hi = ticks.iter().copied().max().unwrap_or(1).max(lo + 1);
        let pad = ((hi - lo) / 25).max(X_SCALE);
        let (x_min, x_max) = (lo - pad, hi + pad);
        let (y_low, y_max) = y_range(panel);
        let log = log && y_low.is_finite();
        let caption = format!("{}{}", panel.title, if log { " (log scale)" } else { "" });
        let x_axis = (x_min..x_max).with_key_points(ticks);
        let mut chart = ChartBuilder::on(area);
        chart
            .caption(&caption, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(56);
        if log {
            // Labels at 1, 2, 3 and 5 times each power of ten in the range
            // (plotters alone labels only the powers).
            let ticks: Vec<f64> = (-3..6)
                .flat_map(|e| [1.0, 2.0, 3.0, 5.0].map(|m| m * 10f64.powi(e)))
                .filter(|&t| t >= y_low / 1.5 && t <= y_max)
                .collect();
            let y_axis = (y_low / 1.5..y_max).log_scale().with_key_points(ticks);
            let mut chart = chart.build_cartesian_2d(x_axis, y_axis)?;
            draw_panel(&mut chart, panel, &entries, y_low / 1.5, x_max - x_min)?;
        } else {
            let mut chart = chart.build_cartesian_2d(x_axis, 0.0..y_max)?;
            draw_panel(&mut chart, panel, &entries, 0.0, x_max - x_min)?;
        }
    }

    draw_legend(&legend, &entries)?;
    root.present()?;
    Ok(())
}

/// x coordinates are hundredths of the x values (whole numbers: percentages, thread counts).
const X_SCALE: i32 = 100;

fn x_coord(x: f64) -> i32 {
    (x * X_SCALE as f64).round() as i32
}

/// A panel's y extent: the lowest positive median and the top of the axis (the highest round's
/// value plus room above it).
fn y_range(panel: &Panel) -> (f64, f64) {
    let points = || panel.series.iter().flat_map(|s| &s.points).map(|p| p.1);
    let y_max = points().map(|p| p.max).fold(0.0f64, f64::max);
    let y_max = if y_max > 0.0 { y_max * 1.12 } else { 1.0 };
    let y_low = points()
        .map(|p| p.median)
        .filter(|&m| m > 0.0)
        .fold(f64::INFINITY, f64::min);
    (y_low, y_max)
}

type Chart<'a, Y> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<
        plotters::coord::combinators::WithKeyPoints<plotters::coord::types::RangedCoordi32>,
        Y,
    >,
>;

/// The axes, then each series: a line, a marker of its own shape at every point (colour
/// alone does not tell every pair of lines apart), error bars from the slowest to the fastest
/// round (clipped at `floor` on a log axis), each series' bars a few pixels beside the others'
/// (`x_span`: the axis' width in x coordinates), so bars at one x do not cover each other. The
/// reference lines come last, dashed, so they lie over the filters' lines.
fn draw_panel<'a, Y>(
    chart: &mut Chart<'a, Y>,
    panel: &Panel,
    entries: &[&Series],
    floor: f64,
    x_span: i32,
) -> Result<(), Box<dyn Error>>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .x_label_formatter(&|x| (x / X_SCALE).to_string())
        .y_label_formatter(&|y| trim(*y))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    // About 3 pixels between neighbouring series' bars, the bars centred on the point.
    let step = (x_span / 150).max(1);
    let k = panel.series.len() as i32;
    let mut order: Vec<(usize, &Series)> = panel.series.iter().enumerate().collect();
    order.sort_by_key(|(_, s)| s.reference);
    for (i, s) in order {
        let dodge = (2 * i as i32 - (k - 1)) * step / 2;
        let c = s.color.plotters();
        let shape = entries.iter().position(|e| e.name == s.name).unwrap_or(0);
        let points: Vec<(i32, f64)> = s
            .points
            .iter()
            .map(|(x, y)| (x_coord(*x), y.median.max(floor)))
            .collect();
        let (line, width) = (points.iter().copied(), c.stroke_width(2));
        if s.reference {
            chart.draw_series(DashedLineSeries::new(line, 8, 5, width))?;
        } else {
            chart.draw_series(LineSeries::new(line, width))?;
        }
        for &p in &points {
            chart.plotting_area().draw(&marker(shape, p, c))?;
        }
        chart.draw_series(s.points.iter().map(|(x, y)| {
            let (x, lo, hi) = (x_coord(*x) + dodge, y.min.max(floor), y.max.max(floor));
            PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(1))
        }))?;
    }
    Ok(())
}

/// Every series once, in the order first seen: the legend's order, in which a series' index
/// is its marker's shape.
fn legend_entries(panels: &[Panel]) -> Vec<&Series> {
    let mut seen: Vec<&Series> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !seen.iter().any(|e| e.name == s.name) {
            seen.push(s);
        }
    }
    seen
}

/// Marker `shape` at `at`, cycling through five: filled circle, triangle, square, cross, ring.
fn marker<'a, DB: DrawingBackend + 'a, C: Clone + 'static>(
    shape: usize,
    at: C,
    c: RGBColor,
) -> DynElement<'a, DB, C> {
    match shape % 5 {
        0 => Circle::new(at, 4, c.filled()).into_dyn(),
        1 => TriangleMarker::new(at, 5, c.filled()).into_dyn(),
        2 => (EmptyElement::at(at) + Rectangle::new([(-4, -4), (4, 4)], c.filled())).into_dyn(),
        3 => Cross::new(at, 4, c.stroke_width(2)).into_dyn(),
        _ => Circle::new(at, 4, c.stroke_width(2)).into_dyn(),
    }
}

/// The shared legend: every series named once, with its line and marker.
fn draw_legend(
    legend: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    entries: &[&Series],
) -> Result<(), Box<dyn Error>> {
    let (mut y, font) = (40, ("sans-serif", 14).into_font().color(&BLACK));
    for (i, s) in entries.iter().enumerate() {
        let (c, line) = (s.color.plotters(), vec![(8, y), (40, y)]);
        if s.reference {
            legend.draw(&DashedPathElement::new(line, 8, 5, c.stroke_width(3)))?;
        } else {
            legend.draw(&PathElement::new(line, c.stroke_width(3)))?;
        }
        legend.draw(&marker(i, (24, y), c))?;
        // Long names wrap at spaces, so none runs past the picture.
        for line in wrap(&s.name, 34) {
            legend.draw(&Text::new(line, (48, y - 7), font.clone()))?;
            y += 17;
        }
        y += 8;
    }
    Ok(())
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= width => *line += &format!(" {word}"),
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A number to two decimals without trailing zeros: 0.5, 10, 2.25 (`+ 0.0` turns -0 into 0).
fn trim(v: f64) -> String {
    ((v * 100.0).round() / 100.0 + 0.0).to_string()
}
