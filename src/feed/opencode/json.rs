//! A cursor over one row's JSON text that accepts exactly what `serde_json::from_str` accepts for
//! the typed fields [`part`](super::part) reads: strings, skips and containers, nothing kept but them.

// Why not serde_json: it walks a skipped subtree (a tool's whole output) through its visitor
// machinery token by token; here a skipped value is one tight loop, and a string scan goes 16
// bytes a step. What must match serde_json 1.0 (with `arbitrary_precision`), the rules mirrored here:
// - whitespace is ` `, `\n`, `\t`, `\r`; nothing but whitespace may follow the top value;
// - a string read as a value or as a key of a map that is visited (the part, its state, a tool's
//   input, any container a lenient field holds) is *validated*: an escaped surrogate must be
//   paired; a string inside a skipped value (serde's `ignore_value`) only needs 4 hex digits after
//   `\u`; either way a control character (below 0x20) or an unknown escape fails the row;
// - numbers are JSON's grammar (one leading `0`, a digit after `.` and after the exponent), their
//   size never checked; `null`, `true`, `false` exact; no trailing comma anywhere;
// - a skipped value nests without limit (serde skips iteratively); the visited levels are few.

use std::borrow::Cow;

/// The text is not what serde_json would accept for these fields: the row is a bad row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bad;

pub type Res<T> = Result<T, Bad>;

/// A value read where serde's `deserialize_any` reads it, reduced to what a lenient field uses.
#[derive(Debug, PartialEq)]
pub enum Any<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    /// `null`, a number, an array or an object (each checked, then dropped).
    Other,
}

pub struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

const ONES: u64 = u64::MAX / 255;

/// Index of the first byte of `b` from `at` that is `"`, `\` or a control character (`b.len()` if
/// none): 16 bytes a step with SSE2 (part of every x86_64), else 8 (Mycroft's test, as serde_json's
/// own scan).
fn to_special(b: &[u8], mut at: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while at + 16 <= b.len() {
        use std::arch::x86_64::*;
        // SAFETY: the 16 bytes loaded are inside `b` (at + 16 <= len, an unaligned load); SSE2 is
        // in x86_64's baseline, so these intrinsics are always available.
        let mask = unsafe {
            let v = _mm_loadu_si128(b.as_ptr().add(at).cast());
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // A byte at most 0x1f is its own minimum with 0x1f (unsigned).
            let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl))
        };
        if mask != 0 {
            return at + mask.trailing_zeros() as usize;
        }
        at += 16;
    }
    while at + 8 <= b.len() {
        let w = u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let ctrl = w.wrapping_sub(ONES * 0x20) & !w;
        let q = w ^ (ONES * u64::from(b'"'));
        let quote = q.wrapping_sub(ONES) & !q;
        let s = w ^ (ONES * u64::from(b'\\'));
        let slash = s.wrapping_sub(ONES) & !s;
        let hit = (ctrl | quote | slash) & (ONES << 7);
        if hit != 0 {
            return at + hit.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    while at < b.len() && !matches!(b[at], b'"' | b'\\' | 0..=0x1f) {
        at += 1;
    }
    at
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, at: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after whitespace, not consumed.
    pub fn peek(&mut self) -> Option<u8> {
        let b = self.bytes();
        while let Some(&c) = b.get(self.at) {
            if !matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(c);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes the byte [`peek`](Self::peek) returned.
    pub fn bump(&mut self) {
        self.at += 1;
    }

    /// Consumes `c` after whitespace, or fails.
    pub fn expect(&mut self, c: u8) -> Res<()> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(Bad)
        }
    }

    /// Only whitespace is left.
    pub fn end(&mut self) -> Res<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Bad),
        }
    }

    fn ident(&mut self, word: &[u8]) -> Res<()> {
        if self.bytes()[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(Bad)
        }
    }

    fn digits(&mut self) -> usize {
        let b = self.bytes();
        let start = self.at;
        while b.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - start
    }

    /// A number at the cursor (`-` or a digit), checked as JSON's grammar.
    fn number(&mut self) -> Res<()> {
        let b = self.bytes();
        if b[self.at] == b'-' {
            self.at += 1;
        }
        match b.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if b.get(self.at).is_some_and(u8::is_ascii_digit) {
                    return Err(Bad);
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Bad),
        }
        if b.get(self.at) == Some(&b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(Bad);
            }
        }
        if matches!(b.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(b.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(Bad);
            }
        }
        Ok(())
    }

    fn hex4(&mut self) -> Res<u16> {
        let b = self.bytes();
        let digits = b.get(self.at..self.at + 4).ok_or(Bad)?;
        let mut n: u16 = 0;
        for &d in digits {
            let v = (d as char).to_digit(16).ok_or(Bad)?;
            n = n * 16 + v as u16;
        }
        self.at += 4;
        Ok(n)
    }

    /// The rest of a string whose `"` was consumed, unchecked beyond serde's `ignore_str`.
    fn skip_str(&mut self) -> Res<()> {
        let b = self.bytes();
        loop {
            self.at = to_special(b, self.at);
            match b.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match b.get(self.at) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.at += 1
                        }
                        Some(b'u') => {
                            self.at += 1;
                            self.hex4()?;
                        }
                        _ => return Err(Bad),
                    }
                }
                _ => return Err(Bad),
            }
        }
    }

    /// The rest of a string whose `"` was consumed, validated and unescaped as serde's
    /// `parse_str` does; borrowed when it holds no escape.
    pub fn string(&mut self) -> Res<Cow<'a, str>> {
        let (b, text) = (self.bytes(), self.text);
        let start = self.at;
        self.at = to_special(b, self.at);
        if b.get(self.at) == Some(&b'"') {
            self.at += 1;
            return Ok(Cow::Borrowed(&text[start..self.at - 1]));
        }
        let mut out = String::new();
        let mut from = start;
        loop {
            self.at = to_special(b, self.at);
            match b.get(self.at) {
                Some(b'"') => {
                    out.push_str(&text[from..self.at]);
                    self.at += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    if out.capacity() == 0 {
                        out.reserve(self.at - start + 16);
                    }
                    out.push_str(&text[from..self.at]);
                    self.at += 1;
                    let c = match b.get(self.at) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\x08',
                        Some(b'f') => '\x0c',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => self.unicode()?,
                        _ => return Err(Bad),
                    };
                    self.at += 1;
                    out.push(c);
                    from = self.at;
                }
                _ => return Err(Bad),
            }
        }
    }

    /// `\uXXXX` (the cursor on its `u`, left on its last digit), a surrogate pair when the first
    /// is a leading surrogate; any lone surrogate fails, as serde's validated strings do.
    fn unicode(&mut self) -> Res<char> {
        self.at += 1;
        let n = self.hex4()?;
        let cp = match n {
            0xDC00..=0xDFFF => return Err(Bad),
            0xD800..=0xDBFF => {
                self.ident(b"\\u")?;
                let n2 = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&n2) {
                    return Err(Bad);
                }
                (((u32::from(n) - 0xD800) << 10) | (u32::from(n2) - 0xDC00)) + 0x1_0000
            }
            _ => u32::from(n),
        };
        self.at -= 1;
        char::from_u32(cp).ok_or(Bad)
    }

    /// A map key (after whitespace) and its colon; the key validated as serde reads a visited
    /// map's keys.
    pub fn key(&mut self) -> Res<Cow<'a, str>> {
        self.expect(b'"')?;
        // Keys are short and plain: a byte loop to the closing quote, else the full reading.
        let (b, start) = (self.bytes(), self.at);
        let mut i = start;
        while let Some(&c) = b.get(i) {
            if c == b'"' {
                self.at = i + 1;
                if b.get(self.at) == Some(&b':') {
                    self.at += 1;
                } else {
                    self.expect(b':')?;
                }
                return Ok(Cow::Borrowed(&self.text[start..i]));
            }
            if c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        let k = self.string()?;
        self.expect(b':')?;
        Ok(k)
    }

    /// Between a container's members: `true` for one more (its comma consumed), `false` at the
    /// end (`close` consumed). `first`: right after the opening bracket.
    pub fn more(&mut self, close: u8, first: bool) -> Res<bool> {
        match self.peek() {
            Some(c) if c == close => {
                self.at += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.at += 1;
                // A member must follow a comma.
                match self.peek() {
                    Some(c) if c == close => Err(Bad),
                    Some(_) => Ok(true),
                    None => Err(Bad),
                }
            }
            Some(_) if first => Ok(true),
            _ => Err(Bad),
        }
    }

    /// A whole value skipped as serde's `ignore_value` skips it: checked, nothing kept, nested
    /// containers followed on a bit stack (no recursion).
    pub fn skip(&mut self) -> Res<()> {
        // Bit set: an object at that depth, else an array.
        let mut stack = Stack::default();
        loop {
            // A value is expected here.
            match self.peek().ok_or(Bad)? {
                b'"' => {
                    self.at += 1;
                    self.skip_str()?;
                }
                b'{' => {
                    self.at += 1;
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                    } else {
                        stack.push(true);
                        self.skip_key()?;
                        continue;
                    }
                }
                b'[' => {
                    self.at += 1;
                    if self.peek() == Some(b']') {
                        self.at += 1;
                    } else {
                        stack.push(false);
                        continue;
                    }
                }
                b'n' => self.ident(b"null")?,
                b't' => self.ident(b"true")?,
                b'f' => self.ident(b"false")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(Bad),
            }
            // The value is done: close what it ends, or go on to the next member.
            loop {
                let Some(object) = stack.top() else {
                    return Ok(());
                };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if object {
                            self.skip_key()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {
                        self.at += 1;
                        stack.pop();
                    }
                    Some(b']') if !object => {
                        self.at += 1;
                        stack.pop();
                    }
                    _ => return Err(Bad),
                }
            }
        }
    }

    /// A key inside a skipped object, and its colon (unvalidated, as serde's `ignore_value`).
    fn skip_key(&mut self) -> Res<()> {
        self.expect(b'"')?;
        self.skip_str()?;
        self.expect(b':')
    }

    /// A value where serde's `deserialize_any` reads it (a lenient field): a string validated, a
    /// container's direct keys validated and its members skipped.
    pub fn any(&mut self) -> Res<Any<'a>> {
        match self.peek().ok_or(Bad)? {
            b'"' => {
                self.at += 1;
                return self.string().map(Any::Str);
            }
            b't' => {
                self.ident(b"true")?;
                return Ok(Any::Bool(true));
            }
            b'f' => {
                self.ident(b"false")?;
                return Ok(Any::Bool(false));
            }
            b'n' => self.ident(b"null")?,
            b'-' | b'0'..=b'9' => self.number()?,
            b'[' => {
                self.at += 1;
                let mut first = true;
                while self.more(b']', first)? {
                    first = false;
                    self.skip()?;
                }
            }
            b'{' => {
                self.at += 1;
                let mut first = true;
                while self.more(b'}', first)? {
                    first = false;
                    self.key()?;
                    self.skip()?;
                }
            }
            _ => return Err(Bad),
        }
        Ok(Any::Other)
    }

    /// `null` (consumed: `true`) or anything else (left: `false`), as serde's `deserialize_option`.
    pub fn null(&mut self) -> Res<bool> {
        if self.peek() == Some(b'n') {
            self.ident(b"null")?;
            return Ok(true);
        }
        Ok(false)
    }
}

/// Which of the skipped containers are objects, innermost last: 128 levels inline, then on the heap.
#[derive(Default)]
struct Stack {
    depth: usize,
    inline: u128,
    deeper: Vec<bool>,
}

impl Stack {
    fn push(&mut self, object: bool) {
        if self.depth < 128 {
            self.inline = (self.inline & !(1 << self.depth)) | (u128::from(object) << self.depth);
        } else {
            self.deeper.push(object);
        }
        self.depth += 1;
    }

    fn top(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            d if d <= 128 => Some(self.inline >> (d - 1) & 1 == 1),
            _ => self.deeper.last().copied(),
        }
    }

    fn pop(&mut self) {
        if self.depth > 128 {
            self.deeper.pop();
        }
        self.depth -= 1;
    }
}
