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
    current: Event,
    has_data: bool,
}

impl Parser {
    /// Feeds bytes; returns the events completed by them.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if let Some(ev) = self.line(&String::from_utf8_lossy(&line)) {
                out.push(ev);
            }
        }
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
    fn priming_event_without_data_is_not_dispatched() {
        let mut p = Parser::default();
        assert!(p.push(b"id: 0\n\n").is_empty());
        assert_eq!(p.push(b"data: y\n\n")[0].id, None);
    }
}
