//! Time for the whole crate: the clock (unix ms and s), whole-second UTC instants (strict
//! ISO-8601 parsing, RFC 3339 rendering), durations written as `7d`, and ages for people.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{MptError, Result};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Whole seconds since the Unix epoch.
pub fn now_unix() -> i64 {
    now_ms().div_euclid(1000)
}

/// `2026-11-29T23:34:01Z` (UTC, second precision) for unix ms: the shape MemPalace's event
/// log uses.
pub fn rfc3339(ms: i64) -> String {
    format_iso_utc(ms.div_euclid(1000))
}

/// `90s`, `15m`, `12h`, `7d`, `2w` (a bare number is seconds).
pub fn parse_duration(s: &str) -> Result<Duration> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || {
        MptError::usage(format!("'{s}' is not a duration"))
            .with_hint("write it as a number and a unit: 90s, 15m, 12h, 7d, 2w")
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    let secs = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    n.checked_mul(secs).map(Duration::from_secs).ok_or_else(bad)
}

/// An age for people, from milliseconds: `45s`, `3m`, `2h`, `5d` (whole units, rounded down;
/// a negative age, from clock skew, is `0s`). The one format every command prints.
pub fn human_age(ms: i64) -> String {
    let s = (ms / 1000).max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days in month `m` (1-12) of year `y`, leap years counted.
pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

/// Parses a fixed number of ASCII digits.
fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.iter().try_fold(0u32, |acc, b| {
        acc.checked_mul(10)?.checked_add(u32::from(b - b'0'))
    })
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)` into unix seconds, flooring any
/// fraction (the comparison is at whole seconds). Anything else, including a date without a
/// time, a missing zone, a lowercase `t`/`z`, a leap second or an impossible date, is `None`.
pub fn parse_iso_utc(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let year = i64::from(digits(&b[0..4])?);
    let month = digits(&b[5..7])?;
    let day = digits(&b[8..10])?;
    let hour = digits(&b[11..13])?;
    let minute = digits(&b[14..16])?;
    let second = digits(&b[17..19])?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut rest = &b[19..];
    if rest.first() == Some(&b'.') {
        let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        rest = &rest[1 + n..];
    }
    let offset = match rest {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let oh = digits(&[*h1, *h2])?;
            let om = digits(&[*m1, *m2])?;
            if oh > 23 || om > 59 {
                return None;
            }
            let off = i64::from(oh * 3600 + om * 60);
            if *sign == b'+' { off } else { -off }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Some(secs - offset)
}

/// Renders unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (the palace's `created_at` format).
pub fn format_iso_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        tod / 3600,
        (tod % 3600) / 60,
        tod % 60
    )
}

/// A date (`YYYY-MM-DD`), or a date and a time of day as MemPalace's `filed_at` has it
/// (`T` or a space, `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction`, an optional `Z`): the date must
/// exist (leap years counted) and the time be one. No zone offsets: `filed_at` carries none.
pub fn is_date_or_local_time(s: &str) -> bool {
    if !s.is_ascii() {
        return false;
    }
    let (date, time) = match s.len() {
        10 => (s, None),
        n if n > 11 => (&s[..10], Some((&s[10..11], &s[11..]))),
        _ => return false,
    };
    let d = date.as_bytes();
    if d[4] != b'-' || d[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(day)) =
        (number(&date[..4]), number(&date[5..7]), number(&date[8..]))
    else {
        return false;
    };
    if !(1..=12).contains(&m) || day == 0 || day > days_in_month(i64::from(y), m) {
        return false;
    }
    let Some((sep, t)) = time else {
        return true;
    };
    let t = t.strip_suffix('Z').unwrap_or(t);
    let (clock, frac) = match t.split_once('.') {
        Some((c, f)) => (c, Some(f)),
        None => (t, None),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    matches!(sep, "T" | " ")
        && frac.is_none_or(|f| number(f).is_some())
        && (parts.len() == 3 || (parts.len() == 2 && frac.is_none()))
        && parts
            .iter()
            .zip([24, 60, 60])
            .all(|(p, below)| p.len() == 2 && number(p).is_some_and(|v| v < below))
}

/// A run of ASCII digits as a number (a fraction's digits too: only their presence counts).
fn number(t: &str) -> Option<u32> {
    if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(t.parse().unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        let table: &[(&str, Option<i64>)] = &[
            ("1970-01-01T00:00:00Z", Some(0)),
            ("2026-09-22T18:12:49Z", Some(1_790_100_769)),
            ("2026-09-22T18:12:49.999Z", Some(1_790_100_769)),
            ("2026-09-22T18:12:49.1Z", Some(1_790_100_769)),
            ("2026-09-22T20:12:49+02:00", Some(1_790_100_769)),
            ("2026-09-22T13:12:49-05:00", Some(1_790_100_769)),
            ("2000-02-29T00:00:00Z", Some(951_782_400)),
            ("1969-12-31T23:59:59Z", Some(-1)),
        ];
        for (input, want) in table {
            assert_eq!(parse_iso_utc(input), *want, "{input}");
        }
    }

    #[test]
    fn rejects_everything_else() {
        for input in [
            "",
            "2026-09-22",
            "2026-09-22T18:12:49",
            "2026-09-22t18:12:49Z",
            "2026-09-22T18:12:49z",
            "2026-09-22 18:12:49Z",
            "2026-09-22T18:12Z",
            "2026-09-22T18:12:60Z",
            "2026-09-22T24:00:00Z",
            "2026-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-09-22T18:12:49.Z",
            "2026-09-22T18:12:49+0200",
            "2026-09-22T18:12:49+24:00",
            "2026-09-22T18:12:49Z ",
            "+026-09-22T18:12:49Z",
            "1790100769",
            "２026-09-22T18:12:49Z",
        ] {
            assert_eq!(parse_iso_utc(input), None, "{input:?}");
        }
    }

    #[test]
    fn rfc3339_matches_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_995_241_353), "2026-11-29T23:34:01Z");
    }

    #[test]
    fn durations_parse_and_refuse() {
        assert_eq!(parse_duration("7d").unwrap(), Duration::from_secs(604_800));
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("15m").unwrap(), Duration::from_secs(900));
        for bad in ["", "d", "7 days", "-1s", "1.5h"] {
            assert_eq!(parse_duration(bad).unwrap_err().exit().code(), 2, "{bad}");
        }
    }

    #[test]
    fn ages_read_in_whole_units() {
        let table = [
            (-5_000, "0s"),
            (0, "0s"),
            (59_999, "59s"),
            (90_000, "1m"),
            (3_599_000, "59m"),
            (3_600_000, "1h"),
            (7_199_000, "1h"),
            (86_399_000, "23h"),
            (86_400_000, "1d"),
            (172_800_000, "2d"),
        ];
        for (ms, want) in table {
            assert_eq!(human_age(ms), want, "{ms}");
        }
    }

    #[test]
    fn formats_and_round_trips() {
        assert_eq!(format_iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_iso_utc(1_790_100_769), "2026-09-22T18:12:49Z");
        assert_eq!(format_iso_utc(-1), "1969-12-31T23:59:59Z");
        for secs in [-86_401, 0, 951_782_400, 1_790_100_769, 4_102_444_799] {
            assert_eq!(parse_iso_utc(&format_iso_utc(secs)), Some(secs));
        }
    }
}
