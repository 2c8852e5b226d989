//! The example queries in datasets/queries/, run on the bundled IMDb sample, each checked against
//! an independent naive computation over the model API.

use crate::common;
use common::sample_model;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gemp::engines::gemp::execute;
use gemp::exec::eval::Val;
use gemp::exec::MatchOptions;
use gemp::model::{Model, ValueRef};
use gemp::pattern::{compile, Params};

fn query_rows(file: &str, params: &Params) -> Vec<Vec<String>> {
    let m = sample_model();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets/queries")
        .join(file);
    let src = std::fs::read_to_string(path).unwrap();
    let q = compile(&src, m, params).unwrap_or_else(|e| panic!("{}", e.render(&src, Some(file))));
    let out = execute(m, &q, &MatchOptions::default()).unwrap();
    out.rows
        .iter()
        .map(|r| r.iter().map(|v| v.to_string()).collect())
        .collect()
}

fn label(m: &Model, name: &str) -> u32 {
    m.labels().get(name).unwrap()
}

/// Distinct nodes `p` with an edge `p -[one of types]-> t`.
fn in_of(m: &Model, t: u32, types: &[&str]) -> BTreeSet<u32> {
    types
        .iter()
        .filter_map(|n| m.rel_types().get(n))
        .flat_map(|ty| m.inc().neighbors_of_type(t, ty).iter().copied())
        .collect()
}

fn out_of(m: &Model, p: u32, types: &[&str]) -> BTreeSet<u32> {
    types
        .iter()
        .filter_map(|n| m.rel_types().get(n))
        .flat_map(|ty| m.out().neighbors_of_type(p, ty).iter().copied())
        .collect()
}

fn name(m: &Model, n: u32, prop: &str) -> String {
    match m.node_property(n, prop) {
        ValueRef::Str(s) => s.to_owned(),
        other => other.to_string(),
    }
}

const ACTING: &[&str] = &["ACTOR", "ACTRESS"];

#[test]
fn four_actors_in_a_movie_with_a_jack() {
    let m = sample_model();
    let (movie, person) = (label(m, "Movie"), label(m, "Person"));
    let mut want = Vec::new();
    for &t in m.nodes_with_label(movie) {
        let actors: Vec<u32> = in_of(m, t, &["ACTOR"])
            .into_iter()
            .filter(|&p| m.has_label(p, person))
            .collect();
        for &a1 in &actors {
            if !name(m, a1, "primaryName").contains("Jack") {
                continue;
            }
            let rest: Vec<u32> = actors.iter().copied().filter(|&p| p != a1).collect();
            for i in 0..rest.len() {
                for j in i + 1..rest.len() {
                    for k in j + 1..rest.len() {
                        let row = [t, a1, rest[i], rest[j], rest[k]];
                        let mut r = vec![name(m, row[0], "primaryTitle")];
                        r.extend(row[1..].iter().map(|&p| name(m, p, "primaryName")));
                        want.push(r);
                    }
                }
            }
        }
    }
    want.sort();
    assert!(!want.is_empty(), "the sample must contain such movies");
    want.truncate(100);
    assert_eq!(query_rows("four-actors-jack.cypher", &Params::new()), want);
}

#[test]
fn actor_director_pairs() {
    let m = sample_model();
    let (title, person) = (label(m, "Title"), label(m, "Person"));
    let mut together: BTreeMap<(u32, u32), i64> = BTreeMap::new();
    for &t in m.nodes_with_label(title) {
        let actors = in_of(m, t, ACTING);
        let directors = in_of(m, t, &["DIRECTOR"]);
        for &a in actors.iter().filter(|&&a| m.has_label(a, person)) {
            for &d in directors
                .iter()
                .filter(|&&d| m.has_label(d, person) && d != a)
            {
                *together.entry((a, d)).or_default() += 1;
            }
        }
    }
    let mut want: Vec<(i64, String, String)> = together
        .into_iter()
        .filter(|&(_, n)| n >= 2)
        .map(|((a, d), n)| (-n, name(m, a, "primaryName"), name(m, d, "primaryName")))
        .collect();
    want.sort();
    assert!(!want.is_empty());
    let want: Vec<Vec<String>> = want
        .into_iter()
        .map(|(n, a, d)| vec![a, d, (-n).to_string()])
        .collect();
    assert_eq!(
        query_rows("actor-director-pairs.cypher", &Params::new()),
        want
    );
}

fn acted_titles(m: &Model) -> BTreeMap<u32, BTreeSet<u32>> {
    let (title, person) = (label(m, "Title"), label(m, "Person"));
    let mut t_of: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for &p in m.nodes_with_label(person) {
        let ts: BTreeSet<u32> = out_of(m, p, ACTING)
            .into_iter()
            .filter(|&t| m.has_label(t, title))
            .collect();
        if !ts.is_empty() {
            t_of.insert(p, ts);
        }
    }
    t_of
}

#[test]
fn couples_share_three_titles() {
    let m = sample_model();
    let t_of = acted_titles(m);
    let mut want = Vec::new();
    let persons: Vec<u32> = t_of.keys().copied().collect();
    for (i, &p1) in persons.iter().enumerate() {
        for &p2 in &persons[i + 1..] {
            let shared = t_of[&p1].intersection(&t_of[&p2]).count() as i64;
            if shared >= 3 {
                want.push((
                    -shared,
                    name(m, p1, "primaryName"),
                    name(m, p2, "primaryName"),
                ));
            }
        }
    }
    want.sort();
    assert!(!want.is_empty());
    let want: Vec<Vec<String>> = want
        .into_iter()
        .map(|(n, a, b)| vec![a, b, (-n).to_string()])
        .collect();
    assert_eq!(query_rows("couples.cypher", &Params::new()), want);
}

#[test]
fn costar_triangles() {
    let m = sample_model();
    let t_of = acted_titles(m);
    let costars = |p: u32| -> BTreeSet<u32> {
        t_of[&p]
            .iter()
            .flat_map(|&t| in_of(m, t, ACTING))
            .filter(|&q| q != p && t_of.contains_key(&q))
            .collect()
    };
    let mut embeddings = 0u64;
    let mut triples = 0u64;
    for &p1 in t_of.keys() {
        let c1 = costars(p1);
        for &p2 in c1.iter().filter(|&&x| x > p1) {
            let c2 = costars(p2);
            for &p3 in c2.iter().filter(|&&x| x > p2 && c1.contains(&x)) {
                let s12: Vec<u32> = t_of[&p1].intersection(&t_of[&p2]).copied().collect();
                let s23: Vec<u32> = t_of[&p2].intersection(&t_of[&p3]).copied().collect();
                let s31: Vec<u32> = t_of[&p3].intersection(&t_of[&p1]).copied().collect();
                let mut n = 0;
                for &a in &s12 {
                    for &b in &s23 {
                        for &c in &s31 {
                            if a != b && b != c && a != c {
                                n += 1;
                            }
                        }
                    }
                }
                embeddings += n;
                triples += u64::from(n > 0);
            }
        }
    }
    assert!(triples > 0);
    assert_eq!(
        query_rows("costar-triangle.cypher", &Params::new()),
        vec![vec![embeddings.to_string(), triples.to_string()]]
    );
}

#[test]
fn directors_and_acting_nacs() {
    let m = sample_model();
    let (movie, person, title) = (label(m, "Movie"), label(m, "Person"), label(m, "Title"));
    let mut credits = 0;
    let mut not_acting = BTreeSet::new();
    let mut never_acted = BTreeSet::new();
    for &d in m.nodes_with_label(person) {
        let directed: Vec<u32> = out_of(m, d, &["DIRECTOR"])
            .into_iter()
            .filter(|&t| m.has_label(t, movie))
            .collect();
        let acted = out_of(m, d, ACTING);
        for &t in &directed {
            if !acted.contains(&t) {
                credits += 1;
                not_acting.insert(d);
            }
        }
        if !directed.is_empty() && !acted.iter().any(|&t| m.has_label(t, title)) {
            never_acted.insert(d);
        }
    }
    assert!(credits > 0 && !never_acted.is_empty());
    assert_eq!(
        query_rows("directors-not-acting.cypher", &Params::new()),
        vec![vec![credits.to_string(), not_acting.len().to_string()]]
    );
    assert_eq!(
        query_rows("directors-never-acted.cypher", &Params::new()),
        vec![vec![never_acted.len().to_string()]]
    );
}

#[test]
fn top_rated_recent_movies_with_a_parameter() {
    let m = sample_model();
    let movie = label(m, "Movie");
    let num = |n: u32, p: &str| match m.node_property(n, p) {
        ValueRef::Int(i) => Some(i as f64),
        ValueRef::Float(f) => Some(f),
        _ => None,
    };
    let mut want: Vec<(i64, String, i64)> = Vec::new();
    for &t in m.nodes_with_label(movie) {
        let (Some(y), Some(r), Some(v)) = (
            num(t, "startYear"),
            num(t, "averageRating"),
            num(t, "numVotes"),
        ) else {
            continue;
        };
        if y >= 2000.0 && r >= 8.0 && v > 100.0 {
            want.push((
                (-r * 10.0).round() as i64,
                name(m, t, "primaryTitle"),
                y as i64,
            ));
        }
    }
    want.sort();
    want.truncate(20);
    let want: Vec<Vec<String>> = want
        .into_iter()
        .map(|(r, t, y)| vec![t, y.to_string(), Val::Float(-r as f64 / 10.0).to_string()])
        .collect();
    let mut params = Params::new();
    params.insert("year".into(), gemp::model::Value::Int(2000).into());
    assert_eq!(query_rows("top-rated-recent.cypher", &params), want);
}
