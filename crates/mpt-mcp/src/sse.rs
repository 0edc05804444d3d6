//! An incremental Server-Sent Events parser (the `text/event-stream` reply of Streamable HTTP):
//! bytes in, complete events out; `data:` lines joined with newlines, comments ignored.

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Event {
    pub event: Option<String>,
    pub id: Option<String>,
    pub data: String,
    pub retry_ms: Option<u64>,
}

#[derive(Debug, Default)]
pub struct Parser {
    buf: Vec<u8>,
    /// How far `buf` is known to hold no newline: each byte is scanned once, so a line that
    /// never ends costs linear time, not quadratic.
    scanned: usize,
    current: Event,
    has_data: bool,
}

impl Parser {
    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(rel) = self.buf[self.scanned..].iter().position(|&b| b == b'\n') {
            let end = self.scanned + rel;
            let mut line = &self.buf[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
            start = end + 1;
            self.scanned = start;
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        out
    }

    fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            if !self.has_data {
                self.current = Event::default();
                return None;
            }
            self.has_data = false;
            return Some(std::mem::take(&mut self.current));
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.current.event = Some(value.to_string()),
            "id" => self.current.id = Some(value.to_string()),
            "retry" => self.current.retry_ms = value.parse().ok(),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_events_across_arbitrary_chunks() {
        let stream =
            b": ping\n\nid: e1\nevent: message\ndata: {\"a\":\ndata: 1}\n\ndata: x\r\n\r\n";
        for cut in 0..stream.len() {
            let mut p = Parser::default();
            let mut evs = p.push(&stream[..cut]);
            evs.extend(p.push(&stream[cut..]));
            assert_eq!(evs.len(), 2, "cut at {cut}");
            assert_eq!(evs[0].data, "{\"a\":\n1}");
            assert_eq!(evs[0].id.as_deref(), Some("e1"));
            assert_eq!(evs[0].event.as_deref(), Some("message"));
            assert_eq!(evs[1].data, "x");
        }
    }

    #[test]
    fn a_long_line_fed_in_small_chunks_is_scanned_once() {
        let mut p = Parser::default();
        p.push(b"data: ");
        for _ in 0..10_000 {
            assert!(p.push(&[b'x'; 100]).is_empty());
        }
        assert_eq!(p.scanned, p.buf.len());
        let evs = p.push(b"\n\n");
        assert_eq!(evs[0].data.len(), 1_000_000);
        assert!(p.buf.is_empty());
    }

    #[test]
    fn priming_event_without_data_is_not_dispatched() {
        let mut p = Parser::default();
        assert!(p.push(b"id: 0\n\n").is_empty());
        assert_eq!(p.push(b"data: y\n\n")[0].id, None);
    }
}
