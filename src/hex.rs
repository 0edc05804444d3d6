//! Lower-case hex text for bytes (digests, ids, tokens): the one encoder the crate uses.
//! No decoding: nothing reads hex back.

/// `bytes` as lower-case hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_lower_case_digits_a_byte() {
        assert_eq!(super::hex(&[0, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(super::hex(&[]), "");
    }
}
