//! wrk, the HTTP load generator the load benchmarks drive (`bench-load`,
//! `bench-boards`): one run of it, and its report read into figures.

use std::process::Command;

use anyhow::{Context, Result, bail};

/// wrk on `path` with `connections` for `seconds`, from two threads.
pub(crate) fn wrk_for(base: &str, path: &str, connections: u32, seconds: u32) -> Result<Wrk> {
    wrk_with(base, &[], path, connections, seconds)
}

/// [`wrk_for`] with more of wrk's arguments (`-s script`).
pub(crate) fn wrk_with(
    base: &str,
    extra: &[&str],
    path: &str,
    connections: u32,
    seconds: u32,
) -> Result<Wrk> {
    let output = Command::new("wrk")
        .args(["-t2", &format!("-c{connections}"), &format!("-d{seconds}s"), "--latency"])
        // As Chromium asks: what the server compresses, it sends compressed.
        .args(["-H", "Accept-Encoding: gzip, deflate, br, zstd"])
        .args(extra)
        .arg(format!("{base}{path}"))
        .output()
        .context("running wrk")?;
    if !output.status.success() {
        bail!("wrk failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Wrk::parse(&String::from_utf8(output.stdout)?)
}

/// What wrk printed, in milliseconds and counts.
#[derive(Debug, PartialEq)]
pub(crate) struct Wrk {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub requests_per_sec: f64,
    /// Answers other than 2xx/3xx, and connect, read, write and timeout errors.
    pub failed: u64,
}

impl Wrk {
    pub(crate) fn parse(text: &str) -> Result<Wrk> {
        let percentile = |p: &str| -> Result<f64> {
            let line = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with(p) && l[p.len()..].starts_with(char::is_whitespace))
                .with_context(|| format!("no {p} latency in wrk's output:\n{text}"))?;
            duration_ms(line[p.len()..].trim())
        };
        let requests_per_sec = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Requests/sec:"))
            .context("no Requests/sec in wrk's output")?
            .trim()
            .parse()?;
        let mut failed = 0;
        for line in text.lines().map(str::trim) {
            if let Some(count) = line.strip_prefix("Non-2xx or 3xx responses:") {
                failed += count.trim().parse::<u64>()?;
            }
            if let Some(errors) = line.strip_prefix("Socket errors:") {
                for part in errors.split(',') {
                    failed += part.split_whitespace().last().unwrap_or("0").parse::<u64>()?;
                }
            }
        }
        Ok(Wrk { p50_ms: percentile("50%")?, p99_ms: percentile("99%")?, requests_per_sec, failed })
    }

    pub(crate) fn row(&self, request: &str, what: &str) -> String {
        format!(
            "| {request} | {what} | {:.0} | {:.1} ms | {:.1} ms | {} |\n",
            self.requests_per_sec, self.p50_ms, self.p99_ms, self.failed
        )
    }
}

/// wrk's durations: `812.00us`, `1.23ms`, `2.01s`, `1.00m`.
fn duration_ms(text: &str) -> Result<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic()).context("a duration without a unit")?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse()?;
    Ok(match unit {
        "us" => value / 1000.0,
        "ms" => value,
        "s" => value * 1000.0,
        "m" => value * 60_000.0,
        _ => bail!("unknown duration unit in {text:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrks_report() {
        let text = "Running 20s test @ http://127.0.0.1:1234/api/runs\n  2 threads and 16 connections\n\
  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency     3.10ms    1.20ms  40.12ms   90.00%\n\
  Latency Distribution\n     50%    2.95ms\n     75%    3.50ms\n     90%    4.10ms\n     99%  812.00us\n\
  101 requests in 20.00s, 1.00MB read\n  Socket errors: connect 0, read 1, write 0, timeout 2\n\
  Non-2xx or 3xx responses: 4\nRequests/sec:   5.05\nTransfer/sec:     51.20KB\n";
        let wrk = Wrk::parse(text).unwrap();
        assert_eq!(wrk, Wrk { p50_ms: 2.95, p99_ms: 0.812, requests_per_sec: 5.05, failed: 7 });
        assert_eq!(duration_ms("1.50s").unwrap(), 1500.0);
        assert!(duration_ms("3").is_err());
    }
}
