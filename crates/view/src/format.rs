//! Figures as people read them. A figure that was not measured is a dash,
//! never 0. The dashboard's tables and the charts (`charts`) use these
//! alike, and the server draws the same charts with them, so an SVG the
//! server serves is the one the page downloads, byte for byte.

use alloc::format;
use alloc::string::{String, ToString};

pub const MISSING: &str = "—";

pub fn rate(ops_per_sec: Option<f64>) -> String {
    ops_per_sec.map_or_else(|| MISSING.into(), number)
}

/// A duration given in milliseconds, in the unit that suits it.
pub fn duration_ms(ms: Option<f64>) -> String {
    let Some(ms) = ms else { return MISSING.into() };
    if ms >= 1000.0 {
        format!("{} s", significant(ms / 1000.0))
    } else if ms >= 1.0 {
        format!("{} ms", significant(ms))
    } else if ms >= 0.001 {
        format!("{} µs", significant(ms * 1e3))
    } else {
        format!("{} ns", significant(ms * 1e6))
    }
}

pub fn ticks(ticks: Option<f64>) -> String {
    ticks.map_or_else(|| MISSING.into(), |t| grouped(libm::round(t) as u64))
}

pub fn bytes(bytes: Option<u64>) -> String {
    const KIB: f64 = 1024.0;
    match bytes {
        None => MISSING.into(),
        Some(b) if b < 1024 => format!("{b} B"),
        Some(b) if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / KIB),
        Some(b) => format!("{:.2} MiB", b as f64 / (KIB * KIB)),
    }
}

/// Bytes per second in binary units, as wolfCrypt prints them by default.
pub fn throughput(bytes_per_sec: Option<f64>) -> String {
    const UNITS: [&str; 4] = ["B/s", "KiB/s", "MiB/s", "GiB/s"];
    let Some(mut value) = bytes_per_sec else { return MISSING.into() };
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", significant(value), UNITS[unit])
}

pub fn count(n: Option<u64>) -> String {
    n.map_or_else(|| MISSING.into(), grouped)
}

/// A timestamp as the server gives it (RFC 3339), to the second.
pub fn timestamp(text: &str) -> String {
    let text = text.split('.').next().unwrap_or(text);
    text.trim_end_matches('Z').replacen('T', " ", 1)
}

/// Large numbers whole and grouped; small ones to three significant digits.
fn number(value: f64) -> String {
    if value >= 100.0 { grouped(libm::round(value) as u64) } else { significant(value) }
}

fn significant(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let decimals = (2 - libm::floor(libm::log10(libm::fabs(value))) as i32).clamp(0, 6) as usize;
    format!("{value:.decimals$}")
}

fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_figures_are_dashes_not_zero() {
        assert_eq!(rate(None), "—");
        assert_eq!(duration_ms(None), "—");
        assert_eq!(ticks(None), "—");
        assert_eq!(bytes(None), "—");
        assert_eq!(count(None), "—");
        assert_eq!(bytes(Some(0)), "0 B");
    }

    #[test]
    fn throughput_in_binary_units() {
        assert_eq!(throughput(None), "—");
        assert_eq!(throughput(Some(512.0)), "512 B/s");
        assert_eq!(throughput(Some(8.521 * 1024.0 * 1024.0)), "8.52 MiB/s");
        assert_eq!(throughput(Some(409.047 * 1024.0)), "409 KiB/s");
    }

    #[test]
    fn rates() {
        assert_eq!(rate(Some(9612.4)), "9,612");
        assert_eq!(rate(Some(1_234_567.0)), "1,234,567");
        assert_eq!(rate(Some(37.54)), "37.5");
        assert_eq!(rate(Some(0.012_54)), "0.0125");
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration_ms(Some(2500.0)), "2.50 s");
        assert_eq!(duration_ms(Some(12.345)), "12.3 ms");
        assert_eq!(duration_ms(Some(0.104)), "104 µs");
        assert_eq!(duration_ms(Some(0.009_61)), "9.61 µs");
        assert_eq!(duration_ms(Some(0.000_5)), "500 ns");
    }

    #[test]
    fn bytes_in_binary_units() {
        assert_eq!(bytes(Some(1023)), "1023 B");
        assert_eq!(bytes(Some(4736)), "4.6 KiB");
        assert_eq!(bytes(Some(3 * 1024 * 1024)), "3.00 MiB");
    }

    #[test]
    fn ticks_and_counts_are_grouped() {
        assert_eq!(ticks(Some(104_032.4)), "104,032");
        assert_eq!(count(Some(3)), "3");
        assert_eq!(count(Some(1000)), "1,000");
    }

    #[test]
    fn timestamps_to_the_second() {
        assert_eq!(timestamp("2026-11-30T04:12:00.123Z"), "2026-11-30 04:12:00");
        assert_eq!(timestamp("2026-11-30T04:12:00Z"), "2026-11-30 04:12:00");
        assert_eq!(timestamp("2026-11-30 04:12:00"), "2026-11-30 04:12:00");
    }
}
