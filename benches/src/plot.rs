//! SVG line plots of the figures, drawn with plotters' SVG backend only: text goes into the SVG
//! as `<text>` elements and the viewer picks the font, so no system font library is needed.
//! One shared legend sits to the right of the panels, so it never hides a line.

use std::path::Path;

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
pub fn draw(path: &Path, title: &str, panels: &[Panel]) -> Result<(), String> {
    draw_inner(path, title, panels).map_err(|e| format!("plot {}: {e}", path.display()))
}

fn draw_inner(
    path: &Path,
    title: &str,
    panels: &[Panel],
) -> Result<(), Box<dyn std::error::Error>> {
    let cols = panels.len().min(2);
    let rows = panels.len().div_ceil(2);
    let legend_w = 300u32;
    let (panel_w, panel_h) = (560u32, 400u32);
    let size = (panel_w * cols as u32 + legend_w, panel_h * rows as u32 + 50);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 22))?;
    let (plots, legend) = root.split_horizontally(panel_w * cols as u32);
    let areas = plots.split_evenly((rows, cols));

    for (area, panel) in areas.iter().zip(panels) {
        // The x values are whole numbers (percentages, thread counts): an integer axis takes
        // key points and labels exactly at the measured values.
        let ticks: Vec<i32> = panel.x_ticks.iter().map(|x| x.round() as i32).collect();
        let lo = ticks.iter().copied().min().unwrap_or(0);
        let hi = ticks.iter().copied().max().unwrap_or(1).max(lo + 1);
        let pad = ((hi - lo) / 25).max(1);
        let (x_min, x_max) = (lo - pad, hi + pad);
        let y_max = panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1.max))
            .fold(0.0f64, f64::max);
        let y_max = if y_max > 0.0 { y_max * 1.12 } else { 1.0 };
        // Ticks exactly at the measured x values (plotters would pick round numbers).
        let x_axis = (x_min..x_max).with_key_points(ticks);
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(56)
            .build_cartesian_2d(x_axis, 0.0..y_max)?;
        chart
            .configure_mesh()
            .x_desc(panel.x_label.as_str())
            .y_desc(panel.y_label.as_str())
            .x_label_formatter(&|x| x.to_string())
            .y_label_formatter(&|y| trim(*y))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for s in &panel.series {
            let c = s.color.plotters();
            let points: Vec<(i32, f64)> = s
                .points
                .iter()
                .map(|(x, y)| (x.round() as i32, y.median))
                .collect();
            chart.draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(2)))?;
            chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())))?;
            // Error bars: the slowest and the fastest round.
            chart.draw_series(s.points.iter().map(|(x, y)| {
                let x = x.round() as i32;
                PathElement::new(vec![(x, y.min), (x, y.max)], c.stroke_width(1))
            }))?;
        }
    }

    draw_legend(&legend, panels)?;
    root.present()?;
    Ok(())
}

/// The shared legend: every series named once, in the order first seen.
fn draw_legend(
    legend: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    panels: &[Panel],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut seen: Vec<(&str, Rgb)> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !seen.iter().any(|(n, _)| *n == s.name) {
            seen.push((&s.name, s.color));
        }
    }
    for (i, (name, c)) in seen.iter().enumerate() {
        let y = 40 + 22 * i as i32;
        let c = c.plotters();
        legend.draw(&PathElement::new(vec![(8, y), (36, y)], c.stroke_width(3)))?;
        legend.draw(&Circle::new((22, y), 3, c.filled()))?;
        legend.draw(&Text::new(
            name.to_string(),
            (44, y - 7),
            ("sans-serif", 14).into_font().color(&BLACK),
        ))?;
    }
    Ok(())
}

/// A number without trailing zeros: 0.5, 10, 2.25.
fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}
