//! Charts of results as SVG text: horizontal bars, one row per result, as
//! wolfSSL's benchmark charts draw them (a longer bar is more of the
//! figure). The dashboard shows this SVG and exports it byte for byte, so
//! an image embedded in a README is the chart its author saw.
//!
//! A row without a figure (failed, does not fit) gets no bar and says why:
//! drawing it as a zero-length bar would read as "measured, and nothing".
#![no_std]

extern crate alloc;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// One measured quantity drawn as bars, e.g. "stack" or "ops/s".
pub struct Series {
    pub name: String,
    /// Fill colour, as CSS.
    pub colour: &'static str,
}

/// One row: its label, a value per series (`None` where not measured) with
/// the text shown beside the bar, or why it has no figure.
pub struct Row {
    pub label: String,
    pub values: Vec<Option<(f64, String)>>,
    pub missing: String,
}

pub struct BarChart {
    pub title: String,
    pub series: Vec<Series>,
    pub rows: Vec<Row>,
    /// Bars proportional to the logarithm: figures that span decades (RSA
    /// on a board against SHA-256 on a host) stay readable.
    pub log_scale: bool,
}

const WIDTH: f64 = 760.0;
const LABEL_WIDTH: f64 = 230.0;
const VALUE_WIDTH: f64 = 110.0;
const BAR_AREA: f64 = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
const BAR_HEIGHT: f64 = 14.0;
const ROW_GAP: f64 = 8.0;
const TOP: f64 = 40.0;
/// The shortest bar drawn for a measured figure, so the smallest is seen.
const MIN_BAR: f64 = 2.0;

impl BarChart {
    /// The length of a bar for `value`, in the chart's units.
    pub fn bar_length(&self, value: f64) -> f64 {
        let values = || self.rows.iter().flat_map(|r| r.values.iter().flatten()).map(|(v, _)| *v);
        let max = values().fold(0.0_f64, f64::max);
        if value.is_nan() || value <= 0.0 || max <= 0.0 {
            return 0.0;
        }
        let length = if self.log_scale {
            let min = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
            // Whole decades at both ends, as a log axis is read.
            let low = libm_floor(log10(min));
            let high = libm_ceil(log10(max)).max(low + 1.0);
            (log10(value) - low) / (high - low) * BAR_AREA
        } else {
            value / max * BAR_AREA
        };
        length.max(MIN_BAR)
    }

    pub fn to_svg(&self) -> String {
        let per_row = self.series.len().max(1) as f64 * BAR_HEIGHT + ROW_GAP;
        let height = TOP + self.rows.len() as f64 * per_row + 10.0;
        let mut svg = String::new();
        let _ = write!(
            svg,
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" font-family="system-ui, sans-serif" font-size="12" role="img"><title>{}</title><rect width="100%" height="100%" fill="#fff"/><text x="8" y="18" font-size="14" font-weight="600">{}</text>"##,
            escape(&self.title),
            escape(&self.title),
        );
        let mut legend_x = LABEL_WIDTH;
        for series in &self.series {
            let _ = write!(
                svg,
                r#"<rect x="{legend_x}" y="24" width="10" height="10" fill="{}"/><text x="{}" y="33">{}</text>"#,
                series.colour,
                legend_x + 14.0,
                escape(&series.name)
            );
            legend_x += 24.0 + 7.0 * series.name.len() as f64;
        }
        if self.log_scale {
            let _ = write!(svg, r##"<text x="{}" y="33" fill="#667">log scale</text>"##, WIDTH - 70.0);
        }
        for (i, row) in self.rows.iter().enumerate() {
            let y = TOP + i as f64 * per_row;
            let _ = write!(
                svg,
                r#"<g class="row" data-label="{}"><text x="{}" y="{}" text-anchor="end">{}</text>"#,
                escape(&row.label),
                LABEL_WIDTH - 8.0,
                y + BAR_HEIGHT - 3.0,
                escape(&row.label)
            );
            if row.values.iter().all(Option::is_none) {
                let _ = write!(
                    svg,
                    r##"<text x="{LABEL_WIDTH}" y="{}" fill="#8a5a00" font-style="italic">{}</text>"##,
                    y + BAR_HEIGHT - 3.0,
                    escape(&row.missing)
                );
            }
            for (s, (series, value)) in self.series.iter().zip(&row.values).enumerate() {
                let Some((value, text)) = value else { continue };
                let top = y + s as f64 * BAR_HEIGHT;
                let length = self.bar_length(*value);
                let _ = write!(
                    svg,
                    r#"<rect class="bar" x="{LABEL_WIDTH}" y="{top}" width="{length:.1}" height="{}" fill="{}" data-value="{value}"/><text x="{}" y="{}">{}</text>"#,
                    BAR_HEIGHT - 2.0,
                    series.colour,
                    LABEL_WIDTH + length + 4.0,
                    top + BAR_HEIGHT - 4.0,
                    escape(text)
                );
            }
            svg.push_str("</g>");
        }
        svg.push_str("</svg>");
        svg
    }
}

/// One point of a history: its label (a run), its value and the text
/// shown for it, and whether it changed from the point before by more
/// than the runs' own spread.
pub struct Point {
    pub label: String,
    pub value: Option<f64>,
    pub text: String,
    pub flagged: bool,
}

/// A figure over runs, oldest first: a line through the measured points,
/// a gap where a run has none, flagged changes in another colour.
pub struct LineChart {
    pub title: String,
    pub points: Vec<Point>,
}

impl LineChart {
    pub fn to_svg(&self) -> String {
        const HEIGHT: f64 = 260.0;
        const PLOT_TOP: f64 = 36.0;
        const PLOT_BOTTOM: f64 = HEIGHT - 44.0;
        const LEFT: f64 = 60.0;
        const RIGHT: f64 = WIDTH - 20.0;
        let max = self.points.iter().filter_map(|p| p.value).fold(0.0_f64, f64::max);
        let step = if self.points.len() > 1 { (RIGHT - LEFT) / (self.points.len() - 1) as f64 } else { 0.0 };
        let x = |i: usize| if self.points.len() > 1 { LEFT + i as f64 * step } else { (LEFT + RIGHT) / 2.0 };
        // From zero, so a change looks as large as it is.
        let y =
            |v: f64| if max > 0.0 { PLOT_BOTTOM - v / max * (PLOT_BOTTOM - PLOT_TOP) } else { PLOT_BOTTOM };
        let mut svg = String::new();
        let _ = write!(
            svg,
            r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" font-family="system-ui, sans-serif" font-size="12" role="img"><title>{}</title><rect width="100%" height="100%" fill="#fff"/><text x="8" y="18" font-size="14" font-weight="600">{}</text><line x1="{LEFT}" y1="{PLOT_BOTTOM}" x2="{RIGHT}" y2="{PLOT_BOTTOM}" stroke="#c8d0da"/>"##,
            escape(&self.title),
            escape(&self.title),
        );
        // Runs of consecutive measured points are joined; a run without a
        // figure breaks the line.
        let mut segment: Vec<String> = Vec::new();
        let flush = |segment: &mut Vec<String>, svg: &mut String| {
            if segment.len() > 1 {
                let _ = write!(
                    svg,
                    r##"<polyline fill="none" stroke="#2456c7" stroke-width="2" points="{}"/>"##,
                    segment.join(" ")
                );
            }
            segment.clear();
        };
        for (i, point) in self.points.iter().enumerate() {
            match point.value {
                Some(v) => segment.push(format!("{:.1},{:.1}", x(i), y(v))),
                None => flush(&mut segment, &mut svg),
            }
        }
        flush(&mut segment, &mut svg);
        for (i, point) in self.points.iter().enumerate() {
            let _ = write!(
                svg,
                r##"<text x="{:.1}" y="{}" text-anchor="middle" fill="#667">{}</text>"##,
                x(i),
                PLOT_BOTTOM + 16.0,
                escape(&point.label)
            );
            if let Some(v) = point.value {
                let colour = if point.flagged { "#c0392b" } else { "#2456c7" };
                let _ = write!(
                    svg,
                    r##"<circle class="point" cx="{:.1}" cy="{:.1}" r="4" fill="{colour}" data-value="{v}" data-flagged="{}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                    x(i),
                    y(v),
                    point.flagged,
                    x(i),
                    y(v) - 8.0,
                    escape(&point.text)
                );
            }
        }
        svg.push_str("</svg>");
        svg
    }
}

/// A badge, as README files show a build's state: a label on grey, a
/// message on its colour (`pqbench: ML-KEM-768 keygen · nucleo-f439zi |
/// 1,234 ops/s`). Text widths are estimated, as no font is at hand: 7 px a
/// character at 11 px, wide enough for digits and most letters.
pub struct Badge {
    pub label: String,
    pub message: String,
    /// The message's background, as CSS.
    pub colour: &'static str,
}

impl Badge {
    pub fn to_svg(&self) -> String {
        const PAD: f64 = 6.0;
        let width = |text: &str| 7.0 * text.chars().count() as f64 + 2.0 * PAD;
        let (label, message) = (shortened(&self.label), shortened(&self.message));
        let (left, right) = (width(&label), width(&message));
        let total = left + right;
        let (label, message) = (escape(&label), escape(&message));
        let mut svg = String::new();
        let _ = write!(
            svg,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" viewBox="0 0 {total} 20" role="img" aria-label="{label}: {message}"><title>{label}: {message}</title><rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" fill="{}"/><g fill="#fff" font-family="Verdana, DejaVu Sans, sans-serif" font-size="11"><text x="{PAD}" y="14">{label}</text><text x="{}" y="14">{message}</text></g></svg>"##,
            self.colour,
            left + PAD,
        );
        svg
    }
}

/// `text` as XML 1.0 character data: markup escaped, and a character XML
/// 1.0 cannot hold at all (C0 controls but tab, line feed and carriage
/// return; U+FFFE, U+FFFF) shown as U+FFFD, so that whatever text a chart
/// is given, its SVG is well-formed. The store refuses such labels
/// (`pqbench_valid::check_label`); this holds for those it kept before.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\0'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// The most characters a badge shows of its label or message: a badge is a
/// line in a README, and its width follows its text.
pub const MAX_BADGE_TEXT: usize = 80;

/// `text` cut to [`MAX_BADGE_TEXT`] characters, an ellipsis saying so.
fn shortened(text: &str) -> String {
    if text.chars().count() <= MAX_BADGE_TEXT {
        return text.into();
    }
    let mut short: String = text.chars().take(MAX_BADGE_TEXT - 1).collect();
    short.push('…');
    short
}

// no_std has no f64::log10/floor; these are exact enough for bar lengths.
fn log10(x: f64) -> f64 {
    ln(x) / core::f64::consts::LN_10
}

fn ln(x: f64) -> f64 {
    // x = m * 2^e with m in [1, 2): ln x = e ln 2 + ln m, and ln m from the
    // series of atanh((m-1)/(m+1)), which converges fast on that range.
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let mut term = t;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..20 {
        sum += term / k;
        term *= t2;
        k += 2.0;
    }
    exponent as f64 * core::f64::consts::LN_2 + 2.0 * sum
}

fn libm_floor(x: f64) -> f64 {
    let t = x as i64 as f64;
    if t > x { t - 1.0 } else { t }
}

fn libm_ceil(x: f64) -> f64 {
    let t = x as i64 as f64;
    if t < x { t + 1.0 } else { t }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    use super::*;

    fn chart(values: &[Option<f64>], log_scale: bool) -> BarChart {
        BarChart {
            title: "ops/s <all>".into(),
            series: vec![Series { name: "ops/s".into(), colour: "#2456c7" }],
            rows: values
                .iter()
                .enumerate()
                .map(|(i, v)| Row {
                    label: format!("row {i}"),
                    values: vec![v.map(|v| (v, format!("{v}")))],
                    missing: "does not fit".into(),
                })
                .collect(),
            log_scale,
        }
    }

    #[test]
    fn the_largest_figure_fills_the_bar_area_and_the_rest_are_proportional() {
        let linear = chart(&[Some(100.0), Some(50.0), None], false);
        assert_eq!(linear.bar_length(100.0), BAR_AREA);
        assert_eq!(linear.bar_length(50.0), BAR_AREA / 2.0);
        assert_eq!(linear.bar_length(0.0001), MIN_BAR, "a measured figure is always seen");
    }

    #[test]
    fn on_a_log_scale_each_decade_is_the_same_length() {
        // From 5 to 10,000: the axis runs over the decades 1 to 10,000.
        let log = chart(&[Some(5.0), Some(100.0), Some(10_000.0)], true);
        let decade = BAR_AREA / 4.0;
        assert!((log.bar_length(100.0) - log.bar_length(10.0) - decade).abs() < 1e-6);
        assert!((log.bar_length(10_000.0) - BAR_AREA).abs() < 1e-6);
        assert!((log10(1234.5) - 3.091_491_094_267_951).abs() < 1e-12);
    }

    #[test]
    fn a_history_breaks_its_line_where_a_run_has_no_figure() {
        let point =
            |value: Option<f64>, flagged| Point { label: "r".into(), value, text: "t".into(), flagged };
        let joined =
            LineChart { title: "h".into(), points: vec![point(Some(1.0), false), point(Some(2.0), true)] };
        let svg = joined.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches(r#"data-flagged="true""#).count(), 1);
        let broken = LineChart {
            title: "h".into(),
            points: vec![
                point(Some(1.0), false),
                point(None, false),
                point(Some(2.0), false),
                point(Some(3.0), false),
            ],
        };
        let svg = broken.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 1, "a lone point before the gap has no line");
        assert_eq!(svg.matches(r#"class="point""#).count(), 3);
    }

    #[test]
    fn rows_without_a_figure_say_why_and_get_no_bar() {
        let svg = chart(&[Some(3.0), None], false).to_svg();
        assert_eq!(svg.matches(r#"class="bar""#).count(), 1);
        assert!(svg.contains(">does not fit<"));
        assert!(svg.contains("ops/s &lt;all&gt;"), "text is escaped");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }

    #[test]
    fn a_badge_holds_its_label_and_message_escaped_and_fits_them() {
        let badge = Badge {
            label: "ML-KEM-768 keygen · a<b".into(),
            message: "1,234 ops/s".into(),
            colour: "#2456c7",
        };
        let svg = badge.to_svg();
        assert!(svg.contains(">ML-KEM-768 keygen · a&lt;b</text>"), "{svg}");
        assert!(svg.contains(r##"fill="#2456c7""##));
        // 23 and 11 characters at 7 px, 6 px either side.
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="262" height="20""#),
            "{svg}"
        );
        assert!(svg.contains(r#"<text x="179" y="14">1,234 ops/s</text>"#), "{svg}");
    }

    #[test]
    fn a_badge_is_bounded_whatever_its_text() {
        let badge = Badge { label: "x".repeat(30_000), message: "1 ops/s".into(), colour: "#2456c7" };
        let svg = badge.to_svg();
        // 80 characters at 7 px and 6 px either side, then the message's 7.
        let widest = 7 * (MAX_BADGE_TEXT + 7) + 4 * 6;
        assert!(
            svg.starts_with(&format!(r#"<svg xmlns="http://www.w3.org/2000/svg" width="{widest}""#)),
            "{svg}"
        );
        assert!(svg.contains("x…</text>"));
    }

    #[test]
    fn svg_text_holds_only_xml_1_0_characters() {
        let hostile = "a\u{1}b\u{8}c\u{FFFE}d\u{FFFF}\te";
        let badge = Badge { label: hostile.into(), message: "m\u{0}".into(), colour: "#000" };
        let chart = BarChart { title: hostile.into(), ..chart(&[Some(1.0)], false) };
        for svg in [badge.to_svg(), chart.to_svg()] {
            let stray = svg.chars().find(|&c| {
                !matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
            });
            assert_eq!(stray, None, "{svg:?}");
            assert!(svg.contains("a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}\te"), "{svg:?}");
        }
    }
}
