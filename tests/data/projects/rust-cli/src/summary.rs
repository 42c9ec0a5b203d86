//! The summary: requests per path, status codes, slow requests.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::parse::Entry;

pub struct Report {
    pub by_path: Vec<(String, usize)>,
    pub by_status: BTreeMap<u16, usize>,
    pub slow: Vec<Entry>,
}

pub fn summarise(entries: &[Entry], config: &Config) -> Report {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut by_status = BTreeMap::new();
    for entry in entries {
        if config.ignore_paths.iter().any(|p| p == &entry.path) {
            continue;
        }
        *counts.entry(entry.path.as_str()).or_default() += 1;
        *by_status.entry(entry.status).or_default() += 1;
    }
    let mut by_path: Vec<(String, usize)> =
        counts.into_iter().map(|(p, n)| (p.to_string(), n)).collect();
    by_path.sort_by(|a, b| b.1.cmp(&a.1));
    by_path.truncate(config.top);
    let slow = entries.iter().filter(|e| e.millis > config.slow_ms).cloned().collect();
    Report { by_path, by_status, slow }
}

pub fn print_summary(report: &Report, json: bool) {
    if json {
        println!("{{\"paths\": {}}}", report.by_path.len());
        return;
    }
    for (path, n) in &report.by_path {
        println!("{n:>8}  {path}");
    }
    for (status, n) in &report.by_status {
        println!("{status}: {n}");
    }
}
