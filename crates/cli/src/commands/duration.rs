//! Durations on the command line: 90, 90s, 10m, 2h, 1d, 1e3.

use std::time::Duration;

/// The longest duration a flag takes: 100 years (any longer one means "no limit", which
/// leaving the flag out says; far longer ones overflow the clock's arithmetic).
const MAX_DURATION_S: f64 = 100.0 * 365.0 * 86400.0;

/// A duration flag: a number of seconds, or with a unit s, m (min), h or d; at most 100 years.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    // The unit is the trailing letters, so that a number may have an exponent (1e3, 1.5e2s).
    let (num, unit) = s.split_at(s.trim_end_matches(|c: char| c.is_ascii_alphabetic()).len());
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a duration like 90s, 10m or 2h"))?;
    let secs = match unit {
        "" | "s" => v,
        "m" | "min" => v * 60.0,
        "h" => v * 3600.0,
        "d" => v * 86400.0,
        _ => return Err(format!("unknown unit '{unit}' (use s, m, h or d)")),
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
