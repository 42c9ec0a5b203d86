//! Parsing access log lines (combined log format).

/// One request.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub path: String,
    pub status: u16,
    pub millis: u64,
}

/// The parsed entries and how many lines did not parse.
pub struct Parsed {
    pub parsed: Vec<Entry>,
    pub skipped: usize,
}

pub fn parse_log(text: &str) -> Parsed {
    let mut parsed = Vec::new();
    let mut skipped = 0;
    for line in text.lines() {
        match parse_line(line) {
            Some(entry) => parsed.push(entry),
            None => skipped += 1,
        }
    }
    Parsed { parsed, skipped }
}

/// `"GET /path HTTP/1.1" 200 1234 17`: the request, status, size and time.
pub fn parse_line(line: &str) -> Option<Entry> {
    let (_, rest) = line.split_once('"')?;
    let (request, remaining) = rest.split_once('"')?;
    let path = request.split_whitespace().nth(1)?.to_string();
    let mut fields = remaining.split_whitespace();
    let status = fields.next()?.parse().ok()?;
    let millis = fields.nth(1)?.parse().ok()?;
    Some(Entry { path, status, millis })
}
