//! A record's client-chosen strings held to a size (a 60 KB path, an 8 MiB tool name): each cut
//! at `MAX_FIELD` bytes with its length noted, lists cut at `MAX_ITEMS`, so every record is small.

use std::borrow::Cow;

use super::Event;

/// Bytes of one field kept.
pub const MAX_FIELD: usize = 256;
/// Items of one list kept (wings, rewrites), the rest counted.
pub const MAX_ITEMS: usize = 16;

/// `e` with every client-chosen field within bounds (borrowed when it already is).
pub fn bounded(e: &Event) -> Cow<'_, Event> {
    let long = |s: &str| s.len() > MAX_FIELD;
    let opt_long = |s: &Option<String>| s.as_deref().is_some_and(long);
    let list_long = |l: &[String]| l.len() > MAX_ITEMS || l.iter().any(|s| long(s));
    if !(long(&e.route)
        || long(&e.rule)
        || long(&e.class)
        || opt_long(&e.rpc)
        || opt_long(&e.tool)
        || opt_long(&e.device)
        || opt_long(&e.token_id)
        || opt_long(&e.peer)
        || list_long(&e.wings)
        || list_long(&e.rewrites))
    {
        return Cow::Borrowed(e);
    }
    let mut e = e.clone();
    for s in [&mut e.route, &mut e.rule, &mut e.class] {
        cut(s);
    }
    for s in [
        &mut e.rpc,
        &mut e.tool,
        &mut e.device,
        &mut e.token_id,
        &mut e.peer,
    ]
    .into_iter()
    .flatten()
    {
        cut(s);
    }
    for l in [&mut e.wings, &mut e.rewrites] {
        if l.len() > MAX_ITEMS {
            let more = l.len() - MAX_ITEMS;
            l.truncate(MAX_ITEMS);
            l.push(format!("…(+{more} more)"));
        }
        l.iter_mut().for_each(cut);
    }
    Cow::Owned(e)
}

/// `s` cut to `MAX_FIELD` bytes at a character boundary, its whole length noted.
fn cut(s: &mut String) {
    if s.len() <= MAX_FIELD {
        return;
    }
    let mut at = MAX_FIELD;
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    let whole = s.len();
    s.truncate(at);
    s.push_str(&format!("…({whole} bytes)"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_fields_and_lists_are_cut_and_noted_and_short_ones_borrowed() {
        let short = Event {
            route: "/mcp".into(),
            ..Event::default()
        };
        assert!(matches!(bounded(&short), Cow::Borrowed(_)));
        let e = Event {
            route: format!("/{}", "a".repeat(60_000)),
            tool: Some("é".repeat(4_000_000)),
            wings: (0..100).map(|i| format!("wing_{i}")).collect(),
            ..Event::default()
        };
        let b = bounded(&e);
        assert!(b.route.len() < MAX_FIELD + 20, "{}", b.route.len());
        assert!(b.route.ends_with("…(60001 bytes)"), "{}", &b.route[250..]);
        assert!(b.tool.as_ref().unwrap().ends_with("…(8000000 bytes)"));
        assert_eq!(b.wings.len(), MAX_ITEMS + 1);
        assert_eq!(b.wings.last().unwrap(), "…(+84 more)");
    }
}
