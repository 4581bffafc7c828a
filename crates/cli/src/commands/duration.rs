//! Durations on the command line: 90, 90s, 10m, 2h, 1d, 1e3, and sums of units such as 9m15s
//! or 1h30m.

use std::time::Duration;

/// The longest duration a flag takes: 100 years (any longer one means "no limit", which
/// leaving the flag out says; far longer ones overflow the clock's arithmetic).
const MAX_DURATION_S: f64 = 100.0 * 365.0 * 86400.0;

/// A duration flag: a number of seconds, or with a unit s, m (min), h or d, or a sum of such
/// (9m15s, 1h30m, each unit once, largest first); at most 100 years.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    // The unit is the trailing letters, so that a number may have an exponent (1e3, 1.5e2s).
    let (num, unit) = s.split_at(s.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len());
    let secs = match num.trim().parse::<f64>() {
        Ok(v) => v * unit_seconds(unit)?,
        Err(_) => sum_of_units(s).ok_or_else(|| format!("'{s}' is not a duration like 90s, 10m, 2h or 1h30m"))?,
    };
    if !(secs.is_finite() && secs >= 0.0) {
        return Err(format!("bad duration '{s}'"));
    }
    if secs > MAX_DURATION_S {
        return Err(format!(
            "'{s}' is longer than the longest duration accepted, {} days",
            MAX_DURATION_S / 86400.0
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A duration flag that must be more than zero (a zero rung stall would end every rung at once).
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    match parse_duration(s)? {
        d if d.is_zero() => Err("must be more than 0".to_owned()),
        d => Ok(d),
    }
}

/// Seconds in one `unit` (none: seconds).
fn unit_seconds(unit: &str) -> Result<f64, String> {
    match unit {
        "" | "s" => Ok(1.0),
        "m" | "min" => Ok(60.0),
        "h" => Ok(3600.0),
        "d" => Ok(86400.0),
        _ => Err(format!("unknown unit '{unit}' (use s, m, h or d)")),
    }
}

/// The seconds of a sum such as 1h30m or 9m15.5s: numbers each followed by a unit, the units
/// in decreasing order without repeats. None for anything else.
fn sum_of_units(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let mut rest = s;
    let mut total = 0.0;
    let mut last = f64::INFINITY;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, tail) = rest.split_at(digits);
        let letters = tail.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(letters);
        let per = unit_seconds(unit).ok().filter(|&per| !unit.is_empty() && per < last)?;
        total += num.parse::<f64>().ok()? * per;
        (last, rest) = (per, tail);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_take_a_unit_or_a_sum_of_units() {
        let secs = |s: &str| parse_duration(s).map(|d| d.as_secs_f64());
        assert_eq!(secs("90"), Ok(90.0));
        assert_eq!(secs("1.5e2s"), Ok(150.0));
        assert_eq!(secs("10m"), Ok(600.0));
        assert_eq!(secs("9m15s"), Ok(555.0));
        assert_eq!(secs("1h30m"), Ok(5400.0));
        assert_eq!(secs("1d2h3m4.5s"), Ok(93784.5));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        for bad in ["15s9m", "1m1m", "1h30", "h", "1x", "", "m5", "1.2.3s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_duration("5q").unwrap_err().contains("unknown unit 'q'"));
    }
}
