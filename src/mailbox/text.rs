//! Display text from the log: control characters out, whitespace controls as spaces. The bottom
//! of the mailbox: deriving and notifying both read it, it reads nothing of theirs.

fn is_control(c: char) -> bool {
    // C0, DEL and C1 (U+0080..=U+009F, which holds the 8-bit ST U+009C and CSI/OSC/DCS).
    c <= '\u{1f}' || ('\u{7f}'..='\u{9f}').contains(&c)
}

/// Display text: whitespace controls (tab, newline, CR) become a space, every other control
/// character (C0, DEL, C1 incl. ESC, BEL, U+009C) is removed. `;` is kept.
pub fn clean_text(s: &str) -> String {
    s.chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' => Some(' '),
            c if is_control(c) => None,
            c => Some(c),
        })
        .collect()
}
