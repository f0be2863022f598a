//! The banner, and what it tells about the whole log: the wolfSSL version
//! and, from it and the units the log prints, whether its KB/MB are powers
//! of 1000 or of 1024.

use crate::number::integer;

/// What the whole log says about how to read each line.
pub(super) struct Context {
    /// From the banner's `wolfSSL version 5.7.2`.
    pub(super) version: Option<String>,
    /// Whether "KB"/"MB"/"GB" are powers of 1000. wolfSSL 5.6 and later
    /// print KiB/MiB for the default base 2 and KB/MB only with `-base10`
    /// (`get_blocktype`/`get_blocktype_base10`); releases before printed
    /// "KB"/"MB" for base 2 and "kB"/"mB" for `-base10`.
    pub(super) kmg_is_decimal: bool,
    /// Why `kmg_is_decimal` is what it is, for the results' notes.
    pub(super) kmg_reason: &'static str,
}

impl Context {
    pub(super) fn scan(lines: &[(usize, &str)]) -> Context {
        let version = lines.iter().find_map(|(_, line)| banner_version(line));
        let prints_binary_units = lines.iter().any(|(_, line)| {
            line.split_whitespace().any(|t| {
                matches!(t.trim_end_matches(','), "KiB" | "MiB" | "GiB" | "KiB/s" | "MiB/s" | "GiB/s")
            })
        });
        let new_release = version.as_deref().and_then(major_minor).is_some_and(|v| v >= (5, 6));
        let (kmg_is_decimal, kmg_reason) = if prints_binary_units {
            (true, "this log prints KiB/MiB for base 2, so its KB/MB are -base10's")
        } else if new_release {
            (true, "wolfSSL 5.6 and later print KB/MB only with -base10")
        } else {
            (false, "wolfSSL before 5.6 printed KB/MB for its default base 2")
        };
        Context { version, kmg_is_decimal, kmg_reason }
    }
}

/// `wolfSSL version 5.7.2` (possibly with more words after) → "5.7.2".
fn banner_version(line: &str) -> Option<String> {
    let mut tokens = line.split_whitespace();
    while let Some(token) = tokens.next() {
        if token == "wolfSSL" && tokens.next() == Some("version") {
            return tokens.next().map(str::to_string);
        }
    }
    None
}

fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut parts = version.split('.');
    Some((integer(parts.next()?)?, integer(parts.next()?)?))
}

/// Lines of the banner and the end, which carry no result.
pub(super) fn is_banner(line: &str) -> bool {
    let rule = line.len() >= 3 && (line.bytes().all(|b| b == b'-') || line.bytes().all(|b| b == b'='));
    rule || line.starts_with("wolfCrypt Benchmark (")
        || banner_version(line).is_some()
        || line.starts_with("Math:")
        || line.eq_ignore_ascii_case("Benchmark complete")
        || line.eq_ignore_ascii_case("Benchmark complete.")
}
