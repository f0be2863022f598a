//! A view in words, for a report to say what it shows.

use alloc::string::String;
use alloc::vec::Vec;

use crate::View;

impl View {
    /// What the view shows, in a sentence: a report says so under its
    /// title. "The matrix of runs 3, 7 and 9: peak stack of each
    /// operation; post-quantum only; sorted by run 7, descending."
    pub fn describe(&self) -> String {
        use alloc::format;
        fn names<T>(items: &[T], name: impl Fn(&T) -> String) -> String {
            let names: Vec<String> = items.iter().map(name).collect();
            match names.split_last() {
                None => String::new(),
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            }
        }
        let runs = |runs: &[i64]| names(runs, |id| format!("{id}"));
        let mut parts: Vec<String> = Vec::new();
        match (&self.matrix, &self.runs[..]) {
            (None, [id]) => parts.push(format!("The results of run {id}")),
            (None, []) => parts.push("The latest run of every board and build".into()),
            (None, runs_shown) => parts.push(format!("Runs {} compared", runs(runs_shown))),
            (Some(matrix), runs_shown) => {
                let columns = if runs_shown.is_empty() {
                    String::from("the latest run of every board and build")
                } else {
                    format!("runs {}", runs(runs_shown))
                };
                parts.push(format!("The matrix of {columns}: {} of each operation", matrix.figure.label()));
                if let Some([first, second]) = matrix.pair {
                    parts.push(format!("run {second} set against run {first}"));
                }
            }
        }
        let filter = &self.filter;
        if !filter.families.is_empty() {
            parts.push(format!("family {}", names(&filter.families, |f| f.as_str().into())));
        }
        if !filter.algorithms.is_empty() {
            parts.push(format!("{} only", names(&filter.algorithms, |a| a.as_str().into())));
        }
        if !filter.operations.is_empty() {
            parts.push(format!("operation {}", names(&filter.operations, |o| o.as_str().into())));
        }
        if let Some(sort) = self.sort.filter(|_| self.matrix.is_none()) {
            let direction = if sort.descending { "descending" } else { "ascending" };
            parts.push(format!("sorted by {}, {direction}", sort.column.label()));
        }
        if let Some(h) = &self.history {
            parts.push(format!(
                "with the history of {} {} on {}",
                h.algorithm.as_str(),
                h.operation.as_str(),
                h.board
            ));
        }
        let mut sentence = parts.join("; ");
        sentence.push('.');
        sentence
    }
}
