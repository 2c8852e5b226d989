//! Loader tests for the old IMDb plain-text lists, on tiny hand-written files.

use std::io::Write;
use std::path::{Path, PathBuf};

use gemp::io::imdb_lists::{self, detect_file, ListFile};
use gemp::io::{LoadOptions, LoadReport};
use gemp::model::{Model, ValueRef};
use gemp::Error;
use proptest::prelude::*;

const PREAMBLE: &str = "CRC: 0x1234  File: x.list  Date: Fri Dec 23 00:00:00 2016\n\
\n\
Copyright 1990-2016 The Internet Movie Database, Inc.  All rights reserved.\n\
This file mentions THE ACTORS LIST and MOVIES LIST in running text.\n\
\n\
-----------------------------------------------------------------------------\n\
\n";

const FOOTER: &str =
    "\n-----------------------------------------------------------------------------\n\
\n\
SUBMITTING UPDATES\n\
==================\n\
Ignored, Person\t\tIgnored Title (2000)\n\
\t\t\tnot a title at all\n";

fn person_file(header: &str, body: &str) -> String {
    let underline = "=".repeat(header.len());
    format!("{PREAMBLE}{header}\n{underline}\n\nName\t\t\tTitles\n----\t\t\t------\n{body}{FOOTER}")
}

fn actors(body: &str) -> String {
    person_file("THE ACTORS LIST", body)
}

fn movies(body: &str) -> String {
    format!("{PREAMBLE}MOVIES LIST\n===========\n\n{body}\n--------------------------------------------------------------------------------\n")
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

fn load(paths: &[PathBuf]) -> (Model, LoadReport) {
    imdb_lists::load(paths, &LoadOptions::default()).unwrap()
}

fn node(m: &Model, key: &str) -> u32 {
    m.node_by_key(key)
        .unwrap_or_else(|| panic!("no node {key}"))
}

fn labels(m: &Model, n: u32) -> Vec<String> {
    let mut v: Vec<String> = m
        .node_labels(n)
        .iter()
        .map(|&l| m.labels().name(l).unwrap().to_owned())
        .collect();
    v.sort();
    v
}

/// Outgoing edges of `n` as (type, target key, edge id), sorted by type and key.
fn out_edges(m: &Model, n: u32) -> Vec<(String, String, u32)> {
    let mut v: Vec<(String, String, u32)> = m
        .out()
        .range(n)
        .map(|e| {
            let (t, ty) = m.edge_target(e as u32).unwrap();
            (
                m.rel_types().name(ty).unwrap().to_owned(),
                m.node_key(t).unwrap().to_owned(),
                e as u32,
            )
        })
        .collect();
    v.sort();
    v
}

/// The single edge of type `ty` from `src` to `dst` (by key).
fn edge(m: &Model, src: &str, ty: &str, dst: &str) -> u32 {
    let found: Vec<u32> = out_edges(m, node(m, src))
        .into_iter()
        .filter(|(t, k, _)| t == ty && k == dst)
        .map(|(_, _, e)| e)
        .collect();
    assert_eq!(found.len(), 1, "{src} -{ty}-> {dst}: {found:?}");
    found[0]
}

fn s(v: &str) -> ValueRef<'_> {
    ValueRef::Str(v)
}

const SNL_EP: &str = "title:\"Saturday Night Live\" (1975) {Tom Hanks/Aerosmith (#13.11)}";
const SNL: &str = "title:\"Saturday Night Live\" (1975)";

#[test]
fn actors_list_nodes_edges_and_properties() {
    let dir = tempfile::tempdir().unwrap();
    let body = "Hanks, Tom\t\tApollo 13 (1995)  [Jim Lovell]  <1>\n\
\t\t\tBig (1988)  [Josh]  <1>\n\
\t\t\t\"Saturday Night Live\" (1975) {Tom Hanks/Aerosmith (#13.11)}  [Himself - Host]\n\
\n\
Bacon, Kevin (I)\tApollo 13 (1995)  [Jack Swigert]  <3>\n\
\t\t\tToy Story (1995)  (voice)  (uncredited)\n";
    let p = write(dir.path(), "actors.list", actors(body));
    let (m, report) = load(std::slice::from_ref(&p));

    assert_eq!(m.node_count(), 7);
    assert_eq!(m.edge_count(), 6);
    assert_eq!(report.files.len(), 1);
    assert_eq!(report.files[0].file, p);
    assert_eq!(report.files[0].rows, 5);
    assert_eq!(report.malformed_count(), 0);
    assert_eq!(report.dangling_nodes, 0);

    let tom = node(&m, "name:Hanks, Tom");
    assert_eq!(labels(&m, tom), ["Person"]);
    assert_eq!(m.node_property(tom, "primaryName"), s("Tom Hanks"));
    assert_eq!(m.node_property(tom, "listName"), s("Hanks, Tom"));
    let kevin = node(&m, "name:Bacon, Kevin (I)");
    assert_eq!(m.node_property(kevin, "primaryName"), s("Kevin Bacon"));
    assert_eq!(m.node_property(kevin, "listName"), s("Bacon, Kevin (I)"));

    let apollo = node(&m, "title:Apollo 13 (1995)");
    assert_eq!(labels(&m, apollo), ["Movie", "Title"]);
    assert_eq!(m.node_property(apollo, "primaryTitle"), s("Apollo 13"));
    assert_eq!(m.node_property(apollo, "startYear"), ValueRef::Int(1995));
    assert_eq!(m.node_property(apollo, "endYear"), ValueRef::Null);
    let big = node(&m, "title:Big (1988)");
    assert_eq!(m.node_property(big, "startYear"), ValueRef::Int(1988));

    let ep = node(&m, SNL_EP);
    assert_eq!(labels(&m, ep), ["Title", "TvEpisode"]);
    assert_eq!(
        m.node_property(ep, "primaryTitle"),
        s("Tom Hanks/Aerosmith")
    );
    assert_eq!(m.node_property(ep, "seasonNumber"), ValueRef::Int(13));
    assert_eq!(m.node_property(ep, "episodeNumber"), ValueRef::Int(11));
    assert_eq!(m.node_property(ep, "startYear"), ValueRef::Null);
    let series = node(&m, SNL);
    assert_eq!(labels(&m, series), ["Title", "TvSeries"]);
    assert_eq!(
        m.node_property(series, "primaryTitle"),
        s("Saturday Night Live")
    );
    assert_eq!(m.node_property(series, "startYear"), ValueRef::Int(1975));
    assert_eq!(
        out_edges(&m, ep)
            .into_iter()
            .map(|(t, k, _)| (t, k))
            .collect::<Vec<_>>(),
        [("EPISODE_OF".to_owned(), SNL.to_owned())]
    );
    assert!(out_edges(&m, series).is_empty());

    let tom_edges: Vec<(String, String)> = out_edges(&m, tom)
        .into_iter()
        .map(|(t, k, _)| (t, k))
        .collect();
    assert_eq!(
        tom_edges,
        [
            ("ACTOR".to_owned(), SNL_EP.to_owned()),
            ("ACTOR".to_owned(), "title:Apollo 13 (1995)".to_owned()),
            ("ACTOR".to_owned(), "title:Big (1988)".to_owned()),
        ]
    );
    let e = edge(&m, "name:Hanks, Tom", "ACTOR", "title:Apollo 13 (1995)");
    assert_eq!(m.edge_property(e, "characters"), s("Jim Lovell"));
    assert_eq!(m.edge_property(e, "ordering"), ValueRef::Int(1));
    assert_eq!(m.edge_property(e, "attributes"), ValueRef::Null);
    assert_eq!(m.edge_property(e, "job"), ValueRef::Null);
    let e = edge(&m, "name:Hanks, Tom", "ACTOR", SNL_EP);
    assert_eq!(m.edge_property(e, "characters"), s("Himself - Host"));
    assert_eq!(m.edge_property(e, "ordering"), ValueRef::Null);
    let e = edge(
        &m,
        "name:Bacon, Kevin (I)",
        "ACTOR",
        "title:Apollo 13 (1995)",
    );
    assert_eq!(m.edge_property(e, "characters"), s("Jack Swigert"));
    assert_eq!(m.edge_property(e, "ordering"), ValueRef::Int(3));
    let e = edge(
        &m,
        "name:Bacon, Kevin (I)",
        "ACTOR",
        "title:Toy Story (1995)",
    );
    assert_eq!(m.edge_property(e, "characters"), ValueRef::Null);
    assert_eq!(m.edge_property(e, "attributes"), s("(voice) (uncredited)"));

    // Nothing from the preamble or the footer.
    assert_eq!(m.node_by_key("name:Ignored, Person"), None);
    assert_eq!(m.node_by_key("title:Ignored Title (2000)"), None);
}

#[test]
fn crew_lists_jobs_and_shared_people() {
    let dir = tempfile::tempdir().unwrap();
    let d = write(
        dir.path(),
        "directors.list",
        person_file(
            "THE DIRECTORS LIST",
            "Hanks, Tom\t\tThat Thing You Do! (1996)\n\t\t\tLarry Crowne (2011)  (as Tom Hanks)\n",
        ),
    );
    let p = write(
        dir.path(),
        "producers.list",
        person_file(
            "THE PRODUCERS LIST",
            "Hanks, Tom\t\t\"Band of Brothers\" (2001) (mini)  (executive producer)\n\
\t\t\tBig (1988)  (producer)  (uncredited)\n\
\t\t\tBig (1988)  (co-producer)\n",
        ),
    );
    let w = write(
        dir.path(),
        "writers.list",
        person_file(
            "THE WRITERS LIST",
            "Hanks, Tom\t\tLarry Crowne (2011)  (written by)  <1,1,1>\n",
        ),
    );
    let a = write(
        dir.path(),
        "actresses.list",
        person_file(
            "THE ACTRESSES LIST",
            "Ryan, Meg\t\tSleepless in Seattle (1993)  [Annie Reed]  <2>\n",
        ),
    );
    let (m, report) = load(&[d, p, w, a]);
    let order: Vec<&str> = report
        .files
        .iter()
        .map(|f| f.file.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "actresses.list",
            "directors.list",
            "producers.list",
            "writers.list"
        ]
    );
    assert_eq!(
        report.files.iter().map(|f| f.rows).collect::<Vec<_>>(),
        [1, 2, 3, 1]
    );
    assert_eq!(report.malformed_count(), 0);

    // Tom Hanks is one node for all lists; 2 people and 5 titles.
    assert_eq!(m.node_count(), 7);
    assert_eq!(m.edge_count(), 7);
    let tom = node(&m, "name:Hanks, Tom");
    let types: Vec<String> = out_edges(&m, tom).into_iter().map(|(t, _, _)| t).collect();
    assert_eq!(
        types,
        ["DIRECTOR", "DIRECTOR", "PRODUCER", "PRODUCER", "PRODUCER", "WRITER"]
    );

    let e = edge(
        &m,
        "name:Hanks, Tom",
        "DIRECTOR",
        "title:That Thing You Do! (1996)",
    );
    assert_eq!(m.edge_property(e, "job"), ValueRef::Null);
    assert_eq!(m.edge_property(e, "attributes"), ValueRef::Null);
    let e = edge(
        &m,
        "name:Hanks, Tom",
        "DIRECTOR",
        "title:Larry Crowne (2011)",
    );
    assert_eq!(m.edge_property(e, "attributes"), s("(as Tom Hanks)"));
    assert_eq!(m.edge_property(e, "job"), ValueRef::Null);
    let e = edge(
        &m,
        "name:Hanks, Tom",
        "PRODUCER",
        "title:\"Band of Brothers\" (2001) (mini)",
    );
    assert_eq!(m.edge_property(e, "job"), s("executive producer"));
    let bob = node(&m, "title:\"Band of Brothers\" (2001) (mini)");
    assert_eq!(labels(&m, bob), ["Title", "TvMiniSeries"]);
    assert_eq!(m.node_property(bob, "primaryTitle"), s("Band of Brothers"));
    let big = node(&m, "title:Big (1988)");
    let mut jobs: Vec<(String, String)> = out_edges(&m, tom)
        .into_iter()
        .filter(|(_, k, _)| k == "title:Big (1988)")
        .map(|(_, _, e)| {
            (
                m.edge_property(e, "job").to_string(),
                m.edge_property(e, "attributes").to_string(),
            )
        })
        .collect();
    jobs.sort();
    assert_eq!(
        jobs,
        [
            ("co-producer".to_owned(), "null".to_owned()),
            ("producer".to_owned(), "(uncredited)".to_owned())
        ]
    );
    assert_eq!(m.inc().degree(big), 2);
    let e = edge(&m, "name:Hanks, Tom", "WRITER", "title:Larry Crowne (2011)");
    assert_eq!(m.edge_property(e, "job"), s("written by"));
    assert_eq!(m.edge_property(e, "ordering"), ValueRef::Int(1));
    let e = edge(
        &m,
        "name:Ryan, Meg",
        "ACTRESS",
        "title:Sleepless in Seattle (1993)",
    );
    assert_eq!(m.edge_property(e, "characters"), s("Annie Reed"));
    assert_eq!(m.edge_property(e, "ordering"), ValueRef::Int(2));
    assert_eq!(
        m.node_property(node(&m, "name:Ryan, Meg"), "primaryName"),
        s("Meg Ryan")
    );
}

const MOVIES_BODY: &str = "\"!Next?\" (1994)\t\t\t\t\t1994-1995\n\
\"#1 Single\" (2006)\t\t\t\t2006-????\n\
\"#1 Single\" (2006) {Cats and Dogs (#1.4)}\t\t2006\n\
\"Lost Show\" (2005) {{SUSPENDED}}\t\t\t2005\n\
Apollo 13 (1995)\t\t\t\t1995\n\
Crash (2004/I)\t\t\t\t\t2004\n\
Crash (2004/II)\t\t\t\t\t2004\n\
Home Video (2003) (V)\t\t\t\t2003\n\
Game (2010) (VG)\t\t\t\t2010\n\
TV Film (1999) (TV)\t\t\t\t1999\n\
Unknown (????)\t\t\t\t\t????\n";

#[test]
fn movies_list_titles_years_and_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "movies.list", movies(MOVIES_BODY));
    let (m, report) = load(&[p]);
    assert_eq!(report.files[0].rows, 11);
    assert_eq!(report.malformed_count(), 0);
    assert_eq!(m.node_count(), 11);
    assert_eq!(m.edge_count(), 1);

    let next = node(&m, "title:\"!Next?\" (1994)");
    assert_eq!(labels(&m, next), ["Title", "TvSeries"]);
    assert_eq!(m.node_property(next, "primaryTitle"), s("!Next?"));
    assert_eq!(m.node_property(next, "startYear"), ValueRef::Int(1994));
    assert_eq!(m.node_property(next, "endYear"), ValueRef::Int(1995));
    let single = node(&m, "title:\"#1 Single\" (2006)");
    assert_eq!(m.node_property(single, "startYear"), ValueRef::Int(2006));
    assert_eq!(m.node_property(single, "endYear"), ValueRef::Null);
    let ep = node(&m, "title:\"#1 Single\" (2006) {Cats and Dogs (#1.4)}");
    assert_eq!(labels(&m, ep), ["Title", "TvEpisode"]);
    assert_eq!(m.node_property(ep, "primaryTitle"), s("Cats and Dogs"));
    assert_eq!(m.node_property(ep, "startYear"), ValueRef::Int(2006));
    assert_eq!(m.node_property(ep, "seasonNumber"), ValueRef::Int(1));
    assert_eq!(m.node_property(ep, "episodeNumber"), ValueRef::Int(4));
    assert_eq!(
        out_edges(&m, ep)
            .into_iter()
            .map(|(t, k, _)| (t, k))
            .collect::<Vec<_>>(),
        [(
            "EPISODE_OF".to_owned(),
            "title:\"#1 Single\" (2006)".to_owned()
        )]
    );
    let lost = node(&m, "title:\"Lost Show\" (2005) {{SUSPENDED}}");
    assert_eq!(labels(&m, lost), ["Title", "TvSeries"]);
    assert_eq!(m.node_property(lost, "suspended"), ValueRef::Bool(true));
    assert_eq!(m.node_property(lost, "primaryTitle"), s("Lost Show"));
    assert_eq!(m.node_property(next, "suspended"), ValueRef::Null);

    let c1 = node(&m, "title:Crash (2004/I)");
    let c2 = node(&m, "title:Crash (2004/II)");
    assert_ne!(c1, c2);
    assert_eq!(m.node_property(c2, "primaryTitle"), s("Crash"));
    assert_eq!(m.node_property(c2, "startYear"), ValueRef::Int(2004));
    for (key, kind) in [
        ("title:Apollo 13 (1995)", "Movie"),
        ("title:Home Video (2003) (V)", "Video"),
        ("title:Game (2010) (VG)", "VideoGame"),
        ("title:TV Film (1999) (TV)", "TvMovie"),
        ("title:Unknown (????)", "Movie"),
    ] {
        let mut expected = vec![kind.to_owned(), "Title".to_owned()];
        expected.sort();
        assert_eq!(labels(&m, node(&m, key)), expected, "{key}");
    }
    let tv = node(&m, "title:TV Film (1999) (TV)");
    assert_eq!(m.node_property(tv, "primaryTitle"), s("TV Film"));
    assert_eq!(m.node_property(tv, "startYear"), ValueRef::Int(1999));
    let unknown = node(&m, "title:Unknown (????)");
    assert_eq!(m.node_property(unknown, "startYear"), ValueRef::Null);
}

#[test]
fn person_lists_reuse_and_create_titles() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "actors.list",
        actors(
            "Hanks, Tom\t\tApollo 13 (1995)  [Jim Lovell]  <1>\n\
\t\t\t\"#1 Single\" (2006) {Cats and Dogs (#1.4)}  [Himself]\n\
\t\t\t\"#1 Single\" (2006) {New One (#1.5)}  [Himself]\n\
\t\t\tNot Listed (2001) (TV)\n",
        ),
    );
    let mv = write(dir.path(), "movies.list", movies(MOVIES_BODY));
    // Given actors first: movies.list is still loaded first.
    let (m, report) = load(&[a, mv]);
    let names: Vec<String> = report
        .files
        .iter()
        .map(|f| f.file.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["movies.list", "actors.list"]);
    assert_eq!(report.dangling_nodes, 0);
    // 11 titles + the new episode + Not Listed + Tom.
    assert_eq!(m.node_count(), 14);
    assert_eq!(m.edge_count(), 1 + 1 + 4);

    let apollo = node(&m, "title:Apollo 13 (1995)");
    assert_eq!(m.inc().degree(apollo), 1);
    let ep = node(&m, "title:\"#1 Single\" (2006) {Cats and Dogs (#1.4)}");
    // startYear from movies.list is kept (an episode's title year is the series' year).
    assert_eq!(m.node_property(ep, "startYear"), ValueRef::Int(2006));
    let new_ep = node(&m, "title:\"#1 Single\" (2006) {New One (#1.5)}");
    assert_eq!(labels(&m, new_ep), ["Title", "TvEpisode"]);
    assert_eq!(m.node_property(new_ep, "startYear"), ValueRef::Null);
    assert_eq!(m.node_property(new_ep, "episodeNumber"), ValueRef::Int(5));
    let series = node(&m, "title:\"#1 Single\" (2006)");
    assert_eq!(m.inc().degree(series), 2);
    assert_eq!(m.node_property(series, "endYear"), ValueRef::Null);
    let nl = node(&m, "title:Not Listed (2001) (TV)");
    assert_eq!(labels(&m, nl), ["Title", "TvMovie"]);
    assert_eq!(m.node_property(nl, "startYear"), ValueRef::Int(2001));
    assert_eq!(m.node_property(nl, "primaryTitle"), s("Not Listed"));
}

#[test]
fn ratings_report_only() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{PREAMBLE}TOP 250 MOVIES (25000+ VOTES)\n\
\n\
New  Distribution  Votes  Rank  Title\n\
      0000000125  1000   9.9  Apollo 13 (1995)\n\
\n\
BOTTOM 10 MOVIES (1500+ VOTES)\n\
\n\
New  Distribution  Votes  Rank  Title\n\
      3000000014  4102   1.0  Bad Film (2000)\n\
\n\
MOVIE RATINGS REPORT\n\
\n\
New  Distribution  Votes  Rank  Title\n\
      0000000125  1735921   9.2  The Shawshank Redemption (1994)\n\
  *   0000001222     500   7.5  Apollo 13 (1995)\n\
      0000000125  many   9.2  Broken (1994)\n\
      ..00.1.2*1      12   5.0  \"S\" (2001) {{E (#1.1)}}\n\
\n\
REPORT FORMAT\n\
-------------\n\
      0000000125  77   1.0  Footer Film (2000)\n"
    );
    let broken_line = text.lines().position(|l| l.contains("Broken")).unwrap() as u64 + 1;
    assert_eq!(broken_line, 23);
    let p = write(dir.path(), "ratings.list", text);
    let (m, report) = load(std::slice::from_ref(&p));
    assert_eq!(report.files[0].rows, 4);
    assert_eq!(report.malformed_count(), 1);
    assert_eq!(report.malformed[0].file, p);
    assert_eq!(report.malformed[0].line, 23);
    assert!(
        report.malformed[0].message.contains("vote count"),
        "{}",
        report.malformed[0].message
    );
    assert_eq!(m.node_by_key("title:Bad Film (2000)"), None);
    assert_eq!(m.node_by_key("title:Footer Film (2000)"), None);
    assert_eq!(m.node_by_key("title:Broken (1994)"), None);
    // Shawshank, Apollo, episode and its series.
    assert_eq!(m.node_count(), 4);

    let apollo = node(&m, "title:Apollo 13 (1995)");
    assert_eq!(m.node_property(apollo, "numVotes"), ValueRef::Int(500));
    assert_eq!(
        m.node_property(apollo, "averageRating"),
        ValueRef::Float(7.5)
    );
    assert_eq!(
        m.node_property(apollo, "votesDistribution"),
        s("0000001222")
    );
    assert_eq!(labels(&m, apollo), ["Movie", "Title"]);
    let shaw = node(&m, "title:The Shawshank Redemption (1994)");
    assert_eq!(m.node_property(shaw, "numVotes"), ValueRef::Int(1735921));
    assert_eq!(m.node_property(shaw, "averageRating"), ValueRef::Float(9.2));
    assert_eq!(m.node_property(shaw, "startYear"), ValueRef::Int(1994));
    let ep = node(&m, "title:\"S\" (2001) {E (#1.1)}");
    assert_eq!(m.node_property(ep, "votesDistribution"), s("..00.1.2*1"));
    assert_eq!(m.node_property(ep, "numVotes"), ValueRef::Int(12));
    let series = node(&m, "title:\"S\" (2001)");
    assert_eq!(m.node_property(series, "numVotes"), ValueRef::Null);
}

#[test]
fn latin1_and_utf8_decode_to_the_same_nodes() {
    let dir = tempfile::tempdir().unwrap();
    // The body with raw Latin-1 bytes (0xE9 = é), inside an ASCII preamble and footer.
    let body: &[u8] = b"D\xe9pardieu, G\xe9rard\t\tCyrano de Bergerac (1990)  [Cyrano]  <1>\n\
\t\t\tLes Mis\xe9rables (2000) (TV)  [Jean Valjean]\n";
    let text = actors("@BODY@");
    let (before, after) = text.split_once("@BODY@").unwrap();
    let mut latin1 = before.as_bytes().to_vec();
    latin1.extend_from_slice(body);
    latin1.extend_from_slice(after.as_bytes());
    let a = write(dir.path(), "actors.list", &latin1);
    let f = write(
        dir.path(),
        "actresses.list",
        person_file(
            "THE ACTRESSES LIST",
            "Binoche, Juliette\t\tLes Misérables (2000) (TV)  [Fantine]\n\
Björk\t\tDancer in the Dark (2000)  [Selma Ježková]\n",
        ),
    );
    let (m, report) = load(&[a, f]);
    assert_eq!(report.malformed_count(), 0);
    let g = node(&m, "name:Dépardieu, Gérard");
    assert_eq!(m.node_property(g, "primaryName"), s("Gérard Dépardieu"));
    assert_eq!(m.node_property(g, "listName"), s("Dépardieu, Gérard"));
    let mis = node(&m, "title:Les Misérables (2000) (TV)");
    assert_eq!(m.node_property(mis, "primaryTitle"), s("Les Misérables"));
    assert_eq!(m.inc().degree(mis), 2);
    let b = node(&m, "name:Björk");
    assert_eq!(m.node_property(b, "primaryName"), s("Björk"));
    let e = edge(
        &m,
        "name:Björk",
        "ACTRESS",
        "title:Dancer in the Dark (2000)",
    );
    assert_eq!(m.edge_property(e, "characters"), s("Selma Ježková"));
    assert_eq!(m.node_count(), 6);
}

#[test]
fn gzip_and_crlf() {
    let dir = tempfile::tempdir().unwrap();
    let text = actors("Hanks, Tom\t\tApollo 13 (1995)  [Jim Lovell]  <1>\n\t\t\tBig (1988)\n")
        .replace('\n', "\r\n");
    let path = dir.path().join("actors.list.gz");
    let file = std::fs::File::create(&path).unwrap();
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap();
    assert_eq!(detect_file(&path), Some(ListFile::Actors));
    let (m, report) = load(&[path]);
    assert_eq!(report.files[0].rows, 2);
    assert_eq!(report.malformed_count(), 0);
    assert_eq!(m.node_count(), 3);
    let tom = node(&m, "name:Hanks, Tom");
    assert_eq!(m.node_property(tom, "listName"), s("Hanks, Tom"));
    let e = edge(&m, "name:Hanks, Tom", "ACTOR", "title:Apollo 13 (1995)");
    assert_eq!(m.edge_property(e, "ordering"), ValueRef::Int(1));
    assert!(m.node_by_key("title:Big (1988)").is_some());
}

/// The body below starts at line 13 of the file (after preamble and header).
const BAD_BODY: &str = "No Tab In This Line\n\
\t\t\tOrphan (2000)\n\
Good, Person\t\tBroken Title 1995  [X]\n\
\t\t\tGood Title (2000)  [Y]\n\
\n\
\t\t\tAfter Blank (2001)\n\
Other, Person\t\tEpisode Without Series (2001) {Ep}\n";

#[test]
fn malformed_lines_are_counted_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let text = actors(BAD_BODY);
    let first_body_line = text
        .lines()
        .position(|l| l == "No Tab In This Line")
        .unwrap() as u64
        + 1;
    assert_eq!(first_body_line, 13);
    let p = write(dir.path(), "actors.list", &text);
    let (m, report) = load(std::slice::from_ref(&p));
    assert_eq!(report.files[0].rows, 6);
    assert_eq!(report.files[0].malformed, 5);
    let lines: Vec<u64> = report.malformed.iter().map(|b| b.line).collect();
    assert_eq!(lines, [13, 14, 15, 18, 19]);
    assert!(report.malformed.iter().all(|b| b.file == p));
    assert!(
        report.malformed[0].message.contains("Name<TAB>Title"),
        "{}",
        report.malformed[0].message
    );
    assert!(report.malformed[1].message.contains("without a person"));
    assert!(
        report.malformed[2].message.contains("Broken Title 1995"),
        "{}",
        report.malformed[2].message
    );
    assert!(
        report.malformed[4].message.contains("episode"),
        "{}",
        report.malformed[4].message
    );
    // The good title line attaches to the person of the line with the bad title.
    assert_eq!(m.node_count(), 2);
    let e = edge(&m, "name:Good, Person", "ACTOR", "title:Good Title (2000)");
    assert_eq!(m.edge_property(e, "characters"), s("Y"));
    assert_eq!(m.node_by_key("name:Other, Person"), None);

    // max_reported limits the kept messages, not the count.
    let options = LoadOptions {
        strict: false,
        max_reported: 2,
        ..Default::default()
    };
    let (_, report) = imdb_lists::load(&[p], &options).unwrap();
    assert_eq!(report.malformed.len(), 2);
    assert_eq!(report.malformed_count(), 5);
}

#[test]
fn strict_mode_fails_on_the_first_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "actors.list", actors(BAD_BODY));
    let options = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    match imdb_lists::load(std::slice::from_ref(&p), &options) {
        Err(Error::Parse { location, message }) => {
            assert_eq!(location.file.as_deref(), Some(p.as_path()));
            assert_eq!(location.line, 13);
            assert!(message.contains("Name<TAB>Title"), "{message}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
    let m = write(
        dir.path(),
        "movies.list",
        movies("Good (2000)\t2000\nBad (2000)\t20x0\n"),
    );
    match imdb_lists::load(&[m], &options) {
        Err(Error::Parse { location, message }) => {
            assert_eq!(location.line, 12);
            assert!(message.contains("20x0"), "{message}");
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

fn bad_file_message(paths: &[PathBuf]) -> (PathBuf, String) {
    match imdb_lists::load(paths, &LoadOptions::default()) {
        Err(Error::BadFile { path, message }) => (path, message),
        other => panic!("expected BadFile, got {other:?}"),
    }
}

#[test]
fn missing_header_and_empty_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "actors.list", "Hanks, Tom\t\tBig (1988)\n");
    let (path, message) = bad_file_message(std::slice::from_ref(&p));
    assert_eq!(path, p);
    assert!(message.contains("`THE ACTORS LIST`"), "{message}");
    assert!(message.contains("actors.list"), "{message}");
    let display = imdb_lists::load(std::slice::from_ref(&p), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(display.contains(&p.display().to_string()), "{display}");

    // A movies list under the name of an actresses list.
    let p = write(dir.path(), "actresses.list", movies(MOVIES_BODY));
    let (_, message) = bad_file_message(&[p]);
    assert!(message.contains("`THE ACTRESSES LIST`"), "{message}");

    let p = write(dir.path(), "ratings.list", "");
    let (path, message) = bad_file_message(std::slice::from_ref(&p));
    assert_eq!(path, p);
    assert!(message.contains("empty"), "{message}");

    // A header without entries is a valid, empty list.
    let p = write(
        dir.path(),
        "writers.list",
        person_file("THE WRITERS LIST", ""),
    );
    let (m, report) = load(&[p]);
    assert_eq!(m.node_count(), 0);
    assert_eq!(report.files[0].rows, 0);
}

#[test]
fn file_names_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "people.txt", actors(""));
    let (path, message) = bad_file_message(std::slice::from_ref(&p));
    assert_eq!(path, p);
    assert!(message.contains("actors.list"), "{message}");

    assert!(matches!(
        imdb_lists::load(&[], &LoadOptions::default()),
        Err(Error::InvalidArgument(_))
    ));

    let empty = tempfile::tempdir().unwrap();
    write(empty.path(), "README.txt", "nothing here");
    let (path, _) = bad_file_message(&[empty.path().to_path_buf()]);
    assert_eq!(path, empty.path());

    write(dir.path(), "movies.list", movies(MOVIES_BODY));
    write(
        dir.path(),
        "actors.list",
        actors("Hanks, Tom\t\tApollo 13 (1995)\n"),
    );
    // The compressed duplicate is skipped in favour of actors.list.
    let gz = std::fs::File::create(dir.path().join("actors.list.gz")).unwrap();
    let mut enc = flate2::write::GzEncoder::new(gz, flate2::Compression::default());
    enc.write_all(actors("Other, Actor\t\tBig (1988)\n").as_bytes())
        .unwrap();
    enc.finish().unwrap();
    let files = imdb_lists::resolve_files(&[dir.path().to_path_buf()]).unwrap();
    let names: Vec<(ListFile, String)> = files
        .iter()
        .map(|(k, p)| (*k, p.file_name().unwrap().to_string_lossy().into_owned()))
        .collect();
    assert_eq!(
        names,
        [
            (ListFile::Movies, "movies.list".to_owned()),
            (ListFile::Actors, "actors.list".to_owned())
        ]
    );
    let (m, report) = load(&[dir.path().to_path_buf()]);
    assert_eq!(report.files.len(), 2);
    assert_eq!(m.node_count(), 12);
    assert!(m.node_by_key("name:Other, Actor").is_none());
    let e = edge(&m, "name:Hanks, Tom", "ACTOR", "title:Apollo 13 (1995)");
    assert_eq!(m.edge_property(e, "characters"), ValueRef::Null);
}

#[test]
fn load_into_an_existing_builder() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "actors.list",
        actors("Hanks, Tom\t\tBig (1988)\n"),
    );
    let mut b = gemp::model::ModelBuilder::new();
    b.add_node("other", &["Thing"]);
    let mut report = LoadReport::default();
    imdb_lists::load_into(&mut b, &[p], &LoadOptions::default(), &mut report).unwrap();
    let m = b.freeze().unwrap();
    assert_eq!(m.node_count(), 3);
    assert!(m.node_by_key("other").is_some());
    assert_eq!(report.files[0].rows, 1);
}

fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..60),
        "[A-Za-z ,\t\"(){}\\[\\]<>#.?/*0-9IV-]{0,60}".prop_map(String::into_bytes),
        "(\t\t)?[A-Z][a-z]{0,5}, [A-Z][a-z]{0,5}\t\t\"?[A-Z][a-z]{0,5}\"? \\((19[0-9]{2}|\\?\\?\\?\\?)(/I)?\\)( \\(TV\\))?( \\{[a-z (#0-9.)]{0,12}\\})?(  \\[[a-z]{0,4}\\])?(  <[0-9]{1,3}>)?"
            .prop_map(String::into_bytes),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_lines_never_panic(lines in proptest::collection::vec(line_strategy(), 0..12), which in 0usize..3) {
        let dir = tempfile::tempdir().unwrap();
        let (name, header) = [
            ("actors.list", "THE ACTORS LIST\n===============\n\n"),
            ("movies.list", "MOVIES LIST\n===========\n\n"),
            ("ratings.list", "MOVIE RATINGS REPORT\n\n"),
        ][which];
        let mut content = header.as_bytes().to_vec();
        for l in &lines {
            content.extend_from_slice(l);
            content.push(b'\n');
        }
        let p = write(dir.path(), name, &content);
        let (m, report) = imdb_lists::load(std::slice::from_ref(&p), &LoadOptions::default()).unwrap();
        prop_assert!(report.malformed_count() <= report.files[0].rows);
        let line_count = content.split(|&b| b == b'\n').count();
        prop_assert!(m.node_count() <= 3 * line_count);
        // Strict mode returns an error or a model, never panics.
        let strict = LoadOptions { strict: true, ..LoadOptions::default() };
        let _ = imdb_lists::load(&[p], &strict);
    }
}
