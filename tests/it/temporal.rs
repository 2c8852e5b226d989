//! Cypher's temporal values: construction from strings, maps and other values, fields, arithmetic,
//! comparison and ordering, `toString`, `duration.between`, `truncate`, the epoch constructors,
//! and the refusal to store them as properties. Temporal values show unquoted (strings quoted);
//! every expected answer is worked out by hand from the calendar.

use crate::common::cypher::{empty, one, run};
use gemp::api::RunOptions;

/// The error of `query` on an empty graph (at preparation or execution).
fn error(query: &str) -> String {
    let g = empty();
    let options = RunOptions::host().cypher();
    match g.query_with(query, &options) {
        Ok(q) => match g.execute(&q, &options) {
            Ok(_) => panic!("{query}: no error"),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

#[test]
fn dates_from_strings_and_maps() {
    assert_eq!(one("RETURN date('2015-07-21') AS d"), "2015-07-21");
    assert_eq!(one("RETURN date('2015-W30-2') AS d"), "2015-07-21");
    // Day 202 of 2015: 181 days in January to June, then the 21st of July.
    assert_eq!(one("RETURN date('2015202') AS d"), "2015-07-21");
    assert_eq!(
        one("RETURN date({year: 1984, week: 10, dayOfWeek: 3}) AS d"),
        "1984-03-07"
    );
    assert_eq!(
        one("RETURN date({year: 1984, quarter: 3, dayOfQuarter: 45}) AS d"),
        "1984-08-14"
    );
    // Week 2 of week-based year 1817 keeps the base's Tuesday.
    assert_eq!(
        one("RETURN date({date: date('1816-12-31'), week: 2}) AS d"),
        "1817-01-07"
    );
    assert_eq!(
        one("RETURN date(datetime('2015-07-21T23:59+05:00')) AS d"),
        "2015-07-21"
    );
    assert_eq!(one("RETURN date(null) AS d"), "null");
    assert_eq!(one("RETURN date.statement(null) AS d"), "null");
}

#[test]
fn times_and_datetimes_print_as_cypher() {
    assert_eq!(
        one("RETURN localtime({hour: 12, minute: 31, second: 14, millisecond: 645}) AS t"),
        "12:31:14.645"
    );
    assert_eq!(one("RETURN time('2140-02') AS t"), "21:40-02:00");
    assert_eq!(one("RETURN time({hour: 12}) AS t"), "12:00Z");
    assert_eq!(
        one("RETURN localdatetime('2015-W30T2140') AS t"),
        "2015-07-20T21:40"
    );
    assert_eq!(
        one("RETURN datetime('2015-07-21T21:40:32.142+0100') AS t"),
        "2015-07-21T21:40:32.142+01:00"
    );
    // Summer time in Stockholm in July, standard time in January.
    assert_eq!(
        one("RETURN datetime({year: 1984, month: 7, day: 20, timezone: 'Europe/Stockholm'}) AS t"),
        "1984-07-20T00:00+02:00[Europe/Stockholm]"
    );
    assert_eq!(
        one("RETURN datetime('1984-01-20T12:00[Europe/Stockholm]') AS t"),
        "1984-01-20T12:00+01:00[Europe/Stockholm]"
    );
    // Before 1970 time zone databases disagree (Stockholm: +01:12:12 or Berlin's +00:53:28).
    assert!(
        error("RETURN datetime('1818-07-21T21:40:32.142[Europe/Stockholm]') AS t")
            .contains("before 1970")
    );
    // 416779 s = 4 days 19:46:19.
    assert_eq!(
        one("RETURN datetime.fromepoch(416779, 999999999) AS t"),
        "1970-01-05T19:46:19.999999999Z"
    );
    assert_eq!(
        one("RETURN datetime.fromepochmillis(1000) AS t"),
        "1970-01-01T00:00:01Z"
    );
}

#[test]
fn durations_keep_months_days_and_seconds_apart() {
    assert_eq!(one("RETURN duration('P14DT16H12M') AS d"), "P14DT16H12M");
    assert_eq!(one("RETURN duration({days: 1.5}) AS d"), "P1DT12H");
    assert_eq!(
        one("RETURN duration({seconds: -2, milliseconds: 1}) AS d"),
        "PT-1.999S"
    );
    assert_eq!(
        one("RETURN toString(duration({minutes: 12, seconds: -60})) AS s"),
        "'PT11M'"
    );
    assert_eq!(
        one("RETURN duration('P1D') + duration('PT36H') AS d"),
        "P1DT36H"
    );
    assert_eq!(one("RETURN duration('PT1H') * 2 AS d"), "PT2H");
    assert_eq!(one("RETURN duration('P1D') / 2 AS d"), "PT12H");
    assert_eq!(
        one("RETURN duration('P1D') = duration('PT24H') AS e"),
        "false"
    );
}

#[test]
fn fields_of_dates_times_and_durations() {
    assert_eq!(
        one("WITH date('2015-07-21') AS d RETURN d.year, d.month, d.day, d.week, d.dayOfWeek, d.ordinalDay, d.quarter"),
        "2015 | 7 | 21 | 30 | 2 | 202 | 3"
    );
    // 3 h 5 min 7.5 s = 11107.5 s.
    assert_eq!(
        one("WITH duration('P1Y2M10DT3H5M7.5S') AS x RETURN x.years, x.months, x.monthsOfYear, x.days, x.hours, x.minutesOfHour, x.seconds, x.millisecondsOfSecond"),
        "1 | 14 | 2 | 10 | 3 | 5 | 11107 | 500"
    );
    assert_eq!(
        one("WITH datetime({year: 2017, month: 8, day: 8, hour: 12, timezone: 'Europe/Stockholm'}) AS t RETURN t.timezone, t.offset, t.hour, t.epochSeconds"),
        // 2017-08-08T10:00Z: 17386 days after 1970-01-01, times 86400, plus 36000 s.
        "'Europe/Stockholm' | '+02:00' | 12 | 1502186400"
    );
    assert!(error("RETURN date('2015-07-21').hour AS h").contains("no field `hour`"));
}

#[test]
fn arithmetic_with_durations() {
    // The day clamps to the end of February.
    assert_eq!(
        one("RETURN date('2023-01-31') + duration('P1M') AS d"),
        "2023-02-28"
    );
    assert_eq!(
        one("RETURN duration('P1M') + date('2023-01-31') AS d"),
        "2023-02-28"
    );
    assert_eq!(
        one("RETURN localtime('23:30') + duration('PT45M') AS t"),
        "00:15"
    );
    assert_eq!(
        one("RETURN localdatetime('2020-02-28T23:00') + duration('PT2H') AS t"),
        "2020-02-29T01:00"
    );
    // 2021-03-28 02:00 in Stockholm is skipped: one hour after 01:30 is 03:30 summer time.
    assert_eq!(
        one("RETURN datetime('2021-03-28T01:30[Europe/Stockholm]') + duration('PT1H') AS t"),
        "2021-03-28T03:30+02:00[Europe/Stockholm]"
    );
}

#[test]
fn comparison_ordering_and_distinct() {
    assert_eq!(
        one("RETURN date('2020-01-01') < date('2020-01-02') AS c"),
        "true"
    );
    assert_eq!(
        one("RETURN date('2020-01-01') < localdatetime('2020-01-02T00:00') AS c"),
        "null"
    );
    assert_eq!(
        one("RETURN date('2020-01-01') = '2020-01-01' AS c"),
        "false"
    );
    assert_eq!(one("RETURN duration('P1D') < duration('P2D') AS c"), "null");
    // 01:00+01:00 is midnight UTC, before 00:30 UTC.
    assert_eq!(
        one("RETURN datetime('2020-01-01T01:00+01:00') < datetime('2020-01-01T00:30Z') AS c"),
        "true"
    );
    let (_, rows) = run(
        &empty(),
        "UNWIND [date('2020-03-01'), date('2019-12-31'), date('2020-01-15')] AS d RETURN d ORDER BY d",
    );
    assert_eq!(rows, vec!["2019-12-31", "2020-01-15", "2020-03-01"]);
    let (_, rows) = run(
        &empty(),
        "UNWIND [date('2020-01-01'), date({year: 2020}), date('2020-01-02')] AS d RETURN DISTINCT d ORDER BY d",
    );
    assert_eq!(rows, vec!["2020-01-01", "2020-01-02"]);
}

#[test]
fn between_and_truncate() {
    // Jan 31 plus one month is Feb 29 (2020 is a leap year), then one day to Mar 1.
    assert_eq!(
        one("RETURN duration.between(date('2020-01-31'), date('2020-03-01')) AS d"),
        "P1M1D"
    );
    assert_eq!(
        one("RETURN duration.inDays(date('2020-01-01'), date('2020-03-01')) AS d"),
        "P60D"
    );
    assert_eq!(
        one("RETURN duration.inSeconds(localtime('12:00'), localtime('13:30:15')) AS d"),
        "PT1H30M15S"
    );
    assert_eq!(
        one("RETURN date.truncate('week', date('2015-07-21')) AS d"),
        "2015-07-20"
    );
    assert_eq!(
        one("RETURN localdatetime.truncate('hour', localdatetime('2015-07-21T21:40:32')) AS d"),
        "2015-07-21T21:00"
    );
    assert_eq!(
        one("RETURN datetime.truncate('day', datetime('2015-07-21T21:40:32+01:00')) AS d"),
        "2015-07-21T00:00+01:00"
    );
}

#[test]
fn bad_values_are_errors_and_storing_is_refused() {
    assert!(error("RETURN date('2015-13-01') AS d").contains("invalid date 2015-13-1"));
    assert!(error("RETURN date({year: 2015, mont: 1}) AS d").contains("no field `mont`"));
    assert!(
        error("RETURN datetime({year: 2015, timezone: 'Mars/Olympus'}) AS d")
            .contains("unknown time zone")
    );
    let mut g = empty();
    let e = g
        .apply_with("CREATE ({d: date('2015-01-01')})", &Default::default())
        .expect_err("temporal properties are not stored");
    // Refused before evaluation today (a statement without MATCH writes only constants); once
    // computed values are written, the refusal of temporal properties answers instead.
    let text = e.to_string();
    assert!(
        text.contains("storing a date as a property value")
            || text.contains("can only write constants"),
        "{e}"
    );
}
