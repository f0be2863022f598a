//! A view as a deep link's query, and back: what the address bar holds
//! and a shared link carries. The percent codec here is the crate's one:
//! `pqbench_api::ResultQuery`'s requests escape with it too.

use alloc::string::String;
use alloc::vec::Vec;

use pqbench_types::{Algorithm, Family, Operation, Source};

use crate::matrix::{self, MatrixView};
use crate::{Column, HistoryOf, Sort, View};

/// Why a link's query was refused: it names something pqbench does not
/// know, or in a shape that cannot be read. Each message quotes the part
/// of the link at fault, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("unknown {kind} {name:?} in the link")]
    UnknownName { kind: &'static str, name: String },
    #[error("bad {kind} {text:?} in the link")]
    BadEscape { kind: &'static str, text: String },
    #[error("unknown column {0:?}")]
    UnknownColumn(String),
    #[error("unknown figure {0:?}")]
    UnknownFigure(String),
    #[error("bad column {0:?} to sort by")]
    BadOrder(String),
    #[error("a history link needs algorithm,operation,board: {0:?}")]
    IncompleteHistory(String),
    #[error("a {kind} link needs algorithm,operation: {text:?}")]
    IncompleteNamed { kind: &'static str, text: String },
    #[error("a pair is two runs: {0:?}")]
    NotAPair(String),
    #[error("no model clock of {0:?} MHz")]
    UnknownModelClock(String),
}

impl LinkError {
    fn unknown(kind: &'static str, name: &str) -> LinkError {
        LinkError::UnknownName { kind, name: name.into() }
    }
}

impl View {
    /// The view as a URL query (without `?`), for a deep link: only what
    /// differs from the default. Every name is letters, digits and `-`, so
    /// nothing needs escaping.
    pub fn to_query(&self) -> String {
        fn list<T>(items: &[T], name: impl Fn(&T) -> String) -> String {
            items.iter().map(name).collect::<Vec<_>>().join(",")
        }
        let mut pairs: Vec<String> = Vec::new();
        let mut add = |key: &str, value: String| pairs.push(alloc::format!("{key}={value}"));
        if !self.runs.is_empty() {
            add("runs", list(&self.runs, |id| alloc::format!("{id}")));
        }
        if !self.filter.families.is_empty() {
            add("family", list(&self.filter.families, |f| f.as_str().into()));
        }
        if !self.filter.algorithms.is_empty() {
            add("algorithm", list(&self.filter.algorithms, |a| a.as_str().into()));
        }
        if !self.filter.operations.is_empty() {
            add("operation", list(&self.filter.operations, |o| o.as_str().into()));
        }
        if let Some(sort) = self.sort {
            add("sort", sort.column.key().into());
            add("dir", if sort.descending { "desc" } else { "asc" }.into());
        }
        if self.log_scale {
            add("scale", "log".into());
        }
        if let Some(h) = &self.history {
            let board = percent_encode(&h.board);
            add("history", alloc::format!("{},{},{board}", h.algorithm.as_str(), h.operation.as_str()));
        }
        if let Some(m) = &self.matrix {
            // Board ids and build labels are free text: one pair each.
            for board in &m.boards {
                add("board", percent_encode(board));
            }
            if !m.sources.is_empty() {
                add("source", list(&m.sources, |s| s.as_str().into()));
            }
            for build in &m.builds {
                add("build", percent_encode(build));
            }
            if m.figure != Column::OpsPerSec {
                add("figure", m.figure.key().into());
            }
            if let Some(order) = m.order {
                let by = match order.by {
                    matrix::SortBy::Run(id) => alloc::format!("{id}"),
                    matrix::SortBy::Ratio => "ratio".into(),
                };
                add("order", by);
                add("odir", if order.descending { "desc" } else { "asc" }.into());
            }
            if let Some([first, second]) = m.pair {
                add("pair", alloc::format!("{first},{second}"));
            }
            if let Some(chart) = m.chart {
                add("chart", chart.to_query());
            }
            if let Some(baseline) = m.baseline {
                add("baseline", baseline.to_query());
            }
            if let Some(hz) = m.model_clock_hz {
                add("mclock", alloc::format!("{}", hz / 1_000_000));
            }
        }
        pairs.join("&")
    }

    /// A view from a deep link's query (with or without `?`). A value it
    /// does not know is an error naming it, not a silently wider view.
    pub fn from_query(query: &str) -> Result<View, LinkError> {
        fn list<T>(
            value: &str,
            parse: impl Fn(&str) -> Option<T>,
            kind: &'static str,
        ) -> Result<Vec<T>, LinkError> {
            value
                .split(',')
                .filter(|item| !item.is_empty())
                .map(|item| parse(item).ok_or_else(|| LinkError::unknown(kind, item)))
                .collect()
        }
        let mut view = View::default();
        let mut descending = true;
        let mut column = None;
        let mut matrix = MatrixView::default();
        let mut matrix_order = None;
        let mut matrix_descending = true;
        let named = |value: &str, kind: &'static str| {
            matrix::Named::from_query(value)
                .ok_or_else(|| LinkError::IncompleteNamed { kind, text: value.into() })
        };
        let unescaped = |value: &str, kind: &'static str| {
            percent_decode(value).ok_or_else(|| LinkError::BadEscape { kind, text: value.into() })
        };
        for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "runs" => view.runs = list(value, |v| v.parse().ok().filter(|&id: &i64| id > 0), "run")?,
                "family" => view.filter.families = list(value, |v| Family::from_name(v).ok(), "family")?,
                "algorithm" => {
                    view.filter.algorithms = list(value, |v| Algorithm::from_name(v).ok(), "algorithm")?
                }
                "operation" => {
                    view.filter.operations = list(value, |v| Operation::from_name(v).ok(), "operation")?
                }
                "sort" => {
                    column =
                        Some(Column::from_key(value).ok_or_else(|| LinkError::UnknownColumn(value.into()))?)
                }
                "dir" => descending = value != "asc",
                "scale" => view.log_scale = value == "log",
                "history" => {
                    let mut parts = value.splitn(3, ',');
                    let (Some(algorithm), Some(operation), Some(board)) =
                        (parts.next(), parts.next(), parts.next())
                    else {
                        return Err(LinkError::IncompleteHistory(value.into()));
                    };
                    view.history = Some(HistoryOf {
                        board: unescaped(board, "board")?,
                        algorithm: Algorithm::from_name(algorithm)
                            .map_err(|_| LinkError::unknown("algorithm", algorithm))?,
                        operation: Operation::from_name(operation)
                            .map_err(|_| LinkError::unknown("operation", operation))?,
                    });
                }
                "board" => matrix.boards.push(unescaped(value, "board")?),
                "source" => matrix.sources.extend(list(value, Source::from_name, "source")?),
                "build" => matrix.builds.push(unescaped(value, "build")?),
                "figure" => {
                    matrix.figure =
                        Column::from_key(value).ok_or_else(|| LinkError::UnknownFigure(value.into()))?
                }
                "order" => {
                    matrix_order = Some(match value {
                        "ratio" => matrix::SortBy::Ratio,
                        id => matrix::SortBy::Run(
                            id.parse()
                                .ok()
                                .filter(|&id: &i64| id > 0)
                                .ok_or_else(|| LinkError::BadOrder(id.into()))?,
                        ),
                    })
                }
                "odir" => matrix_descending = value != "asc",
                "pair" => {
                    let ids = list(value, |v| v.parse().ok().filter(|&id: &i64| id > 0), "run")?;
                    let [first, second] = ids[..] else {
                        return Err(LinkError::NotAPair(value.into()));
                    };
                    matrix.pair = Some([first, second]);
                }
                "chart" => matrix.chart = Some(named(value, "chart")?),
                "baseline" => matrix.baseline = Some(named(value, "baseline")?),
                "mclock" => {
                    let hz = value.parse::<u64>().ok().map(|mhz| mhz * 1_000_000);
                    let known = hz.filter(|hz| pqbench_types::MODEL_CLOCKS_HZ.contains(hz));
                    matrix.model_clock_hz =
                        Some(known.ok_or_else(|| LinkError::UnknownModelClock(value.into()))?);
                }
                // Other parameters belong to the page (e.g. a report id).
                _ => {}
            }
        }
        view.sort = column.map(|column| Sort { column, descending });
        matrix.order = matrix_order.map(|by| matrix::MatrixOrder { by, descending: matrix_descending });
        if matrix != MatrixView::default() {
            view.matrix = Some(matrix);
        }
        Ok(view)
    }
}

/// A board id in a query: ids hold `:` and `/` (`serial:/dev/ttyACM0`),
/// so every byte but letters, digits and `-._~:` is escaped.
pub fn percent_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&alloc::format!("%{b:02X}"));
        }
    }
    out
}

pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = core::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
